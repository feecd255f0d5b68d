package store_test

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/certhub/credentiald/internal/domain"
	"github.com/certhub/credentiald/internal/searchindex"
	"github.com/certhub/credentiald/internal/store"
	"github.com/certhub/credentiald/internal/testkit"
)

// A search's pages, read along the list's order (common matches) or by id (rare ones, or when
// the walk comes short), are the unsearched list's rows that match, in the same order, paged
// alike, with the same total: for every sort order, an event's list and the account's, pages
// of 1, 2, 3 and 20, and matches that are everywhere, bunched at the far end of the order, rare,
// single and absent; as a large list (through the search tables) and as a small one (on its
// own rows alone). Renamed rows are found by their new names only. Not parallel: it sets the
// store's size of a small list.
func TestSearchPagesAreTheListsMatches(t *testing.T) {
	ctx := context.Background()
	url := testkit.Database(t)
	trace := &tracedQueries{}
	st, err := store.Open(ctx, url, store.WithTracer(trace))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(st.Close)
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close(context.Background()) })
	acct, events := seedAccount(t, st, conn, "small", 200)
	seedAccount(t, st, conn, "other", 40)
	// The 40 oldest attendees and their certificates are renamed Hopper, and the newest and the
	// 46th newest: at the end of the newest-first order but two, so that a walk of the first
	// page finds one of its two rows and must not answer it.
	for _, table := range []string{"attendees SET last_name", "certificates SET recipient_last_name"} {
		stmt := fmt.Sprintf(`UPDATE %[1]s = 'Hopper' WHERE id IN (
		     SELECT id FROM %[2]s WHERE account_id = $1 ORDER BY created_at LIMIT 40)
		  OR id IN (SELECT id FROM %[2]s WHERE account_id = $1 ORDER BY created_at DESC LIMIT 1)
		  OR id IN (SELECT id FROM %[2]s WHERE account_id = $1 ORDER BY created_at DESC OFFSET 45 LIMIT 1)`,
			table, strings.Fields(table)[0])
		if _, err := conn.Exec(ctx, stmt, acct); err != nil {
			t.Fatal(err)
		}
	}
	indexAttendees(t, st, conn)
	queries := []string{"example", "hopper", "grace", "lovelace", "zzz", ".ORG"}
	event := &events[2]
	attendeeText := func(a domain.Attendee) string { return a.FirstName + " " + a.LastName + " " + a.Email }
	certificateText := func(c domain.Certificate) string {
		return strings.Join([]string{c.Number, c.VerificationCode, c.FirstName, c.LastName, c.Email}, " ")
	}
	now := time.Now()
	revoked := domain.CertificateRevoked
	for _, large := range []bool{true, false} {
		if large {
			defer store.SetSmallList(0)()
		} else {
			store.SetSmallList(2000)
		}
		label := map[bool]string{true: "large", false: "small"}[large]
		walks := searchWalks{trace: trace, walkMark: "attendee_search_text(a.first_name"}
		for _, f := range []domain.AttendeeFilter{{}, {EventID: event}} {
			for _, sort := range []string{"", "createdAt", "lastName", "-email"} {
				checkSearchPages(t, &walks, fmt.Sprintf("%s attendees %+v sort %q", label, f, sort), queries, attendeeText,
					func(a domain.Attendee) uuid.UUID { return a.ID },
					func(p domain.Page) ([]domain.Attendee, int, error) {
						p.Sort = sort
						return st.ListAttendees(ctx, acct, f, p)
					})
			}
		}
		walks.tried(t, label+" attendee", large)

		walks = searchWalks{trace: trace, walkMark: "certificate_search_text(c.certificate_number"}
		for _, f := range []domain.CertificateFilter{{}, {EventID: event}, {Status: &revoked}} {
			for _, sort := range []string{"", "createdAt", "issuedAt", "-issuedAt", "id"} {
				checkSearchPages(t, &walks, fmt.Sprintf("%s certificates %+v sort %q", label, f, sort),
					append(queries, "SX000000", "sx0000001"), certificateText, func(c domain.Certificate) uuid.UUID { return c.ID },
					func(p domain.Page) ([]domain.Certificate, int, error) {
						p.Sort = sort
						return st.ListCertificates(ctx, acct, f, p, now)
					})
			}
		}
		walks.tried(t, label+" certificate", large)
	}

	// A renamed attendee is found by the new name once indexed, no longer by the old one; a
	// deleted one not at all, at once.
	var renamed uuid.UUID
	if err := conn.QueryRow(ctx, `SELECT id FROM attendees WHERE account_id = $1 ORDER BY created_at DESC LIMIT 1`, acct).Scan(&renamed); err != nil {
		t.Fatal(err)
	}
	radegund := "Radegund"
	_, err = st.UpdateAttendee(ctx, acct, renamed, domain.AttendeeChanges{FirstName: &radegund}, time.Now())
	require.NoError(t, err)
	_, err = st.IndexAttendeeSearch(ctx)
	require.NoError(t, err)
	found := func(q string) []uuid.UUID {
		page, _, err := st.ListAttendees(ctx, acct, domain.AttendeeFilter{}, domain.Page{Number: 1, Size: 100, Q: &q})
		require.NoError(t, err)
		return convertIDs(page)
	}
	require.Empty(t, cmp.Diff([]uuid.UUID{renamed}, found("radegund")), "found by the new name")
	if _, err := conn.Exec(ctx, `DELETE FROM certificates WHERE attendee_id = $1`, renamed); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(ctx, `DELETE FROM attendees WHERE id = $1`, renamed); err != nil {
		t.Fatal(err)
	}
	require.Empty(t, found("radegund"), "deleted, still found")
	var left int
	require.NoError(t, conn.QueryRow(ctx, `SELECT (SELECT count(*) FROM attendee_search WHERE attendee_id = $1)
		+ (SELECT count(*) FROM certificate_search s WHERE NOT EXISTS (SELECT 1 FROM certificates c WHERE c.id = s.certificate_id))`,
		renamed).Scan(&left))
	require.Zero(t, left, "search rows left behind")
}

