// Package members holds the rules of an account's members: their roles, their removal, the
// transfer of ownership and invitations into the account.
package members

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"

	"github.com/certhub/credentiald/internal/apperr"
	"github.com/certhub/credentiald/internal/audit"
	"github.com/certhub/credentiald/internal/auth"
	"github.com/certhub/credentiald/internal/domain"
	"github.com/certhub/credentiald/internal/email"
	"github.com/certhub/credentiald/internal/locale"
	"github.com/certhub/credentiald/internal/spec"
	"github.com/certhub/credentiald/internal/store"
)

// Limits of invitations, per account.
const (
	InvitationTTL        = 7 * 24 * time.Hour
	MaxPendingInvitation = 20
	MaxInvitationsPerDay = 50
)

// Sessions starts a session for a user who has just proven who they are, and forgets the keys
// this service revokes (auth.Service).
type Sessions interface {
	StartSession(ctx context.Context, u domain.User) (auth.Tokens, error)
	ForgetAPIKeys(ids []uuid.UUID)
}

// Service applies the members' rules.
type Service struct {
	store    *store.Store
	sessions Sessions
	siteURL  string
	now      func() time.Time
}

// New returns the service; siteURL is where the links of its emails lead, now its clock (nil:
// the system's).
func New(st *store.Store, sessions Sessions, siteURL string, now func() time.Time) *Service {
	if now == nil {
		now = time.Now
	}
	return &Service{store: st, sessions: sessions, siteURL: strings.TrimRight(siteURL, "/"), now: now}
}

// List returns a page of the account's members.
func (s *Service) List(ctx context.Context, p auth.Principal, page domain.Page) ([]domain.Member, int, error) {
	return s.store.ListMembers(ctx, p.AccountID, page)
}

// assignable reports whether an admin may give role (owner comes only by a transfer).
func assignable(role string) bool {
	return role == auth.RoleViewer || role == auth.RoleIssuer || role == auth.RoleAdmin
}

// SetRole gives a member another role. Lowering it ends the member's sessions and revokes the
// keys they created that hold a scope the new role lacks. The owner's role changes only by a
// transfer (CONFLICT).
func (s *Service) SetRole(ctx context.Context, p auth.Principal, id uuid.UUID, role string) (domain.Member, error) {
	if !assignable(role) {
		return domain.Member{}, apperr.Invalid("role", "must be viewer, issuer or admin: ownership is given by POST /account/owner")
	}
	audit.Describe(ctx, "member", id.String(), "")
	now := s.now()
	return store.InTx(ctx, s.store, func(tx *store.Tx) (domain.Member, error) {
		u, err := tx.LockMember(ctx, p.AccountID, id)
		if err != nil {
			return domain.Member{}, apperr.When(err, store.ErrNotFound, apperr.NoSuch("member"))
		}
		if u.Role == auth.RoleOwner {
			return domain.Member{}, apperr.New(apperr.Conflict, "The owner's role changes only by a transfer of ownership (POST /account/owner).")
		}
		audit.Describe(ctx, "member", id.String(), fmt.Sprintf("role %s -> %s", u.Role, role))
		if u.Role == role {
			return tx.FindMember(ctx, p.AccountID, id)
		}
		if err := tx.SetMemberRole(ctx, p.AccountID, id, role, now); err != nil {
			return domain.Member{}, err
		}
		if auth.RoleAtLeast(u.Role, role) { // lowered
			if _, err := tx.EndUserSessions(ctx, p.AccountID, id, uuid.Nil, "role lowered", now); err != nil {
				return domain.Member{}, err
			}
			revoked, err := tx.RevokeKeysOfCreator(ctx, p.AccountID, id, auth.ScopesOf(role), now)
			defer s.sessions.ForgetAPIKeys(revoked) // whatever the outcome: forgetting costs a read at most
			if err != nil {
				return domain.Member{}, err
			}
		}
		return tx.FindMember(ctx, p.AccountID, id)
	})
}

