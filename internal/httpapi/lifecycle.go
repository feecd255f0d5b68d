package httpapi

import (
	"context"

	"github.com/certhub/credentiald/gen/api"
)

func (s *Server) ForgotPassword(ctx context.Context, req api.ForgotPasswordRequestObject) (api.ForgotPasswordResponseObject, error) {
	if err := s.auth.ForgotPassword(ctx, string(req.Body.Email)); err != nil {
		return nil, err
	}
	return api.ForgotPassword202Response{}, nil
}

func (s *Server) ResetPassword(ctx context.Context, req api.ResetPasswordRequestObject) (api.ResetPasswordResponseObject, error) {
	if err := s.auth.ResetPassword(ctx, req.Body.Token, req.Body.Password); err != nil {
		return nil, err
	}
	return api.ResetPassword204Response{}, nil
}

func (s *Server) ChangePassword(ctx context.Context, req api.ChangePasswordRequestObject) (api.ChangePasswordResponseObject, error) {
	if err := s.auth.ChangePassword(ctx, principal(ctx), req.Body.CurrentPassword, req.Body.NewPassword); err != nil {
		return nil, err
	}
	return api.ChangePassword204Response{}, nil
}

func (s *Server) VerifyEmail(ctx context.Context, req api.VerifyEmailRequestObject) (api.VerifyEmailResponseObject, error) {
	if err := s.auth.VerifyEmail(ctx, req.Body.Token); err != nil {
		return nil, err
	}
	return api.VerifyEmail204Response{}, nil
}

func (s *Server) ResendVerificationEmail(ctx context.Context, _ api.ResendVerificationEmailRequestObject) (api.ResendVerificationEmailResponseObject, error) {
	if err := s.auth.SendVerification(ctx, principal(ctx)); err != nil {
		return nil, err
	}
	return api.ResendVerificationEmail202Response{}, nil
}

func (s *Server) ListSessions(ctx context.Context, _ api.ListSessionsRequestObject) (api.ListSessionsResponseObject, error) {
	list, err := s.auth.Sessions(ctx, principal(ctx))
	if err != nil {
		return nil, err
	}
	out := make([]api.SessionInfo, len(list))
	for i, l := range list {
		out[i] = api.SessionInfo{Id: l.ID, Current: l.Current, CreatedAt: l.CreatedAt.UTC(), LastUsedAt: utc(l.LastUsedAt),
			Ip: optional(l.IP), UserAgent: optional(l.UserAgent)}
	}
	return api.ListSessions200JSONResponse{Body: api.SessionList{Data: out}}, nil
}

func (s *Server) EndSession(ctx context.Context, req api.EndSessionRequestObject) (api.EndSessionResponseObject, error) {
	if err := s.auth.EndSession(ctx, principal(ctx), req.Id); err != nil {
		return nil, err
	}
	return api.EndSession204Response{}, nil
}
