package events_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/certhub/credentiald/internal/accounts"
	"github.com/certhub/credentiald/internal/apperr"
	"github.com/certhub/credentiald/internal/badges"
	"github.com/certhub/credentiald/internal/certificates"
	"github.com/certhub/credentiald/internal/domain"
	"github.com/certhub/credentiald/internal/events"
	"github.com/certhub/credentiald/internal/store"
	"github.com/certhub/credentiald/internal/testkit"
)

func TestMain(m *testing.M) { testkit.Main(m) }

// world is the events service over a fresh database with an account, its template and an
// event, on a stopped clock.
type world struct {
	testkit.World
	svc *events.Service
}

func newWorld(t *testing.T) world {
	t.Helper()
	w := testkit.NewWorld(t)
	return world{World: w, svc: events.New(w.Store, w.Clock.Now)}
}

func (w world) fields(name string) domain.EventFields {
	return domain.EventFields{Name: name, EventDate: w.Clock.Now(), TemplateID: w.Template}
}

func (w world) create(t *testing.T, f domain.EventFields) domain.Event {
	t.Helper()
	ev, err := w.svc.Create(t.Context(), w.Account, f)
	require.NoError(t, err, "creating event %q", f.Name)
	return ev
}

func (w world) attendee(t *testing.T, event uuid.UUID, first string) uuid.UUID {
	t.Helper()
	a, err := w.Store.CreateAttendee(t.Context(), w.Account, event, domain.AttendeeFields{FirstName: first, LastName: "Lovelace",
		Email: first + "@example.org"}, w.Clock.Now())
	require.NoError(t, err, "creating attendee %s", first)
	return a.ID
}

// issue issues a certificate (or, with draft, prepares one) for a new attendee of event.
func (w world) issue(t *testing.T, event uuid.UUID, first string, draft bool) domain.Certificate {
	t.Helper()
	certs := certificates.New(w.Store, "https://certs.example.org", w.Clock.Now)
	c, err := certs.Generate(t.Context(), certificates.GenerateParams{AccountID: w.Account, EventID: event,
		AttendeeID: w.attendee(t, event, first), TemplateID: w.Template, Draft: draft})
	require.NoError(t, err, "issuing for %s (draft: %v)", first, draft)
	return c
}

// unchanged runs f and fails the test if f changed anything in the database.
func (w world) unchanged(t *testing.T, f func()) {
	t.Helper()
	before, err := w.Store.Fingerprint(t.Context())
	require.NoError(t, err, "fingerprint before")
	f()
	after, err := w.Store.Fingerprint(t.Context())
	require.NoError(t, err, "fingerprint after")
	require.Equal(t, before, after, "the refusal changed the database")
}

// requireCode fails unless err is an application error with code, and returns it.
func requireCode(t *testing.T, err error, code apperr.Code) *apperr.Error {
	t.Helper()
	e, ok := apperr.As(err)
	require.True(t, ok, "want an application error %s, got %v", code, err)
	require.Equal(t, code, e.Code, "error code of %q", e.Message)
	return e
}

func ptr[T any](v T) *T { return &v }

func TestCreateStoresTheNormalizedFields(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	f := w.fields("  GoDays  ")
	f.Location, f.Description = ptr(" Berlin "), ptr("   ")
	ev := w.create(t, f)
	got, err := w.svc.Get(t.Context(), w.Account, ev.ID)
	require.NoError(t, err, "reading the event back")
	type texts struct {
		Name        string
		Location    *string
		Description *string
		Locale      string
	}
	require.Empty(t, cmp.Diff(texts{Name: "GoDays", Location: ptr("Berlin"), Locale: "en"},
		texts{Name: got.Name, Location: got.Location, Description: got.Description, Locale: got.Locale}), "stored event (-want +got)")
}

// An invalid event, created or replacing another, is refused naming its field and writes
// nothing.
func TestInvalidFieldsAreRefusedAndWriteNothing(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	bad := w.fields("Congress\nBcc: everyone")
	want := []apperr.Detail{{Field: "name", Message: "must not contain control characters"}}
	w.unchanged(t, func() {
		_, err := w.svc.Create(t.Context(), w.Account, bad)
		e := requireCode(t, err, apperr.ValidationError)
		require.Empty(t, cmp.Diff(want, e.Details), "create: details (-want +got)")
		_, err = w.svc.Replace(t.Context(), w.Account, w.Event, bad)
		e = requireCode(t, err, apperr.ValidationError)
		require.Empty(t, cmp.Diff(want, e.Details), "replace: details (-want +got)")
	})
}

// An event may use the account's own templates and the system ones, never another account's.
func TestAnEventRefusesATemplateItMayNotUse(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	theirs := w.otherAccount(t)
	f := w.fields("Congress")
	f.TemplateID = theirs.template
	w.unchanged(t, func() {
		_, err := w.svc.Create(t.Context(), w.Account, f)
		e := requireCode(t, err, apperr.NotFound)
		require.Empty(t, cmp.Diff([]apperr.Detail{{Field: "templateId", Message: "names no template of this account and no system template"}},
			e.Details), "create: details (-want +got)")
		_, err = w.svc.Replace(t.Context(), w.Account, w.Event, f)
		requireCode(t, err, apperr.NotFound)
	})
}