// A search (q) of attendees trails their writes until the indexer has written their search
// rows, and finds them then: created one by one or imported, and renamed; the list and its
// total follow every write at once, and a deleted attendee is found no more at once. The
// searches go through the search table (a large list). Not parallel: it sets the store's size
// of a small list.
func TestAttendeeSearchTrailsWritesUntilIndexed(t *testing.T) {
	defer store.SetSmallList(0)()
	ctx := t.Context()
	st, conn, _ := openStore(t)
	acct, events := seedAccount(t, st, conn, "trailing", 10)
	indexAttendees(t, st, conn)
	now := time.Now()
	created, err := store.InTx(ctx, st, func(tx *store.Tx) (domain.Attendee, error) {
		return tx.CreateAttendee(ctx, acct, events[0], domain.AttendeeFields{FirstName: "Radegund", LastName: "Poitiers",
			Email: "poitiers@example.org"}, now)
	})
	require.NoError(t, err)
	_, err = store.InTx(ctx, st, func(tx *store.Tx) (int, error) {
		return tx.ImportAttendees(ctx, acct, events[1], []domain.AttendeeFields{
			{FirstName: "Hildegard", LastName: "Bingen", Email: "hildegard@example.org"},
			{FirstName: "Hildegard", LastName: "Rupertsberg", Email: "hildegard.r@example.org"},
		}, false, now)
	})
	require.NoError(t, err)

	search := func(q string) (int, []uuid.UUID) {
		t.Helper()
		page, total, err := st.ListAttendees(ctx, acct, domain.AttendeeFilter{}, domain.Page{Number: 1, Size: 100, Q: &q})
		require.NoError(t, err)
		return total, convertIDs(page)
	}
	_, total, err := st.ListAttendees(ctx, acct, domain.AttendeeFilter{}, domain.Page{Number: 1, Size: 1})
	require.NoError(t, err)
	require.Equal(t, 13, total, "the list's total, before any indexing")
	n, _ := search("radegund")
	require.Zero(t, n, "found before the indexer ran")

	cleaning, stop := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		(&searchindex.Cleaner{Store: st, Logger: slog.New(slog.DiscardHandler), Every: 10 * time.Millisecond}).Run(cleaning)
	}()
	defer func() { stop(); <-done }()
	eventually(t, "the created attendee found", func() bool { _, ids := search("radegund"); return slices.Equal(ids, []uuid.UUID{created.ID}) })
	eventually(t, "the imported attendees found", func() bool { n, _ := search("hildegard"); return n == 2 })

	clotilde := "Clotilde"
	_, err = st.UpdateAttendee(ctx, acct, created.ID, domain.AttendeeChanges{FirstName: &clotilde}, time.Now())
	require.NoError(t, err)
	eventually(t, "the renamed attendee found by the new name only", func() bool {
		old, _ := search("radegund")
		_, ids := search("clotilde")
		return old == 0 && slices.Equal(ids, []uuid.UUID{created.ID})
	})

	_, err = store.InTx(ctx, st, func(tx *store.Tx) (struct{}, error) { return struct{}{}, tx.DeleteAttendee(ctx, acct, created.ID) })
	require.NoError(t, err)
	n, _ = search("clotilde")
	require.Zero(t, n, "a deleted attendee found")
}

