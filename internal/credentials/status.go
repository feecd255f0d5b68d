package credentials

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"

	"github.com/certhub/credentiald/internal/store"
	"github.com/certhub/credentiald/internal/vc"
)

// Entry is what issuing a credential records for its verifiable form.
type Entry struct {
	// Kind is store.KindCertificate or store.KindBadgeAssertion; CredentialID the certificate's
	// or the assertion's id.
	Kind                    string
	AccountID, CredentialID uuid.UUID
	// Salt salts the recipient's email hash; empty: a random one is drawn (a badge assertion
	// passes its own, so its Open Badges 2.0 and 3.0 forms hash the email alike).
	Salt string
	// Claims is what the credential says that its source does not keep as issued (a badge's,
	// BadgeClaims); nil for a certificate, whose snapshot keeps it.
	Claims *BadgeClaims
}

// closedWhenFull is the share of a list (7/8) past which a list whose random candidates all
// missed is closed (marked full) and the next opened, rather than searched for its last free
// indexes: reading the free indexes of a list of 131,072 takes 100 ms or more, and filling its
// last eighth that way cost about 4 minutes of PostgreSQL time a list (measured by bench-http
// issuing 200,000 certificates: the job slowed from 390 to 180 certificates a second as its
// first list filled). Random indexes keep the herd privacy the list's size gives; an eighth of
// its bits never used costs nothing but 2 KiB. A list closes between about 88 % and 93 % full.
var closedWhenFull = [2]int{7, 8}

// candidatesPerDraw random indexes are tried in one statement of the long way (AssignStatus):
// the first free one is taken. A list a fraction f full misses them all with probability
// f^32 (under 4 % while f < 0.9).
const candidatesPerDraw = 32

// AssignStatus gives an issued credential its entry, in the issuing transaction tx: a random
// index in the account's open status list (the lowest that is not full), drawn without
// collision (the store's unique key on list and index is the arbiter: a draw that finds its
// candidates taken, by earlier credentials or a concurrent issuance, draws again). When random
// candidates keep missing, a list 7/8 full is marked full and the next list opened; in a list
// less full (a small one: tests), its free indexes are read exactly, and one with none left is
// marked full. A credential that has its entry already keeps it.
func AssignStatus(ctx context.Context, tx *store.Tx, e Entry, now time.Time) error {
	return assignStatus(ctx, tx, e, now, vc.StatusListSize)
}

// assignStatus is AssignStatus with lists of capacity entries (the tests fill small ones).
func assignStatus(ctx context.Context, tx *store.Tx, e Entry, now time.Time, capacity int) error {
	row, err := entryRow(e, now)
	if err != nil {
		return err
	}
	// The common case in one round trip: the open list exists and a random index is free.
	first, err := randomIndexes(1, capacity)
	if err != nil {
		return err
	}
	if ok, err := tx.InsertVerifiableCredentialInOpenList(ctx, row, first[0]); err != nil || ok {
		return err
	}
	for range 1000 { // each round either takes an index or fills a list; bounded all the same
		list, err := tx.OpenStatusList(ctx, e.AccountID)
		if errors.Is(err, store.ErrNotFound) {
			if list, err = nextList(ctx, tx, e.AccountID, now); err != nil {
				return err
			}
		} else if err != nil {
			return err
		}
		row.List = list
		candidates, err := randomIndexes(candidatesPerDraw, capacity)
		if err != nil {
			return err
		}
		if _, ok, err := tx.InsertVerifiableCredential(ctx, row, candidates); err != nil || ok {
			return err
		}
		if _, err := tx.FindVerifiableCredential(ctx, e.CredentialID); err == nil {
			return nil // assigned already
		} else if !errors.Is(err, store.ErrNotFound) {
			return err
		}
		used, err := tx.CountStatusEntries(ctx, e.AccountID, list)
		if err != nil {
			return err
		}
		if used*closedWhenFull[1] < capacity*closedWhenFull[0] {
			free, err := tx.FreeStatusIndexes(ctx, e.AccountID, list, capacity-1)
			if err != nil {
				return err
			}
			if len(free) > 0 {
				if _, ok, err := tx.InsertVerifiableCredential(ctx, row, free); err != nil || ok {
					return err
				}
				continue // taken meanwhile by concurrent issuances: draw again
			}
		}
		if err := tx.MarkStatusListFull(ctx, e.AccountID, list, now); err != nil {
			return err
		}
		if _, err := nextList(ctx, tx, e.AccountID, now); err != nil {
			return err
		}
	}
	return fmt.Errorf("credentials: no status list index for %s after 1000 rounds", e.CredentialID)
}

