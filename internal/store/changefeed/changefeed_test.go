package changefeed_test

import (
	"context"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/certhub/credentiald/internal/domain"
	"github.com/certhub/credentiald/internal/store"
	"github.com/certhub/credentiald/internal/store/changefeed"
	"github.com/certhub/credentiald/internal/testkit"
)

func TestMain(m *testing.M) { testkit.Main(m) }

// seeded is testkit's world (a store with an account, its template and an event) with a
// connection to its database, for arranging rows the store has no method for.
type seeded struct {
	st                       *store.Store
	url                      string
	conn                     *pgx.Conn
	account, template, event uuid.UUID
	now                      time.Time
}

func seed(t *testing.T) seeded {
	t.Helper()
	w := testkit.NewWorld(t)
	conn, err := pgx.Connect(t.Context(), w.DBURL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close(context.Background()) })
	return seeded{st: w.Store, url: w.DBURL, conn: conn, account: w.Account, template: w.Template, event: w.Event, now: time.Now()}
}

func (s seeded) exec(t *testing.T, sql string, args ...any) {
	t.Helper()
	if _, err := s.conn.Exec(t.Context(), sql, args...); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
}

// recordingWatcher keeps what Watch told it, in order.
type recordingWatcher struct {
	mu     sync.Mutex
	events []string
	told   chan struct{}
}

func newRecordingWatcher() *recordingWatcher {
	return &recordingWatcher{told: make(chan struct{}, 100)}
}

func (w *recordingWatcher) add(e string) {
	w.mu.Lock()
	w.events = append(w.events, e)
	w.mu.Unlock()
	w.told <- struct{}{}
}

func (w *recordingWatcher) Listening() { w.add("listening") }
func (w *recordingWatcher) Lost(error) { w.add("lost") }
func (w *recordingWatcher) Changed(c changefeed.Change) {
	if c.Code != "" {
		w.add("certificate " + c.Certificate.String() + " " + c.Code)
	} else {
		w.add("account " + c.Account.String())
	}
}

// next waits for the next thing told and returns it.
func (w *recordingWatcher) next(t *testing.T) string {
	t.Helper()
	select {
	case <-w.told:
	case <-time.After(10 * time.Second):
		t.Fatal("Watch told nothing for 10 s")
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	e := w.events[0]
	w.events = w.events[1:]
	return e
}

func watch(t *testing.T, st *store.Store, w changefeed.Watcher) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		changefeed.Watch(ctx, st, w, changefeed.Options{Retry: 10 * time.Millisecond, Heartbeat: 300 * time.Millisecond})
	}()
	t.Cleanup(func() { cancel(); <-done })
}

// insertCertificate adds an issued certificate (and its code) as a row, for what the store has
// no single method for.
func insertCertificate(t *testing.T, s seeded, code string) uuid.UUID {
	t.Helper()
	attendee, id := uuid.New(), uuid.New()
	s.exec(t, `INSERT INTO attendees (id, account_id, event_id, first_name, last_name, email) VALUES ($1, $2, $3, 'Ada', 'Lovelace', 'ada@example.org')`,
		attendee, s.account, s.event)
	s.exec(t, `INSERT INTO verification_codes (code, kind) VALUES ($1, 'certificate')`, code)
	s.exec(t, `INSERT INTO certificates (id, account_id, event_id, attendee_id, attendee_link, template_id, certificate_number, verification_code,
		status, recipient_first_name, recipient_last_name, recipient_email, snapshot, issued_at)
		VALUES ($1, $2, $3, $4, $4, $5, 'CERT-1', $6, 'issued', 'Ada', 'Lovelace', 'ada@example.org', '{"event":{"name":"Congress"}}', now())`,
		id, s.account, s.event, attendee, s.template, code)
	return id
}

