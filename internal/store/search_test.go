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
// single and absent. Renamed rows are found by their new names only.
func TestSearchPagesAreTheListsMatches(t *testing.T) {
	t.Parallel()
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
	sizes := []int{1, 2, 3, 20}
	event := &events[2]
	walked, fellBack := false, false

	for _, f := range []domain.AttendeeFilter{{}, {EventID: event}} {
		for _, sort := range []string{"", "createdAt", "lastName", "-email"} {
			all, _, err := st.ListAttendees(ctx, acct, f, domain.Page{Number: 1, Size: 1000, Sort: sort})
			if err != nil {
				t.Fatal(err)
			}
			for _, q := range queries {
				var want []uuid.UUID
				for _, a := range all {
					if strings.Contains(strings.ToLower(a.FirstName+" "+a.LastName+" "+a.Email), strings.ToLower(q)) {
						want = append(want, a.ID)
					}
				}
				for _, size := range sizes {
					var got, expected []uuid.UUID
					for _, number := range pagesToRead(len(want), size) {
						trace.record()
						page, total, err := st.ListAttendees(ctx, acct, f, domain.Page{Number: number, Size: size, Sort: sort, Q: &q})
						ran := trace.take()
						if err != nil {
							t.Fatal(err)
						}
						walked = walked || ranQuery(ran, "attendee_search_text(a.first_name")
						fellBack = fellBack || ranQuery(ran, "attendee_search_text(a.first_name") && ranQuery(ran, "MATERIALIZED")
						if total != len(want) {
							t.Fatalf("attendees %+v sort %q q %q: total %d, want %d", f, sort, q, total, len(want))
						}
						for _, a := range page {
							got = append(got, a.ID)
						}
						expected = append(expected, want[min((number-1)*size, len(want)):min(number*size, len(want))]...)
					}
					if !slices.Equal(got, expected) {
						t.Errorf("attendees %+v sort %q q %q size %d:\n got %v\nwant %v", f, sort, q, size, got, expected)
					}
				}
			}
		}
	}
	if !walked || !fellBack {
		t.Errorf("attendee searches: walked %v, fell back to reading by id %v: both ways must be tried", walked, fellBack)
	}

	walked, fellBack = false, false
	now := time.Now()
	revoked := domain.CertificateRevoked
	for _, f := range []domain.CertificateFilter{{}, {EventID: event}, {Status: &revoked}} {
		for _, sort := range []string{"", "createdAt", "issuedAt", "-issuedAt", "id"} {
			all, _, err := st.ListCertificates(ctx, acct, f, domain.Page{Number: 1, Size: 1000, Sort: sort}, now)
			if err != nil {
				t.Fatal(err)
			}
			for _, q := range append(queries, "SX000000", "sx0000001") {
				var want []uuid.UUID
				for _, c := range all {
					text := strings.Join([]string{c.Number, c.VerificationCode, c.FirstName, c.LastName,
						c.Email}, " ")
					if strings.Contains(strings.ToLower(text), strings.ToLower(q)) {
						want = append(want, c.ID)
					}
				}
				for _, size := range sizes {
					var got, expected []uuid.UUID
					for _, number := range pagesToRead(len(want), size) {
						trace.record()
						page, total, err := st.ListCertificates(ctx, acct, f, domain.Page{Number: number, Size: size, Sort: sort, Q: &q}, now)
						ran := trace.take()
						if err != nil {
							t.Fatal(err)
						}
						walked = walked || ranQuery(ran, "certificate_search_text(c.certificate_number")
						fellBack = fellBack || ranQuery(ran, "certificate_search_text(c.certificate_number") && ranQuery(ran, "MATERIALIZED")
						if total != len(want) {
							t.Fatalf("certificates %+v sort %q q %q: total %d, want %d", f, sort, q, total, len(want))
						}
						for _, c := range page {
							got = append(got, c.ID)
						}
						expected = append(expected, want[min((number-1)*size, len(want)):min(number*size, len(want))]...)
					}
					if !slices.Equal(got, expected) {
						t.Errorf("certificates %+v sort %q q %q size %d:\n got %v\nwant %v", f, sort, q, size, got, expected)
					}
				}
			}
		}
	}
	if !walked || !fellBack {
		t.Errorf("certificate searches: walked %v, fell back to reading by id %v: both ways must be tried", walked, fellBack)
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