// Remove deletes a member's user: their sessions end with it, the keys they created are
// revoked, and their address is free again. The owner cannot be removed (CONFLICT).
func (s *Service) Remove(ctx context.Context, p auth.Principal, id uuid.UUID) error {
	audit.Describe(ctx, "member", id.String(), "")
	now := s.now()
	_, err := store.InTx(ctx, s.store, func(tx *store.Tx) (struct{}, error) {
		u, err := tx.LockMember(ctx, p.AccountID, id)
		if err != nil {
			return struct{}{}, apperr.When(err, store.ErrNotFound, apperr.NoSuch("member"))
		}
		if u.Role == auth.RoleOwner {
			return struct{}{}, apperr.New(apperr.Conflict, "The owner cannot be removed: transfer ownership first (POST /account/owner).")
		}
		audit.Describe(ctx, "member", id.String(), "role was "+u.Role)
		revoked, err := tx.RevokeKeysOfCreator(ctx, p.AccountID, id, nil, now)
		defer s.sessions.ForgetAPIKeys(revoked) // whatever the outcome: forgetting costs a read at most
		if err != nil {
			return struct{}{}, err
		}
		return struct{}{}, tx.DeleteMember(ctx, p.AccountID, id)
	})
	return err
}

// TransferOwnership makes another member the owner, the owner's password given again; the
// old owner becomes an admin.
func (s *Service) TransferOwnership(ctx context.Context, p auth.Principal, memberID uuid.UUID, password string) error {
	audit.Describe(ctx, "member", memberID.String(), "")
	creds, err := s.store.FindCredentials(ctx, p.AccountID, p.UserID)
	if err != nil {
		return apperr.When(err, store.ErrNotFound, apperr.NoSuch("user"))
	}
	ok, err := auth.VerifyPassword(ctx, password, creds.PasswordHash)
	if err != nil {
		return err
	}
	if !ok {
		return apperr.New(apperr.InvalidCredentials, "The password is wrong.")
	}
	if memberID == p.UserID {
		return apperr.New(apperr.Conflict, "You are the owner already.")
	}
	now := s.now()
	_, err = store.InTx(ctx, s.store, func(tx *store.Tx) (struct{}, error) {
		// Both rows held, the owner's first (every transfer locks in this order).
		owner, err := tx.LockMember(ctx, p.AccountID, p.UserID)
		if err != nil {
			return struct{}{}, err
		}
		if owner.Role != auth.RoleOwner {
			return struct{}{}, apperr.New(apperr.Conflict, "Only the owner may transfer ownership, and you are no longer the owner.")
		}
		if _, err := tx.LockMember(ctx, p.AccountID, memberID); err != nil {
			return struct{}{}, apperr.When(err, store.ErrNotFound, apperr.NoSuch("member"))
		}
		return struct{}{}, tx.TransferOwnership(ctx, p.AccountID, p.UserID, memberID, now)
	})
	return err
}