// What any session commits that verification shows is told, in commit order, once committed;
// what it does not show (the first view, the first verification) and what a rollback undid are
// not. Quiet, the connection lives on through its heartbeats; lost, it is told, and listening
// resumes.
func TestWatchChangesTellsWhatCommitsFromAnySession(t *testing.T) {
	t.Parallel()
	s := seed(t)
	ctx := t.Context()
	w := newRecordingWatcher()
	watch(t, s.st, w)
	if e := w.next(t); e != "listening" {
		t.Fatalf("first told %q, want listening", e)
	}
	id := insertCertificate(t, s, "WATCHED1")
	cert := "certificate " + id.String() + " WATCHED1"
	account := "account " + s.account.String()

	// Neither the first view nor the first verification is told; a branding change after them
	// is the first thing told.
	s.exec(t, `UPDATE certificates SET first_viewed_at = now(), first_verified_at = now() WHERE id = $1`, id)
	s.exec(t, `INSERT INTO branding (account_id, issuer_name) VALUES ($1, 'Academy of Sciences')`, s.account)
	if e := w.next(t); e != account {
		t.Fatalf("told %q, want %q (the first view and verification must tell nothing)", e, account)
	}
	// A rolled-back revocation tells nothing; a committed one tells the certificate.
	tx, err := s.conn.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(ctx, `UPDATE certificates SET status = 'revoked', revoked_at = now() WHERE id = $1`, id); err != nil {
		t.Fatal(err)
	}
	if err := tx.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	s.exec(t, `UPDATE certificates SET recipient_last_name = 'Byron' WHERE id = $1`, id)
	if e := w.next(t); e != cert {
		t.Fatalf("told %q, want %q", e, cert)
	}
	// Quiet for several heartbeats: the connection stays, and what commits is still told.
	time.Sleep(time.Second)
	s.exec(t, `UPDATE branding SET primary_color = '#123456' WHERE account_id = $1`, s.account)
	if e := w.next(t); e != account {
		t.Fatalf("told %q after a quiet second, want %q", e, account)
	}

	// The listening connection is lost: told, then listening again, and changes told again.
	s.exec(t, `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query = 'LISTEN credential_changes'`)
	if e := w.next(t); e != "lost" {
		t.Fatalf("told %q, want lost", e)
	}
	if e := w.next(t); e != "listening" {
		t.Fatalf("told %q, want listening", e)
	}
	s.exec(t, `UPDATE certificates SET status = 'revoked', revoked_at = now(), updated_at = now() WHERE id = $1`, id)
	if e := w.next(t); e != cert {
		t.Fatalf("told %q, want %q", e, cert)
	}
}

// The store's own changes are told after their commit through OnCommit, outside a transaction
// at once and inside one only if it commits.
func TestTheStoresOwnChangesAreToldAfterTheirCommit(t *testing.T) {
	t.Parallel()
	s := seed(t)
	ctx := t.Context()
	var mu sync.Mutex
	var told []changefeed.Change
	s.st.OnCommit(func(c changefeed.Committed) {
		mu.Lock()
		defer mu.Unlock()
		told = append(told, c.Changed...)
	})
	taken := func() []changefeed.Change {
		mu.Lock()
		defer mu.Unlock()
		out := told
		told = nil
		return out
	}
	if _, err := s.st.PutBranding(ctx, s.account, domain.Branding{IssuerName: new("Academy")}, s.now); err != nil {
		t.Fatal(err)
	}
	if got := taken(); !slices.Equal(got, []changefeed.Change{{Account: s.account}}) {
		t.Fatalf("PutBranding told %v", got)
	}
	id := insertCertificate(t, s, "OWNED1")
	if err := s.st.SetRecipientToken(ctx, id, make([]byte, 32)); err != nil {
		t.Fatal(err)
	}
	want := changefeed.Change{Certificate: id, Code: "OWNED1"}
	if got := taken(); !slices.Equal(got, []changefeed.Change{want}) {
		t.Fatalf("SetRecipientToken told %v, want %v", got, want)
	}
	revoke := func(tx *store.Tx) error {
		_, err := tx.RevokeCertificate(ctx, id, store.Revocation{At: s.now, ReasonCode: "other"}, s.now)
		return err
	}
	_, err := store.InTx(ctx, s.st, func(tx *store.Tx) (struct{}, error) {
		if err := revoke(tx); err != nil {
			return struct{}{}, err
		}
		return struct{}{}, errRollback
	})
	if err != errRollback {
		t.Fatal(err)
	}
	if got := taken(); len(got) != 0 {
		t.Fatalf("a rolled-back revocation told %v", got)
	}
	if _, err := store.InTx(ctx, s.st, func(tx *store.Tx) (struct{}, error) {
		return struct{}{}, tx.Savepoint(ctx, revoke)
	}); err != nil {
		t.Fatal(err)
	}
	if got := taken(); !slices.Equal(got, []changefeed.Change{want}) {
		t.Fatalf("a revocation in a savepoint told %v, want %v", got, want)
	}
}

