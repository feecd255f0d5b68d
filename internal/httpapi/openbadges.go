package httpapi

import (
	"context"
	"fmt"
	"time"

	openapi_types "github.com/oapi-codegen/runtime/types"

	"github.com/certhub/credentiald/gen/api"
)

// The Open Badges 2.0 documents are served at the site root (the contract's path items name
// the server "/"), to anyone: hosted verification fetches them from wherever it runs.

func (s *Server) GetOpenBadgesAssertion(ctx context.Context, req api.GetOpenBadgesAssertionRequestObject) (api.GetOpenBadgesAssertionResponseObject, error) {
	h, err := s.badges.OpenBadgesAssertion(ctx, req.Id)
	if err != nil {
		return nil, err
	}
	if r := h.Revoked; r != nil {
		return api.GetOpenBadgesAssertion410ApplicationLdPlusJSONResponse{Body: api.OpenBadgesRevokedAssertion{
			Context: api.OpenBadgesRevokedAssertionContext(r.Context), Id: r.ID,
			Revoked: api.OpenBadgesRevokedAssertionRevoked(r.Revoked), RevocationReason: optional(r.RevocationReason)}}, nil
	}
	a := h.Assertion
	issuedOn, err := time.Parse(time.RFC3339, a.IssuedOn)
	if err != nil {
		return nil, fmt.Errorf("open badges assertion %s: %w", a.ID, err)
	}
	doc := api.OpenBadgesAssertion{Context: api.OpenBadgesAssertionContext(a.Context), Type: api.OpenBadgesAssertionType(a.Type),
		Id: a.ID, Badge: a.Badge, IssuedOn: issuedOn, Image: optional(a.Image),
		Recipient: api.OpenBadgesRecipient{Type: api.OpenBadgesRecipientType(a.Recipient.Type),
			Hashed: api.OpenBadgesRecipientHashed(a.Recipient.Hashed), Salt: a.Recipient.Salt, Identity: a.Recipient.Identity}}
	doc.Verification.Type = api.OpenBadgesAssertionVerificationType(a.Verification.Type)
	if a.Expires != "" {
		exp, err := time.Parse(time.RFC3339, a.Expires)
		if err != nil {
			return nil, fmt.Errorf("open badges assertion %s: %w", a.ID, err)
		}
		doc.Expires = &exp
	}
	return api.GetOpenBadgesAssertion200ApplicationLdPlusJSONResponse{Body: doc}, nil
}

func (s *Server) GetOpenBadgesBadgeClass(ctx context.Context, req api.GetOpenBadgesBadgeClassRequestObject) (api.GetOpenBadgesBadgeClassResponseObject, error) {
	b, err := s.badges.OpenBadgesBadgeClass(ctx, req.Id)
	if err != nil {
		return nil, err
	}
	doc := api.OpenBadgesBadgeClass{Context: api.OpenBadgesBadgeClassContext(b.Context), Type: api.OpenBadgesBadgeClassType(b.Type),
		Id: b.ID, Name: b.Name, Description: b.Description, Image: b.Image, Issuer: b.Issuer, Tags: b.Tags}
	doc.Criteria.Id, doc.Criteria.Narrative = optional(b.Criteria.ID), optional(b.Criteria.Narrative)
	return api.GetOpenBadgesBadgeClass200ApplicationLdPlusJSONResponse{Body: doc}, nil
}

func (s *Server) GetOpenBadgesIssuer(ctx context.Context, req api.GetOpenBadgesIssuerRequestObject) (api.GetOpenBadgesIssuerResponseObject, error) {
	i, err := s.badges.OpenBadgesIssuer(ctx, req.AccountId)
	if err != nil {
		return nil, err
	}
	return api.GetOpenBadgesIssuer200ApplicationLdPlusJSONResponse{Body: api.OpenBadgesIssuer{
		Context: api.OpenBadgesIssuerContext(i.Context), Type: api.OpenBadgesIssuerType(i.Type), Id: i.ID, Name: i.Name,
		Url: i.URL, Email: openapi_types.Email(i.Email), Image: optional(i.Image)}}, nil
}

// optional is nil for an empty string, which the Open Badges documents leave out.
func optional(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}
