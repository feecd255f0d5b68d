package idempotency_test

import (
	"testing"
	"time"

	"github.com/certhub/credentiald/internal/domain"
	"github.com/certhub/credentiald/internal/idempotency"
	"github.com/certhub/credentiald/internal/testkit"
)

func TestMain(m *testing.M) { testkit.Main(m) }

// Purge deletes the keys whose answers are no longer replayed and keeps the others: the one
// claimed later is still answered as before.
func TestPurgeDeletesOnlyKeysPastTheirTime(t *testing.T) {
	t.Parallel()
	w := testkit.NewWorld(t)
	s := idempotency.New(w.Store, w.Clock.Now)
	ctx := t.Context()
	fp := []byte("fingerprint")
	answer := domain.StoredResponse{Status: 200, Body: []byte(`{"data":{}}`)}
	for _, key := range []string{"old-1", "old-2"} {
		if _, err := s.Claim(ctx, w.Account, key, fp, time.Minute); err != nil {
			t.Fatal(err)
		}
		if err := s.Complete(ctx, w.Account, key, fp, answer); err != nil {
			t.Fatal(err)
		}
	}
	w.Clock.Advance(idempotency.Keep - time.Hour)
	if _, err := s.Claim(ctx, w.Account, "recent", fp, time.Minute); err != nil {
		t.Fatal(err)
	}
	if err := s.Complete(ctx, w.Account, "recent", fp, answer); err != nil {
		t.Fatal(err)
	}
	w.Clock.Advance(2 * time.Hour)
	if n, err := s.Purge(ctx); err != nil || n != 2 {
		t.Fatalf("purged %d, %v; want the 2 keys past their time", n, err)
	}
	if kept, err := s.Claim(ctx, w.Account, "recent", fp, time.Minute); err != nil || kept == nil || kept.Status != 200 {
		t.Fatalf("the recent key's answer: %+v %v", kept, err)
	}
}
