package store_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/certhub/credentiald/internal/domain"
	"github.com/certhub/credentiald/internal/store"
)

// lockedPromptly reports whether another transaction can lock the event at once, that is
// whether whatever held it before has let go (its transaction ended, its connection is back).
func (s seeded) lockedPromptly(t *testing.T) bool {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Second)
	defer cancel()
	_, err := store.InTx(ctx, s.st, func(tx *store.Tx) (struct{}, error) {
		return struct{}{}, tx.LockEvent(ctx, s.account.ID, s.event.ID)
	})
	return err == nil
}

// renameInTx renames the event in a transaction that holds it, then ends as end says.
func (s seeded) renameInTx(ctx context.Context, end func() error) error {
	_, err := store.InTx(ctx, s.st, func(tx *store.Tx) (domain.Event, error) {
		if err := tx.LockEvent(ctx, s.account.ID, s.event.ID); err != nil {
			return domain.Event{}, err
		}
		f := domain.EventFields{Name: "Renamed", EventDate: s.event.EventDate, TemplateID: s.template.ID}
		if _, err := tx.UpdateEvent(ctx, s.account.ID, s.event.ID, f, s.now); err != nil {
			return domain.Event{}, err
		}
		return domain.Event{}, end()
	})
	return err
}

// wantRolledBack checks that the transaction that renamed the event left nothing behind: not
// its write, not its lock.
func (s seeded) wantRolledBack(t *testing.T, which string) {
	t.Helper()
	if name := s.eventName(t); name != "Congress" {
		t.Fatalf("the %s transaction's write stayed: %q", which, name)
	}
	if !s.lockedPromptly(t) {
		t.Fatalf("the %s transaction still holds its lock", which)
	}
}

func (s seeded) eventName(t *testing.T) string {
	t.Helper()
	ev, err := s.st.FindEvent(t.Context(), s.account.ID, s.event.ID)
	if err != nil {
		t.Fatal(err)
	}
	return ev.Name
}

func TestInTxCommitsWhenTheFunctionSucceeds(t *testing.T) {
	t.Parallel()
	s := seed(t)
	got, err := store.InTx(t.Context(), s.st, func(tx *store.Tx) (string, error) {
		f := domain.EventFields{Name: "Renamed", EventDate: s.event.EventDate, TemplateID: s.template.ID}
		ev, err := tx.UpdateEvent(t.Context(), s.account.ID, s.event.ID, f, s.now)
		return ev.Name, err
	})
	if err != nil || got != "Renamed" || s.eventName(t) != "Renamed" {
		t.Fatalf("result %q, error %v, stored %q", got, err, s.eventName(t))
	}
}

// The error of the function comes back as it is, and nothing it wrote stays.
func TestInTxRollsBackWhenTheFunctionFails(t *testing.T) {
	t.Parallel()
	s := seed(t)
	refused := errors.New("refused by a rule")
	if err := s.renameInTx(t.Context(), func() error { return refused }); err != refused {
		t.Fatalf("error %v, want the function's own", err)
	}
	s.wantRolledBack(t, "failed")
}

// A panic in the function rolls the transaction back and releases its connection and locks
// before it goes on: a worker that recovers it keeps working.
func TestInTxRollsBackWhenTheFunctionPanics(t *testing.T) {
	t.Parallel()
	s := seed(t)
	// A store of the test's own: closing a pool waits for its connections, so a leaked one would
	// hang the cleanup instead of failing the test. It is closed only when nothing leaked (the
	// database is dropped with its connections either way).
	own, err := store.Open(t.Context(), s.url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if !t.Failed() {
			own.Close()
		}
	})
	s.st = own
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second) // a leaked lock fails the test, not hangs it
	defer cancel()
	for range 10 { // more than the pool's connections: none may leak
		func() {
			defer func() {
				if r := recover(); r != "glyph index out of range" {
					t.Fatalf("recovered %v, want the function's panic", r)
				}
			}()
			_ = s.renameInTx(ctx, func() error { panic("glyph index out of range") })
		}()
	}
	s.wantRolledBack(t, "panicking")
}

// The request is cancelled while its transaction is open: the rollback still runs (on a
// context of its own), so the lock does not wait for the connection to be noticed dead.
func TestInTxRollsBackWhenTheContextIsCancelled(t *testing.T) {
	t.Parallel()
	s := seed(t)
	ctx, cancel := context.WithCancel(t.Context())
	err := s.renameInTx(ctx, func() error {
		cancel()
		return ctx.Err()
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("error %v, want the cancellation", err)
	}
	s.wantRolledBack(t, "cancelled")
}

// The context ends after the function did its work, before the commit: the transaction commits
// (on a context of its own) and says so, rather than fail a COMMIT that might land anyway.
func TestInTxCommitsWorkDoneBeforeTheContextEnded(t *testing.T) {
	t.Parallel()
	s := seed(t)
	ctx, cancel := context.WithCancel(t.Context())
	if err := s.renameInTx(ctx, func() error { cancel(); return nil }); err != nil {
		t.Fatalf("error %v, want the commit", err)
	}
	if name := s.eventName(t); name != "Renamed" {
		t.Fatalf("stored %q, want the committed rename", name)
	}
	if !s.lockedPromptly(t) {
		t.Fatal("the committed transaction still holds its lock")
	}
}

// A missing row is store.ErrNotFound; a refused constraint a ConflictError naming it. Neither
// carries an HTTP status or a field: the services decide what they mean.
func TestTheStoreAnswersTypedErrors(t *testing.T) {
	t.Parallel()
	s := seed(t)
	ctx := t.Context()
	if _, err := s.st.FindEvent(ctx, s.account.ID, uuid.New()); err != store.ErrNotFound {
		t.Fatalf("a missing event: %v", err)
	}
	if _, err := s.st.FindEvent(ctx, uuid.New(), s.event.ID); err != store.ErrNotFound {
		t.Fatalf("another account's event: %v", err)
	}
	_, err := s.st.CreateUser(ctx, store.NewUser{AccountID: s.account.ID, Email: "owner@example.org", Name: "Twin",
		PasswordHash: "x", Role: "issuer"}, s.now)
	var conflict *store.ConflictError
	if !errors.As(err, &conflict) || conflict.Constraint != store.UniqueUserEmail || !errors.Is(err, store.Conflict(store.UniqueUserEmail)) {
		t.Fatalf("a taken email: %v", err)
	}
	if errors.Is(err, store.Conflict(store.AccountPlanExists)) {
		t.Fatal("a conflict matches another constraint")
	}
	if _, err := s.st.SetAccountPlan(ctx, s.account.ID, "gold", s.now); !errors.Is(err, store.Conflict(store.AccountPlanExists)) {
		t.Fatalf("an unknown plan: %v", err)
	}
}
