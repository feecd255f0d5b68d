package auth

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/certhub/credentiald/internal/apperr"
	"github.com/certhub/credentiald/internal/audit"
	"github.com/certhub/credentiald/internal/domain"
	"github.com/certhub/credentiald/internal/secretbox"
	"github.com/certhub/credentiald/internal/store"
)

// RefreshTokenTTL is the lifetime of a refresh token; each refresh hands out a new one.
const RefreshTokenTTL = 30 * 24 * time.Hour

// Service applies the rules of signing in, sessions, two-step sign-in and API keys.
type Service struct {
	store  *store.Store
	keys   *Keyring
	issuer string // shown by authenticator apps
	// secrets seals and opens TOTP secrets.
	secrets *secretbox.Box
	now     func() time.Time
	// dummyHash makes an unknown email cost what a wrong password costs.
	dummyHash string
	// apiKeys remembers recently verified API keys for a few seconds (see keycache.go).
	apiKeys *keyCache
	// siteURL is where the links of the sign-in emails lead (WithSiteURL).
	siteURL string
}

// Option configures a Service.
type Option func(*Service)

// WithSiteURL makes the links of the sign-in emails (password reset, address verification)
// lead to site.
func WithSiteURL(site string) Option {
	return func(s *Service) { s.siteURL = strings.TrimRight(site, "/") }
}

// NewService returns the service. issuer names the service in authenticator apps; secrets
// seals the TOTP secrets at rest.
func NewService(ctx context.Context, st *store.Store, keys *Keyring, issuer string, secrets *secretbox.Box, opts ...Option) (*Service, error) {
	dummy, err := HashPassword(ctx, "not a password anyone has: "+randomToken(16))
	if err != nil {
		return nil, err
	}
	s := &Service{store: st, keys: keys, issuer: issuer, secrets: secrets, now: keys.now, dummyHash: dummy, apiKeys: newKeyCache()}
	for _, o := range opts {
		o(s)
	}
	return s, nil
}

// Tokens are what a sign-in or refresh hands out.
type Tokens struct {
	AccessToken  string
	RefreshToken string
	ExpiresAt    time.Time // of the access token
}

// Credentials at login.
type LoginParams struct {
	Email, Password             string
	TwoFactorCode, RecoveryCode string
}

// ErrSSORequired refuses a password where the account signs its members in by single sign-on.
var ErrSSORequired = apperr.New(apperr.SSORequired, "This account signs in through single sign-on: sign in with your address there (GET /api/v1/auth/sso/start?email=...).")

var errWrongCredentials = apperr.New(apperr.InvalidCredentials, "The email, password or code is wrong.")

// Login checks email and password (and the second step when the user has it on) and starts a
// session.
func (s *Service) Login(ctx context.Context, p LoginParams) (Tokens, error) {
	creds, err := s.store.FindCredentialsByEmail(ctx, p.Email)
	if errors.Is(err, store.ErrNotFound) {
		// Spend the same time as a wrong password, so that timing does not tell who has an account.
		_, _ = VerifyPassword(ctx, p.Password, s.dummyHash)
		return Tokens{}, errWrongCredentials
	} else if err != nil {
		return Tokens{}, err
	}
	if err := s.checkPassword(ctx, creds, p); err != nil {
		if errors.Is(err, errWrongCredentials) {
			s.recordFailure(ctx, creds.User, p.Email, "wrong password or code")
		}
		return Tokens{}, err
	}
	// Asked only of who knows the password (the answer tells nobody else who has an account),
	// in the transaction that begins the session (see startSession).
	t, err := s.StartSession(ctx, creds.User)
	if errors.Is(err, ErrSSORequired) {
		s.recordFailure(ctx, creds.User, p.Email, "password refused: the account signs in by single sign-on")
	}
	return t, err
}