// Invite records an invitation and queues its email, whether or not the address has a user
// (an address that has one is told so instead, and accepting answers EMAIL_IN_USE): the answer
// never tells who has an account. At most MaxPendingInvitation are pending and
// MaxInvitationsPerDay made a day per account (RATE_LIMITED).
func (s *Service) Invite(ctx context.Context, p auth.Principal, addr, role string) (domain.Invitation, error) {
	addr = strings.ToLower(strings.TrimSpace(addr))
	if !spec.IsEmail(addr) {
		return domain.Invitation{}, apperr.Invalid("email", "is not a valid email address")
	}
	if !assignable(role) {
		return domain.Invitation{}, apperr.Invalid("role", "must be viewer, issuer or admin: ownership is given by POST /account/owner")
	}
	now := s.now()
	inviter, err := s.store.FindProfile(ctx, p.AccountID, p.UserID)
	if err != nil {
		return domain.Invitation{}, apperr.When(err, store.ErrNotFound, apperr.NoSuch("user"))
	}
	branding, err := s.store.FindBranding(ctx, p.AccountID)
	if err != nil {
		return domain.Invitation{}, err
	}
	lang := locale.Or(store.Deref(branding.DefaultLocale), locale.Default)
	return store.InTx(ctx, s.store, func(tx *store.Tx) (domain.Invitation, error) {
		if err := tx.LockInvitations(ctx, p.AccountID); err != nil {
			return domain.Invitation{}, err
		}
		pending, recent, err := tx.CountInvitations(ctx, p.AccountID, now.Add(-24*time.Hour), now)
		if err != nil {
			return domain.Invitation{}, err
		}
		if pending >= MaxPendingInvitation {
			return domain.Invitation{}, apperr.New(apperr.RateLimited,
				"The account has %d pending invitations, the most it may: revoke one (DELETE /members/invitations/{id}) or wait for one to be accepted or to expire.", MaxPendingInvitation)
		}
		if recent >= MaxInvitationsPerDay {
			return domain.Invitation{}, apperr.New(apperr.RateLimited, "The account made %d invitations in the last 24 hours, the most it may: try again tomorrow.", MaxInvitationsPerDay)
		}
		// The token is made as the email is sent (PrepareEmail); until then none works.
		inv, err := tx.CreateInvitation(ctx, store.NewInvitation{AccountID: p.AccountID, Email: addr, Role: role,
			TokenHash: auth.HashToken(auth.RandomToken(32)), InvitedBy: p.UserID, ExpiresAt: now.Add(InvitationTTL)}, now)
		if err != nil {
			return domain.Invitation{}, err
		}
		audit.Describe(ctx, "invitation", inv.ID.String(), "role "+role)
		_, err = tx.FindUserByEmail(ctx, addr)
		exists := err == nil
		if err != nil && !errors.Is(err, store.ErrNotFound) {
			return domain.Invitation{}, err
		}
		msg := invitationEmail(lang, inviter, inv, exists, s.siteURL)
		if _, err := tx.EnqueueEmail(ctx, msg, now); err != nil {
			return domain.Invitation{}, err
		}
		return inv, nil
	})
}

// ListInvitations returns a page of the account's pending invitations.
func (s *Service) ListInvitations(ctx context.Context, p auth.Principal, page domain.Page) ([]domain.Invitation, int, error) {
	return s.store.ListPendingInvitations(ctx, p.AccountID, page, s.now())
}

// RevokeInvitation revokes a pending invitation; its link is gone from then on.
func (s *Service) RevokeInvitation(ctx context.Context, p auth.Principal, id uuid.UUID) error {
	audit.Describe(ctx, "invitation", id.String(), "")
	_, err := store.InTx(ctx, s.store, func(tx *store.Tx) (struct{}, error) {
		return struct{}{}, tx.RevokeInvitation(ctx, p.AccountID, id, s.now())
	})
	return apperr.When(err, store.ErrNotFound, apperr.NoSuch("invitation"))
}

var errInvitationGone = apperr.New(apperr.InvitationGone, "This invitation was used, revoked or has expired: ask an admin of the account for a new one.")

