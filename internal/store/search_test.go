package store_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/certhub/credentiald/internal/domain"
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

	// A renamed attendee is found by the new name, no longer by the old one; a deleted one not at all.
	var renamed uuid.UUID
	if err := conn.QueryRow(ctx, `UPDATE attendees SET first_name = 'Radegund' WHERE id = (
		SELECT id FROM attendees WHERE account_id = $1 ORDER BY created_at DESC LIMIT 1) RETURNING id`, acct).Scan(&renamed); err != nil {
		t.Fatal(err)
	}
	found := func(q string) []uuid.UUID {
		page, _, err := st.ListAttendees(ctx, acct, domain.AttendeeFilter{}, domain.Page{Number: 1, Size: 100, Q: &q})
		if err != nil {
			t.Fatal(err)
		}
		return convertIDs(page)
	}
	if got := found("radegund"); !slices.Equal(got, []uuid.UUID{renamed}) {
		t.Errorf("renamed: %v", got)
	}
	if _, err := conn.Exec(ctx, `DELETE FROM certificates WHERE attendee_id = $1`, renamed); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(ctx, `DELETE FROM attendees WHERE id = $1`, renamed); err != nil {
		t.Fatal(err)
	}
	if got := found("radegund"); len(got) != 0 {
		t.Errorf("deleted, still found: %v", got)
	}
	var left int
	if err := conn.QueryRow(ctx, `SELECT (SELECT count(*) FROM attendee_search WHERE attendee_id = $1)
		+ (SELECT count(*) FROM certificate_search s WHERE NOT EXISTS (SELECT 1 FROM certificates c WHERE c.id = s.certificate_id))`,
		renamed).Scan(&left); err != nil || left != 0 {
		t.Errorf("search rows left behind: %d %v", left, err)
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
