package auth

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"
	"github.com/riverqueue/river"

	"github.com/certhub/credentiald/internal/apperr"
	"github.com/certhub/credentiald/internal/audit"
	"github.com/certhub/credentiald/internal/domain"
	"github.com/certhub/credentiald/internal/email"
	"github.com/certhub/credentiald/internal/jobs"
	"github.com/certhub/credentiald/internal/locale"
	"github.com/certhub/credentiald/internal/store"
)

// The sign-in lifecycle: a forgotten password reset from a link sent by email, a password
// changed by its owner, an address verified from a link, and the sessions a user can see and
// end. A link's token is made as its email is sent (PrepareEmail) and kept only hashed.

const (
	// ResetTTL is how long a password reset link works.
	ResetTTL = time.Hour
	// VerificationTTL is how long an address verification link works.
	VerificationTTL = 24 * time.Hour
	// LinksPerHour is how many reset (or verification) emails a user gets in an hour at most.
	LinksPerHour = 5
)

var errLinkGone = apperr.New(apperr.TokenGone, "This link was used already, has expired, or is not one we sent: ask for a new one.")

// ForgotPassword queues a job that emails the user of address a link that resets their
// password, unless they got LinksPerHour of them in the last hour. The request does the same
// work whether or not the address has a user (it seals the address and queues the job), so
// that neither its answer nor its timing tells anybody who has an account.
func (s *Service) ForgotPassword(ctx context.Context, address string) error {
	address = strings.ToLower(strings.TrimSpace(address))
	sealed, err := s.secrets.Seal([]byte(address), []byte(resetAssociated))
	if err != nil {
		return err
	}
	_, err = store.InTx(ctx, s.store, func(tx *store.Tx) (struct{}, error) {
		return struct{}{}, tx.InsertJob(ctx, jobs.PasswordReset{AddressSealed: sealed})
	})
	return err
}

// resetAssociated binds a sealed address to the password reset job.
const resetAssociated = "password-reset-address"

// PasswordResetWorker is the River worker of jobs.PasswordReset: it emails the link when the
// address has a user, and does nothing otherwise.
func (s *Service) PasswordResetWorker() river.Worker[jobs.PasswordReset] { return &resetWorker{s: s} }

type resetWorker struct {
	river.WorkerDefaults[jobs.PasswordReset]
	s *Service
}

func (w *resetWorker) Work(ctx context.Context, job *river.Job[jobs.PasswordReset]) error {
	plain, err := w.s.secrets.Open(job.Args.AddressSealed, []byte(resetAssociated))
	if err != nil {
		// Sealed under a key no longer held: nothing can be done with it.
		return river.JobCancel(fmt.Errorf("opening the address of a password reset: %w", err))
	}
	creds, err := w.s.store.FindCredentialsByEmail(ctx, string(plain))
	if errors.Is(err, store.ErrNotFound) {
		return nil
	} else if err != nil {
		return err
	}
	return w.s.sendLink(ctx, creds.User, store.TokenPasswordReset, ResetTTL, false)
}

// sendLink records a token of purpose for u and queues the email that carries its link; with
// refuse, a user over LinksPerHour is told so (RATE_LIMITED), otherwise nothing is sent.
func (s *Service) sendLink(ctx context.Context, u domain.User, purpose string, ttl time.Duration, refuse bool) error {
	now := s.now()
	lang, account, err := s.accountLanguage(ctx, u)
	if err != nil {
		return err
	}
	_, err = store.InTx(ctx, s.store, func(tx *store.Tx) (struct{}, error) {
		// One sender at a time per user, so that the hourly limit holds under concurrency.
		if _, err := tx.LockMember(ctx, u.AccountID, u.ID); err != nil {
			return struct{}{}, err
		}
		n, err := tx.CountRecentUserTokens(ctx, u.ID, purpose, now.Add(-time.Hour))
		if err != nil {
			return struct{}{}, err
		}
		if n >= LinksPerHour {
			if refuse {
				return struct{}{}, apperr.New(apperr.RateLimited, "%d emails were sent in the last hour, the most there may be: use the newest, or wait an hour.", LinksPerHour)
			}
			return struct{}{}, nil
		}
		tok, err := tx.CreateUserToken(ctx, u.ID, purpose, hashToken(randomToken(32)), now.Add(ttl), now)
		if err != nil {
			return struct{}{}, err
		}
		_, err = tx.EnqueueEmail(ctx, linkEmail(lang, account, u, tok), now)
		return struct{}{}, err
	})
	return err
}

// accountLanguage is the language of u's account's emails (its branding's default) and the
// account's name.
func (s *Service) accountLanguage(ctx context.Context, u domain.User) (lang, account string, err error) {
	pr, err := s.store.FindProfile(ctx, u.AccountID, u.ID)
	if err != nil {
		return "", "", err
	}
	b, err := s.store.FindBranding(ctx, u.AccountID)
	if err != nil {
		return "", "", err
	}
	l := ""
	if b.DefaultLocale != nil {
		l = *b.DefaultLocale
	}
	return locale.Or(l, locale.Default), pr.Account.Name, nil
}

