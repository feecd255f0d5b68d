package attendees_test

import (
	"bytes"
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/certhub/credentiald/internal/attendees"
	"github.com/certhub/credentiald/internal/domain"
	"github.com/certhub/credentiald/internal/recovery"
	"github.com/certhub/credentiald/internal/store"
	"github.com/certhub/credentiald/internal/testkit"
)

func TestMain(m *testing.M) { testkit.Main(m) }

// exporting is the attendees service over a fresh database with an event of n attendees, on
// a stopped clock the test moves.
type exporting struct {
	st      *store.Store
	url     string
	svc     *attendees.Service
	clock   *testkit.Clock
	account uuid.UUID
	event   uuid.UUID
}

func newExporting(t *testing.T, n int) exporting {
	t.Helper()
	w := testkit.NewWorld(t)
	s := exporting{st: w.Store, url: w.DBURL, svc: attendees.New(w.Store, w.Clock.Now), clock: w.Clock, account: w.Account, event: w.Event}
	s.add(t, "before", n)
	return s
}

// add creates n attendees at the clock's time, one second later.
func (s exporting) add(t *testing.T, prefix string, n int) {
	t.Helper()
	s.clock.Advance(time.Second)
	rows := make([]domain.AttendeeFields, n)
	for i := range rows {
		rows[i] = domain.AttendeeFields{FirstName: prefix, LastName: fmt.Sprint(i), Email: fmt.Sprintf("%s%d@example.org", prefix, i)}
	}
	if _, err := store.InTx(t.Context(), s.st, func(tx *store.Tx) (int, error) {
		return tx.ImportAttendees(t.Context(), s.account, s.event, rows, false, s.clock.Now())
	}); err != nil {
		t.Fatal(err)
	}
}

// onFirstWrite calls f the first time the export hands the client something, then keeps what
// it is given.
type onFirstWrite struct {
	f    func()
	done bool
	buf  bytes.Buffer
}

func (w *onFirstWrite) Write(p []byte) (int, error) {
	if !w.done {
		w.done = true
		w.f()
	}
	return w.buf.Write(p)
}

// Attendees added while an export runs are left out of it, also those that sort after the
// batches still to read; every attendee that existed when it began is in it once.
func TestAnExportListsTheAttendeesOfItsStart(t *testing.T) {
	t.Parallel()
	s := newExporting(t, 2500) // three batches
	w := &onFirstWrite{f: func() { s.add(t, "during", 10) }}
	if err := s.svc.Export(t.Context(), s.event, w); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(&w.buf).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, r := range rows[1:] {
		if r[1] != "before" || seen[r[0]] {
			t.Fatalf("row %v: added during the export, or twice", r)
		}
		seen[r[0]] = true
	}
	if len(seen) != 2500 {
		t.Fatalf("%d attendees exported, want the 2,500 of the start", len(seen))
	}
}

// While the client has not taken a batch, the export holds no transaction open and no
// connection of the pool.
func TestAnExportHoldsNoTransactionWhileTheClientReads(t *testing.T) {
	t.Parallel()
	s := newExporting(t, 1500)
	open := -1
	w := &onFirstWrite{f: func() {
		testkit.QueryRowAt(t, s.url, `SELECT count(*) FROM pg_stat_activity
			WHERE datname = current_database() AND pid <> pg_backend_pid() AND (state <> 'idle' OR xact_start IS NOT NULL)`, nil, &open)
	}}
	if err := s.svc.Export(t.Context(), s.event, w); err != nil {
		t.Fatal(err)
	}
	if open != 0 {
		t.Fatalf("%d sessions busy or in a transaction while the client held the first batch", open)
	}
}

// A stream that nobody reads or closes ends when the request's context does.
func TestAnExportStreamEndsWithItsRequest(t *testing.T) {
	t.Parallel()
	s := newExporting(t, 10)
	ctx, cancel := context.WithCancel(t.Context())
	r, err := s.svc.ExportStream(ctx, s.account, s.event, false)
	if err != nil {
		t.Fatal(err)
	}
	cancel()
	done := make(chan error, 1)
	go func() {
		_, err := io.Copy(io.Discard, r)
		done <- err
	}()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("the stream ended with %v, want the request's cancellation", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the stream goes on after its request ended")
	}
}

// A panic while the export writes, in the goroutine that feeds the stream and so outside the
// request's recovery, ends the stream with an error the reader sees; the process goes on.
func TestExportPanicEndsTheStreamNotTheProcess(t *testing.T) {
	t.Parallel()
	s := newExporting(t, 3)
	exploding := attendees.New(s.st, func() time.Time { panic("the clock broke") })
	stream, err := exploding.ExportStream(t.Context(), s.account, s.event, false)
	if err != nil {
		t.Fatal(err)
	}
	defer stream.Close()
	body, err := io.ReadAll(stream)
	if err == nil || !strings.Contains(err.Error(), "the clock broke") || !recovery.Is(err) {
		t.Fatalf("read %q, error %v: want the panic as the stream's error", body, err)
	}
	// The same service still exports.
	stream, err = s.svc.ExportStream(t.Context(), s.account, s.event, false)
	if err != nil {
		t.Fatal(err)
	}
	defer stream.Close()
	rows, err := csv.NewReader(stream).ReadAll()
	if err != nil || len(rows) != 4 {
		t.Fatalf("after the panic: %d rows (%v)", len(rows), err)
	}
}