// entryRow is e's entry as stored, signed at now, with a salt drawn when e brings none.
func entryRow(e Entry, now time.Time) (store.VerifiableCredential, error) {
	row := store.VerifiableCredential{CredentialID: e.CredentialID, Kind: e.Kind, AccountID: e.AccountID, Salt: e.Salt, SignedAt: now.UTC()}
	var err error
	if row.Salt == "" {
		if row.Salt, err = newSalt(); err != nil {
			return row, err
		}
	}
	if e.Claims != nil {
		row.Claims, err = e.Claims.marshal()
	}
	return row, err
}

// drawCandidates is how many random indexes an issuance's executor tries (Draw): a list a
// fraction f full misses them all with probability f^16, and over a list's filling 1 issuance
// in 17 goes the long way (AssignStatus).
const drawCandidates = 16

// Draw draws e's entry for an issuance's plan (store.PlannedEntry), written by the executor in
// the round trip that writes the credential: the row as AssignStatus would store it, and
// random candidate indexes in the open list. When the executor took none (no open list yet, or
// every candidate taken), call AssignStatus in the same transaction, after it.
func Draw(e Entry, now time.Time) (store.VerifiableCredential, []int, error) {
	row, err := entryRow(e, now)
	if err != nil {
		return row, nil, err
	}
	candidates, err := randomIndexes(drawCandidates, vc.StatusListSize)
	return row, candidates, err
}

// nextList creates the account's list after its highest one (or its first) and returns the
// lowest open list. Concurrent creators agree: the insert of an existing list does nothing.
func nextList(ctx context.Context, tx *store.Tx, accountID uuid.UUID, now time.Time) (int, error) {
	for n := 1; ; n++ {
		l, err := tx.FindStatusList(ctx, accountID, n)
		if errors.Is(err, store.ErrNotFound) {
			if err := tx.EnsureStatusList(ctx, accountID, n, now); err != nil {
				return 0, err
			}
			return tx.OpenStatusList(ctx, accountID)
		} else if err != nil {
			return 0, err
		}
		if l.FullAt == nil {
			return n, nil
		}
	}
}

// randomIndexes draws n indexes below capacity from crypto/rand: a credential's index says
// nothing of when it was issued or of its neighbours.
func randomIndexes(n, capacity int) ([]int, error) {
	b := make([]byte, 4*n)
	if _, err := rand.Read(b); err != nil {
		return nil, err
	}
	out := make([]int, n)
	for i := range out {
		// capacity is at most 2^17, so the modulo bias of a 32-bit draw is below 2^-15.
		out[i] = int(binary.BigEndian.Uint32(b[4*i:]) % uint32(capacity))
	}
	return out, nil
}

func newSalt() (string, error) {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	return hex.EncodeToString(b[:]), nil
}

// RevokeStatus sets the status bits of the credentials, in the revoking transaction tx: the
// next signed list of each says they are revoked. Bits set already stay as they were.
func RevokeStatus(ctx context.Context, tx *store.Tx, now time.Time, credentialIDs ...uuid.UUID) error {
	return tx.RevokeVerifiableCredentials(ctx, credentialIDs, now.UTC())
}

// RevokeBadgeStatus sets the status bits of every assertion of a badge that is retired.
func RevokeBadgeStatus(ctx context.Context, tx *store.Tx, badgeID uuid.UUID, now time.Time) error {
	ids, err := tx.AssertionIDsOfBadge(ctx, badgeID)
	if err != nil || len(ids) == 0 {
		return err
	}
	return RevokeStatus(ctx, tx, now, ids...)
}

// Resign records, in the transaction that changed what a credential says (a regenerate), that
// its content was fixed anew at now: the next answer is signed again, at now, with the key
// active then.
func Resign(ctx context.Context, tx *store.Tx, credentialID uuid.UUID, now time.Time) error {
	return tx.ResignVerifiableCredential(ctx, credentialID, now.UTC())
}
