package wallet

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/certhub/credentiald/internal/apperr"
	"github.com/certhub/credentiald/internal/credentials"
	"github.com/certhub/credentiald/internal/store"
	"github.com/certhub/credentiald/internal/vc"
)

// OpenID for Verifiable Credential Issuance 1.0, pre-authorized code flow. Each account is a
// credential issuer and its own authorization server; the offer document grants a single-use
// pre-authorized code, the token endpoint trades it for an access token, the nonce endpoint
// issues c_nonces, and the credential endpoint answers the credential bound to the key the
// wallet proves (a proof JWT over a c_nonce, for this issuer).

// PreAuthorizedGrant is the grant type of the flow.
const PreAuthorizedGrant = "urn:ietf:params:oauth:grant-type:pre-authorized_code"

// The credential configurations an issuer offers: one credential, two formats.
const (
	ConfigLDP = "OpenBadgeCredential_ldp_vc"
	ConfigJWT = "OpenBadgeCredential_jwt_vc_json"
)

// OAuthError is an error as the OpenID4VCI and OAuth endpoints answer it ({error,
// error_description}), not in the service's envelope. Code is the protocol's (invalid_grant,
// invalid_token, invalid_proof, invalid_nonce...); the edge gives each its HTTP status.
type OAuthError struct {
	Code, Description string
}

func (e *OAuthError) Error() string { return e.Code + ": " + e.Description }

func oauthError(code, format string, args ...any) *OAuthError {
	return &OAuthError{Code: code, Description: fmt.Sprintf(format, args...)}
}

// issuerAccount checks that accountID names an account, and returns its name.
func (s *Service) issuerAccount(ctx context.Context, accountID uuid.UUID) (string, error) {
	a, err := s.store.FindAccountByID(ctx, accountID)
	if err != nil {
		return "", apperr.When(err, store.ErrNotFound, apperr.NoSuch("credential issuer"))
	}
	return a.Name, nil
}

// IssuerMetadata is the credential issuer metadata of an account (OpenID4VCI 1.0, 12.2).
func (s *Service) IssuerMetadata(ctx context.Context, accountID uuid.UUID) (map[string]any, error) {
	name, err := s.issuerAccount(ctx, accountID)
	if err != nil {
		return nil, err
	}
	issuer := s.IssuerID(accountID)
	binding := []string{"did:key", "did:jwk"}
	proofs := map[string]any{"jwt": map[string]any{"proof_signing_alg_values_supported": []string{"EdDSA", "ES256"}}}
	types := []string{"VerifiableCredential", "OpenBadgeCredential"}
	display := []map[string]any{{"name": "Open Badge", "locale": "en"}}
	return map[string]any{
		"credential_issuer":     issuer,
		"authorization_servers": []string{issuer},
		"credential_endpoint":   issuer + "/credential",
		"nonce_endpoint":        issuer + "/nonce",
		"token_endpoint":        issuer + "/token", // where wallets of earlier drafts look for it
		"display":               []map[string]any{{"name": name, "locale": "en"}},
		"credential_configurations_supported": map[string]any{
			ConfigLDP: map[string]any{
				"format":                "ldp_vc",
				"credential_definition": map[string]any{"@context": []string{vc.ContextCredentialsV2, vc.ContextOpenBadgesV3}, "type": types},
				"cryptographic_binding_methods_supported": binding,
				"credential_signing_alg_values_supported": []string{vc.Cryptosuite},
				"proof_types_supported":                   proofs,
				"display":                                 display,
			},
			ConfigJWT: map[string]any{
				"format":                "jwt_vc_json",
				"credential_definition": map[string]any{"type": types},
				"cryptographic_binding_methods_supported": binding,
				"credential_signing_alg_values_supported": []string{"EdDSA"},
				"proof_types_supported":                   proofs,
				"display":                                 display,
			},
		},
	}, nil
}

