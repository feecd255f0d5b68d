package httpapi

import (
	"context"

	openapi_types "github.com/oapi-codegen/runtime/types"

	"github.com/certhub/credentiald/gen/api"
	"github.com/certhub/credentiald/internal/domain"
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
	var publicEmail *string
	if u.PublicEmail != nil {
		v := string(*u.PublicEmail)
		publicEmail = &v
	}
	var defaultLocale *string
	if u.DefaultLocale != nil {
		v := string(*u.DefaultLocale)
		defaultLocale = &v
	}
	b, err := s.accounts.PutBranding(ctx, principal(ctx).AccountID, domain.Branding{DefaultLocale: defaultLocale,
		IssuerName: u.IssuerName, Website: u.Website, Logo: u.Logo, PrimaryColor: u.PrimaryColor,
		EmailFromName: u.EmailFromName, EmailReplyTo: replyTo, PublicEmail: publicEmail, Signatories: signatoriesFrom(u.Signatories),
	})
	if err != nil {
		return nil, err
	}
	return api.UpdateBranding200JSONResponse{Body: api.BrandingEnvelope{Data: branding(b)}}, nil
}

func branding(b domain.Branding) api.Branding {
	email := func(p *string) *openapi_types.Email {
		if p == nil {
			return nil
		}
		v := openapi_types.Email(*p)
		return &v
	}
	signatories := make([]api.Signatory, 0, len(b.Signatories))
	for _, sg := range b.Signatories {
		out := api.Signatory{Name: sg.Name, SignatureImage: sg.SignatureImage}
		if sg.Title != "" {
			out.Title = &sg.Title
		}
		signatories = append(signatories, out)
	}
	var defaultLocale *api.BrandingDefaultLocale
	if b.DefaultLocale != nil {
		v := api.BrandingDefaultLocale(*b.DefaultLocale)
		defaultLocale = &v
	}
	return api.Branding{DefaultLocale: defaultLocale, IssuerName: b.IssuerName, Website: b.Website, Logo: b.Logo, PrimaryColor: b.PrimaryColor,
		EmailFromName: b.EmailFromName, EmailReplyTo: email(b.EmailReplyTo), PublicEmail: email(b.PublicEmail), Signatories: signatories}
}

func signatoriesFrom(in *[]api.Signatory) []domain.Signatory {
	if in == nil {
		return nil
	}
	out := make([]domain.Signatory, 0, len(*in))
	for _, sg := range *in {
		out = append(out, domain.Signatory{Name: sg.Name, Title: deref(sg.Title), SignatureImage: sg.SignatureImage})
	}
	return out
}