// recordFailure writes a failed sign-in of a user into their account's audit log, on its own
// (a failure changes nothing for a transaction to carry it): who tried is not known, so the
// actor is the service; the entry names the user and holds a hash of the address typed, never
// the address. A failure for an address that has no user belongs to no account and is not
// recorded (the sign-in limit bounds it). The entry failing to be written fails nothing.
func (s *Service) recordFailure(ctx context.Context, u domain.User, address, why string) {
	sum := sha256.Sum256([]byte(strings.ToLower(strings.TrimSpace(address))))
	c := ClientFrom(ctx)
	e := audit.Entry{AccountID: u.AccountID, At: s.now(), Action: "user.sign_in_failed",
		Actor: audit.Actor{Type: audit.ActorSystem, Name: "sign-in"}, Resource: audit.Resource{Type: "user", ID: u.ID.String()},
		IP: c.IP, UserAgent: c.UserAgent, Summary: why + "; address sha256:" + hex.EncodeToString(sum[:8])}
	_ = s.store.InsertAuditEntry(context.WithoutCancel(ctx), e)
}

// ConfirmPassword checks the password (and the second step when the user has it on) of a user
// of an account, as a sign-in would, without starting a session: single sign-on links a
// provider's subject to a password user only this way.
func (s *Service) ConfirmPassword(ctx context.Context, accountID, userID uuid.UUID, p LoginParams) error {
	creds, err := s.store.FindCredentials(ctx, accountID, userID)
	if err != nil {
		return err
	}
	return s.checkPassword(ctx, creds, p)
}

// checkPassword checks the password and the second step of a user's credentials.
func (s *Service) checkPassword(ctx context.Context, creds store.Credentials, p LoginParams) error {
	hash := creds.PasswordHash
	if hash == "" {
		// A member made by single sign-on has no password: nothing matches, in the time a
		// wrong password takes, so that timing does not tell who signs in that way.
		hash = s.dummyHash
	}
	ok, err := VerifyPassword(ctx, p.Password, hash)
	if creds.PasswordHash == "" {
		ok = false
	}
	if err != nil {
		return err
	}
	if !ok {
		return errWrongCredentials
	}
	if !creds.TOTPEnabled {
		return nil
	}
	switch {
	case p.TwoFactorCode != "":
		if ok, err := s.acceptTOTP(ctx, creds, p.TwoFactorCode); err != nil {
			return err
		} else if !ok {
			return errWrongCredentials
		}
	case p.RecoveryCode != "":
		if ok, err := s.store.UseRecoveryCode(ctx, creds.User.ID, hashRecoveryCode(p.RecoveryCode), s.now()); err != nil {
			return err
		} else if !ok {
			return errWrongCredentials
		}
	default:
		return apperr.New(apperr.TwoFactorRequired, "This account uses two-step sign-in: send twoFactorCode or recoveryCode.")
	}
	return nil
}

// StartSession begins a session for a user who has just proven who they are with a password
// (or a link of theirs).
func (s *Service) StartSession(ctx context.Context, u domain.User) (Tokens, error) {
	return s.startSession(ctx, u, store.SessionByPassword)
}

// StartSSOSession begins a session for a user the account's provider vouched for: it survives
// the provider's enforcement being turned on.
func (s *Service) StartSSOSession(ctx context.Context, u domain.User) (Tokens, error) {
	return s.startSession(ctx, u, store.SessionBySSO)
}

func (s *Service) startSession(ctx context.Context, u domain.User, method string) (Tokens, error) {
	refresh, grant := s.newRefreshToken()
	now := s.now()
	sess, err := store.InTx(ctx, s.store, func(tx *store.Tx) (store.Session, error) {
		// A password session of a member other than the owner is refused where the account
		// signs in by single sign-on; the provider's row is held until the commit, so that a
		// switch to enforced either sees this session (and ends it) or is seen here.
		if method == store.SessionByPassword && u.Role != RoleOwner {
			if enforced, err := tx.SSOEnforcedShared(ctx, u.AccountID); err != nil {
				return store.Session{}, err
			} else if enforced {
				return store.Session{}, ErrSSORequired
			}
		}
		sess, err := tx.CreateSession(ctx, u.AccountID, u.ID, ClientFrom(ctx), method, now, grant.ExpiresAt, now)
		if err != nil {
			return sess, err
		}
		// The request's audit entry (a sign-in, an invitation accepted) is this user's.
		audit.SetAccount(ctx, u.AccountID)
		audit.SetActor(ctx, audit.Actor{Type: audit.ActorUser, ID: u.ID, Name: u.Name})
		return sess, tx.CreateRefreshToken(ctx, sess.ID, grant, now)
	})
	if err != nil {
		return Tokens{}, err
	}
	access, exp, err := s.keys.Issue(ctx, u.ID, u.AccountID, sess.ID)
	if err != nil {
		return Tokens{}, err
	}
	return Tokens{AccessToken: access, RefreshToken: refresh, ExpiresAt: exp}, nil
}