type rollbackError struct{}

func (rollbackError) Error() string { return "rolled back" }

var errRollback error = rollbackError{}

// Every column of certificates is either watched by the trigger that tells changes, or named
// here as one no lookup shows (the id never changes; the snapshot is watched through its
// generated columns): a column added later must be put in one list or
// the other (migration 00030).
func TestChangeNoticesWatchEveryColumnALookupShows(t *testing.T) {
	t.Parallel()
	s := seed(t)
	notShown := []string{"id", "snapshot", "first_viewed_at", "first_verified_at", "attendee_link"}
	var def string
	if err := s.conn.QueryRow(t.Context(), `SELECT pg_get_triggerdef(oid) FROM pg_trigger WHERE tgname = 'certificates_changed'`).Scan(&def); err != nil {
		t.Fatal(err)
	}
	rows, _ := s.conn.Query(t.Context(), `SELECT column_name FROM information_schema.columns WHERE table_name = 'certificates' AND table_schema = 'public'`)
	columns, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil || len(columns) < 10 {
		t.Fatalf("columns %v: %v", columns, err)
	}
	for _, c := range columns {
		watched := regexp.MustCompile(`old\.`+c+`\b`).MatchString(strings.ToLower(def)) &&
			regexp.MustCompile(`new\.`+c+`\b`).MatchString(strings.ToLower(def))
		if listed := slices.Contains(notShown, c); watched == listed {
			t.Errorf("column %s: watched by certificates_changed %v, listed as not shown %v: it must be one or the other", c, watched, listed)
		}
	}
}

// A heartbeat that cannot be sent (the pool has no connection to spare) is a late heartbeat:
// the connection is told lost, so nothing is kept while notices may go unheard, and listening
// resumes once the pool has room again.
func TestAStarvedHeartbeatIsALoss(t *testing.T) {
	t.Parallel()
	s := seed(t)
	sep := "?"
	if strings.Contains(s.url, "?") {
		sep = "&"
	}
	st, err := store.Open(t.Context(), s.url+sep+"pool_max_conns=1")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(st.Close)
	w := newRecordingWatcher()
	watch(t, st, w)
	if e := w.next(t); e != "listening" {
		t.Fatalf("first told %q, want listening", e)
	}
	release, held := make(chan struct{}), make(chan struct{})
	go func() {
		_, _ = store.InTx(context.Background(), st, func(*store.Tx) (struct{}, error) {
			close(held)
			<-release
			return struct{}{}, nil
		})
	}()
	<-held
	if e := w.next(t); e != "lost" {
		t.Fatalf("told %q while the pool had no connection for the heartbeat, want lost", e)
	}
	close(release)
	for e := w.next(t); e != "listening"; e = w.next(t) {
		if e != "lost" {
			t.Fatalf("told %q, want lost or listening", e)
		}
	}
}

// panicsOnce is a watcher whose first Changed panics.
type panicsOnce struct {
	*recordingWatcher
	done bool
}

func (w *panicsOnce) Changed(c changefeed.Change) {
	if !w.done {
		w.done = true
		panic("a watcher's bug")
	}
	w.recordingWatcher.Changed(c)
}

// A panic while listening (a watcher's bug) is a loss, logged: the process goes on, and
// listening resumes.
func TestAPanicWhileListeningIsALoss(t *testing.T) {
	t.Parallel()
	s := seed(t)
	w := &panicsOnce{recordingWatcher: newRecordingWatcher()}
	watch(t, s.st, w)
	if e := w.next(t); e != "listening" {
		t.Fatalf("first told %q, want listening", e)
	}
	s.exec(t, `INSERT INTO branding (account_id, issuer_name) VALUES ($1, 'Academy')`, s.account)
	if e := w.next(t); e != "lost" {
		t.Fatalf("told %q after a panic, want lost", e)
	}
	if e := w.next(t); e != "listening" {
		t.Fatalf("told %q, want listening again", e)
	}
	s.exec(t, `UPDATE branding SET issuer_name = 'Academy of Sciences' WHERE account_id = $1`, s.account)
	if e := w.next(t); e != "account "+s.account.String() {
		t.Fatalf("told %q, want the account's change", e)
	}
}