// AuthorizationServerMetadata is the issuer's OAuth authorization server metadata (RFC 8414):
// the pre-authorized code grant, without client authentication.
func (s *Service) AuthorizationServerMetadata(ctx context.Context, accountID uuid.UUID) (map[string]any, error) {
	if _, err := s.issuerAccount(ctx, accountID); err != nil {
		return nil, err
	}
	issuer := s.IssuerID(accountID)
	return map[string]any{
		"issuer":                issuer,
		"token_endpoint":        issuer + "/token",
		"grant_types_supported": []string{PreAuthorizedGrant},
		"pre-authorized_grant_anonymous_access_supported": true,
		"token_endpoint_auth_methods_supported":           []string{"none"},
		"response_types_supported":                        []string{},
	}, nil
}

// OfferDocument is the credential offer an offer's credentialOfferUri answers, with a fresh
// single-use pre-authorized code; 404 for an offer of another issuer, 410 for one gone.
func (s *Service) OfferDocument(ctx context.Context, accountID uuid.UUID, token string) (map[string]any, error) {
	o, err := s.live(ctx, token)
	if err != nil {
		return nil, err
	}
	if o.AccountID != accountID {
		return nil, apperr.NoSuch("wallet offer")
	}
	code, err := s.newSecret(ctx, "pre_authorized_code", o.AccountID, &o.ID, CodeValidity)
	if err != nil {
		return nil, err
	}
	return map[string]any{
		"credential_issuer":            s.IssuerID(accountID),
		"credential_configuration_ids": []string{ConfigLDP, ConfigJWT},
		"grants":                       map[string]any{PreAuthorizedGrant: map[string]any{"pre-authorized_code": code}},
	}, nil
}

// Token is what the token endpoint answers.
type Token struct {
	AccessToken string
	ExpiresIn   int
}

// TokenRequest is a token request as it reached the token endpoint: the grant's parameters,
// from its form-encoded body, and the parameters of its URL's query, which the grant's must
// not be among.
type TokenRequest struct {
	GrantType, PreAuthorizedCode string
	// Query holds the parameters of the request's URL query, each with every value sent.
	Query map[string][]string
}

// tokenRequestParameters are the parameters a token request of this grant may carry: the
// grant's own (OpenID4VCI 1.0, section 6.1: grant_type, pre-authorized_code, tx_code, and
// user_pin, tx_code's name in drafts before 13), what it may add (authorization_details, scope)
// and the client's authentication (RFC 6749, section 2.3.1). Each belongs in the body.
var tokenRequestParameters = []string{"grant_type", "pre-authorized_code", "tx_code", "user_pin", "authorization_details",
	"scope", "client_id", "client_secret", "client_assertion", "client_assertion_type"}

// RequestToken answers a token request: the pre-authorized code it carries traded as
// ExchangeCode trades it, provided that none of the request's parameters came in the URL's
// query. RFC 6749 sends them "in the HTTP request entity-body" (section 4.1.3, which
// OpenID4VCI 1.0, section 6.1, follows) and never in the request URI (section 2.3.1), where
// access logs and proxies keep them; a request that puts them there is invalid_request
// (section 5.2) before its code is looked at, so a code sent in a URL is not spent and the
// client learns where it belongs. Parameters sent without a value count as omitted (section
// 3.2), and the query's other parameters (a shared link's utm_source) are ignored, as the
// public routes ignore every parameter they do not know.
func (s *Service) RequestToken(ctx context.Context, accountID uuid.UUID, req TokenRequest) (Token, error) {
	var inQuery []string
	for _, name := range tokenRequestParameters {
		if slices.ContainsFunc(req.Query[name], func(v string) bool { return v != "" }) {
			inQuery = append(inQuery, name)
		}
	}
	if len(inQuery) > 0 {
		return Token{}, oauthError("invalid_request", "%s must be sent in the form-encoded request body, not in the URL's query (RFC 6749, sections 3.2 and 4.1.3)",
			strings.Join(inQuery, ", "))
	}
	return s.ExchangeCode(ctx, accountID, req.GrantType, req.PreAuthorizedCode)
}