// An event that names no locale takes the branding's default locale, else English; one that
// names its own keeps it. A replacement without one takes the default again.
func TestAnEventWithoutALocaleTakesTheAccountsDefault(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, brandingLocale, eventLocale string
		want, wantReplaced                string // created with eventLocale, replaced without one
	}{
		{name: "no branding locale: English", want: "en", wantReplaced: "en"},
		{name: "the branding's locale", brandingLocale: "de", want: "de", wantReplaced: "de"},
		{name: "the event's own locale", brandingLocale: "de", eventLocale: "fr", want: "fr", wantReplaced: "de"},
		{name: "the event's own locale without branding", eventLocale: "ja", want: "ja", wantReplaced: "en"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			w := newWorld(t)
			if tc.brandingLocale != "" {
				_, err := w.Store.PutBranding(t.Context(), w.Account, domain.Branding{DefaultLocale: ptr(tc.brandingLocale)}, w.Clock.Now())
				require.NoError(t, err, "setting the branding's locale")
			}
			f := w.fields("Congress")
			f.Locale = tc.eventLocale
			ev := w.create(t, f)
			require.Equal(t, tc.want, ev.Locale, "locale of the created event")

			f.Locale = ""
			replaced, err := w.svc.Replace(t.Context(), w.Account, ev.ID, f)
			require.NoError(t, err, "replacing the event without a locale")
			require.Equal(t, tc.wantReplaced, replaced.Locale, "locale of the event replaced without one")
		})
	}
}

// Every operation on an event the account does not have (another account's, or none)
// answers NOT_FOUND and changes nothing.
func TestAnEventOfAnotherAccountIsNotFound(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	theirs := w.otherAccount(t)
	for _, tc := range []struct {
		name string
		op   func(ctx context.Context, id uuid.UUID) error
	}{
		{"get", func(ctx context.Context, id uuid.UUID) error { _, err := w.svc.Get(ctx, w.Account, id); return err }},
		{"replace", func(ctx context.Context, id uuid.UUID) error {
			_, err := w.svc.Replace(ctx, w.Account, id, w.fields("Renamed"))
			return err
		}},
		{"delete", func(ctx context.Context, id uuid.UUID) error { return w.svc.Delete(ctx, w.Account, id) }},
		{"set registration", func(ctx context.Context, id uuid.UUID) error {
			_, err := w.svc.SetRegistration(ctx, w.Account, id, domain.Registration{Enabled: true})
			return err
		}},
	} {
		for what, id := range map[string]uuid.UUID{"another account's event": theirs.event, "no event": uuid.New()} {
			w.unchanged(t, func() {
				err := tc.op(t.Context(), id)
				e, ok := apperr.As(err)
				require.True(t, ok, "%s of %s: want NOT_FOUND, got %v", tc.name, what, err)
				require.Equal(t, apperr.NotFound, e.Code, "%s of %s: code", tc.name, what)
				require.Equal(t, "No such event.", e.Message, "%s of %s: message", tc.name, what)
			})
		}
	}
}

// Require is the check other services make on an eventId they are given: NOT_FOUND naming
// the field, and nothing for an event of the account.
func TestRequireNamesTheEventIdThatNamesNoEvent(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	require.NoError(t, events.Require(t.Context(), w.Store, w.Account, w.Event), "the account's own event")
	e := requireCode(t, events.Require(t.Context(), w.Store, w.Account, uuid.New()), apperr.NotFound)
	require.Empty(t, cmp.Diff([]apperr.Detail{{Field: "eventId", Message: "names no event of this account"}}, e.Details),
		"details (-want +got)")
}

// An event whose certificates were issued stays, whatever became of them (revoked included);
// the refusal counts them and removes nothing.
func TestAnEventWithIssuedCertificatesIsKept(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	first := w.issue(t, w.Event, "Ada", false)
	w.unchanged(t, func() {
		e := requireCode(t, w.svc.Delete(t.Context(), w.Account, w.Event), apperr.Conflict)
		require.Equal(t, "The event has 1 issued certificate; issued certificates are never erased, so the event stays.", e.Message,
			"message with one certificate")
	})
	certs := certificates.New(w.Store, "https://certs.example.org", w.Clock.Now)
	_, err := certs.Revoke(t.Context(), w.Account, first.ID, ptr("issued by mistake"), "")
	require.NoError(t, err, "revoking the certificate")
	w.issue(t, w.Event, "Grace", false)
	w.unchanged(t, func() {
		e := requireCode(t, w.svc.Delete(t.Context(), w.Account, w.Event), apperr.Conflict)
		require.Equal(t, "The event has 2 issued certificates; issued certificates are never erased, so the event stays.", e.Message,
			"message with a revoked and a valid certificate")
	})
}

