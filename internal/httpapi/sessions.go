package httpapi

import (
	"context"

	openapi_types "github.com/oapi-codegen/runtime/types"

	"github.com/certhub/credentiald/gen/api"
	"github.com/certhub/credentiald/internal/accounts"
	"github.com/certhub/credentiald/internal/apperr"
	"github.com/certhub/credentiald/internal/auth"
)

func (s *Server) Register(ctx context.Context, req api.RegisterRequestObject) (api.RegisterResponseObject, error) {
	if !s.signupEnabled {
		return nil, apperr.New(apperr.NotFound, "Sign-up is switched off on this installation.")
	}
	b := req.Body
	_, user, err := s.accounts.Create(ctx, accounts.CreateParams{
		Email: string(b.Email), Password: b.Password, Name: b.Name, AccountName: b.AccountName,
	})
	if err != nil {
		return nil, err
	}
	// The account exists: a failure to queue the verification email is no reason to refuse it
	// (POST /auth/email/resend sends another).
	if err := s.auth.SendVerificationOnSignUp(ctx, user); err != nil {
		s.logger.ErrorContext(ctx, "the verification email of a new account was not queued", "error", err)
	}
	tokens, err := s.auth.StartSession(ctx, user)
	if err != nil {
		return nil, err
	}
	return api.Register201JSONResponse{Body: api.SessionTokensEnvelope{Data: s.deliverTokens(ctx, tokens, wantsCookie(req.Params.CredentialdSession))}}, nil
}

func (s *Server) Login(ctx context.Context, req api.LoginRequestObject) (api.LoginResponseObject, error) {
	b := req.Body
	tokens, err := s.auth.Login(ctx, auth.LoginParams{Email: string(b.Email), Password: b.Password,
		TwoFactorCode: deref(b.TwoFactorCode), RecoveryCode: deref(b.RecoveryCode)})
	if err != nil {
		return nil, err
	}
	return api.Login200JSONResponse{Body: api.SessionTokensEnvelope{Data: s.deliverTokens(ctx, tokens, wantsCookie(req.Params.CredentialdSession))}}, nil
}

// RefreshSession rotates the refresh token from the body or the cookie; one from the cookie
// goes back there (and a cookie that no longer works is cleared), as it does when the request
// asks for the cookie.
func (s *Server) RefreshSession(ctx context.Context, req api.RefreshSessionRequestObject) (api.RefreshSessionResponseObject, error) {
	var body *string
	if req.Body != nil {
		body = req.Body.RefreshToken
	}
	token, fromCookie, err := presentedRefresh(body, req.Params.CisRefresh)
	if err != nil {
		return nil, err
	}
	tokens, err := s.auth.Refresh(ctx, token)
	if err != nil {
		// A refused token is dead: its cookie goes. A fault of the service's own (the
		// database away) leaves the cookie, so that the next refresh can still work.
		if fromCookie && apperr.CodeOf(err) == apperr.InvalidAPIKey {
			setCookie(ctx, s.cookies.clear())
		}
		return nil, err
	}
	inCookie := fromCookie || wantsCookie(req.Params.CredentialdSession)
	return api.RefreshSession200JSONResponse{Body: api.SessionTokensEnvelope{Data: s.deliverTokens(ctx, tokens, inCookie)}}, nil
}

// Logout ends the session of the access token, whose refresh token comes in the body or the
// cookie; the cookie is cleared.
func (s *Server) Logout(ctx context.Context, req api.LogoutRequestObject) (api.LogoutResponseObject, error) {
	var body *string
	if req.Body != nil {
		body = req.Body.RefreshToken
	}
	token, fromCookie, err := presentedRefresh(body, req.Params.CisRefresh)
	if err != nil {
		return nil, err
	}
	if err := s.auth.Logout(ctx, principal(ctx), token); err != nil {
		return nil, err
	}
	if fromCookie {
		setCookie(ctx, s.cookies.clear())
	}
	return api.Logout204Response{}, nil
}

func (s *Server) GetMe(ctx context.Context, _ api.GetMeRequestObject) (api.GetMeResponseObject, error) {
	p, err := s.auth.Me(ctx, principal(ctx))
	if err != nil {
		return nil, err
	}
	return api.GetMe200JSONResponse{Body: api.UserProfileEnvelope{Data: api.UserProfile{
		Id: p.User.ID, Email: openapi_types.Email(p.User.Email), Name: p.User.Name,
		Role: api.UserRole(p.User.Role), TwoFactorEnabled: p.TwoFactorEnabled, EmailVerified: p.EmailVerified,
		Account: api.AccountSummary{Id: p.Account.ID, Name: p.Account.Name, Plan: api.Plan(p.Account.Plan)},
	}}}, nil
}

func (s *Server) SetupTwoFactor(ctx context.Context, _ api.SetupTwoFactorRequestObject) (api.SetupTwoFactorResponseObject, error) {
	setup, err := s.auth.SetupTOTP(ctx, principal(ctx))
	if err != nil {
		return nil, err
	}
	return api.SetupTwoFactor200JSONResponse{Body: api.TwoFactorSetupEnvelope{Data: api.TwoFactorSetup{
		Secret: setup.Secret, OtpauthUrl: setup.OtpauthURL}}}, nil
}

func (s *Server) EnableTwoFactor(ctx context.Context, req api.EnableTwoFactorRequestObject) (api.EnableTwoFactorResponseObject, error) {
	codes, err := s.auth.EnableTOTP(ctx, principal(ctx), req.Body.Code)
	if err != nil {
		return nil, err
	}
	return api.EnableTwoFactor200JSONResponse{Body: api.RecoveryCodesEnvelope{Data: api.RecoveryCodes{RecoveryCodes: codes}}}, nil
}

func (s *Server) DisableTwoFactor(ctx context.Context, req api.DisableTwoFactorRequestObject) (api.DisableTwoFactorResponseObject, error) {
	if err := s.auth.DisableTOTP(ctx, principal(ctx), req.Body.CurrentPassword, req.Body.Code); err != nil {
		return nil, err
	}
	return api.DisableTwoFactor204Response{}, nil
}
