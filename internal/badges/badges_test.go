package badges_test

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"image"
	"image/png"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/certhub/credentiald/internal/apperr"
	"github.com/certhub/credentiald/internal/badges"
	"github.com/certhub/credentiald/internal/domain"
	"github.com/certhub/credentiald/internal/issuance"
	"github.com/certhub/credentiald/internal/store"
	"github.com/certhub/credentiald/internal/testkit"
)

func TestMain(m *testing.M) { testkit.Main(m) }

const site = "https://certs.example.org"

// world is the badges service over a fresh database, with an account on the free plan (12
// credits a month) and an event, on a clock the test moves.
type world struct {
	dbURL   string
	st      *store.Store
	svc     *badges.Service
	clock   *testkit.Clock
	account uuid.UUID
	event   uuid.UUID
}

func newWorld(t *testing.T) world {
	t.Helper()
	w := testkit.NewWorld(t)
	return world{dbURL: w.DBURL, st: w.Store, svc: badges.New(w.Store, site, "no-reply@certs.example.org", w.Clock.Now), clock: w.Clock, account: w.Account, event: w.Event}
}

func (w world) attendee(t *testing.T, first string) uuid.UUID {
	t.Helper()
	a, err := w.st.CreateAttendee(t.Context(), w.account, w.event, domain.AttendeeFields{FirstName: first, LastName: "Lovelace",
		Email: " " + first + "@Example.org "}, w.clock.Now())
	if err != nil {
		t.Fatal(err)
	}
	return a.ID
}

