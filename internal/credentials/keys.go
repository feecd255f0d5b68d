package credentials

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/google/uuid"
	"github.com/lestrrat-go/jwx/v3/jwk"
	"github.com/riverqueue/river"

	"github.com/certhub/credentiald/internal/apperr"
	"github.com/certhub/credentiald/internal/etag"
	"github.com/certhub/credentiald/internal/jobs"
	"github.com/certhub/credentiald/internal/secretbox"
	"github.com/certhub/credentiald/internal/store"
	"github.com/certhub/credentiald/internal/vc"
)

// issuerKey is a key of an account, opened.
type issuerKey struct {
	id        uuid.UUID
	createdAt time.Time
	public    ed25519.PublicKey
	sealed    []byte // the private key, opened only to sign
}

// associatedData binds a sealed private key to its account and key id: a sealed key copied to
// another row or account does not open.
func associatedData(accountID, keyID uuid.UUID) []byte {
	return []byte("credentiald issuer key\x00" + accountID.String() + "\x00" + keyID.String())
}

// errNoIssuerKey is what reading the keys of an account that has none meets: it cannot
// happen, since every account gets its first key in the transaction that creates it
// (accounts.Create) and BackfillIssuerKeys gave one, at a start, to those created before. No
// read makes a key: a GET never writes.
var errNoIssuerKey = errors.New("credentials: the account has no issuer key")

// NewIssuerKey makes a key for the account at now, its private key sealed: the account's first
// when accounts.Create creates it, or a new one when Rotate retires the active key.
func (s *Service) NewIssuerKey(accountID uuid.UUID, now time.Time) (store.IssuerKey, error) {
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return store.IssuerKey{}, err
	}
	id, err := uuid.NewV7()
	if err != nil {
		return store.IssuerKey{}, err
	}
	sealed, err := s.box.Seal(priv.Seed(), associatedData(accountID, id))
	if err != nil {
		return store.IssuerKey{}, err
	}
	return store.IssuerKey{ID: id, AccountID: accountID, PublicKey: pub, PrivateKeySealed: sealed, CreatedAt: now.UTC()}, nil
}

// BackfillIssuerKeys gives each account without an active key its first one, and returns how
// many it made. Accounts get their key when they are created; this is for those created before
// that, and runs at every start (one query when there are none) and every BackfillEvery (an
// instance of an older release, during a rolling upgrade, still creates accounts without a
// key, and no read makes one any more: BackfillJob). It is Go, not a migration:
// the private key is sealed under SECRETS_KEY, which the database never sees. Each key is one
// statement that stores nothing when the account has an active key by then, so instances
// starting at once end with one key per account.
func (s *Service) BackfillIssuerKeys(ctx context.Context) (int, error) {
	ids, err := s.store.AccountsWithoutIssuerKey(ctx)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, id := range ids {
		k, err := s.NewIssuerKey(id, s.now())
		if err != nil {
			return n, err
		}
		ok, err := s.store.InsertActiveIssuerKey(ctx, k)
		if err != nil {
			return n, fmt.Errorf("credentials: first issuer key of account %s: %w", id, err)
		}
		if ok {
			n++
		}
	}
	return n, nil
}

// keys returns every key of the account, oldest first; an account without keys is
// errNoIssuerKey.
func (s *Service) keys(ctx context.Context, accountID uuid.UUID) ([]issuerKey, error) {
	stored, err := s.store.IssuerKeys(ctx, accountID)
	if err != nil {
		return nil, err
	}
	if len(stored) == 0 {
		return nil, fmt.Errorf("%w: account %s", errNoIssuerKey, accountID)
	}
	out := make([]issuerKey, len(stored))
	for i, k := range stored {
		if len(k.PublicKey) != ed25519.PublicKeySize {
			return nil, fmt.Errorf("credentials: issuer key %s has a public key of %d bytes", k.ID, len(k.PublicKey))
		}
		out[i] = issuerKey{id: k.ID, createdAt: k.CreatedAt, public: ed25519.PublicKey(k.PublicKey), sealed: k.PrivateKeySealed}
	}
	return out, nil
}

// keyAt is the key that signs what was fixed at t, among keys oldest first: the newest made at
// or before t, else the oldest (a credential issued before its account's first key). The
// answer for a given t never changes, since keys are never removed and a new key is made
// after the active one (Rotate): a credential keeps its signature across rotations, and what
// a retired key signed keeps verifying against the DID document. ok is false when there are
// no keys.
func keyAt(keys []store.IssuerKeyStamp, t time.Time) (id uuid.UUID, ok bool) {
	if len(keys) == 0 {
		return uuid.UUID{}, false
	}
	k := keys[0]
	for _, c := range keys[1:] {
		if !c.CreatedAt.After(t) {
			k = c
		}
	}
	return k.ID, true
}

