package store_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/certhub/credentiald/internal/accounts"
	"github.com/certhub/credentiald/internal/domain"
	"github.com/certhub/credentiald/internal/store"
	"github.com/certhub/credentiald/internal/testkit"
)

// tracedQueries keeps the statements a store ran since the last reset, with their arguments.
type tracedQueries struct {
	mu  sync.Mutex
	on  bool
	ran []tracedQuery
}

type tracedQuery struct {
	sql  string
	args []any
}

func (t *tracedQueries) TraceQueryStart(ctx context.Context, _ *pgx.Conn, d pgx.TraceQueryStartData) context.Context {
	t.mu.Lock()
	defer t.mu.Unlock()
	if !t.on {
		return ctx
	}
	args := slices.DeleteFunc(slices.Clone(d.Args), func(a any) bool { _, mode := a.(pgx.QueryExecMode); return mode })
	t.ran = append(t.ran, tracedQuery{sql: d.SQL, args: args})
	return ctx
}

func (t *tracedQueries) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData) {}

// record starts keeping the statements run, take answers them and stops.
func (t *tracedQueries) record() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.on, t.ran = true, nil
}

func (t *tracedQueries) take() []tracedQuery {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := t.ran
	t.on, t.ran = false, nil
	return out
}

// bigAccount is an account with 200,000 attendees over 20 events and a certificate for each
// (one in 50 a draft, one in 100 revoked), written by SQL, vacuumed and analyzed; and a
// second account with 20,000 of each, so that every list has another account's rows to pass
// over. Ten of the big account's attendees are called Lovelace.
type bigAccount struct {
	st     *store.Store
	trace  *tracedQueries
	conn   *pgx.Conn
	acct   uuid.UUID
	events []uuid.UUID
}

const (
	bigAttendees   = 200_000
	bigEvents      = 20
	otherAttendees = 20_000
)

func newBigAccount(b *testing.B) *bigAccount {
	b.Helper()
	ctx := context.Background()
	url := testkit.Database(b)
	trace := &tracedQueries{}
	st, err := store.Open(ctx, url, store.WithTracer(trace))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(st.Close)
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = conn.Close(context.Background()) })
	big := &bigAccount{st: st, trace: trace, conn: conn}
	big.acct, big.events = seedAccount(b, st, conn, "big", bigAttendees)
	seedAccount(b, st, conn, "other", otherAttendees)
	indexAttendees(b, st, conn) // seeded by SQL: their search rows are the indexer's (migration 00037)
	for _, table := range []string{"attendees", "certificates", "verification_codes", "events"} {
		if _, err := conn.Exec(ctx, "VACUUM ANALYZE "+table); err != nil {
			b.Fatal(err)
		}
	}
	return big
}

