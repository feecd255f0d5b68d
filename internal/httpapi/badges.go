package httpapi

import (
	"context"

	openapi_types "github.com/oapi-codegen/runtime/types"

	"github.com/certhub/credentiald/gen/api"
	"github.com/certhub/credentiald/internal/badges"
	"github.com/certhub/credentiald/internal/domain"
)

func (s *Server) ListBadges(ctx context.Context, req api.ListBadgesRequestObject) (api.ListBadgesResponseObject, error) {
	page := pageOf(req.Params.Page, req.Params.PageSize, req.Params.Sort, req.Params.Q)
	list, total, err := s.badges.List(ctx, principal(ctx).AccountID, page)
	if err != nil {
		return nil, err
	}
	return api.ListBadges200JSONResponse{Body: api.BadgePage{Data: convertAll(list, badge), Meta: pageMeta(page, total)}}, nil
}

func (s *Server) CreateBadge(ctx context.Context, req api.CreateBadgeRequestObject) (api.CreateBadgeResponseObject, error) {
	b, err := s.badges.Create(ctx, principal(ctx).AccountID, badgeFields(req.Body))
	if err != nil {
		return nil, err
	}
	return api.CreateBadge200JSONResponse{Body: api.BadgeEnvelope{Data: badge(b)}}, nil
}

func (s *Server) GetBadge(ctx context.Context, req api.GetBadgeRequestObject) (api.GetBadgeResponseObject, error) {
	b, err := s.badges.Get(ctx, principal(ctx).AccountID, req.Id)
	if err != nil {
		return nil, err
	}
	return api.GetBadge200JSONResponse{Body: api.BadgeEnvelope{Data: badge(b)}}, nil
}

func (s *Server) UpdateBadge(ctx context.Context, req api.UpdateBadgeRequestObject) (api.UpdateBadgeResponseObject, error) {
	b, err := s.badges.Replace(ctx, principal(ctx).AccountID, req.Id, badgeFields(req.Body))
	if err != nil {
		return nil, err
	}
	return api.UpdateBadge200JSONResponse{Body: api.BadgeEnvelope{Data: badge(b)}}, nil
}

func (s *Server) DeleteBadge(ctx context.Context, req api.DeleteBadgeRequestObject) (api.DeleteBadgeResponseObject, error) {
	if err := s.badges.Delete(ctx, principal(ctx).AccountID, req.Id); err != nil {
		return nil, err
	}
	return api.DeleteBadge204Response{}, nil
}

func (s *Server) IssueBadge(ctx context.Context, req api.IssueBadgeRequestObject) (api.IssueBadgeResponseObject, error) {
	b := req.Body
	out, err := s.badges.Issue(ctx, badges.IssueParams{AccountID: principal(ctx).AccountID, BadgeID: req.Id,
		AttendeeIDs: b.AttendeeIds, SendEmail: b.SendEmail != nil && *b.SendEmail})
	if err != nil {
		return nil, err
	}
	return api.IssueBadge200JSONResponse{Body: api.IssuedBadgeAssertionListEnvelope{Data: convertAll(out, issuedAssertion)}}, nil
}

func (s *Server) ListBadgeAssertions(ctx context.Context, req api.ListBadgeAssertionsRequestObject) (api.ListBadgeAssertionsResponseObject, error) {
	page := pageOf(req.Params.Page, req.Params.PageSize, req.Params.Sort, nil)
	list, total, err := s.badges.Assertions(ctx, principal(ctx).AccountID, req.Id, page)
	if err != nil {
		return nil, err
	}
	return api.ListBadgeAssertions200JSONResponse{Body: api.BadgeAssertionPage{Data: convertAll(list, badgeAssertion), Meta: pageMeta(page, total)}}, nil
}

func (s *Server) RevokeBadgeAssertion(ctx context.Context, req api.RevokeBadgeAssertionRequestObject) (api.RevokeBadgeAssertionResponseObject, error) {
	p := badges.RevokeParams{AccountID: principal(ctx).AccountID, BadgeID: req.Id, AssertionID: req.AssertionId}
	if b := req.Body; b != nil {
		p.Reason = b.Reason
		if b.ReasonCode != nil {
			p.ReasonCode = string(*b.ReasonCode)
		}
	}
	a, err := s.badges.RevokeAssertion(ctx, p)
	if err != nil {
		return nil, err
	}
	return api.RevokeBadgeAssertion200JSONResponse{Body: api.BadgeAssertionEnvelope{Data: badgeAssertion(a)}}, nil
}

func badgeFields(b *api.BadgeRequest) domain.BadgeFields {
	f := domain.BadgeFields{Name: b.Name, Description: b.Description, Image: b.Image, ValidityDays: b.ValidityDays}
	if b.Criteria != nil {
		f.CriteriaNarrative, f.CriteriaURL = b.Criteria.Narrative, b.Criteria.Url
	}
	if b.Tags != nil {
		f.Tags = *b.Tags
	}
	return f
}

func badge(b badges.Badge) api.Badge {
	return api.Badge{Id: b.ID, Name: b.Name, Description: b.Description,
		Criteria: api.BadgeCriteria{Narrative: b.CriteriaNarrative, Url: b.CriteriaURL}, Image: b.ImageURI, Tags: b.Tags,
		ValidityDays: b.ValidityDays, Status: api.BadgeStatus(b.Status), IssuedCount: b.IssuedCount,
		CreatedAt: b.CreatedAt.UTC(), UpdatedAt: b.UpdatedAt.UTC()}
}

func badgeAssertion(a badges.Assertion) api.BadgeAssertion {
	out := api.BadgeAssertion{Id: a.ID, BadgeId: a.BadgeID, AttendeeId: a.AttendeeID, VerificationCode: a.VerificationCode,
		VerificationUrl: a.VerificationURL,
		Recipient:       api.Recipient{FirstName: a.Recipient.FirstName, LastName: a.Recipient.LastName, Email: openapi_types.Email(a.Recipient.Email)},
		Status:          string(a.Status), IssuedAt: a.IssuedAt.UTC(), ExpiresAt: utc(a.ExpiresAt), RevokedAt: utc(a.RevokedAt),
		RevocationReason: a.RevocationReason}
	if c := a.RevocationReasonCode; c != nil {
		code := string(*c)
		out.RevocationReasonCode = &code
	}
	return out
}

func issuedAssertion(a badges.Issued) api.IssuedBadgeAssertion {
	v := badgeAssertion(a.Assertion)
	out := api.IssuedBadgeAssertion{Id: v.Id, BadgeId: v.BadgeId, AttendeeId: v.AttendeeId, VerificationCode: v.VerificationCode,
		VerificationUrl: v.VerificationUrl, Recipient: v.Recipient, Status: v.Status,
		IssuedAt: v.IssuedAt, ExpiresAt: v.ExpiresAt, RevokedAt: v.RevokedAt, RevocationReason: v.RevocationReason,
		AlreadyIssued: a.AlreadyIssued}
	if c := v.RevocationReasonCode; c != nil {
		code := *c
		out.RevocationReasonCode = &code
	}
	return out
}
