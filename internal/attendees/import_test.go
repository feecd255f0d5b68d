package attendees_test

import (
	"context"
	"errors"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/certhub/credentiald/internal/accounts"
	"github.com/certhub/credentiald/internal/apperr"
	"github.com/certhub/credentiald/internal/attendees"
	"github.com/certhub/credentiald/internal/domain"
	"github.com/certhub/credentiald/internal/store"
	"github.com/certhub/credentiald/internal/testkit"
)

// importing is the attendees service over a fresh World, whose event already holds Ada.
type importing struct {
	testkit.World
	svc *attendees.Service
}

func newImporting(t *testing.T) importing {
	t.Helper()
	w := testkit.NewWorld(t)
	s := importing{World: w, svc: attendees.New(w.Store, w.Clock.Now)}
	_, err := s.svc.Create(t.Context(), w.Account, w.Event, domain.AttendeeFields{FirstName: "Ada", LastName: "Lovelace", Email: "ada@example.org"})
	require.NoError(t, err)
	s.Clock.Advance(time.Minute)
	return s
}

// listed is an attendee as the tests compare them: what the file gave, and when it was added.
type listed struct {
	First, Last, Email string
	Metadata           map[string]string
	Created            time.Time
}

// onEvent lists the event's attendees in the order of the export (created, then id).
func (s importing) onEvent(t *testing.T) []listed {
	t.Helper()
	rows, _, err := s.Store.ExportAttendees(t.Context(), s.Event, s.Clock.Now().Add(time.Hour), store.ExportCursor{}, 100, s.Clock.Now())
	require.NoError(t, err)
	out := make([]listed, len(rows))
	for i, r := range rows {
		out[i] = listed{First: r.FirstName, Last: r.LastName, Email: r.Email, Metadata: r.Metadata, Created: r.CreatedAt.UTC()}
	}
	return out
}

// duplicated is a file with an email already on the event (in another case, in spaces), one
// repeated on a later row, and a rejected row.
const duplicated = "firstName,lastName,email,company\n" +
	"José,Müller,jose@example.org,Acme\n" +
	"Ada,Again, ADA@example.org ,\n" +
	"Дмитрий,Шостакович,not-an-email,Opera\n" +
	"José,Twice,JOSE@Example.org,\n" +
	"Łukasz,Żółć,lukasz@example.org,\n"

// With skipDuplicates, an email already on the event or on an earlier row of the file is
// skipped (the first row of an email is kept), rejected rows are reported, and the rows added
// keep the file's order, its metadata and the import's time.
func TestAnImportSkipsEmailsOnTheEventAndEarlierInTheFile(t *testing.T) {
	t.Parallel()
	s := newImporting(t)
	before := s.onEvent(t)
	res, err := s.svc.Import(t.Context(), s.Account, s.Event, strings.NewReader(duplicated), true)
	require.NoError(t, err)
	require.Empty(t, cmp.Diff(attendees.ImportResult{Added: 2, Skipped: 2, Rejected: []attendees.Rejection{{Row: 4,
		Field: "file.row[4].email", Email: ptr("not-an-email"), Reason: attendees.InvalidEmail,
		Message: `"not-an-email" is not a valid email address.`}}}, res))
	now := s.Clock.Now().UTC().Truncate(time.Microsecond) // as PostgreSQL keeps it
	want := append(before,
		listed{First: "José", Last: "Müller", Email: "jose@example.org", Metadata: map[string]string{"company": "Acme"}, Created: now},
		listed{First: "Łukasz", Last: "Żółć", Email: "lukasz@example.org", Metadata: map[string]string{}, Created: now})
	require.Empty(t, cmp.Diff(want, s.onEvent(t)))
}

// Without skipDuplicates, every row that is not rejected is added, duplicates included.
func TestAnImportWithoutSkipDuplicatesAddsEveryValidRow(t *testing.T) {
	t.Parallel()
	s := newImporting(t)
	res, err := s.svc.Import(t.Context(), s.Account, s.Event, strings.NewReader(duplicated), false)
	require.NoError(t, err)
	require.Equal(t, 4, res.Added, "added")
	require.Zero(t, res.Skipped, "skipped")
	require.Len(t, res.Rejected, 1, "rejected")
	var emails []string
	for _, a := range s.onEvent(t) {
		emails = append(emails, a.Email)
	}
	require.Empty(t, cmp.Diff([]string{"ada@example.org", "jose@example.org", "ADA@example.org", "JOSE@Example.org", "lukasz@example.org"}, emails))
}