// Accept spends an invitation's token: it creates the member with the invitation's role, their
// address verified, and signs them in.
func (s *Service) Accept(ctx context.Context, token, name, password string) (auth.Tokens, error) {
	name = strings.TrimSpace(name)
	var details []apperr.Detail
	if n := utf8.RuneCountInString(name); n < 1 || n > 100 {
		details = append(details, apperr.Detail{Field: "name", Message: "must be 1 to 100 characters"})
	}
	if n := utf8.RuneCountInString(password); n < 10 || n > 128 {
		details = append(details, apperr.Detail{Field: "password", Message: "must be 10 to 128 characters"})
	}
	if len(details) > 0 {
		return auth.Tokens{}, &apperr.Error{Code: apperr.ValidationError, Message: "The request is not valid.", Details: details}
	}
	pwHash, err := auth.HashPassword(ctx, password)
	if err != nil {
		return auth.Tokens{}, err
	}
	now := s.now()
	u, err := store.InTx(ctx, s.store, func(tx *store.Tx) (domain.User, error) {
		inv, err := tx.LockInvitationByToken(ctx, auth.HashToken(token))
		if errors.Is(err, store.ErrNotFound) {
			return domain.User{}, errInvitationGone
		} else if err != nil {
			return domain.User{}, err
		}
		if !inv.Pending(now) {
			return domain.User{}, errInvitationGone
		}
		// An account that signs in by single sign-on takes its invited members through it:
		// their first sign-in there gives them the invitation's role.
		if enforced, err := tx.SSOEnforced(ctx, inv.AccountID); err != nil {
			return domain.User{}, err
		} else if enforced {
			return domain.User{}, auth.ErrSSORequired
		}
		u, err := tx.CreateMember(ctx, store.NewUser{AccountID: inv.AccountID, Email: inv.Email, Name: name,
			PasswordHash: pwHash, Role: inv.Role}, now)
		if err != nil {
			return u, apperr.When(err, store.Conflict(store.UniqueUserEmail),
				apperr.New(apperr.EmailInUse, "This address already has a user: sign in instead, or ask to be invited with another address."))
		}
		if err := tx.AcceptInvitation(ctx, inv.ID, now); err != nil {
			return u, err
		}
		audit.SetAccount(ctx, inv.AccountID)
		audit.SetActor(ctx, audit.Actor{Type: audit.ActorUser, ID: u.ID, Name: u.Name})
		audit.Describe(ctx, "member", u.ID.String(), "invitation "+inv.ID.String()+", role "+inv.Role)
		return u, nil
	})
	if err != nil {
		return auth.Tokens{}, err
	}
	return s.sessions.StartSession(ctx, u)
}

// invitationLink stands in a recorded invitation email for its link, which PrepareEmail makes
// as the message is sent: the token never rests in the recorded body.
var invitationLink = regexp.MustCompile(`\[\[invitation-link:([0-9a-f-]{36})\]\]`)

func invitationMarker(id uuid.UUID) string { return "[[invitation-link:" + id.String() + "]]" }

// PrepareEmail fills an invitation email, as it is sent, with a link holding a fresh token:
// the invitation keeps only its hash. An invitation no longer pending is not sent (a
// permanent failure); a message without the marker is left as it is.
func (s *Service) PrepareEmail(ctx context.Context, d *domain.EmailDelivery) error {
	if d.Kind != "invitation" {
		return nil // a marker anywhere else came from text of another origin (a name)
	}
	// The last marker: the link follows the names in every language's body.
	all := invitationLink.FindAllStringSubmatch(d.BodyText, -1)
	if len(all) == 0 {
		return nil
	}
	m := all[len(all)-1]
	id, err := uuid.Parse(m[1])
	if err != nil {
		return ErrInvitationNotPending
	}
	token := auth.RandomToken(32)
	if _, err := s.store.SetInvitationToken(ctx, d.AccountID, id, d.ToAddress, auth.HashToken(token), s.now()); errors.Is(err, store.ErrNotFound) {
		return ErrInvitationNotPending
	} else if err != nil {
		return err
	}
	d.BodyText = strings.ReplaceAll(d.BodyText, m[0], s.siteURL+"/app/#invite="+token)
	return nil
}

// ErrInvitationNotPending: an invitation's email whose invitation was revoked, accepted or
// expired before it was sent; it is not sent.
var ErrInvitationNotPending = errors.New("the invitation is no longer pending")

// invitationEmail is the email of an invitation, in the account's language: the invitation's
// link, or, for an address that has a user already, a note saying so.
func invitationEmail(lang string, inviter store.Profile, inv domain.Invitation, exists bool, siteURL string) domain.OutboundEmail {
	fields := map[string]any{"Inviter": inviter.User.Name, "Account": inviter.Account.Name,
		"Role": locale.Text(lang, "role."+inv.Role, nil), "Link": invitationMarker(inv.ID)}
	kind := "invitation"
	if exists {
		kind = "invitation_existing"
		fields["Link"] = siteURL + "/app/"
	}
	return domain.OutboundEmail{AccountID: inv.AccountID, Kind: kind, ToAddress: inv.Email, FromName: inviter.Account.Name,
		Subject: locale.Text(lang, "email."+email.CatalogTable(kind)+".subject", fields), BodyText: locale.Text(lang, "email."+email.CatalogTable(kind)+".body", fields),
		Locale: lang}
}