// keyAtOf is keyAt over opened keys.
func keyAtOf(keys []issuerKey, t time.Time) (issuerKey, error) {
	stamps := make([]store.IssuerKeyStamp, len(keys))
	for i, k := range keys {
		stamps[i] = store.IssuerKeyStamp{ID: k.id, CreatedAt: k.createdAt}
	}
	id, ok := keyAt(stamps, t)
	if !ok {
		return issuerKey{}, errNoIssuerKey
	}
	return keyByID(keys, id)
}

// keyByID finds the key id among keys.
func keyByID(keys []issuerKey, id uuid.UUID) (issuerKey, error) {
	for _, k := range keys {
		if k.id == id {
			return k, nil
		}
	}
	return issuerKey{}, fmt.Errorf("credentials: issuer key %s is not among its account's keys", id)
}

// signer opens key for signing as the account's DID.
func (s *Service) signer(accountID uuid.UUID, did string, k issuerKey) (vc.Signer, error) {
	seed, err := s.box.Open(k.sealed, associatedData(accountID, k.id))
	if err != nil {
		return vc.Signer{}, fmt.Errorf("credentials: opening issuer key %s: %w", k.id, err)
	}
	if len(seed) != ed25519.SeedSize {
		return vc.Signer{}, fmt.Errorf("credentials: issuer key %s has a seed of %d bytes", k.id, len(seed))
	}
	return vc.NewSigner(did, ed25519.NewKeyFromSeed(seed)), nil
}

// DID is the account's issuer DID.
func (s *Service) DID(accountID uuid.UUID) (string, error) {
	return vc.DIDWeb(s.links.Root(), accountID.String())
}

// RotatedKey reports a rotation: the new key and the one it retired (nil: none, the
// account's first key).
type RotatedKey struct {
	VerificationMethod        string
	RetiredVerificationMethod *string
}

// Rotate starts signing the account's new credentials with a new key. The retired key stays
// in the DID document and the JWK Set, and keeps signing what it signed before (keyAt), so
// every credential issued so far verifies as it did.
func (s *Service) Rotate(ctx context.Context, accountID uuid.UUID) (RotatedKey, error) {
	did, err := s.DID(accountID)
	if err != nil {
		return RotatedKey{}, err
	}
	now := s.now().UTC()
	return store.InTx(ctx, s.store, func(tx *store.Tx) (RotatedKey, error) {
		if err := tx.LockAccountIssuerKeys(ctx, accountID); err != nil {
			return RotatedKey{}, apperr.When(err, store.ErrNotFound, apperr.NoSuch("account"))
		}
		var out RotatedKey
		if old, err := tx.FindActiveIssuerKey(ctx, accountID); err == nil {
			vm := vc.VerificationMethodID(did, ed25519.PublicKey(old.PublicKey))
			out.RetiredVerificationMethod = &vm
			// A new key must be made after the retired one, or keyAt could not tell them
			// apart; a clock that stepped back waits for the old key's time.
			if !now.After(old.CreatedAt) {
				now = old.CreatedAt.Add(time.Microsecond)
			}
			if _, err := tx.RetireIssuerKey(ctx, accountID, now); err != nil {
				return RotatedKey{}, err
			}
		} else if !errors.Is(err, store.ErrNotFound) {
			return RotatedKey{}, err
		}
		k, err := s.NewIssuerKey(accountID, now)
		if err != nil {
			return RotatedKey{}, err
		}
		if ok, err := tx.InsertActiveIssuerKey(ctx, k); err != nil {
			return RotatedKey{}, err
		} else if !ok {
			return RotatedKey{}, errors.New("credentials: the account still had an active key")
		}
		out.VerificationMethod = vc.VerificationMethodID(did, ed25519.PublicKey(k.PublicKey))
		return out, nil
	})
}

// PublicKeys are an account's keys as its DID document and JWK Set publish them, and a
// validator of that list.
type PublicKeys struct {
	DID  string
	Keys []ed25519.PublicKey
	ETag string
}