// The markers that stand for a link in a recorded email, made as it is sent.
var linkMarker = regexp.MustCompile(`\[\[(reset|verify)-link:([0-9a-f-]{36})\]\]`)

// emailKinds are the kinds of the emails of each purpose.
var emailKinds = map[string]string{store.TokenPasswordReset: "password_reset", store.TokenEmailVerification: "email_verification"}

func linkEmail(lang, account string, u domain.User, tok store.UserToken) domain.OutboundEmail {
	marker := "[[reset-link:" + tok.ID.String() + "]]"
	if tok.Purpose == store.TokenEmailVerification {
		marker = "[[verify-link:" + tok.ID.String() + "]]"
	}
	kind := emailKinds[tok.Purpose]
	table := "email." + email.CatalogTable(kind)
	fields := map[string]any{"Name": u.Name, "Account": account, "Link": marker}
	return domain.OutboundEmail{AccountID: u.AccountID, Kind: kind, ToAddress: u.Email, ToName: u.Name, FromName: account,
		Subject: locale.Text(lang, table+".subject", fields), BodyText: locale.Text(lang, table+".body", fields), Locale: lang}
}

// ErrLinkNotUsable: a reset or verification email whose token was used or expired before it
// was sent; it is not sent.
var ErrLinkNotUsable = errors.New("the link's token was used or expired before its email was sent")

// PrepareEmail fills a password reset or address verification email, as it is sent, with a
// link holding a fresh token; the token keeps only its hash. A message without a marker is
// left as it is.
func (s *Service) PrepareEmail(ctx context.Context, d *domain.EmailDelivery) error {
	if d.Kind != "password_reset" && d.Kind != "email_verification" {
		return nil // a marker anywhere else came from text of another origin (a name)
	}
	// The last marker: the link follows the names in every language's body.
	all := linkMarker.FindAllStringSubmatch(d.BodyText, -1)
	if len(all) == 0 {
		return nil
	}
	m := all[len(all)-1]
	id, err := uuid.Parse(m[2])
	if err != nil {
		return ErrLinkNotUsable
	}
	token := randomToken(32)
	if _, err := s.store.SetUserToken(ctx, d.AccountID, id, d.ToAddress, hashToken(token), s.now()); errors.Is(err, store.ErrNotFound) {
		return ErrLinkNotUsable
	} else if err != nil {
		return err
	}
	d.BodyText = strings.ReplaceAll(d.BodyText, m[0], s.siteURL+"/app/#"+m[1]+"="+token)
	return nil
}

func validPassword(field, password string) error {
	if n := utf8.RuneCountInString(password); n < 10 || n > 128 {
		return apperr.Invalid(field, "must be 10 to 128 characters")
	}
	return nil
}

// ResetPassword spends a reset link's token: the user's password becomes password, every
// session of theirs ends, their other reset links stop working, and they are emailed that
// the password changed. The link also shows that the address is theirs.
func (s *Service) ResetPassword(ctx context.Context, token, password string) error {
	if err := validPassword("password", password); err != nil {
		return err
	}
	hash, err := HashPassword(ctx, password)
	if err != nil {
		return err
	}
	now := s.now()
	_, err = store.InTx(ctx, s.store, func(tx *store.Tx) (domain.User, error) {
		spent, err := tx.SpendUserToken(ctx, store.TokenPasswordReset, hashToken(token), now)
		if errors.Is(err, store.ErrNotFound) {
			return domain.User{}, errLinkGone
		} else if err != nil {
			return domain.User{}, err
		}
		u, err := tx.LockMember(ctx, spent.AccountID, spent.UserID)
		if err != nil {
			return u, err
		}
		audit.SetAccount(ctx, u.AccountID)
		audit.SetActor(ctx, audit.Actor{Type: audit.ActorUser, ID: u.ID, Name: u.Name})
		audit.Describe(ctx, "user", u.ID.String(), "every session ended")
		return u, s.passwordChanged(ctx, tx, u, hash, uuid.Nil, "password reset", now)
	})
	return err
}

