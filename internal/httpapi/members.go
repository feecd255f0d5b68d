package httpapi

import (
	"context"

	openapi_types "github.com/oapi-codegen/runtime/types"

	"github.com/certhub/credentiald/gen/api"
	"github.com/certhub/credentiald/internal/audit"
	"github.com/certhub/credentiald/internal/domain"
)

func (s *Server) ListMembers(ctx context.Context, req api.ListMembersRequestObject) (api.ListMembersResponseObject, error) {
	p := pageOf[string](req.Params.Page, req.Params.PageSize, nil, nil)
	list, total, err := s.members.List(ctx, principal(ctx), p)
	if err != nil {
		return nil, err
	}
	out := make([]api.Member, len(list))
	for i, m := range list {
		out[i] = member(m)
	}
	return api.ListMembers200JSONResponse{Body: api.MemberPage{Data: out, Meta: pageMeta(p, total)}}, nil
}

func (s *Server) UpdateMember(ctx context.Context, req api.UpdateMemberRequestObject) (api.UpdateMemberResponseObject, error) {
	m, err := s.members.SetRole(ctx, principal(ctx), req.Id, string(req.Body.Role))
	if err != nil {
		return nil, err
	}
	return api.UpdateMember200JSONResponse{Body: api.MemberEnvelope{Data: member(m)}}, nil
}

func (s *Server) DeleteMember(ctx context.Context, req api.DeleteMemberRequestObject) (api.DeleteMemberResponseObject, error) {
	if err := s.members.Remove(ctx, principal(ctx), req.Id); err != nil {
		return nil, err
	}
	return api.DeleteMember204Response{}, nil
}

func (s *Server) TransferOwnership(ctx context.Context, req api.TransferOwnershipRequestObject) (api.TransferOwnershipResponseObject, error) {
	if err := s.members.TransferOwnership(ctx, principal(ctx), req.Body.MemberId, req.Body.CurrentPassword); err != nil {
		return nil, err
	}
	return api.TransferOwnership204Response{}, nil
}

func (s *Server) CreateInvitation(ctx context.Context, req api.CreateInvitationRequestObject) (api.CreateInvitationResponseObject, error) {
	inv, err := s.members.Invite(ctx, principal(ctx), string(req.Body.Email), string(req.Body.Role))
	if err != nil {
		return nil, err
	}
	return api.CreateInvitation201JSONResponse{Body: api.InvitationEnvelope{Data: invitation(inv)}}, nil
}

func (s *Server) ListInvitations(ctx context.Context, req api.ListInvitationsRequestObject) (api.ListInvitationsResponseObject, error) {
	p := pageOf[string](req.Params.Page, req.Params.PageSize, nil, nil)
	list, total, err := s.members.ListInvitations(ctx, principal(ctx), p)
	if err != nil {
		return nil, err
	}
	out := make([]api.Invitation, len(list))
	for i, inv := range list {
		out[i] = invitation(inv)
	}
	return api.ListInvitations200JSONResponse{Body: api.InvitationPage{Data: out, Meta: pageMeta(p, total)}}, nil
}

func (s *Server) RevokeInvitation(ctx context.Context, req api.RevokeInvitationRequestObject) (api.RevokeInvitationResponseObject, error) {
	if err := s.members.RevokeInvitation(ctx, principal(ctx), req.Id); err != nil {
		return nil, err
	}
	return api.RevokeInvitation204Response{}, nil
}

func (s *Server) AcceptInvitation(ctx context.Context, req api.AcceptInvitationRequestObject) (api.AcceptInvitationResponseObject, error) {
	tokens, err := s.members.Accept(ctx, req.Body.Token, req.Body.Name, req.Body.Password)
	if err != nil {
		return nil, err
	}
	return api.AcceptInvitation201JSONResponse{Body: api.SessionTokensEnvelope{Data: s.deliverTokens(ctx, tokens, wantsCookie(req.Params.CredentialdSession))}}, nil
}

func (s *Server) GetAuditLog(ctx context.Context, req api.GetAuditLogRequestObject) (api.GetAuditLogResponseObject, error) {
	q := req.Params
	p := pageOf[string](q.Page, q.PageSize, nil, nil)
	pr := principal(ctx)
	list, total, err := s.auditLog.List(ctx, pr, domain.AuditFilter{Action: q.Action, ActorID: q.ActorId,
		ResourceType: q.ResourceType, ResourceID: q.ResourceId, From: q.From, To: q.To}, p)
	if err != nil {
		return nil, err
	}
	out := make([]api.AuditEntry, len(list))
	for i, e := range list {
		out[i] = auditEntry(e, pr.IsSession())
	}
	return api.GetAuditLog200JSONResponse{Body: api.AuditEntryPage{Data: out, Meta: pageMeta(p, total)}}, nil
}

func member(m domain.Member) api.Member {
	return api.Member{Id: m.ID, Email: openapi_types.Email(m.Email), Name: m.Name, Role: api.UserRole(m.Role),
		TwoFactorEnabled: m.TwoFactorEnabled, LastSignInAt: utc(m.LastSignInAt), CreatedAt: m.CreatedAt.UTC()}
}

func invitation(i domain.Invitation) api.Invitation {
	return api.Invitation{Id: i.ID, Email: openapi_types.Email(i.Email), Role: api.UserRole(i.Role),
		ExpiresAt: i.ExpiresAt.UTC(), CreatedAt: i.CreatedAt.UTC()}
}

// auditEntry is an entry as the API shows it; read through a key, without the client's address
// and User-Agent.
func auditEntry(e audit.Entry, withClient bool) api.AuditEntry {
	out := api.AuditEntry{Id: e.ID, At: e.At.UTC(), Action: e.Action, Summary: e.Summary}
	out.Actor.Type, out.Actor.Name = e.Actor.Type, e.Actor.Name
	if e.Actor.ID != [16]byte{} {
		id := e.Actor.ID
		out.Actor.Id = &id
	}
	if e.Resource.Type != "" {
		out.Resource = &struct {
			Id   string `json:"id"`
			Type string `json:"type"`
		}{Id: e.Resource.ID, Type: e.Resource.Type}
	}
	if withClient {
		if e.IP != "" {
			out.Ip = &e.IP
		}
		if e.UserAgent != "" {
			out.UserAgent = &e.UserAgent
		}
	}
	return out
}