// ExchangeCode trades a pre-authorized code of one of the issuer's live offers for an access
// token, once: invalid_grant for a code unknown, used, expired, another issuer's, or of an
// offer gone (claimed, expired, or whose credential was revoked or expired).
func (s *Service) ExchangeCode(ctx context.Context, accountID uuid.UUID, grantType, code string) (Token, error) {
	if grantType != PreAuthorizedGrant {
		return Token{}, oauthError("unsupported_grant_type", "only %s is supported", PreAuthorizedGrant)
	}
	if code == "" {
		return Token{}, oauthError("invalid_request", "pre-authorized_code is required")
	}
	unknown := oauthError("invalid_grant", "the pre-authorized code is unknown, used or expired")
	now := s.now()
	return store.InTx(ctx, s.store, func(tx *store.Tx) (Token, error) {
		// The code authorizes a claim of its offer and nothing else: the offer document hands
		// codes out only while the offer is live, but a code outlives that moment by up to
		// CodeValidity, and the offer may be claimed meanwhile (with another of its codes, or
		// over the VC API), expire, or lose its credential to a revocation or an expiry. Such
		// a code is a grant "invalid, expired, revoked" (RFC 6749, section 5.2; OpenID4VCI 1.0,
		// section 6.3): invalid_grant, saying why, and left as it was.
		o, err := tx.FindWalletOfferBySecret(ctx, digest(code), "pre_authorized_code", now)
		if errors.Is(err, store.ErrNotFound) || (err == nil && o.AccountID != accountID) {
			return Token{}, unknown
		} else if err != nil {
			return Token{}, err
		}
		if e, ok := apperr.As(stillLiveAt(o, now)); ok {
			return Token{}, oauthError("invalid_grant", "%s", e.Message)
		}
		// Spending is what makes the code single-use: of two requests with it, the second
		// waits for the first's row lock and then finds it used.
		if _, _, err := tx.SpendWalletSecret(ctx, digest(code), "pre_authorized_code", now); errors.Is(err, store.ErrNotFound) {
			return Token{}, unknown
		} else if err != nil {
			return Token{}, err
		}
		secret, err := randomToken()
		if err != nil {
			return Token{}, err
		}
		if err := tx.InsertWalletSecret(ctx, store.WalletSecret{Hash: digest(secret), Kind: "access_token", AccountID: o.AccountID,
			OfferID: &o.ID, ExpiresAt: now.Add(CodeValidity)}); err != nil {
			return Token{}, err
		}
		return Token{AccessToken: secret, ExpiresIn: int(CodeValidity / time.Second)}, nil
	})
}

// Nonce issues a c_nonce of the issuer, spent by the credential request whose proof carries it.
func (s *Service) Nonce(ctx context.Context, accountID uuid.UUID) (string, error) {
	if _, err := s.issuerAccount(ctx, accountID); err != nil {
		return "", err
	}
	return s.newSecret(ctx, "nonce", accountID, nil, NonceValidity)
}

// CredentialRequest is a credential request (OpenID4VCI 1.0, 8.2), with the single proof of
// earlier drafts also read.
type CredentialRequest struct {
	CredentialConfigurationID string `json:"credential_configuration_id"`
	Format                    string `json:"format"` // earlier drafts name the format instead
	Proofs                    *struct {
		JWT []string `json:"jwt"`
	} `json:"proofs"`
	Proof *struct {
		ProofType string `json:"proof_type"`
		JWT       string `json:"jwt"`
	} `json:"proof"`
}

