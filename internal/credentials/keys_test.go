package credentials_test

import (
	"context"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/uuid"
	"github.com/riverqueue/river"
	"github.com/stretchr/testify/require"

	"github.com/certhub/credentiald/internal/accounts"
	"github.com/certhub/credentiald/internal/apperr"
	"github.com/certhub/credentiald/internal/credentials"
	"github.com/certhub/credentiald/internal/domain"
	"github.com/certhub/credentiald/internal/jobs"
	"github.com/certhub/credentiald/internal/store"
	"github.com/certhub/credentiald/internal/testkit"
	"github.com/certhub/credentiald/internal/vc"
)

// An account has its key from its creation on, and reading it, for the DID document or to
// sign a credential, only reads.
func TestAnAccountHasItsKeyFromCreationAndReadingItWritesNothing(t *testing.T) {
	t.Parallel()
	w := newSigning(t)
	ctx := context.Background()
	stored, err := w.st.IssuerKeys(ctx, w.account)
	require.NoError(t, err)
	require.Len(t, stored, 1)
	require.Nil(t, stored[0].RetiredAt)
	ref := w.certificate(t)

	w.queries.take()
	keys, err := w.creds.IssuerKeys(ctx, w.account)
	require.NoError(t, err)
	if diff := cmp.Diff([]string{"ListIssuerKeys"}, w.queries.take()); diff != "" {
		t.Errorf("reading the keys (-want +got):\n%s", diff)
	}
	signed, err := w.creds.Credential(ctx, ref, credentials.FormDataIntegrity, "")
	require.NoError(t, err)
	if diff := cmp.Diff([]string{"CredentialVersion", "GetCertificate", "ListIssuerKeys"}, w.queries.take()); diff != "" {
		t.Errorf("signing a credential (-want +got):\n%s", diff)
	}
	proof, err := vc.VerifyDataIntegrity(signed.Body, vc.NewDIDDocument(keys.DID, keys.Keys).PublicKey)
	require.NoError(t, err)
	require.Equal(t, vc.VerificationMethodID(keys.DID, keys.Keys[0]), proof.VerificationMethod)
	after, err := w.st.IssuerKeys(ctx, w.account)
	require.NoError(t, err)
	if diff := cmp.Diff(stored, after); diff != "" {
		t.Errorf("the keys after reading them (-before +after):\n%s", diff)
	}
}

// An account without a key cannot be (every account gets one), so reading its keys is an
// internal error, and makes none; an account that does not exist is not found.
func TestAMissingKeyIsAnInternalErrorAndReadingMakesNone(t *testing.T) {
	t.Parallel()
	w := newSigning(t)
	ctx := context.Background()
	keyless := accountWithoutKey(t, w.st, "Keyless")

	w.queries.take()
	_, err := w.creds.IssuerKeys(ctx, keyless)
	require.ErrorContains(t, err, "has no issuer key")
	_, isAppErr := apperr.As(err)
	require.False(t, isAppErr, "a missing key is an internal error, not an answer: %v", err)
	if diff := cmp.Diff([]string{"ListIssuerKeys", "GetAccount"}, w.queries.take()); diff != "" {
		t.Errorf("reading a keyless account's keys (-want +got):\n%s", diff)
	}
	stored, err := w.st.IssuerKeys(ctx, keyless)
	require.NoError(t, err)
	require.Empty(t, stored)

	_, err = w.creds.IssuerKeys(ctx, uuid.New())
	require.Equal(t, apperr.NotFound, apperr.CodeOf(err), "an unknown account: %v", err)
}

// Accounts made before accounts got their key with them get one from the backfill, each
// exactly one even when instances start at once; a second run makes none, and what the
// accounts had stays.
func TestTheBackfillGivesEachKeylessAccountOneKeyOnce(t *testing.T) {
	t.Parallel()
	w := newSigning(t)
	ctx := context.Background()
	keyless := []uuid.UUID{accountWithoutKey(t, w.st, "One"), accountWithoutKey(t, w.st, "Two"), accountWithoutKey(t, w.st, "Three")}
	before, err := w.st.IssuerKeys(ctx, w.account)
	require.NoError(t, err)

	made := make([]int, 4)
	testkit.Race(len(made), func(i int) int {
		n, err := w.creds.BackfillIssuerKeys(ctx)
		if err != nil {
			t.Errorf("backfill %d: %v", i, err)
			return 500
		}
		made[i] = n
		return 200
	})
	total := 0
	for _, n := range made {
		total += n
	}
	require.Equal(t, len(keyless), total, "keys made by the concurrent backfills: %v", made)
	for _, id := range keyless {
		keys, err := w.st.IssuerKeys(ctx, id)
		require.NoError(t, err)
		require.Len(t, keys, 1, "keys of account %s", id)
		_, err = w.creds.IssuerKeys(ctx, id)
		require.NoError(t, err)
	}
	after, err := w.st.IssuerKeys(ctx, w.account)
	require.NoError(t, err)
	if diff := cmp.Diff(before, after); diff != "" {
		t.Errorf("the keys of the account that had one (-before +after):\n%s", diff)
	}

	w.queries.take()
	n, err := w.creds.BackfillIssuerKeys(ctx)
	require.NoError(t, err)
	require.Zero(t, n)
	if diff := cmp.Diff([]string{"AccountsWithoutIssuerKey"}, w.queries.take()); diff != "" {
		t.Errorf("a backfill with nothing to do (-want +got):\n%s", diff)
	}
}

// accountWithoutKey stores an account as accounts did before they got keys: by the store
// alone.
func accountWithoutKey(t *testing.T, st *store.Store, name string) uuid.UUID {
	t.Helper()
	a, err := store.InTx(context.Background(), st, func(tx *store.Tx) (domain.Account, error) {
		return tx.CreateAccount(context.Background(), store.NewAccount{Name: name, Plan: "free"}, time.Now())
	})
	require.NoError(t, err)
	return a.ID
}

var _ accounts.IssuerKeyMaker = (*credentials.Service)(nil)

// An account created without a key after the start (by an older release, during a rolling
// upgrade) gets one from the periodic backfill job, worked by its River worker.
func TestThePeriodicBackfillGivesALaterKeylessAccountItsKey(t *testing.T) {
	t.Parallel()
	w := newSigning(t)
	ctx := context.Background()
	job := w.creds.BackfillJob()
	require.NotNil(t, job, "the periodic job")
	keyless := accountWithoutKey(t, w.st, "Late")
	worker := w.creds.BackfillWorker(slog.New(slog.NewTextHandler(io.Discard, nil)))
	require.NoError(t, worker.Work(ctx, &river.Job[jobs.BackfillIssuerKeys]{}))
	keys, err := w.st.IssuerKeys(ctx, keyless)
	require.NoError(t, err)
	require.Len(t, keys, 1, "keys of the account created after the start")
	require.NoError(t, worker.Work(ctx, &river.Job[jobs.BackfillIssuerKeys]{}), "a second run with nothing to do")
	keys, err = w.st.IssuerKeys(ctx, keyless)
	require.NoError(t, err)
	require.Len(t, keys, 1, "keys after a second run")
}