// indexAttendees queues every attendee for the search indexer, as the store's writes do for
// theirs (seedAccount writes by SQL), and indexes them.
func indexAttendees(t testing.TB, st *store.Store, conn *pgx.Conn) {
	t.Helper()
	_, err := conn.Exec(context.Background(), `INSERT INTO attendee_search_queue (event_id, attendee_id) SELECT event_id, id FROM attendees`)
	require.NoError(t, err)
	_, err = st.IndexAttendeeSearch(context.Background())
	require.NoError(t, err)
}

// eventually polls ok until it holds, and fails the test if it does not within 10 s.
func eventually(t *testing.T, what string, ok func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !ok(); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within 10 s", what)
		}
	}
}

// searchWalks notes which ways a list's searches read their pages: walked along the list's
// order (a statement holding walkMark), by id after a walk came short, and through the search
// tables at all.
type searchWalks struct {
	trace                     *tracedQueries
	walkMark                  string
	walked, fellBack, byIndex bool
}

// tried checks the ways a large list's searches must all have taken, or that a small list's
// never read the search tables.
func (w *searchWalks) tried(t *testing.T, list string, large bool) {
	t.Helper()
	if large && (!w.walked || !w.fellBack) {
		t.Errorf("%s searches: walked %v, fell back to reading by id %v: both ways must be tried", list, w.walked, w.fellBack)
	}
	if !large && (w.byIndex || !w.walked) {
		t.Errorf("%s searches: read the search tables %v, walked %v: a small list is walked whole", list, w.byIndex, w.walked)
	}
}

// checkSearchPages checks a list's searches against the list itself: for each q, the unsearched
// list (its first page of 1,000) filtered in Go by whether text holds q, case-insensitively, is
// what the searched pages hold, page after page, at sizes 1, 2, 3 and 20, with its length as
// their total.
func checkSearchPages[R any](t *testing.T, walks *searchWalks, label string, queries []string, text func(R) string,
	id func(R) uuid.UUID, list func(domain.Page) ([]R, int, error)) {
	t.Helper()
	all, _, err := list(domain.Page{Number: 1, Size: 1000})
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range queries {
		var want []uuid.UUID
		for _, r := range all {
			if strings.Contains(strings.ToLower(text(r)), strings.ToLower(q)) {
				want = append(want, id(r))
			}
		}
		for _, size := range []int{1, 2, 3, 20} {
			var got, expected []uuid.UUID
			for _, number := range pagesToRead(len(want), size) {
				walks.trace.record()
				page, total, err := list(domain.Page{Number: number, Size: size, Q: &q})
				ran := walks.trace.take()
				if err != nil {
					t.Fatal(err)
				}
				walk := ranQuery(ran, walks.walkMark)
				walks.walked = walks.walked || walk
				walks.fellBack = walks.fellBack || walk && ranQuery(ran, "MATERIALIZED")
				walks.byIndex = walks.byIndex || ranQuery(ran, "FROM attendee_search") || ranQuery(ran, "FROM certificate_search")
				if total != len(want) {
					t.Fatalf("%s q %q: total %d, want %d", label, q, total, len(want))
				}
				for _, r := range page {
					got = append(got, id(r))
				}
				expected = append(expected, want[min((number-1)*size, len(want)):min(number*size, len(want))]...)
			}
			if !slices.Equal(got, expected) {
				t.Errorf("%s q %q size %d:\n got %v\nwant %v", label, q, size, got, expected)
			}
		}
	}
}