// Two imports of one file into one event at once: the event's lock orders them, so that the
// second sees the first's rows and skips them all.
func TestImportsIntoOneEventSeeEachOther(t *testing.T) {
	t.Parallel()
	s := newImporting(t)
	file := "firstName,lastName,email\nGrace,Hopper,grace@example.org\nAlan,Turing,alan@example.org\nEdsger,Dijkstra,edsger@example.org\n"
	results := make([]attendees.ImportResult, 2)
	errs := make([]error, 2)
	var wg sync.WaitGroup
	for i := range results {
		wg.Go(func() {
			results[i], errs[i] = s.svc.Import(t.Context(), s.Account, s.Event, strings.NewReader(file), true)
		})
	}
	wg.Wait()
	require.NoError(t, errors.Join(errs...))
	require.Equal(t, 3, results[0].Added+results[1].Added, "added by both")
	require.Equal(t, 3, results[0].Skipped+results[1].Skipped, "skipped by both")
	require.Len(t, s.onEvent(t), 4, "the event's attendees")
}

// The staging table lives as long as its transaction: imports follow each other on one
// connection, after one that committed and after one rolled back, each seeing only its rows.
func TestImportsFollowEachOtherOnOneConnection(t *testing.T) {
	t.Parallel()
	w := testkit.NewWorld(t)
	u, err := url.Parse(w.DBURL)
	require.NoError(t, err)
	q := u.Query()
	q.Set("pool_max_conns", "1")
	u.RawQuery = q.Encode()
	st, err := store.Open(t.Context(), u.String())
	require.NoError(t, err)
	t.Cleanup(st.Close)
	rows := []domain.AttendeeFields{{FirstName: "Grace", LastName: "Hopper", Email: "grace@example.org"}}
	importOnce := func(rollBack bool) (int, error) {
		changedMind := errors.New("rolled back on purpose")
		n, err := store.InTx(t.Context(), st, func(tx *store.Tx) (int, error) {
			n, err := tx.ImportAttendees(t.Context(), w.Account, w.Event, rows, true, w.Clock.Now())
			if err == nil && rollBack {
				err = changedMind
			}
			return n, err
		})
		if errors.Is(err, changedMind) {
			err = nil
		}
		return n, err
	}
	for i, c := range []struct {
		rollBack bool
		added    int
	}{{false, 1}, {false, 0}, {true, 0}, {false, 0}} {
		added, err := importOnce(c.rollBack)
		require.NoError(t, err, "import %d", i)
		require.Equal(t, c.added, added, "import %d", i)
	}
	n, err := st.CountAttendees(t.Context(), w.Account, domain.AttendeeFilter{EventID: &w.Event})
	require.NoError(t, err)
	require.Equal(t, 1, n, "the event's attendees")
}

// An attendee is added only to an event of the account: another account's event, or none,
// answers NOT_FOUND naming eventId, one by one or by import, and nothing is added.
func TestAttendeesGoOnlyToTheAccountsEvents(t *testing.T) {
	t.Parallel()
	s := newImporting(t)
	other, _, err := accounts.New(s.Store, s.Clock.Now).Create(t.Context(), accounts.CreateParams{Email: "other@example.org",
		Password: testkit.Password, Name: "Other", AccountName: "Other Society"})
	require.NoError(t, err)
	for name, account := range map[string]uuid.UUID{"another account's event": other.ID, "no event": s.Account} {
		event := s.Event
		if account == s.Account {
			event = uuid.New()
		}
		_, err := s.svc.Create(t.Context(), account, event, domain.AttendeeFields{FirstName: "Grace", LastName: "Hopper", Email: "grace@example.org"})
		requireNoSuchEvent(t, name+", created", err)
		_, err = s.svc.Import(t.Context(), account, event, strings.NewReader("firstName,lastName,email\nGrace,Hopper,grace@example.org\n"), true)
		requireNoSuchEvent(t, name+", imported", err)
	}
	require.Len(t, s.onEvent(t), 1, "the event's attendees")
}

func requireNoSuchEvent(t *testing.T, what string, err error) {
	t.Helper()
	var ae *apperr.Error
	require.ErrorAs(t, err, &ae, what)
	require.Equal(t, apperr.NotFound, ae.Code, what)
	require.Empty(t, cmp.Diff([]apperr.Detail{{Field: "eventId", Message: "names no event of this account"}}, ae.Details), what)
}

// An import's attendees reach the search table once the indexer has run: one entry of the
// queue for the whole file.
func TestAnImportIsQueuedForTheSearchIndexOnce(t *testing.T) {
	t.Parallel()
	s := newImporting(t)
	_, err := s.Store.IndexAttendeeSearch(t.Context())
	require.NoError(t, err)
	res, err := s.svc.Import(t.Context(), s.Account, s.Event, strings.NewReader(duplicated), true)
	require.NoError(t, err)
	var queued, searched int
	testkit.QueryRowAt(t, s.DBURL, `SELECT count(*) FROM attendee_search_queue`, nil, &queued)
	require.Equal(t, 1, queued, "entries queued by the import")
	done, err := s.Store.IndexAttendeeSearch(context.Background())
	require.NoError(t, err)
	require.Equal(t, store.Indexed{Entries: 1, Rows: res.Added}, done)
	testkit.QueryRowAt(t, s.DBURL, `SELECT count(*) FROM attendee_search WHERE event_id = $1`, []any{s.Event}, &searched)
	require.Equal(t, 1+res.Added, searched, "the event's search rows")
}

func ptr[T any](v T) *T { return &v }
