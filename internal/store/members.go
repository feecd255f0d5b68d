package store

import (
	"context"
	"time"

	"github.com/google/uuid"

	"github.com/certhub/credentiald/gen/db"
	"github.com/certhub/credentiald/internal/domain"
)

// ListMembers returns a page of an account's members, newest first, and their number.
func (d queries) ListMembers(ctx context.Context, accountID uuid.UUID, p domain.Page) ([]domain.Member, int, error) {
	rows, err := d.q.ListMembers(ctx, db.ListMembersParams{AccountID: accountID, PageSize: pageLimit(p), PageOffset: pageOffset(p)})
	if err != nil {
		return nil, 0, mapError(err)
	}
	total, err := d.q.CountMembers(ctx, accountID)
	if err != nil {
		return nil, 0, mapError(err)
	}
	out := make([]domain.Member, len(rows))
	for i, r := range rows {
		out[i] = domain.Member{ID: r.ID, Email: r.Email, Name: r.Name, Role: r.Role, TwoFactorEnabled: r.TotpEnabled,
			LastSignInAt: timeOrNil(r.LastSignInAt), CreatedAt: r.CreatedAt}
	}
	return out, int(total), nil
}

// FindMember returns one member of the account. ErrNotFound: no such member.
func (d queries) FindMember(ctx context.Context, accountID, id uuid.UUID) (domain.Member, error) {
	r, err := d.q.GetMember(ctx, db.GetMemberParams{AccountID: accountID, ID: id})
	if err != nil {
		return domain.Member{}, mapError(err)
	}
	return domain.Member{ID: r.ID, Email: r.Email, Name: r.Name, Role: r.Role, TwoFactorEnabled: r.TotpEnabled,
		LastSignInAt: timeOrNil(r.LastSignInAt), CreatedAt: r.CreatedAt}, nil
}

// timeOrNil reads a timestamp the database may answer NULL for (an aggregate over no rows).
func timeOrNil(v any) *time.Time {
	if t, ok := v.(time.Time); ok {
		t = t.UTC()
		return &t
	}
	return nil
}

// LockMember holds a member of the account until the transaction ends. ErrNotFound: no such
// member.
func (d queries) LockMember(ctx context.Context, accountID, id uuid.UUID) (domain.User, error) {
	u, err := d.q.LockMember(ctx, db.LockMemberParams{AccountID: accountID, ID: id})
	if err != nil {
		return domain.User{}, mapError(err)
	}
	return userFrom(u), nil
}

// SetMemberRole changes a member's role, at now.
func (d queries) SetMemberRole(ctx context.Context, accountID, id uuid.UUID, role string, now time.Time) error {
	return mapError(d.q.SetMemberRole(ctx, db.SetMemberRoleParams{AccountID: accountID, ID: id, Role: role, Now: now}))
}

// DeleteMember deletes a member who is not the owner (their sessions go with them).
// ErrNotFound: no such member, or the owner.
func (d queries) DeleteMember(ctx context.Context, accountID, id uuid.UUID) error {
	n, err := d.q.DeleteMember(ctx, db.DeleteMemberParams{AccountID: accountID, ID: id})
	if err != nil {
		return mapError(err)
	}
	if n == 0 {
		return ErrNotFound
	}
	return nil
}

// EndUserSessions ends, at now and for reason, every live session of a user but keep
// (uuid.Nil: every one), and returns how many ended.
func (d queries) EndUserSessions(ctx context.Context, accountID, userID, keep uuid.UUID, reason string, now time.Time) (int, error) {
	n, err := d.q.EndUserSessions(ctx, db.EndUserSessionsParams{AccountID: accountID, UserID: userID, Keep: keep, Reason: &reason, Now: now})
	return int(n), mapError(err)
}

// RevokeKeysOfCreator revokes, at now, the live keys a member created that hold a scope
// outside allowed (every one of them when allowed is empty), and returns their ids.
func (d queries) RevokeKeysOfCreator(ctx context.Context, accountID, creator uuid.UUID, allowed []string, now time.Time) ([]uuid.UUID, error) {
	if allowed == nil {
		allowed = []string{}
	}
	ids, err := d.q.RevokeKeysOfCreator(ctx, db.RevokeKeysOfCreatorParams{AccountID: accountID, CreatedBy: &creator, Allowed: allowed, Now: now})
	return ids, mapError(err)
}

// TransferOwnership makes newOwner the account's owner and the old owner an admin, at now.
func (d queries) TransferOwnership(ctx context.Context, accountID, oldOwner, newOwner uuid.UUID, now time.Time) error {
	return mapError(d.q.TransferOwnership(ctx, db.TransferOwnershipParams{AccountID: accountID, OldOwner: oldOwner, NewOwner: newOwner, Now: now}))
}

// NewInvitation is an invitation to store; its token is kept as TokenHash only.
type NewInvitation struct {
	AccountID uuid.UUID
	Email     string
	Role      string
	TokenHash []byte
	InvitedBy uuid.UUID
	ExpiresAt time.Time
}

