package wallet

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/certhub/credentiald/internal/apperr"
	"github.com/certhub/credentiald/internal/credentials"
	"github.com/certhub/credentiald/internal/store"
	"github.com/certhub/credentiald/internal/vc"
)

// The VC API exchange (W3C VCALM, as the Learner Credential Wallet runs it): the wallet posts
// {} and receives a request for a DID authentication; it posts the presentation and receives
// the credential bound to the DID it proved.

// PresentationRequest is what the first step answers: a DIDAuthentication query with a
// fresh single-use challenge, for this site's domain.
type PresentationRequest struct {
	Query     []map[string]any `json:"query"`
	Challenge string           `json:"challenge"`
	Domain    string           `json:"domain"`
}

// StartExchange answers the first step of an exchange: a request for a DID authentication
// with a fresh challenge. Each call issues a new challenge.
func (s *Service) StartExchange(ctx context.Context, token string) (PresentationRequest, error) {
	o, err := s.live(ctx, token)
	if err != nil {
		return PresentationRequest{}, err
	}
	challenge, err := s.newSecret(ctx, "challenge", o.AccountID, &o.ID, ChallengeValidity)
	if err != nil {
		return PresentationRequest{}, err
	}
	return PresentationRequest{
		Query: []map[string]any{{
			"type":                 "DIDAuthentication",
			"acceptedMethods":      []map[string]string{{"method": "key"}},
			"acceptedCryptosuites": []map[string]string{{"cryptosuite": vc.Cryptosuite}, {"cryptosuite": vc.ProofTypeEd25519Signature2020}},
		}},
		Challenge: challenge,
		Domain:    s.domain,
	}, nil
}

// CompleteExchange verifies a DID authentication made for a challenge of this offer and
// answers the presentation that carries the credential bound to the holder (as it was signed,
// byte for byte). A presentation that does not verify, or whose challenge is not a live one of
// this offer, is 400 and leaves the offer claimable; the challenge is spent by the claim.
func (s *Service) CompleteExchange(ctx context.Context, token string, presentation json.RawMessage) (map[string]any, error) {
	o, err := s.live(ctx, token)
	if err != nil {
		return nil, err
	}
	auth, err := vc.VerifyDIDAuthentication(presentation, vc.AuthenticationCheck{Domain: s.domain, Resolve: Ed25519Key})
	if err != nil {
		return nil, apperr.Invalid("verifiablePresentation", err.Error())
	}
	signed, err := s.claim(ctx, o, auth.Holder, ProtocolVCAPI, credentials.FormDataIntegrity, func(tx *store.Tx, now time.Time) error {
		_, offer, err := tx.SpendWalletSecret(ctx, digest(auth.Challenge), "challenge", now)
		if errors.Is(err, store.ErrNotFound) || (err == nil && (offer == nil || *offer != o.ID)) {
			return apperr.Invalid("verifiablePresentation", "the proof's challenge is not a live challenge of this exchange: post {} for a new one")
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	return map[string]any{
		"@context":             []string{vc.ContextCredentialsV2},
		"type":                 []string{"VerifiablePresentation"},
		"verifiableCredential": []json.RawMessage{signed},
	}, nil
}
