package auth

import (
	"context"
	"crypto"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/google/uuid"
	"github.com/lestrrat-go/jwx/v3/jwa"
	"github.com/lestrrat-go/jwx/v3/jwk"
	"github.com/lestrrat-go/jwx/v3/jwt"

	"github.com/certhub/credentiald/internal/store"
)

// AccessTokenTTL is the lifetime of an access token.
const AccessTokenTTL = 15 * time.Minute

// keyRefreshInterval bounds how stale the keyring's view of the active key may get;
// unknownKeyRefresh bounds how often a token it cannot verify makes it reread the keys (another
// instance may have rotated them), so that garbage tokens cannot hammer the database.
const (
	keyRefreshInterval = 30 * time.Second
	unknownKeyRefresh  = time.Second
)

// AccessClaims are what an access token says.
type AccessClaims struct {
	UserID    uuid.UUID
	AccountID uuid.UUID
	SessionID uuid.UUID
	IssuedAt  time.Time
	ExpiresAt time.Time
}

// Keyring signs access tokens with the active Ed25519 key and verifies them with every key that
// may still have unexpired tokens out: the active one and those retired less than a token
// lifetime ago. The keys live in the database, so all instances share them.
type Keyring struct {
	store    *store.Store
	issuer   string
	audience string
	pinned   bool // the signing key came from the configuration
	now      func() time.Time

	mu        sync.RWMutex
	signer    jwk.Key
	verifiers jwk.Set
	loadedAt  time.Time
}

// KeyringOptions configure a keyring.
type KeyringOptions struct {
	Issuer   string
	Audience string
	// Seed is the 32-byte Ed25519 seed from the configuration; nil: use the stored key, or
	// generate and store one.
	Seed []byte
	Now  func() time.Time
}

// ParseSeed decodes a base64 (standard or URL alphabet) Ed25519 seed of 32 bytes.
func ParseSeed(s string) ([]byte, error) {
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
		if b, err := enc.DecodeString(s); err == nil && len(b) == ed25519.SeedSize {
			return b, nil
		}
	}
	return nil, errors.New("want the base64 of a 32-byte Ed25519 seed")
}

// NewKeyring loads (or creates) the signing key.
func NewKeyring(ctx context.Context, st *store.Store, opts KeyringOptions) (*Keyring, error) {
	k := &Keyring{store: st, issuer: opts.Issuer, audience: opts.Audience, pinned: opts.Seed != nil, now: opts.Now}
	if k.now == nil {
		k.now = time.Now
	}
	seed := opts.Seed
	if seed == nil {
		seed = make([]byte, ed25519.SeedSize)
		if _, err := rand.Read(seed); err != nil {
			return nil, err
		}
	}
	candidate, err := signingKeyOf(seed)
	if err != nil {
		return nil, err
	}
	if err := ensureSigningKey(ctx, st, candidate, k.pinned, k.now()); err != nil {
		return nil, fmt.Errorf("signing key: %w", err)
	}
	if err := k.reload(ctx); err != nil {
		return nil, err
	}
	return k, nil
}

// ensureSigningKey makes candidate the active signing key when force is set (a key from the
// configuration), or when no key is active yet; otherwise the active key stays. Several
// instances starting at once agree on one key: the database allows one active key.
func ensureSigningKey(ctx context.Context, st *store.Store, candidate store.SigningKey, force bool, now time.Time) error {
	_, err := store.InTx(ctx, st, func(tx *store.Tx) (struct{}, error) {
		if force {
			if err := tx.RetireSigningKeys(ctx, candidate.KID, now); err != nil {
				return struct{}{}, err
			}
		}
		if err := tx.InsertSigningKey(ctx, candidate, now); err != nil {
			return struct{}{}, err
		}
		if force {
			if err := tx.ActivateSigningKey(ctx, candidate.KID); err != nil {
				return struct{}{}, err
			}
		}
		return struct{}{}, nil
	})
	return err
}

// RotateSigningKey retires the active key at now and makes next the active one. Instances
// learn of it within keyRefreshInterval; tokens of the retired key verify until they expire.
func RotateSigningKey(ctx context.Context, st *store.Store, next store.SigningKey, now time.Time) error {
	return ensureSigningKey(ctx, st, next, true, now)
}

// NewSigningKey generates a key for RotateSigningKey.
func NewSigningKey() (store.SigningKey, error) {
	seed := make([]byte, ed25519.SeedSize)
	if _, err := rand.Read(seed); err != nil {
		return store.SigningKey{}, err
	}
	return signingKeyOf(seed)
}

// signingKeyOf names a seed by the RFC 7638 thumbprint of its public key.
func signingKeyOf(seed []byte) (store.SigningKey, error) {
	pub, err := jwk.Import(ed25519.NewKeyFromSeed(seed).Public())
	if err != nil {
		return store.SigningKey{}, err
	}
	tp, err := pub.Thumbprint(crypto.SHA256)
	if err != nil {
		return store.SigningKey{}, err
	}
	return store.SigningKey{KID: base64.RawURLEncoding.EncodeToString(tp), Seed: seed}, nil
}