var errBadRefresh = apperr.New(apperr.InvalidAPIKey, "The refresh token is unknown, expired or already used.")

// Refresh exchanges a refresh token for a new pair. A token that was already exchanged revokes
// its session: whoever holds either copy must sign in again.
func (s *Service) Refresh(ctx context.Context, refreshToken string) (Tokens, error) {
	refresh, grant := s.newRefreshToken()
	sess, err := s.rotate(ctx, hashToken(refreshToken), grant)
	if errors.Is(err, errRefreshInvalid) || errors.Is(err, errRefreshReused) {
		return Tokens{}, &apperr.Error{Code: errBadRefresh.Code, Message: errBadRefresh.Message, Cause: err}
	} else if err != nil {
		return Tokens{}, err
	}
	access, exp, err := s.keys.Issue(ctx, sess.UserID, sess.AccountID, sess.ID)
	if err != nil {
		return Tokens{}, err
	}
	return Tokens{AccessToken: access, RefreshToken: refresh, ExpiresAt: exp}, nil
}

// errRefreshReused reports a rotated refresh token presented again: its session is now revoked.
var errRefreshReused = errors.New("refresh token reused; session revoked")

// errRefreshInvalid reports an unknown or expired refresh token, or one of a revoked session.
var errRefreshInvalid = errors.New("refresh token unknown, expired or revoked")

// rotate exchanges the refresh token with hash presented for next, in one transaction that
// holds the presented token's row: of two concurrent refreshes with one token, exactly one
// succeeds. A token that was already rotated revokes its whole session (reuse detection) and
// answers errRefreshReused; that revocation is committed.
func (s *Service) rotate(ctx context.Context, presented []byte, next store.RefreshGrant) (store.Session, error) {
	now := s.now()
	type outcome struct {
		session store.Session
		reused  bool
	}
	o, err := store.InTx(ctx, s.store, func(tx *store.Tx) (outcome, error) {
		rt, err := tx.LockRefreshToken(ctx, presented)
		if errors.Is(err, store.ErrNotFound) {
			return outcome{}, errRefreshInvalid
		} else if err != nil {
			return outcome{}, err
		}
		switch {
		case rt.SessionRevokedAt != nil, !rt.SessionExpiresAt.After(now), !rt.ExpiresAt.After(now):
			return outcome{}, errRefreshInvalid
		case rt.RotatedAt != nil:
			return outcome{reused: true}, tx.RevokeSession(ctx, rt.SessionID, "refresh token reused", now)
		}
		if err := tx.RotateRefreshToken(ctx, rt.ID, now); err != nil {
			return outcome{}, err
		}
		if err := tx.CreateRefreshToken(ctx, rt.SessionID, next, now); err != nil {
			return outcome{}, err
		}
		if err := tx.ExtendSession(ctx, rt.SessionID, next.ExpiresAt); err != nil {
			return outcome{}, err
		}
		return outcome{session: store.Session{ID: rt.SessionID, AccountID: rt.AccountID, UserID: rt.UserID, ExpiresAt: next.ExpiresAt}}, nil
	})
	if err != nil {
		return store.Session{}, err
	}
	if o.reused {
		return store.Session{}, errRefreshReused
	}
	return o.session, nil
}

