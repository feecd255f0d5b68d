package httpapi

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/labstack/echo/v4"

	"github.com/certhub/credentiald/gen/api"
	"github.com/certhub/credentiald/internal/httpmw"
	"github.com/certhub/credentiald/internal/wallet"
)

// Wallet delivery: offers through the account API; the VC API exchange and OpenID4VCI at the
// site root (the interaction page is the site's, internal/site).

func (s *Server) CreateCertificateWalletOffer(ctx context.Context, req api.CreateCertificateWalletOfferRequestObject) (api.CreateCertificateWalletOfferResponseObject, error) {
	o, err := s.wallet.Create(ctx, wallet.Credential{AccountID: principal(ctx).AccountID, CertificateID: &req.Id})
	if err != nil {
		return nil, err
	}
	return api.CreateCertificateWalletOffer201JSONResponse{Body: api.WalletOfferEnvelope{Data: walletOffer(o)}}, nil
}

func (s *Server) ListCertificateWalletOffers(ctx context.Context, req api.ListCertificateWalletOffersRequestObject) (api.ListCertificateWalletOffersResponseObject, error) {
	page := pageOf(req.Params.Page, req.Params.PageSize, req.Params.Sort, nil)
	list, total, err := s.wallet.List(ctx, wallet.Credential{AccountID: principal(ctx).AccountID, CertificateID: &req.Id}, page)
	if err != nil {
		return nil, err
	}
	return api.ListCertificateWalletOffers200JSONResponse{Body: api.WalletOfferPage{Data: convertAll(list, walletOffer), Meta: pageMeta(page, total)}}, nil
}

func (s *Server) CreateBadgeAssertionWalletOffer(ctx context.Context, req api.CreateBadgeAssertionWalletOfferRequestObject) (api.CreateBadgeAssertionWalletOfferResponseObject, error) {
	c := wallet.Credential{AccountID: principal(ctx).AccountID, BadgeID: req.Id, AssertionID: &req.AssertionId}
	o, err := s.wallet.Create(ctx, c)
	if err != nil {
		return nil, err
	}
	return api.CreateBadgeAssertionWalletOffer201JSONResponse{Body: api.WalletOfferEnvelope{Data: walletOffer(o)}}, nil
}

func (s *Server) ListBadgeAssertionWalletOffers(ctx context.Context, req api.ListBadgeAssertionWalletOffersRequestObject) (api.ListBadgeAssertionWalletOffersResponseObject, error) {
	page := pageOf(req.Params.Page, req.Params.PageSize, req.Params.Sort, nil)
	c := wallet.Credential{AccountID: principal(ctx).AccountID, BadgeID: req.Id, AssertionID: &req.AssertionId}
	list, total, err := s.wallet.List(ctx, c, page)
	if err != nil {
		return nil, err
	}
	return api.ListBadgeAssertionWalletOffers200JSONResponse{Body: api.WalletOfferPage{Data: convertAll(list, walletOffer), Meta: pageMeta(page, total)}}, nil
}

func walletOffer(o wallet.Offer) api.WalletOffer {
	v := api.WalletOffer{Id: o.ID, CertificateId: o.CertificateID, BadgeAssertionId: o.BadgeAssertionID, InteractionUrl: o.InteractionURL,
		CredentialOfferUri: o.CredentialOfferURI, WalletUrl: o.WalletURL, LcwRequestUrl: o.LCWRequestURL, ExpiresAt: o.ExpiresAt,
		ClaimedAt: o.ClaimedAt, Holder: o.Holder, CreatedAt: o.CreatedAt}
	if o.Protocol != nil {
		p := api.WalletOfferProtocol(*o.Protocol)
		v.Protocol = &p
	}
	return v
}

// noStore is the Cache-Control of every answer that carries a secret (a challenge, a code, a
// token, a nonce, a credential bound to a holder).
var noStore = ptr("no-store")

func (s *Server) PostWalletExchange(ctx context.Context, req api.PostWalletExchangeRequestObject) (api.PostWalletExchangeResponseObject, error) {
	headers := api.PostWalletExchange200ResponseHeaders{CacheControl: noStore}
	if req.Body == nil || req.Body.VerifiablePresentation == nil {
		r, err := s.wallet.StartExchange(ctx, req.OfferToken)
		if err != nil {
			return nil, err
		}
		out := api.ExchangeResponse{VerifiablePresentationRequest: &struct {
			Challenge string                   `json:"challenge"`
			Domain    string                   `json:"domain"`
			Query     []map[string]interface{} `json:"query"`
		}{Challenge: r.Challenge, Domain: r.Domain, Query: r.Query}}
		return api.PostWalletExchange200JSONResponse{Body: out, Headers: headers}, nil
	}
	presentation, err := json.Marshal(req.Body.VerifiablePresentation)
	if err != nil {
		return nil, err
	}
	vp, err := s.wallet.CompleteExchange(ctx, req.OfferToken, presentation)
	if err != nil {
		return nil, err
	}
	return api.PostWalletExchange200JSONResponse{Body: api.ExchangeResponse{VerifiablePresentation: &vp}, Headers: headers}, nil
}