func invitationFrom(r db.MemberInvitation) domain.Invitation {
	return domain.Invitation{ID: r.ID, AccountID: r.AccountID, Email: r.Email, Role: r.Role, InvitedBy: r.InvitedBy,
		ExpiresAt: r.ExpiresAt, AcceptedAt: r.AcceptedAt, RevokedAt: r.RevokedAt, CreatedAt: r.CreatedAt}
}

// LockInvitations serialises the invitations of an account until the transaction ends.
func (d queries) LockInvitations(ctx context.Context, accountID uuid.UUID) error {
	return mapError(d.q.LockInvitations(ctx, "member_invitations:"+accountID.String()))
}

// CountInvitations counts the account's invitations pending at now, and those created since.
func (d queries) CountInvitations(ctx context.Context, accountID uuid.UUID, since, now time.Time) (pending, recent int, err error) {
	r, err := d.q.CountInvitations(ctx, db.CountInvitationsParams{AccountID: accountID, Since: since, Now: now})
	return int(r.Pending), int(r.Recent), mapError(err)
}

// CreateInvitation stores an invitation, created at now.
func (d queries) CreateInvitation(ctx context.Context, n NewInvitation, now time.Time) (domain.Invitation, error) {
	r, err := d.q.CreateInvitation(ctx, db.CreateInvitationParams{ID: newID(), AccountID: n.AccountID, Email: n.Email,
		Role: n.Role, TokenHash: n.TokenHash, InvitedBy: &n.InvitedBy, ExpiresAt: n.ExpiresAt, Now: now})
	if err != nil {
		return domain.Invitation{}, mapError(err)
	}
	return invitationFrom(r), nil
}

// ListPendingInvitations returns a page of the account's invitations pending at now, newest
// first, and their number.
func (d queries) ListPendingInvitations(ctx context.Context, accountID uuid.UUID, p domain.Page, now time.Time) ([]domain.Invitation, int, error) {
	rows, err := d.q.ListPendingInvitations(ctx, db.ListPendingInvitationsParams{AccountID: accountID, Now: now,
		PageSize: pageLimit(p), PageOffset: pageOffset(p)})
	if err != nil {
		return nil, 0, mapError(err)
	}
	total, err := d.q.CountPendingInvitations(ctx, db.CountPendingInvitationsParams{AccountID: accountID, Now: now})
	if err != nil {
		return nil, 0, mapError(err)
	}
	return convert(rows, invitationFrom), int(total), nil
}

// RevokeInvitation revokes a pending invitation at now. ErrNotFound: none is pending by that id.
func (d queries) RevokeInvitation(ctx context.Context, accountID, id uuid.UUID, now time.Time) error {
	n, err := d.q.RevokeInvitation(ctx, db.RevokeInvitationParams{AccountID: accountID, ID: id, Now: now})
	if err != nil {
		return mapError(err)
	}
	if n == 0 {
		return ErrNotFound
	}
	return nil
}

// LockInvitationByToken holds the invitation whose token hashes to hash, whatever its state.
// ErrNotFound: there is none.
func (d queries) LockInvitationByToken(ctx context.Context, hash []byte) (domain.Invitation, error) {
	r, err := d.q.LockInvitationByToken(ctx, hash)
	if err != nil {
		return domain.Invitation{}, mapError(err)
	}
	return invitationFrom(r), nil
}

// AcceptInvitation marks an invitation accepted at now.
func (d queries) AcceptInvitation(ctx context.Context, id uuid.UUID, now time.Time) error {
	return mapError(d.q.AcceptInvitation(ctx, db.AcceptInvitationParams{ID: id, Now: now}))
}

// CreateMember creates a user of an account whose address is verified (an accepted
// invitation), at now. A conflict on UniqueUserEmail: the email is taken.
func (d queries) CreateMember(ctx context.Context, u NewUser, now time.Time) (domain.User, error) {
	row, err := d.q.CreateMember(ctx, db.CreateMemberParams{ID: newID(), AccountID: u.AccountID, Email: u.Email, Name: u.Name,
		PasswordHash: u.PasswordHash, Role: u.Role, Now: now})
	if err != nil {
		return domain.User{}, mapError(err)
	}
	return userFrom(row), nil
}

// SetInvitationToken gives a pending invitation of the account, to address, the token whose
// hash is hash. ErrNotFound: no such invitation is pending.
func (d queries) SetInvitationToken(ctx context.Context, accountID, id uuid.UUID, address string, hash []byte, now time.Time) (domain.Invitation, error) {
	r, err := d.q.SetInvitationToken(ctx, db.SetInvitationTokenParams{ID: id, AccountID: accountID, Email: address, TokenHash: hash, Now: now})
	if err != nil {
		return domain.Invitation{}, mapError(err)
	}
	return invitationFrom(r), nil
}