// reload rereads the keys: the active one signs (unless the configuration pins another), all
// of them verify.
func (k *Keyring) reload(ctx context.Context) error {
	keys, err := k.store.VerifyingSigningKeys(ctx, k.now().Add(-AccessTokenTTL-time.Minute))
	if err != nil {
		return fmt.Errorf("loading signing keys: %w", err)
	}
	set := jwk.NewSet()
	var signer jwk.Key
	for _, sk := range keys {
		priv, err := jwk.Import(ed25519.NewKeyFromSeed(sk.Seed))
		if err != nil {
			return err
		}
		for _, kv := range [][2]any{{jwk.KeyIDKey, sk.KID}, {jwk.AlgorithmKey, jwa.EdDSA()}} {
			if err := priv.Set(kv[0].(string), kv[1]); err != nil {
				return err
			}
		}
		pub, err := priv.PublicKey()
		if err != nil {
			return err
		}
		if err := set.AddKey(pub); err != nil {
			return err
		}
		if sk.RetiredAt == nil {
			signer = priv
		}
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	if signer != nil && (!k.pinned || k.signer == nil) {
		k.signer = signer
	}
	if k.signer == nil {
		return errors.New("no active signing key")
	}
	k.verifiers, k.loadedAt = set, k.now()
	return nil
}

func (k *Keyring) maybeReload(ctx context.Context, maxAge time.Duration) {
	k.mu.RLock()
	stale := k.now().Sub(k.loadedAt) > maxAge
	k.mu.RUnlock()
	if stale {
		_ = k.reload(ctx) // keep the current view if the database is briefly away
	}
}

// Issue signs an access token for a session.
func (k *Keyring) Issue(ctx context.Context, userID, accountID, sessionID uuid.UUID) (string, time.Time, error) {
	k.maybeReload(ctx, keyRefreshInterval)
	now := k.now().Truncate(time.Second)
	exp := now.Add(AccessTokenTTL)
	tok, err := jwt.NewBuilder().
		Issuer(k.issuer).Audience([]string{k.audience}).Subject(userID.String()).
		IssuedAt(now).Expiration(exp).
		Claim("acct", accountID.String()).Claim("sid", sessionID.String()).
		Build()
	if err != nil {
		return "", time.Time{}, err
	}
	k.mu.RLock()
	signer := k.signer
	k.mu.RUnlock()
	signed, err := jwt.Sign(tok, jwt.WithKey(jwa.EdDSA(), signer))
	if err != nil {
		return "", time.Time{}, err
	}
	return string(signed), exp, nil
}

// errInvalidToken is any token that does not verify; the reason is kept for the log.
// errTokenExpired is a token that verified but whose time is up: its holder may refresh.
var (
	errInvalidToken = errors.New("invalid access token")
	errTokenExpired = errors.New("access token expired")
)

type clockFunc func() time.Time

func (f clockFunc) Now() time.Time { return f() }

// Verify checks an access token's signature, kid, issuer, audience and expiry.
func (k *Keyring) Verify(ctx context.Context, token string) (AccessClaims, error) {
	claims, err := k.verify(token)
	if err != nil && !errors.Is(err, jwt.TokenExpiredError()) {
		// Perhaps another instance rotated the key: reread (rate-limited) and try once more.
		k.maybeReload(ctx, unknownKeyRefresh)
		claims, err = k.verify(token)
	}
	switch {
	case errors.Is(err, jwt.TokenExpiredError()):
		// jwx checks the claims after the signature: only an authentic token gets here.
		return AccessClaims{}, fmt.Errorf("%w: %v", errTokenExpired, err)
	case err != nil:
		return AccessClaims{}, fmt.Errorf("%w: %v", errInvalidToken, err)
	}
	return claims, nil
}

func (k *Keyring) verify(token string) (AccessClaims, error) {
	k.mu.RLock()
	set := k.verifiers
	k.mu.RUnlock()
	tok, err := jwt.Parse([]byte(token),
		jwt.WithKeySet(set),
		jwt.WithValidate(true),
		jwt.WithIssuer(k.issuer),
		jwt.WithAudience(k.audience),
		jwt.WithRequiredClaim("exp"),
		jwt.WithRequiredClaim("sub"),
		jwt.WithClock(clockFunc(k.now)),
	)
	if err != nil {
		return AccessClaims{}, err
	}
	var c AccessClaims
	var acct, sid string
	sub, _ := tok.Subject()
	if c.UserID, err = uuid.Parse(sub); err != nil {
		return AccessClaims{}, errors.New("sub is not a uuid")
	}
	if tok.Get("acct", &acct) != nil || tok.Get("sid", &sid) != nil {
		return AccessClaims{}, errors.New("acct or sid missing")
	}
	if c.AccountID, err = uuid.Parse(acct); err != nil {
		return AccessClaims{}, errors.New("acct is not a uuid")
	}
	if c.SessionID, err = uuid.Parse(sid); err != nil {
		return AccessClaims{}, errors.New("sid is not a uuid")
	}
	c.IssuedAt, _ = tok.IssuedAt()
	c.ExpiresAt, _ = tok.Expiration()
	return c, nil
}