// passwordChanged stores a user's new password hash, ends their sessions but keep, spends
// their reset links, marks their address verified (a reset link reached it) and queues the
// email that tells them.
func (s *Service) passwordChanged(ctx context.Context, tx *store.Tx, u domain.User, hash string, keep uuid.UUID, reason string, now time.Time) error {
	if err := tx.SetUserPassword(ctx, u.ID, hash, now); err != nil {
		return err
	}
	if _, err := tx.EndUserSessions(ctx, u.AccountID, u.ID, keep, reason, now); err != nil {
		return err
	}
	if err := tx.ExpireUserTokens(ctx, u.ID, store.TokenPasswordReset, now); err != nil {
		return err
	}
	if keep == uuid.Nil {
		if err := tx.MarkEmailVerified(ctx, u.ID, now); err != nil {
			return err
		}
	}
	lang, account, err := s.accountLanguage(ctx, u)
	if err != nil {
		return err
	}
	fields := map[string]any{"Name": u.Name, "Account": account, "At": now.UTC().Format("2006-01-02 15:04 UTC"),
		"Link": s.siteURL + "/app/#forgot"}
	_, err = tx.EnqueueEmail(ctx, domain.OutboundEmail{AccountID: u.AccountID, Kind: "password_changed", ToAddress: u.Email,
		ToName: u.Name, FromName: account, Subject: locale.Text(lang, "email.passwordChanged.subject", fields),
		BodyText: locale.Text(lang, "email.passwordChanged.body", fields), Locale: lang}, now)
	return err
}

// ChangePassword changes the principal's password, the current one given again; their other
// sessions end and they are emailed.
func (s *Service) ChangePassword(ctx context.Context, p Principal, current, next string) error {
	if err := validPassword("newPassword", next); err != nil {
		return err
	}
	creds, err := s.credentials(ctx, p)
	if err != nil {
		return err
	}
	ok, err := VerifyPassword(ctx, current, creds.PasswordHash)
	if err != nil {
		return err
	}
	if !ok {
		return apperr.Invalid("currentPassword", "is not your password")
	}
	hash, err := HashPassword(ctx, next)
	if err != nil {
		return err
	}
	now := s.now()
	audit.Describe(ctx, "user", p.UserID.String(), "other sessions ended")
	_, err = store.InTx(ctx, s.store, func(tx *store.Tx) (struct{}, error) {
		u, err := tx.LockMember(ctx, p.AccountID, p.UserID)
		if err != nil {
			return struct{}{}, apperr.When(err, store.ErrNotFound, apperr.NoSuch("user"))
		}
		return struct{}{}, s.passwordChanged(ctx, tx, u, hash, p.SessionID, "password changed", now)
	})
	return err
}

// SendVerification emails the principal a link that verifies their address: CONFLICT when it
// is verified already, RATE_LIMITED past LinksPerHour.
func (s *Service) SendVerification(ctx context.Context, p Principal) error {
	pr, err := s.profile(ctx, p)
	if err != nil {
		return err
	}
	if pr.EmailVerified {
		return apperr.New(apperr.Conflict, "Your address is verified already.")
	}
	audit.Describe(ctx, "user", p.UserID.String(), "")
	return s.sendLink(ctx, pr.User, store.TokenEmailVerification, VerificationTTL, true)
}

// SendVerificationOnSignUp emails a new user the link that verifies their address.
func (s *Service) SendVerificationOnSignUp(ctx context.Context, u domain.User) error {
	return s.sendLink(ctx, u, store.TokenEmailVerification, VerificationTTL, false)
}

// VerifyEmail spends a verification link's token: the user's address is verified.
func (s *Service) VerifyEmail(ctx context.Context, token string) error {
	now := s.now()
	_, err := store.InTx(ctx, s.store, func(tx *store.Tx) (struct{}, error) {
		spent, err := tx.SpendUserToken(ctx, store.TokenEmailVerification, hashToken(token), now)
		if errors.Is(err, store.ErrNotFound) {
			return struct{}{}, errLinkGone
		} else if err != nil {
			return struct{}{}, err
		}
		return struct{}{}, tx.MarkEmailVerified(ctx, spent.UserID, now)
	})
	return err
}

// Session is one of a user's live sessions.
type Session struct {
	store.LiveSession
	Current bool
}

// Sessions lists the principal's live sessions, the one asking marked current.
func (s *Service) Sessions(ctx context.Context, p Principal) ([]Session, error) {
	list, err := s.store.ListLiveSessions(ctx, p.AccountID, p.UserID, s.now())
	if err != nil {
		return nil, err
	}
	out := make([]Session, len(list))
	for i, l := range list {
		out[i] = Session{LiveSession: l, Current: l.ID == p.SessionID}
	}
	return out, nil
}

// EndSession ends one of the principal's sessions (the current one too: that is a sign-out).
func (s *Service) EndSession(ctx context.Context, p Principal, id uuid.UUID) error {
	audit.Describe(ctx, "session", id.String(), "")
	_, err := store.InTx(ctx, s.store, func(tx *store.Tx) (struct{}, error) {
		return struct{}{}, tx.EndSession(ctx, p.AccountID, p.UserID, id, "ended by its user", s.now())
	})
	return apperr.When(err, store.ErrNotFound, apperr.NoSuch("session"))
}