func (w world) badge(t *testing.T, f domain.BadgeFields) badges.Badge {
	t.Helper()
	b, err := w.svc.Create(t.Context(), w.account, f)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func (w world) issue(t *testing.T, badge uuid.UUID, attendees ...uuid.UUID) []badges.Issued {
	t.Helper()
	out, err := w.svc.Issue(t.Context(), badges.IssueParams{AccountID: w.account, BadgeID: badge, AttendeeIDs: attendees})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func (w world) used(t *testing.T) int {
	t.Helper()
	c, err := issuance.CreditsOf(t.Context(), w.st, w.account, w.clock.Now())
	if err != nil {
		t.Fatal(err)
	}
	return c.Used
}

func wantCode(t *testing.T, err error, code apperr.Code) *apperr.Error {
	t.Helper()
	e, ok := apperr.As(err)
	if !ok || e.Code != code {
		t.Fatalf("got %v, want %s", err, code)
	}
	return e
}

// Concurrent issuances of one badge to overlapping attendees never issue or charge anyone
// twice: each attendee ends with one assertion, the credits used are the attendees issued, and
// across all answers each attendee was new exactly once.
func TestConcurrentIssuesOfOneBadgeNeverIssueOrChargeTwice(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	b := w.badge(t, domain.BadgeFields{Name: "Speaker"})
	var people []uuid.UUID
	for i := range 10 {
		people = append(people, w.attendee(t, fmt.Sprintf("p%d", i)))
	}
	const requests = 8
	var wg sync.WaitGroup
	answers := make([][]badges.Issued, requests)
	errs := make([]error, requests)
	for r := range requests {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// Request r names a window of five attendees that overlaps its neighbours'.
			var ids []uuid.UUID
			for i := range 5 {
				ids = append(ids, people[(r+i)%len(people)])
			}
			answers[r], errs[r] = w.svc.Issue(t.Context(), badges.IssueParams{AccountID: w.account, BadgeID: b.ID, AttendeeIDs: ids})
		}()
	}
	wg.Wait()
	newFor := map[uuid.UUID]int{}
	assertionOf := map[uuid.UUID]uuid.UUID{}
	for r := range requests {
		if errs[r] != nil {
			t.Fatalf("request %d: %v", r, errs[r])
		}
		for _, a := range answers[r] {
			if !a.AlreadyIssued {
				newFor[a.AttendeeID]++
			}
			if prev, ok := assertionOf[a.AttendeeID]; ok && prev != a.ID {
				t.Fatalf("attendee %s got assertions %s and %s", a.AttendeeID, prev, a.ID)
			}
			assertionOf[a.AttendeeID] = a.ID
		}
	}
	for _, p := range people {
		if newFor[p] != 1 {
			t.Fatalf("attendee %s was newly issued %d times", p, newFor[p])
		}
	}
	if used := w.used(t); used != len(people) {
		t.Fatalf("%d credits used for %d attendees", used, len(people))
	}
	_, total, err := w.svc.Assertions(t.Context(), w.account, b.ID, domain.Page{Number: 1, Size: 100})
	if err != nil || total != len(people) {
		t.Fatalf("%d assertions (%v), want %d", total, err, len(people))
	}
}

// query reads one row of the test's database, for what the service does not show (analytics
// counters, salts).
func (w world) query(t *testing.T, sql string, args []any, dest ...any) {
	t.Helper()
	conn, err := pgx.Connect(t.Context(), w.dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(t.Context())
	if err := conn.QueryRow(t.Context(), sql, args...).Scan(dest...); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
}

func (w world) fingerprint(t *testing.T) string {
	t.Helper()
	fp, err := w.st.Fingerprint(t.Context())
	if err != nil || fp == "" {
		t.Fatalf("fingerprint %q: %v", fp, err)
	}
	return fp
}

// Issuing to two, then to the same two and a third: only the third is new and charged; the
// answer keeps the request's order; the assertions expire validityDays after issue; the day's
// counter of badges issued for the event counts the three; no webhook event is written.
func TestIssuingToTwoThenThreeChargesOnlyTheNewOne(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	days := 30
	b := w.badge(t, domain.BadgeFields{Name: "Speaker", ValidityDays: &days})
	ada, grace, linus := w.attendee(t, "Ada"), w.attendee(t, "Grace"), w.attendee(t, "Linus")
	first := w.issue(t, b.ID, ada, grace)
	if len(first) != 2 || first[0].AttendeeID != ada || first[1].AttendeeID != grace || first[0].AlreadyIssued || first[1].AlreadyIssued {
		t.Fatalf("first issuance: %+v", first)
	}
	if used := w.used(t); used != 2 {
		t.Fatalf("%d credits used, want 2", used)
	}
	w.clock.Advance(time.Hour)
	second := w.issue(t, b.ID, linus, ada, grace)
	if second[0].AttendeeID != linus || second[0].AlreadyIssued || !second[1].AlreadyIssued || !second[2].AlreadyIssued {
		t.Fatalf("second issuance: %+v", second)
	}
	if second[1].ID != first[0].ID || second[2].ID != first[1].ID || second[1].VerificationCode != first[0].VerificationCode {
		t.Fatal("a holder was answered with another assertion than the one they hold")
	}
	if used := w.used(t); used != 3 {
		t.Fatalf("%d credits used, want 3", used)
	}
	l := second[0]
	if l.Status != "active" || l.ExpiresAt == nil || !l.ExpiresAt.Equal(l.IssuedAt.AddDate(0, 0, 30)) || len(l.VerificationCode) != 13 ||
		len(l.RecipientSalt) != 32 || l.Recipient.FirstName != "Linus" {
		t.Fatalf("new assertion: %+v", l)
	}
	var counted int
	w.query(t, `SELECT coalesce(sum(issued), 0) FROM analytics_daily WHERE account_id = $1 AND event_id = $2 AND credential_kind = 'badge_assertion'`,
		[]any{w.account, w.event}, &counted)
	if counted != 3 {
		t.Fatalf("analytics count %d badges issued, want 3", counted)
	}
	// One badge.issued event per new assertion, none for whoever held the badge already.
	events, err := w.st.OutboxEvents(t.Context(), w.account)
	if err != nil || len(events) != 3 {
		t.Fatalf("outbox: %d events, %v", len(events), err)
	}
	for _, e := range events {
		if e.EventType != "badge.issued" {
			t.Fatalf("outbox: a %s event", e.EventType)
		}
	}
	if got, err := w.svc.Get(t.Context(), w.account, b.ID); err != nil || got.IssuedCount != 3 {
		t.Fatalf("issuedCount %d (%v), want 3", got.IssuedCount, err)
	}
}

// When the credits left do not cover the new attendees, nothing is issued, charged, counted or
// written, and the refusal carries the figures.
func TestNotEnoughCreditsIssuesNothing(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	b := w.badge(t, domain.BadgeFields{Name: "Speaker"})
	var early []uuid.UUID
	for i := range 10 {
		early = append(early, w.attendee(t, fmt.Sprintf("e%d", i)))
	}
	w.issue(t, b.ID, early...)
	late := []uuid.UUID{early[0], w.attendee(t, "x"), w.attendee(t, "y"), w.attendee(t, "z")}
	before := w.fingerprint(t)
	_, err := w.svc.Issue(t.Context(), badges.IssueParams{AccountID: w.account, BadgeID: b.ID, AttendeeIDs: late, SendEmail: true})
	e := wantCode(t, err, apperr.CreditLimit)
	if c := e.Credits; c == nil || *c.Limit != 12 || c.Used != 10 || *c.Remaining != 2 {
		t.Fatalf("credits: %+v", e.Credits)
	}
	if !strings.Contains(e.Message, "3 new recipients need 3") {
		t.Fatalf("message: %s", e.Message)
	}
	if after := w.fingerprint(t); after != before {
		t.Fatal("the refusal changed the database")
	}
	// Two of them fit.
	if out := w.issue(t, b.ID, late[:3]...); out[0].AlreadyIssued != true || out[1].AlreadyIssued || out[2].AlreadyIssued {
		t.Fatalf("%+v", out)
	}
	if used := w.used(t); used != 12 {
		t.Fatalf("%d credits used, want 12", used)
	}
}

// What the list may not hold, and attendees who are not the account's, are refused before
// anything is written.
func TestIssuanceRefusesBadLists(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	b := w.badge(t, domain.BadgeFields{Name: "Speaker"})
	ada := w.attendee(t, "Ada")
	other := newWorld(t)
	stranger := other.attendee(t, "Eve")
	many := make([]uuid.UUID, badges.MaxIssue+1)
	for i := range many {
		many[i] = uuid.New()
	}
	before := w.fingerprint(t)
	for name, c := range map[string]struct {
		ids   []uuid.UUID
		code  apperr.Code
		field string
	}{
		"empty":              {nil, apperr.ValidationError, "attendeeIds"},
		"too many":           {many, apperr.ValidationError, "attendeeIds"},
		"twice":              {[]uuid.UUID{ada, ada}, apperr.ValidationError, "attendeeIds[1]"},
		"another account's":  {[]uuid.UUID{ada, stranger}, apperr.NotFound, "attendeeIds[1]"},
		"nobody":             {[]uuid.UUID{uuid.New()}, apperr.NotFound, "attendeeIds[0]"},
		"another's badge id": {[]uuid.UUID{ada}, apperr.NotFound, ""},
	} {
		badge := b.ID
		if name == "another's badge id" {
			badge = other.badge(t, domain.BadgeFields{Name: "Theirs"}).ID
		}
		_, err := w.svc.Issue(t.Context(), badges.IssueParams{AccountID: w.account, BadgeID: badge, AttendeeIDs: c.ids})
		e := wantCode(t, err, c.code)
		if c.field != "" && (len(e.Details) == 0 || e.Details[0].Field != c.field) {
			t.Errorf("%s: details %+v, want %s", name, e.Details, c.field)
		}
	}
	if after := w.fingerprint(t); after != before {
		t.Fatal("a refusal changed the database")
	}
}

// An image is kept only when it is what it says and can carry its assertion.
func TestImagesAreCheckedWhenGiven(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	broken := pngOf(t, 4, 4)
	broken[len(broken)-5] ^= 0xff // the IEND chunk's CRC
	for name, uri := range map[string]string{
		"not a PNG":       "data:image/png;base64," + base64.StdEncoding.EncodeToString([]byte("hello")),
		"broken PNG":      "data:image/png;base64," + base64.StdEncoding.EncodeToString(broken),
		"SVG not svg":     "data:image/svg+xml;base64," + base64.StdEncoding.EncodeToString([]byte(`<html><svg></svg></html>`)),
		"SVG not XML":     "data:image/svg+xml;base64," + base64.StdEncoding.EncodeToString([]byte(`<svg><g></svg>`)),
		"another picture": "data:image/gif;base64,R0lGODlh",
	} {
		_, err := w.svc.Create(t.Context(), w.account, domain.BadgeFields{Name: "Speaker", Image: &uri})
		if e, ok := apperr.As(err); !ok || e.Code != apperr.ValidationError || e.Details[0].Field != "image" {
			t.Errorf("%s: %v", name, err)
		}
	}
	good := "data:image/png;base64," + base64.StdEncoding.EncodeToString(pngOf(t, 4, 4))
	if b := w.badge(t, domain.BadgeFields{Name: "Speaker", Image: &good}); b.ImageURI != good {
		t.Fatal("the badge's own image was not kept")
	}
}

func pngOf(t *testing.T, w, h int) []byte {
	t.Helper()
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for i := range img.Pix {
		img.Pix[i] = byte(i)
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func ptr[T any](v T) *T { return &v }