// seedAccount writes an account with n attendees over bigEvents events, a certificate each.
func seedAccount(b testing.TB, st *store.Store, conn *pgx.Conn, name string, n int) (uuid.UUID, []uuid.UUID) {
	b.Helper()
	ctx := context.Background()
	now := time.Now()
	acct, _, err := accounts.New(st, nil).Create(ctx, accounts.CreateParams{Email: name + "@example.org",
		Password: testkit.Password, Name: "Owner", AccountName: name})
	if err != nil {
		b.Fatal(err)
	}
	tmpl, err := st.InsertTemplate(ctx, store.NewTemplate{AccountID: &acct.ID, Name: "Plain", PageSize: "A4", Orientation: "landscape",
		Layout: json.RawMessage(`{"rows":[{"height":40,"cols":[{"size":12,"content":{"type":"text","text":"x"}}]}]}`)}, now)
	if err != nil {
		b.Fatal(err)
	}
	events := make([]uuid.UUID, bigEvents)
	for i := range events {
		ev, err := st.CreateEvent(ctx, acct.ID, domain.EventFields{Name: fmt.Sprintf("Congress %d", i), EventDate: now,
			TemplateID: tmpl.ID}, now)
		if err != nil {
			b.Fatal(err)
		}
		events[i] = ev.ID
	}
	// Names: 16 first names, a random surname (8 hex letters) except for ten Lovelaces.
	if _, err := conn.Exec(ctx, `INSERT INTO attendees (account_id, event_id, first_name, last_name, email, created_at, updated_at)
		SELECT $1, ($2::uuid[])[1 + i % $4], f, l, lower(f) || '.' || l || '.' || i || '@example.org',
		       now() - i * interval '1 second', now()
		FROM generate_series(1, $3) AS i,
		     LATERAL (SELECT (ARRAY['Ada','Grace','Alan','Edsger','Barbara','Donald','Frances','John','Margaret','Niklaus',
		                            'Radia','Tim','Karen','Ken','Dennis','Hedy'])[1 + i % 16] AS f,
		                     CASE WHEN i % 20000 = 7 THEN 'Lovelace' ELSE initcap(substr(md5(i::text), 1, 8)) END AS l) AS names`,
		acct.ID, events, n, bigEvents); err != nil {
		b.Fatal(err)
	}
	if _, err := conn.Exec(ctx, `WITH a AS (
			SELECT id, event_id, first_name, last_name, email, created_at, row_number() OVER (ORDER BY created_at, id) AS i
			FROM attendees WHERE account_id = $1),
		codes AS (INSERT INTO verification_codes (code, kind)
			SELECT $2 || lpad(i::text, 9, '0'), 'certificate' FROM a RETURNING code)
		INSERT INTO certificates (account_id, event_id, attendee_id, attendee_link, template_id, certificate_number, verification_code, status,
			recipient_first_name, recipient_last_name, recipient_email, snapshot, issued_at, revoked_at, created_at, updated_at)
		SELECT $1, a.event_id, a.id, a.id, $3, 'B-' || lpad(a.i::text, 6, '0'), $2 || lpad(a.i::text, 9, '0'),
		       CASE WHEN a.i % 50 = 0 THEN 'draft' WHEN a.i % 100 = 1 THEN 'revoked' ELSE 'issued' END,
		       a.first_name, a.last_name, a.email, '{}',
		       CASE WHEN a.i % 50 = 0 THEN NULL ELSE a.created_at END,
		       CASE WHEN a.i % 100 = 1 THEN a.created_at END, a.created_at, a.created_at
		FROM a`, acct.ID, strings.ToUpper(name[:1])+"X", tmpl.ID); err != nil {
		b.Fatal(err)
	}
	return acct.ID, events
}

// explain checks that a statement the store ran reads the big tables by index: no sequential
// scan of attendees or certificates. It answers the plan's nodes, for the log.
func (big *bigAccount) explain(b *testing.B, q tracedQuery) string {
	b.Helper()
	var raw []byte
	args := append([]any{pgx.QueryExecModeExec}, q.args...)
	if err := big.conn.QueryRow(context.Background(), "EXPLAIN (FORMAT JSON) "+q.sql, args...).Scan(&raw); err != nil {
		b.Fatalf("EXPLAIN %s: %v", q.sql, err)
	}
	var plans []struct{ Plan planNode }
	if err := json.Unmarshal(raw, &plans); err != nil {
		b.Fatal(err)
	}
	var nodes []string
	var walk func(n planNode)
	walk = func(n planNode) {
		node := n.NodeType
		if n.Relation != "" {
			node += " on " + n.Relation
		}
		if n.Index != "" {
			node += " using " + n.Index
		}
		nodes = append(nodes, node)
		if n.NodeType == "Seq Scan" && (n.Relation == "attendees" || n.Relation == "certificates") {
			b.Fatalf("a sequential scan of %s: %s\n%s", n.Relation, q.sql, raw)
		}
		for _, c := range n.Plans {
			walk(c)
		}
	}
	walk(plans[0].Plan)
	return strings.Join(nodes, " > ")
}

type planNode struct {
	NodeType string     `json:"Node Type"`
	Relation string     `json:"Relation Name"`
	Index    string     `json:"Index Name"`
	Plans    []planNode `json:"Plans"`
}

