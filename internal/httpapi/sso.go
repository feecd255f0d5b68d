package httpapi

import (
	"context"

	"github.com/certhub/credentiald/gen/api"
	"github.com/certhub/credentiald/internal/domain"
	"github.com/certhub/credentiald/internal/sso"
)

func (s *Server) ssoConfig(c domain.SSOConfig) api.SsoConfig {
	return api.SsoConfig{Issuer: c.Issuer, ClientId: c.ClientID, ClientSecretSet: true, RedirectUri: s.sso.RedirectURI(),
		DefaultRole: api.SsoRole(c.DefaultRole), Enforced: c.Enforced, CreatedAt: c.CreatedAt.UTC(), UpdatedAt: c.UpdatedAt.UTC()}
}

func ssoDomain(d domain.SSODomain) api.SsoDomain {
	return api.SsoDomain{Domain: d.Domain, VerificationRecord: d.VerificationRecord(), VerifiedAt: utc(d.VerifiedAt),
		CreatedAt: d.CreatedAt.UTC()}
}

func (s *Server) GetSingleSignOn(ctx context.Context, _ api.GetSingleSignOnRequestObject) (api.GetSingleSignOnResponseObject, error) {
	c, err := s.sso.Get(ctx, principal(ctx))
	if err != nil {
		return nil, err
	}
	return api.GetSingleSignOn200JSONResponse{Body: api.SsoConfigEnvelope{Data: s.ssoConfig(c)}}, nil
}

func (s *Server) PutSingleSignOn(ctx context.Context, req api.PutSingleSignOnRequestObject) (api.PutSingleSignOnResponseObject, error) {
	b := req.Body
	c, err := s.sso.Put(ctx, principal(ctx), sso.ConfigUpdate{Issuer: b.Issuer, ClientID: b.ClientId, ClientSecret: deref(b.ClientSecret),
		DefaultRole: string(b.DefaultRole), Enforced: b.Enforced})
	if err != nil {
		return nil, err
	}
	return api.PutSingleSignOn200JSONResponse{Body: api.SsoConfigEnvelope{Data: s.ssoConfig(c)}}, nil
}

func (s *Server) DeleteSingleSignOn(ctx context.Context, _ api.DeleteSingleSignOnRequestObject) (api.DeleteSingleSignOnResponseObject, error) {
	if err := s.sso.Delete(ctx, principal(ctx)); err != nil {
		return nil, err
	}
	return api.DeleteSingleSignOn204Response{}, nil
}

func (s *Server) ListSsoDomains(ctx context.Context, _ api.ListSsoDomainsRequestObject) (api.ListSsoDomainsResponseObject, error) {
	list, err := s.sso.Domains(ctx, principal(ctx))
	if err != nil {
		return nil, err
	}
	out := make([]api.SsoDomain, len(list))
	for i, d := range list {
		out[i] = ssoDomain(d)
	}
	return api.ListSsoDomains200JSONResponse{Body: api.SsoDomainList{Data: out}}, nil
}

func (s *Server) AddSsoDomain(ctx context.Context, req api.AddSsoDomainRequestObject) (api.AddSsoDomainResponseObject, error) {
	d, err := s.sso.AddDomain(ctx, principal(ctx), req.Body.Domain)
	if err != nil {
		return nil, err
	}
	return api.AddSsoDomain201JSONResponse{Body: api.SsoDomainEnvelope{Data: ssoDomain(d)}}, nil
}

func (s *Server) VerifySsoDomain(ctx context.Context, req api.VerifySsoDomainRequestObject) (api.VerifySsoDomainResponseObject, error) {
	d, err := s.sso.VerifyDomain(ctx, principal(ctx), req.Domain)
	if err != nil {
		return nil, err
	}
	return api.VerifySsoDomain200JSONResponse{Body: api.SsoDomainEnvelope{Data: ssoDomain(d)}}, nil
}

func (s *Server) DeleteSsoDomain(ctx context.Context, req api.DeleteSsoDomainRequestObject) (api.DeleteSsoDomainResponseObject, error) {
	if err := s.sso.DeleteDomain(ctx, principal(ctx), req.Domain); err != nil {
		return nil, err
	}
	return api.DeleteSsoDomain204Response{}, nil
}

func (s *Server) StartSingleSignOn(ctx context.Context, req api.StartSingleSignOnRequestObject) (api.StartSingleSignOnResponseObject, error) {
	to, cookie, err := s.sso.Start(ctx, string(req.Params.Email), deref(req.Params.Reauth))
	if err != nil {
		return nil, err
	}
	c := cookie.String()
	return api.StartSingleSignOn302Response{Headers: api.StartSingleSignOn302ResponseHeaders{Location: to, SetCookie: &c}}, nil
}

func (s *Server) FinishSingleSignOn(ctx context.Context, req api.FinishSingleSignOnRequestObject) (api.FinishSingleSignOnResponseObject, error) {
	p := req.Params
	to, err := s.sso.Finish(ctx, sso.Callback{Cookie: deref(p.CisSso), State: deref(p.State), Code: deref(p.Code),
		Error: deref(p.Error), ErrorDetail: deref(p.ErrorDescription)})
	if err != nil {
		return nil, err
	}
	return api.FinishSingleSignOn302Response{Headers: api.FinishSingleSignOn302ResponseHeaders{Location: to}}, nil
}

func (s *Server) ExchangeSingleSignOnCode(ctx context.Context, req api.ExchangeSingleSignOnCodeRequestObject) (api.ExchangeSingleSignOnCodeResponseObject, error) {
	b := req.Body
	tokens, err := s.sso.Exchange(ctx, sso.Exchange{Cookie: deref(req.Params.CisSso), Code: b.Code, Password: deref(b.Password),
		TwoFactorCode: deref(b.TwoFactorCode), RecoveryCode: deref(b.RecoveryCode)})
	if err != nil {
		return nil, err
	}
	setCookie(ctx, s.sso.ClearCookie())
	return api.ExchangeSingleSignOnCode200JSONResponse{Body: api.SessionTokensEnvelope{
		Data: s.deliverTokens(ctx, tokens, wantsCookie(req.Params.CredentialdSession))}}, nil
}