// Drafts were never issued: an event with only drafts is removed with them and its attendees.
func TestAnEventWithOnlyDraftsIsDeleted(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	draft := w.issue(t, w.Event, "Ada", true)
	require.Equal(t, domain.CertificateDraft, draft.Status, "status of the prepared certificate")
	require.NoError(t, w.svc.Delete(t.Context(), w.Account, w.Event), "deleting an event with only a draft")
	_, err := w.svc.Get(t.Context(), w.Account, w.Event)
	requireCode(t, err, apperr.NotFound)
	_, err = w.Store.FindAttendee(t.Context(), w.Account, draft.AttendeeID)
	require.Error(t, err, "the deleted event's attendee is still found")
}

// Badges issued to the event's attendees keep the event too.
func TestAnEventWhoseAttendeesHoldBadgesIsKept(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	svc := badges.New(w.Store, "https://certs.example.org", "no-reply@certs.example.org", w.Clock.Now)
	b, err := svc.Create(t.Context(), w.Account, domain.BadgeFields{Name: "Speaker"})
	require.NoError(t, err, "creating the badge")
	_, err = svc.Issue(t.Context(), badges.IssueParams{AccountID: w.Account, BadgeID: b.ID, AttendeeIDs: []uuid.UUID{w.attendee(t, w.Event, "Ada")}})
	require.NoError(t, err, "issuing the badge")
	w.unchanged(t, func() {
		e := requireCode(t, w.svc.Delete(t.Context(), w.Account, w.Event), apperr.Conflict)
		require.Equal(t, "Attendees of this event were issued badges; issued badges are never erased.", e.Message, "message")
	})
}

// A registration window closes after it opens; either end alone is a window too. A blank
// message is no message.
func TestRegistrationSettings(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	opens := time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name        string
		in          domain.Registration
		refused     bool
		wantMessage *string
	}{
		{name: "closes before it opens", in: domain.Registration{OpensAt: &opens, ClosesAt: ptr(opens.Add(-time.Hour))}, refused: true},
		{name: "closes as it opens", in: domain.Registration{OpensAt: &opens, ClosesAt: ptr(opens)}, refused: true},
		{name: "closes after it opens", in: domain.Registration{Enabled: true, OpensAt: &opens, ClosesAt: ptr(opens.Add(time.Second))}},
		{name: "opens only", in: domain.Registration{Enabled: true, OpensAt: &opens}},
		{name: "closes only", in: domain.Registration{Enabled: true, ClosesAt: &opens}},
		{name: "a blank message is cleared", in: domain.Registration{Enabled: true, Message: ptr(" \n ")}},
		{name: "a message is kept", in: domain.Registration{Enabled: true, Message: ptr("Bring your badge.")}, wantMessage: ptr("Bring your badge.")},
	} {
		if tc.refused {
			w.unchanged(t, func() {
				_, err := w.svc.SetRegistration(t.Context(), w.Account, w.Event, tc.in)
				e := requireCode(t, err, apperr.ValidationError)
				require.Empty(t, cmp.Diff([]apperr.Detail{{Field: "closesAt", Message: "must be after opensAt"}}, e.Details),
					"%s: details (-want +got)", tc.name)
			})
			continue
		}
		ev, err := w.svc.SetRegistration(t.Context(), w.Account, w.Event, tc.in)
		require.NoError(t, err, "%s: refused", tc.name)
		want := tc.in
		want.Message = tc.wantMessage
		require.Empty(t, cmp.Diff(want, ev.Registration, cmp.Comparer(func(a, b time.Time) bool { return a.Equal(b) })),
			"%s: stored registration (-want +got)", tc.name)
	}
}

// others is another account of w's database with a template and an event of its own.
type others struct{ account, template, event uuid.UUID }

func (w world) otherAccount(t *testing.T) others {
	t.Helper()
	ctx := t.Context()
	a, _, err := accounts.New(w.Store, w.Clock.Now).Create(ctx, accounts.CreateParams{Email: "other@example.org",
		Password: testkit.Password, Name: "Other", AccountName: "Other Society"})
	require.NoError(t, err, "creating the other account")
	tmpl, err := w.Store.InsertTemplate(ctx, store.NewTemplate{AccountID: &a.ID, Name: "Theirs", PageSize: "A4", Orientation: "landscape",
		Layout: json.RawMessage(`{"rows":[]}`)}, w.Clock.Now())
	require.NoError(t, err, "creating the other account's template")
	ev, err := w.Store.CreateEvent(ctx, a.ID, domain.EventFields{Name: "Theirs", EventDate: w.Clock.Now(), TemplateID: tmpl.ID}, w.Clock.Now())
	require.NoError(t, err, "creating the other account's event")
	return others{account: a.ID, template: tmpl.ID, event: ev.ID}
}