// IssuerKeys returns every key the account ever signed with; an unknown account is not found
// (looked up only when there are no keys, so an account costs one read).
func (s *Service) IssuerKeys(ctx context.Context, accountID uuid.UUID) (PublicKeys, error) {
	did, err := s.DID(accountID)
	if err != nil {
		return PublicKeys{}, err
	}
	keys, err := s.keys(ctx, accountID)
	if errors.Is(err, errNoIssuerKey) {
		if _, ferr := s.store.FindAccountByID(ctx, accountID); errors.Is(ferr, store.ErrNotFound) {
			return PublicKeys{}, apperr.NoSuch("issuer")
		} else if ferr != nil {
			return PublicKeys{}, ferr
		}
	}
	if err != nil {
		return PublicKeys{}, err
	}
	out := PublicKeys{DID: did, Keys: make([]ed25519.PublicKey, len(keys))}
	parts := []string{"keys", did}
	for i, k := range keys {
		out.Keys[i] = k.public
		parts = append(parts, k.id.String())
	}
	out.ETag = etag.Of(parts...)
	return out, nil
}

// Conditional is an answer to a conditional GET: Value with its ETag, or NotModified (and no
// Value) when the request's If-None-Match named the tag.
type Conditional[T any] struct {
	Value       T
	ETag        string
	NotModified bool
}

// DIDDocument returns the account's did:web document, unless ifNoneMatch names its tag.
func (s *Service) DIDDocument(ctx context.Context, accountID uuid.UUID, ifNoneMatch string) (Conditional[vc.DIDDocument], error) {
	k, err := s.IssuerKeys(ctx, accountID)
	if err != nil {
		return Conditional[vc.DIDDocument]{}, err
	}
	out := Conditional[vc.DIDDocument]{ETag: k.ETag}
	if out.NotModified = etag.Matches(ifNoneMatch, out.ETag); !out.NotModified {
		out.Value = vc.NewDIDDocument(k.DID, k.Keys)
	}
	return out, nil
}

// JWKSet returns the account's keys as a JWK Set, each kid the key's verification method id,
// unless ifNoneMatch names its tag.
func (s *Service) JWKSet(ctx context.Context, accountID uuid.UUID, ifNoneMatch string) (Conditional[jwk.Set], error) {
	k, err := s.IssuerKeys(ctx, accountID)
	if err != nil {
		return Conditional[jwk.Set]{}, err
	}
	out := Conditional[jwk.Set]{ETag: etag.Of("jwks", k.ETag)}
	if out.NotModified = etag.Matches(ifNoneMatch, out.ETag); !out.NotModified {
		out.Value, err = vc.NewJWKSet(k.DID, k.Keys)
	}
	return out, err
}

// ResealKeys seals every issuer private key that box's current key did not seal (one sealed
// under a key of SECRETS_KEY_PREVIOUS) under the current key, and returns how many it resealed.
func ResealKeys(ctx context.Context, st *store.Store, box *secretbox.Box) (int, error) {
	keys, err := st.AllIssuerKeys(ctx)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, k := range keys {
		if box.Current(k.PrivateKeySealed) {
			continue
		}
		ad := associatedData(k.AccountID, k.ID)
		seed, err := box.Open(k.PrivateKeySealed, ad)
		if err != nil {
			return n, fmt.Errorf("issuer key %s of account %s: %w", k.ID, k.AccountID, err)
		}
		sealed, err := box.Seal(seed, ad)
		if err != nil {
			return n, err
		}
		if err := st.UpdateIssuerKeySealed(ctx, k.ID, sealed); err != nil {
			return n, err
		}
		n++
	}
	return n, nil
}

// BackfillEvery is how often the periodic job gives keyless accounts their key: an account
// created by an older release during a rolling upgrade signs nothing until then.
const BackfillEvery = time.Minute

// BackfillJob is the periodic job that runs BackfillIssuerKeys every BackfillEvery (River's
// leader inserts it; see jobqueue).
func (s *Service) BackfillJob() *river.PeriodicJob {
	return river.NewPeriodicJob(river.PeriodicInterval(BackfillEvery), func() (river.JobArgs, *river.InsertOpts) {
		return jobs.BackfillIssuerKeys{}, nil
	}, nil)
}

// BackfillWorker is the River worker of the backfill job; a failure is logged by River and the
// next run tries again.
func (s *Service) BackfillWorker(logger *slog.Logger) river.Worker[jobs.BackfillIssuerKeys] {
	return &backfillWorker{s: s, logger: logger}
}

type backfillWorker struct {
	river.WorkerDefaults[jobs.BackfillIssuerKeys]
	s      *Service
	logger *slog.Logger
}

func (w *backfillWorker) Work(ctx context.Context, _ *river.Job[jobs.BackfillIssuerKeys]) error {
	n, err := w.s.BackfillIssuerKeys(ctx)
	if err != nil {
		return fmt.Errorf("making the issuer keys of the accounts without one: %w", err)
	}
	if n > 0 {
		w.logger.InfoContext(ctx, "made the issuer keys of the accounts without one", "count", n)
	}
	return nil
}