// pagesToRead are the pages of n matches checked at size: the first four, the last and the one
// after it.
func pagesToRead(n, size int) []int {
	last := max(1, (n+size-1)/size)
	pages := []int{1, 2, 3, 4, last, last + 1}
	slices.Sort(pages)
	return slices.Compact(pages)
}

func ranQuery(ran []tracedQuery, part string) bool {
	return slices.ContainsFunc(ran, func(q tracedQuery) bool { return strings.Contains(q.sql, part) })
}

func convertIDs(list []domain.Attendee) []uuid.UUID {
	out := make([]uuid.UUID, len(list))
	for i, a := range list {
		out[i] = a.ID
	}
	return out
}

// An attendee deleted while the indexer's statement runs (its read saw the attendee, the
// deletion commits before the search row's key is checked) does not fail the indexing: the
// batch is taken again at once, without that attendee, and the others are indexed.
func TestAnAttendeeDeletedUnderTheIndexerIsLeftOut(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st, conn, url := openStore(t)
	_, _ = seedAccount(t, st, conn, "vanishing", 3)
	var ids []uuid.UUID
	rows, err := conn.Query(ctx, `SELECT id FROM attendees ORDER BY id`)
	require.NoError(t, err)
	ids, err = pgx.CollectRows(rows, pgx.RowTo[uuid.UUID])
	require.NoError(t, err)
	require.Len(t, ids, 3)
	_, err = conn.Exec(ctx, `INSERT INTO attendee_search_queue (event_id, attendee_id) SELECT event_id, id FROM attendees`)
	require.NoError(t, err)

	// The deletion holds the attendee's row until it commits: the indexer's key check waits
	// for it, then finds the attendee gone.
	deleter, err := pgx.Connect(ctx, url)
	require.NoError(t, err)
	t.Cleanup(func() { _ = deleter.Close(context.Background()) })
	tx, err := deleter.Begin(ctx)
	require.NoError(t, err)
	_, err = tx.Exec(ctx, `DELETE FROM certificates WHERE attendee_id = $1`, ids[1]) // seeded issued
	require.NoError(t, err)
	_, err = tx.Exec(ctx, `DELETE FROM attendees WHERE id = $1`, ids[1])
	require.NoError(t, err)

	type result struct {
		indexed store.Indexed
		err     error
	}
	done := make(chan result, 1)
	go func() {
		n, err := st.IndexAttendeeSearch(ctx)
		done <- result{n, err}
	}()
	eventually(t, "the indexer waits for the deleted attendee's lock", func() bool {
		var waiting bool
		_ = conn.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'
			AND query LIKE '%IndexQueuedAttendees%')`).Scan(&waiting)
		return waiting
	})
	require.NoError(t, tx.Commit(ctx))
	got := <-done
	require.NoError(t, got.err, "indexing with an attendee deleted under it")
	var indexed []uuid.UUID
	rows, err = conn.Query(ctx, `SELECT attendee_id FROM attendee_search ORDER BY attendee_id`)
	require.NoError(t, err)
	indexed, err = pgx.CollectRows(rows, pgx.RowTo[uuid.UUID])
	require.NoError(t, err)
	if d := cmp.Diff([]uuid.UUID{ids[0], ids[2]}, indexed); d != "" {
		t.Fatalf("the search rows written (-want +got):\n%s", d)
	}
	var queued int
	require.NoError(t, conn.QueryRow(ctx, `SELECT count(*) FROM attendee_search_queue`).Scan(&queued))
	require.Zero(t, queued, "entries left in the queue")
}