func (s *Server) GetCredentialOffer(ctx context.Context, req api.GetCredentialOfferRequestObject) (api.GetCredentialOfferResponseObject, error) {
	out, err := document[api.CredentialOffer](s.wallet.OfferDocument(ctx, req.AccountId, req.OfferToken))
	if err != nil {
		return nil, err
	}
	return api.GetCredentialOffer200JSONResponse{Body: out, Headers: api.GetCredentialOffer200ResponseHeaders{CacheControl: noStore}}, nil
}

func (s *Server) PostIssuerToken(ctx context.Context, req api.PostIssuerTokenRequestObject) (api.PostIssuerTokenResponseObject, error) {
	tr := wallet.TokenRequest{Query: walletTokenQuery(ctx)}
	if req.Body != nil {
		tr.GrantType, tr.PreAuthorizedCode = req.Body.GrantType, deref(req.Body.PreAuthorizedCode)
	}
	t, err := s.wallet.RequestToken(ctx, req.AccountId, tr)
	var oe *wallet.OAuthError
	if errors.As(err, &oe) {
		return api.PostIssuerToken400JSONResponse{OAuthBadRequestJSONResponse: oauthBadRequest(oe)}, nil
	} else if err != nil {
		return nil, err
	}
	return api.PostIssuerToken200JSONResponse{Body: api.TokenResponse{AccessToken: t.AccessToken, TokenType: api.TokenResponseTokenTypeBearer, ExpiresIn: t.ExpiresIn},
		Headers: api.PostIssuerToken200ResponseHeaders{CacheControl: noStore}}, nil
}

func (s *Server) PostIssuerNonce(ctx context.Context, req api.PostIssuerNonceRequestObject) (api.PostIssuerNonceResponseObject, error) {
	n, err := s.wallet.Nonce(ctx, req.AccountId)
	if err != nil {
		return nil, err
	}
	return api.PostIssuerNonce200JSONResponse{Body: api.NonceResponse{CNonce: n}, Headers: api.PostIssuerNonce200ResponseHeaders{CacheControl: noStore}}, nil
}

func (s *Server) PostIssuerCredential(ctx context.Context, req api.PostIssuerCredentialRequestObject) (api.PostIssuerCredentialResponseObject, error) {
	var cr wallet.CredentialRequest
	if req.Body != nil {
		if err := remarshal(req.Body, &cr); err != nil {
			return api.PostIssuerCredential400JSONResponse{OAuthBadRequestJSONResponse: oauthBadRequest(&wallet.OAuthError{
				Code: "invalid_credential_request", Description: "the credential request is not of the shape OpenID4VCI 1.0 gives it"})}, nil
		}
	}
	credential, err := s.wallet.IssueCredential(ctx, req.AccountId, walletAccessToken(ctx), cr)
	var oe *wallet.OAuthError
	switch {
	case errors.As(err, &oe) && oe.Code == "invalid_token":
		return api.PostIssuerCredential401JSONResponse{OAuthUnauthorizedJSONResponse: api.OAuthUnauthorizedJSONResponse{
			Body: oauthBody(oe), Headers: api.OAuthUnauthorizedResponseHeaders{CacheControl: noStore,
				WWWAuthenticate: ptr(`Bearer error="invalid_token"`)}}}, nil
	case errors.As(err, &oe):
		return api.PostIssuerCredential400JSONResponse{OAuthBadRequestJSONResponse: oauthBadRequest(oe)}, nil
	case err != nil:
		return nil, err
	}
	body := api.CredentialResponse{Credentials: make([]struct {
		Credential interface{} `json:"credential"`
	}, 1)}
	body.Credentials[0].Credential = credential
	return api.PostIssuerCredential200JSONResponse{Body: body, Headers: api.PostIssuerCredential200ResponseHeaders{CacheControl: noStore}}, nil
}

func oauthBody(e *wallet.OAuthError) api.OAuthError {
	return api.OAuthError{Error: e.Code, ErrorDescription: &e.Description}
}

func oauthBadRequest(e *wallet.OAuthError) api.OAuthBadRequestJSONResponse {
	var body api.OAuthErrorAnswer
	_ = body.FromOAuthError(oauthBody(e)) // marshals a struct of strings: cannot fail
	return api.OAuthBadRequestJSONResponse{Body: body, Headers: api.OAuthBadRequestResponseHeaders{CacheControl: noStore}}
}

