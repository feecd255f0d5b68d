package httpapi

import (
	"context"
	"time"

	"github.com/certhub/credentiald/gen/api"
	"github.com/certhub/credentiald/internal/auth"
	"github.com/certhub/credentiald/internal/domain"
)

func (s *Server) ListApiKeys(ctx context.Context, _ api.ListApiKeysRequestObject) (api.ListApiKeysResponseObject, error) {
	keys, err := s.auth.ListAPIKeys(ctx, principal(ctx))
	if err != nil {
		return nil, err
	}
	out := make([]api.ApiKey, len(keys))
	for i, k := range keys {
		out[i] = apiKey(k)
	}
	return api.ListApiKeys200JSONResponse{Body: api.ApiKeyListEnvelope{Data: out}}, nil
}

func (s *Server) CreateApiKey(ctx context.Context, req api.CreateApiKeyRequestObject) (api.CreateApiKeyResponseObject, error) {
	b := req.Body
	scopes := make([]string, len(b.Scopes))
	for i, sc := range b.Scopes {
		scopes[i] = string(sc)
	}
	k, full, err := s.auth.CreateAPIKey(ctx, principal(ctx), auth.NewAPIKeyParams{Name: b.Name, Scopes: scopes,
		ExpiresInDays: b.ExpiresInDays, CurrentPassword: deref(b.CurrentPassword), TwoFactorCode: deref(b.TwoFactorCode)})
	if err != nil {
		return nil, err
	}
	summary := apiKey(k)
	return api.CreateApiKey200JSONResponse{Body: api.CreatedApiKeyEnvelope{Data: api.CreatedApiKey{
		Id: summary.Id, Name: summary.Name, Scopes: summary.Scopes, Prefix: summary.Prefix, CreatedAt: summary.CreatedAt,
		ExpiresAt: summary.ExpiresAt, LastUsedAt: summary.LastUsedAt, Key: full,
	}}}, nil
}

func (s *Server) DeleteApiKey(ctx context.Context, req api.DeleteApiKeyRequestObject) (api.DeleteApiKeyResponseObject, error) {
	if err := s.auth.DeleteAPIKey(ctx, principal(ctx), req.Id); err != nil {
		return nil, err
	}
	return api.DeleteApiKey204Response{}, nil
}

func apiKey(k domain.APIKey) api.ApiKey {
	scopes := make([]api.Scope, len(k.Scopes))
	for i, sc := range k.Scopes {
		scopes[i] = api.Scope(sc)
	}
	out := api.ApiKey{Id: k.ID, Name: k.Name, Scopes: scopes, Prefix: k.Prefix, CreatedAt: k.CreatedAt.UTC(),
		ExpiresAt: utc(k.ExpiresAt), LastUsedAt: utc(k.LastUsedAt)}
	out.CreatedBy.Id, out.CreatedBy.Name = k.CreatedBy, k.CreatorName
	return out
}

// utc renders an optional time in UTC, as the contract's timestamps are.
func utc(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	u := t.UTC()
	return &u
}