// The first page (20) of the large lists of an account with 200,000 attendees and 200,000
// certificates, with its meta.total (a list is its page's statement and its count's): plain,
// in another order, filtered, searched. Each reports its p50 and p99 (ms) and logs its plans,
// which must read attendees and certificates by index.
func BenchmarkListsOfALargeAccount(b *testing.B) {
	big := newBigAccount(b)
	ctx := context.Background()
	text := func(s string) *string { return &s }
	status := func(s domain.CertificateStatus) *domain.CertificateStatus { return &s }
	day := time.Now().UTC().Truncate(24 * time.Hour)
	attendees := func(f domain.AttendeeFilter, p domain.Page) func() (int, error) {
		return func() (int, error) {
			list, total, err := big.st.ListAttendees(ctx, big.acct, f, p)
			if err == nil && len(list) == 0 && total > 0 {
				err = fmt.Errorf("an empty first page of %d", total)
			}
			return total, err
		}
	}
	certificates := func(f domain.CertificateFilter, p domain.Page) func() (int, error) {
		return func() (int, error) {
			list, total, err := big.st.ListCertificates(ctx, big.acct, f, p, time.Now())
			if err == nil && len(list) == 0 && total > 0 {
				err = fmt.Errorf("an empty first page of %d", total)
			}
			return total, err
		}
	}
	page := domain.Page{Number: 1, Size: 20}
	with := func(sort string, q *string) domain.Page { p := page; p.Sort, p.Q = sort, q; return p }
	event := &big.events[3]
	cases := []struct {
		name string
		list func() (int, error)
	}{
		{"attendees", attendees(domain.AttendeeFilter{}, page)},
		{"attendees/sort=lastName", attendees(domain.AttendeeFilter{}, with("lastName", nil))},
		{"attendees/sort=-email", attendees(domain.AttendeeFilter{}, with("-email", nil))},
		{"attendees/eventId", attendees(domain.AttendeeFilter{EventID: event}, page)},
		{"attendees/q=lovelace", attendees(domain.AttendeeFilter{}, with("", text("lovelace")))},
		{"attendees/q=john.lovelace", attendees(domain.AttendeeFilter{}, with("", text("John.Lovelace")))},
		{"attendees/q=grace(12,500)", attendees(domain.AttendeeFilter{}, with("", text("grace")))},
		{"attendees/q=grace,sort=lastName", attendees(domain.AttendeeFilter{}, with("lastName", text("grace")))},
		{"attendees/eventId,q=john(2,500)", attendees(domain.AttendeeFilter{EventID: event}, with("", text("john")))},
		{"certificates", certificates(domain.CertificateFilter{}, page)},
		{"certificates/sort=issuedAt", certificates(domain.CertificateFilter{}, with("issuedAt", nil))},
		{"certificates/eventId", certificates(domain.CertificateFilter{EventID: event}, page)},
		{"certificates/status=revoked", certificates(domain.CertificateFilter{Status: status(domain.CertificateRevoked)}, page)},
		{"certificates/status=valid", certificates(domain.CertificateFilter{Status: status(domain.CertificateValid)}, page)},
		{"certificates/status=draft,sort=issuedAt", certificates(domain.CertificateFilter{Status: status(domain.CertificateDraft)}, with("issuedAt", nil))},
		{"certificates/issued-today", certificates(domain.CertificateFilter{IssuedFrom: &day, IssuedTo: &day}, page)},
		{"certificates/q=B-12345", certificates(domain.CertificateFilter{}, with("", text("B-12345")))},
		{"certificates/q=lovelace", certificates(domain.CertificateFilter{}, with("", text("lovelace")))},
		{"certificates/q=grace(12,500)", certificates(domain.CertificateFilter{}, with("", text("grace")))},
		{"certificates/status=revoked,q=grace", certificates(domain.CertificateFilter{Status: status(domain.CertificateRevoked)}, with("", text("grace")))},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			big.trace.record()
			total, err := c.list()
			if err != nil {
				b.Fatal(err)
			}
			var plans []string
			for _, q := range big.trace.take() {
				plans = append(plans, big.explain(b, q))
			}
			b.Logf("total %d; plans: %s", total, strings.Join(plans, " | "))
			var took []time.Duration
			for b.Loop() {
				start := time.Now()
				if _, err := c.list(); err != nil {
					b.Fatal(err)
				}
				took = append(took, time.Since(start))
			}
			slices.Sort(took)
			b.ReportMetric(float64(took[len(took)/2].Microseconds())/1000, "p50-ms")
			b.ReportMetric(float64(took[len(took)*99/100].Microseconds())/1000, "p99-ms")
		})
	}
}