// Logout ends the principal's session; refreshToken must be one of that session's (current or
// rotated). A session that already ended stays as it was.
func (s *Service) Logout(ctx context.Context, p Principal, refreshToken string) error {
	now := s.now()
	_, err := store.InTx(ctx, s.store, func(tx *store.Tx) (struct{}, error) {
		rt, err := tx.LockRefreshToken(ctx, hashToken(refreshToken))
		if errors.Is(err, store.ErrNotFound) || (err == nil && rt.SessionID != p.SessionID) {
			return struct{}{}, apperr.Invalid("refreshToken", "is not a refresh token of this session")
		} else if err != nil {
			return struct{}{}, err
		}
		return struct{}{}, tx.RevokeSession(ctx, p.SessionID, "signed out", now)
	})
	return err
}

// Me returns the principal's user and account.
func (s *Service) Me(ctx context.Context, p Principal) (store.Profile, error) {
	return s.profile(ctx, p)
}

// profile reads the principal's user and account; a user removed meanwhile is NOT_FOUND.
func (s *Service) profile(ctx context.Context, p Principal) (store.Profile, error) {
	pr, err := s.store.FindProfile(ctx, p.AccountID, p.UserID)
	return pr, apperr.When(err, store.ErrNotFound, apperr.NoSuch("user"))
}

// credentials reads what the principal's user signs in with; a user removed meanwhile is
// NOT_FOUND.
func (s *Service) credentials(ctx context.Context, p Principal) (store.Credentials, error) {
	c, err := s.store.FindCredentials(ctx, p.AccountID, p.UserID)
	return c, apperr.When(err, store.ErrNotFound, apperr.NoSuch("user"))
}

// Authenticate resolves a bearer credential (an API key or an access token) to a principal.
// Every failure is the same 401; the reason goes to the log only.
func (s *Service) Authenticate(ctx context.Context, bearer string) (Principal, error) {
	if strings.HasPrefix(bearer, APIKeyPrefix) {
		return s.authenticateKey(ctx, bearer)
	}
	claims, err := s.keys.Verify(ctx, bearer)
	if errors.Is(err, errTokenExpired) {
		return Principal{}, &apperr.Error{Code: apperr.InvalidAPIKey, Cause: err,
			Message: "The access token has expired; POST /api/v1/auth/refresh with the refresh token gives a new one."}
	} else if err != nil {
		return Principal{}, unauthenticated(err)
	}
	sess, err := s.store.FindActiveSession(ctx, claims.SessionID, claims.AccountID, claims.UserID, s.now())
	if errors.Is(err, store.ErrNotFound) {
		return Principal{}, unauthenticated(errors.New("session ended"))
	} else if err != nil {
		return Principal{}, err
	}
	if now := s.now(); sess.LastUsedAt == nil || now.Sub(*sess.LastUsedAt) >= lastUsedPrecision {
		if err := s.store.TouchSession(ctx, sess.ID, now); err != nil {
			return Principal{}, err
		}
	}
	return Principal{AccountID: sess.AccountID, UserID: sess.UserID, SessionID: sess.ID, AuthenticatedAt: sess.AuthenticatedAt,
		Role: sess.Role, Name: sess.UserName, EmailVerified: sess.EmailVerified}, nil
}

func unauthenticated(cause error) *apperr.Error {
	return &apperr.Error{Code: apperr.InvalidAPIKey, Message: "The key or token is missing, wrong, expired or revoked.", Cause: cause}
}

func (s *Service) newRefreshToken() (string, store.RefreshGrant) {
	tok := "rt_" + randomToken(32)
	return tok, store.RefreshGrant{Hash: hashToken(tok), ExpiresAt: s.now().Add(RefreshTokenTTL)}
}

// RandomToken returns n random bytes in URL-safe base64: the secret of a link or a key.
func RandomToken(n int) string { return randomToken(n) }

// HashToken is how a high-entropy token is kept (see hashToken).
func HashToken(tok string) []byte { return hashToken(tok) }

// randomToken returns n random bytes in URL-safe base64.
func randomToken(n int) string {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		panic(err) // crypto/rand does not fail on supported platforms
	}
	return base64.RawURLEncoding.EncodeToString(b)
}

// hashToken hashes a high-entropy secret (refresh token, API key): a fast hash suffices, and
// lets the database find the row by it.
func hashToken(tok string) []byte {
	sum := sha256.Sum256([]byte(tok))
	return sum[:]
}
