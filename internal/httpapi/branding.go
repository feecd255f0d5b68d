package httpapi

import (
	"context"

	openapi_types "github.com/oapi-codegen/runtime/types"

	"github.com/certhub/credentiald/gen/api"
	"github.com/certhub/credentiald/internal/store"
)

func (s *Server) GetBranding(ctx context.Context, _ api.GetBrandingRequestObject) (api.GetBrandingResponseObject, error) {
	b, err := s.accounts.Branding(ctx, principal(ctx).AccountID)
	if err != nil {
		return nil, err
	}
	return api.GetBranding200JSONResponse{Body: api.BrandingEnvelope{Data: branding(b)}}, nil
}

func (s *Server) UpdateBranding(ctx context.Context, req api.UpdateBrandingRequestObject) (api.UpdateBrandingResponseObject, error) {
	u := req.Body
	var replyTo *string
	if u.EmailReplyTo != nil {
		v := string(*u.EmailReplyTo)
		replyTo = &v
	}
	b, err := s.accounts.PutBranding(ctx, principal(ctx).AccountID, store.Branding{
		IssuerName: u.IssuerName, Website: u.Website, Logo: u.Logo, PrimaryColor: u.PrimaryColor,
		EmailFromName: u.EmailFromName, EmailReplyTo: replyTo,
	})
	if err != nil {
		return nil, err
	}
	return api.UpdateBranding200JSONResponse{Body: api.BrandingEnvelope{Data: branding(b)}}, nil
}

func branding(b store.Branding) api.Branding {
	var replyTo *openapi_types.Email
	if b.EmailReplyTo != nil {
		v := openapi_types.Email(*b.EmailReplyTo)
		replyTo = &v
	}
	return api.Branding{IssuerName: b.IssuerName, Website: b.Website, Logo: b.Logo, PrimaryColor: b.PrimaryColor,
		EmailFromName: b.EmailFromName, EmailReplyTo: replyTo}
}