// The discovery documents: the issuer's metadata at both of its well-known URLs, and the
// authorization server's at its three.

func (s *Server) GetCredentialIssuerMetadata(ctx context.Context, req api.GetCredentialIssuerMetadataRequestObject) (api.GetCredentialIssuerMetadataResponseObject, error) {
	m, err := document[api.CredentialIssuerMetadata](s.wallet.IssuerMetadata(ctx, req.AccountId))
	if err != nil {
		return nil, err
	}
	return api.GetCredentialIssuerMetadata200JSONResponse{Body: m}, nil
}

func (s *Server) GetCredentialIssuerMetadataAppended(ctx context.Context, req api.GetCredentialIssuerMetadataAppendedRequestObject) (api.GetCredentialIssuerMetadataAppendedResponseObject, error) {
	m, err := document[api.CredentialIssuerMetadata](s.wallet.IssuerMetadata(ctx, req.AccountId))
	if err != nil {
		return nil, err
	}
	return api.GetCredentialIssuerMetadataAppended200JSONResponse{Body: m}, nil
}

func (s *Server) GetAuthorizationServerMetadata(ctx context.Context, req api.GetAuthorizationServerMetadataRequestObject) (api.GetAuthorizationServerMetadataResponseObject, error) {
	m, err := document[api.AuthorizationServerMetadata](s.wallet.AuthorizationServerMetadata(ctx, req.AccountId))
	if err != nil {
		return nil, err
	}
	return api.GetAuthorizationServerMetadata200JSONResponse{Body: m}, nil
}

func (s *Server) GetAuthorizationServerMetadataAppended(ctx context.Context, req api.GetAuthorizationServerMetadataAppendedRequestObject) (api.GetAuthorizationServerMetadataAppendedResponseObject, error) {
	m, err := document[api.AuthorizationServerMetadata](s.wallet.AuthorizationServerMetadata(ctx, req.AccountId))
	if err != nil {
		return nil, err
	}
	return api.GetAuthorizationServerMetadataAppended200JSONResponse{Body: m}, nil
}

func (s *Server) GetOpenIDConfiguration(ctx context.Context, req api.GetOpenIDConfigurationRequestObject) (api.GetOpenIDConfigurationResponseObject, error) {
	m, err := document[api.AuthorizationServerMetadata](s.wallet.AuthorizationServerMetadata(ctx, req.AccountId))
	if err != nil {
		return nil, err
	}
	return api.GetOpenIDConfiguration200JSONResponse{Body: m}, nil
}

// document moves a protocol document the wallet service built (or its error) into the generated
// type of the same JSON.
func document[T any](m map[string]any, err error) (T, error) {
	var out T
	if err != nil {
		return out, err
	}
	return out, remarshal(m, &out)
}

// remarshal moves a value of one shape into the generated type of the same JSON.
func remarshal(from, to any) error {
	b, err := json.Marshal(from)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, to)
}

type (
	walletTokenKey      struct{}
	walletTokenQueryKey struct{}
)

// walletAccessToken is the OpenID4VCI access token the credential request carried
// (Authorization: Bearer), put in the context by walletTransport.
func walletAccessToken(ctx context.Context) string {
	t, _ := ctx.Value(walletTokenKey{}).(string)
	return t
}

// walletTokenQuery is the URL query of a token request, put in the context by walletTransport.
func walletTokenQuery(ctx context.Context) map[string][]string {
	q, _ := ctx.Value(walletTokenQueryKey{}).(map[string][]string)
	return q
}

// walletTransport passes the OpenID4VCI endpoints what their strict handlers, which see only
// the request's context, cannot read: the credential endpoint its access token (this bearer is
// the protocol's, not an API credential), and the token endpoint its URL's query apart. The
// generated token handler binds its form from Echo's FormParams, which mixes the query's
// parameters into the body's; the wallet service refuses a token request whose grant
// parameters came in the query, and needs the query to see them.
func walletTransport(f api.StrictHandlerFunc, operationID string) api.StrictHandlerFunc {
	switch operationID {
	case "PostIssuerCredential":
		return func(c echo.Context, request any) (any, error) {
			if t, ok := httpmw.BearerToken(c.Request().Header.Get(echo.HeaderAuthorization)); ok {
				c.SetRequest(c.Request().WithContext(context.WithValue(c.Request().Context(), walletTokenKey{}, t)))
			}
			return f(c, request)
		}
	case "PostIssuerToken":
		return func(c echo.Context, request any) (any, error) {
			query := map[string][]string(c.Request().URL.Query())
			c.SetRequest(c.Request().WithContext(context.WithValue(c.Request().Context(), walletTokenQueryKey{}, query)))
			return f(c, request)
		}
	}
	return f
}

func ptr[T any](v T) *T { return &v }

// bearerOf reads a bearer token from an Authorization header.