// IssueCredential answers a credential request made with an access token of one of the
// issuer's offers: the offer's credential bound to the key the proof JWT proves, in the
// configuration's format. The access token and the proof's c_nonce are spent, and the offer
// claimed, together; a refused request spends nothing. The credential is as the response
// carries it: the signed JSON for ldp_vc (a json.RawMessage), the compact JWS for jwt_vc_json
// (a string).
func (s *Service) IssueCredential(ctx context.Context, accountID uuid.UUID, accessToken string, req CredentialRequest) (any, error) {
	// The access token first (RFC 6750): a request without a live one is invalid_token,
	// whatever its body says.
	o, err := s.offerOfAccessToken(ctx, accountID, accessToken)
	if err != nil {
		return nil, err
	}
	form, err := requestedForm(req)
	if err != nil {
		return nil, err
	}
	jwt, err := requestedProof(req)
	if err != nil {
		return nil, err
	}
	proof, err := VerifyProofJWT(jwt, s.IssuerID(accountID), s.now())
	if err != nil {
		return nil, oauthError("invalid_proof", "%s", strings.TrimPrefix(err.Error(), ErrInvalidProof.Error()+": "))
	}
	if proof.Nonce == "" {
		return nil, oauthError("invalid_nonce", "the proof carries no nonce: get one from the nonce endpoint")
	}
	signed, err := s.claim(ctx, o, proof.Holder, ProtocolOID4VCI, form, func(tx *store.Tx, now time.Time) error {
		account, _, err := tx.SpendWalletSecret(ctx, digest(proof.Nonce), "nonce", now)
		if errors.Is(err, store.ErrNotFound) || (err == nil && account != accountID) {
			return oauthError("invalid_nonce", "the proof's nonce is unknown, used or expired: get a fresh one from the nonce endpoint")
		} else if err != nil {
			return err
		}
		if _, _, err := tx.SpendWalletSecret(ctx, digest(accessToken), "access_token", now); errors.Is(err, store.ErrNotFound) {
			return oauthError("invalid_token", "the access token is unknown, used or expired")
		} else if err != nil {
			return err
		}
		return nil
	})
	if e, ok := apperr.As(err); ok && e.Code == apperr.OfferGone {
		return nil, oauthError("credential_request_denied", "%s", e.Message)
	} else if err != nil {
		return nil, err
	}
	if form == credentials.FormJWT {
		return string(signed), nil
	}
	return json.RawMessage(signed), nil
}

// offerOfAccessToken finds the live offer an unspent access token of the issuer was issued for.
func (s *Service) offerOfAccessToken(ctx context.Context, accountID uuid.UUID, accessToken string) (store.WalletOfferFound, error) {
	o, err := s.store.FindWalletOfferBySecret(ctx, digest(accessToken), "access_token", s.now())
	if errors.Is(err, store.ErrNotFound) || (err == nil && o.AccountID != accountID) {
		return o, oauthError("invalid_token", "the access token is unknown, used or expired")
	} else if err != nil {
		return o, err
	}
	if e, ok := apperr.As(s.stillLive(o)); ok {
		return o, oauthError("credential_request_denied", "%s", e.Message)
	}
	return o, nil
}

func requestedForm(req CredentialRequest) (credentials.Form, error) {
	switch {
	case req.CredentialConfigurationID == ConfigLDP || (req.CredentialConfigurationID == "" && req.Format == "ldp_vc"):
		return credentials.FormDataIntegrity, nil
	case req.CredentialConfigurationID == ConfigJWT || (req.CredentialConfigurationID == "" && req.Format == "jwt_vc_json"):
		return credentials.FormJWT, nil
	case req.CredentialConfigurationID == "" && req.Format == "":
		return "", oauthError("invalid_credential_request", "credential_configuration_id is required")
	}
	return "", oauthError("unknown_credential_configuration", "this issuer offers %s and %s", ConfigLDP, ConfigJWT)
}

func requestedProof(req CredentialRequest) (string, error) {
	switch {
	case req.Proofs != nil && len(req.Proofs.JWT) == 1:
		return req.Proofs.JWT[0], nil
	case req.Proofs != nil:
		return "", oauthError("invalid_credential_request", "proofs.jwt must hold exactly one proof")
	case req.Proof != nil && req.Proof.ProofType == "jwt" && req.Proof.JWT != "":
		return req.Proof.JWT, nil
	}
	return "", oauthError("invalid_proof", "a jwt proof of the holder's key is required (proofs.jwt)")
}
