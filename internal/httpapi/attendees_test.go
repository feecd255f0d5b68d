package httpapi_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/certhub/credentiald/internal/testkit"
)

type attendeeBody struct {
	Data struct {
		ID        string            `json:"id"`
		EventID   string            `json:"eventId"`
		FirstName string            `json:"firstName"`
		LastName  string            `json:"lastName"`
		Email     string            `json:"email"`
		Metadata  map[string]string `json:"metadata"`
	} `json:"data"`
}

type attendeePage struct {
	Data []struct {
		ID, FirstName, LastName, Email string
		Metadata                       map[string]string
	}
	Meta struct{ Page, PageSize, Total int }
}

func TestAttendeeLifecycle(t *testing.T) {
	t.Parallel()
	env := testkit.NewServer(t)
	acct := testkit.SignUp(t, env)
	event := acct.Event(t, env, "Go Conference").String()

	res := acct.Client.Post("/api/v1/attendees", map[string]any{"eventId": event, "firstName": " José ", "lastName": "Müller",
		"email": "jose@example.org", "metadata": map[string]string{"company": "Acme"}})
	var a attendeeBody
	res.JSON(t, &a)
	require.Equal(t, 201, res.StatusCode, "create: status (body %s)", res.Body)
	require.Equal(t, "José", a.Data.FirstName, "create: a.Data.FirstName")
	require.Equal(t, "Acme", a.Data.Metadata["company"], `create: a.Data.Metadata["company"]`)
	require.Equal(t, "/api/v1/attendees/"+a.Data.ID, res.Header.Get("Location"), `create: res.Header.Get("Location")`)
	path := "/api/v1/attendees/" + a.Data.ID

	// An update changes what it names; metadata, when present, replaces the map.
	res = acct.Client.Put(path, map[string]any{"email": "jose.mueller@example.org", "metadata": map[string]string{"track": "Go"}})
	a = attendeeBody{}
	res.JSON(t, &a)
	require.Equal(t, 200, res.StatusCode, "update: status (body %s)", res.Body)
	require.Equal(t, "jose.mueller@example.org", a.Data.Email, "update: a.Data.Email")
	require.Equal(t, "Müller", a.Data.LastName, "update: a.Data.LastName")
	require.Len(t, a.Data.Metadata, 1, "update: a.Data.Metadata")
	require.Equal(t, "Go", a.Data.Metadata["track"], `update: a.Data.Metadata["track"]`)
	res = acct.Client.Put(path, map[string]any{"eventId": uuid.NewString()})
	wantError(t, res, 400, res.StatusCode, "VALIDATION_ERROR")
	res = acct.Client.Put(path, map[string]any{"firstName": "   "})
	if e := wantError(t, res, 400, res.StatusCode, "VALIDATION_ERROR"); e.Error.Details[0].Field != "body.firstName" {
		t.Fatalf("details %+v", e.Error.Details)
	}

	res = acct.Client.Get(path)
	require.Equal(t, 200, res.StatusCode, "get: status (body %s)", res.Body)
	require.Contains(t, string(res.Body), `"track":"Go"`, "get: body")
	if res := acct.Client.Delete(path); res.StatusCode != 204 {
		t.Fatalf("delete: %d %s", res.StatusCode, res.Body)
	}
	res = acct.Client.Get(path)
	wantError(t, res, 404, res.StatusCode, "NOT_FOUND")
}

func TestAttendeeCreateRefusesBadInput(t *testing.T) {
	t.Parallel()
	env := testkit.NewServer(t)
	acct := testkit.SignUp(t, env)
	event := acct.Event(t, env, "E").String()
	before := testkit.Fingerprint(t, env)
	for name, body := range map[string]map[string]any{
		"bad email":     {"eventId": event, "firstName": "A", "lastName": "B", "email": "not-an-email"},
		"blank name":    {"eventId": event, "firstName": " ", "lastName": "B", "email": "a@example.org"},
		"control chars": {"eventId": event, "firstName": "A\u0007", "lastName": "B", "email": "a@example.org"},
		"unknown field": {"eventId": event, "firstName": "A", "lastName": "B", "email": "a@example.org", "role": "x"},
		"long name":     {"eventId": event, "firstName": strings.Repeat("x", 101), "lastName": "B", "email": "a@example.org"},
		"21 metadata": {"eventId": event, "firstName": "A", "lastName": "B", "email": "a@example.org", "metadata": func() map[string]string {
			m := map[string]string{}
			for i := range 21 {
				m[fmt.Sprint("k", i)] = "v"
			}
			return m
		}()},
	} {
		res := acct.Client.Post("/api/v1/attendees", body)
		if res.StatusCode != 400 {
			t.Errorf("%s: %d %s", name, res.StatusCode, res.Body)
		}
	}
	res := acct.Client.Post("/api/v1/attendees", map[string]any{"eventId": uuid.NewString(), "firstName": "A", "lastName": "B", "email": "a@example.org"})
	if e := wantError(t, res, 404, res.StatusCode, "NOT_FOUND"); e.Error.Details[0].Field != "body.eventId" {
		t.Fatalf("details %+v", e.Error.Details)
	}
	if after := testkit.Fingerprint(t, env); after != before {
		t.Fatal("a refused create changed the database")
	}
}

func TestAttendeesListCountAndEventFilter(t *testing.T) {
	t.Parallel()
	env := testkit.NewServer(t)
	acct := testkit.SignUp(t, env)
	first, second := acct.Event(t, env, "First").String(), acct.Event(t, env, "Second").String()
	for i := 1; i <= 3; i++ {
		acct.Client.Post("/api/v1/attendees", map[string]any{"eventId": first, "firstName": fmt.Sprint("F", i), "lastName": "L", "email": fmt.Sprintf("f%d@example.org", i)})
	}
	acct.Client.Post("/api/v1/attendees", map[string]any{"eventId": second, "firstName": "S", "lastName": "L", "email": "s@example.org"})

	var page attendeePage
	acct.Client.Get("/api/v1/attendees?pageSize=2").JSON(t, &page)
	require.Equal(t, 4, page.Meta.Total, "all: page.Meta.Total")
	require.Len(t, page.Data, 2, "all: page.Data")
	require.Equal(t, "S", page.Data[0].FirstName, "all: page.Data[0].FirstName")
	require.Equal(t, "F3", page.Data[1].FirstName, "all: page.Data[1].FirstName")
	acct.Client.Get("/api/v1/attendees?eventId="+first+"&page=2&pageSize=2").JSON(t, &page)
	require.Equal(t, 3, page.Meta.Total, "filtered: page.Meta.Total")
	require.Len(t, page.Data, 1, "filtered: page.Data")
	require.Equal(t, "F1", page.Data[0].FirstName, "filtered: page.Data[0].FirstName")
	acct.Client.Get("/api/v1/events/"+second+"/attendees").JSON(t, &page)
	require.Equal(t, 1, page.Meta.Total, "event attendees: page.Meta.Total")
	require.Equal(t, "S", page.Data[0].FirstName, "event attendees: page.Data[0].FirstName")
	for q, want := range map[string]string{"": "4", "?eventId=" + first: "3", "?eventId=" + uuid.NewString(): "0"} {
		if res := acct.Client.Get("/api/v1/attendees/count" + q); string(res.Body) != `{"data":`+want+"}\n" {
			t.Errorf("count%s: %s", q, res.Body)
		}
	}
	res := acct.Client.Get("/api/v1/events/" + uuid.NewString() + "/attendees")
	wantError(t, res, 404, res.StatusCode, "NOT_FOUND")
	res = acct.Client.Get("/api/v1/attendees?pageSize=101")
	wantError(t, res, 400, res.StatusCode, "VALIDATION_ERROR")
}

func TestAttendeeWithIssuedCredentialsIsKept(t *testing.T) {
	t.Parallel()
	env := testkit.NewServer(t)
	acct := testkit.SignUp(t, env)
	event := acct.Event(t, env, "E")
	add := func(email string) string {
		var a attendeeBody
		acct.Client.Post("/api/v1/attendees", map[string]any{"eventId": event, "firstName": "A", "lastName": "B", "email": email}).JSON(t, &a)
		return a.Data.ID
	}
	certified, badged, drafted := add("c@example.org"), add("b@example.org"), add("d@example.org")
	// Certificates are arranged directly (a draft cannot be made for one attendee through the
	// API); the badge is issued through it.
	certificate := func(attendee, status, code string) {
		testkit.SQL(t, env, `INSERT INTO verification_codes (code, kind) VALUES ($1, 'certificate')`, code)
		testkit.SQL(t, env, `INSERT INTO certificates (account_id, event_id, attendee_id, attendee_link, template_id, certificate_number,
			verification_code, status, recipient_first_name, recipient_last_name, recipient_email, snapshot, issued_at)
			SELECT e.account_id, e.id, $2, $2, e.template_id, $3, $3, $4, 'A', 'B', 'x@example.org', '{}',
			       CASE WHEN $4 = 'draft' THEN NULL ELSE now() END
			FROM events e WHERE e.id = $1`, event, attendee, code, status)
	}
	certificate(certified, "issued", "CODE1")
	certificate(drafted, "draft", "CODE2")
	var badge struct{ Data struct{ ID string } }
	acct.Client.Post("/api/v1/badges", map[string]any{"name": "Speaker"}).JSON(t, &badge)
	if res := acct.Client.Post("/api/v1/badges/"+badge.Data.ID+"/issue", map[string]any{"attendeeIds": []string{badged}}); res.StatusCode != 200 {
		t.Fatalf("issue: %d %s", res.StatusCode, res.Body)
	}

	before := testkit.Fingerprint(t, env)
	// Each refusal counts what it keeps, in words that agree with the count.
	res := acct.Client.Delete("/api/v1/attendees/" + certified)
	if e := wantError(t, res, 409, res.StatusCode, "ATTENDEE_HAS_CERTIFICATES"); !strings.HasPrefix(e.Error.Message, "The attendee holds 1 issued certificate;") {
		t.Errorf("refused: %q", e.Error.Message)
	}
	res = acct.Client.Delete("/api/v1/attendees/" + badged)
	if e := wantError(t, res, 409, res.StatusCode, "ATTENDEE_HAS_BADGES"); !strings.HasPrefix(e.Error.Message, "The attendee was issued 1 badge;") {
		t.Errorf("refused: %q", e.Error.Message)
	}
	res = acct.Client.Delete("/api/v1/events/" + event.String())
	if e := wantError(t, res, 409, res.StatusCode, "CONFLICT"); !strings.HasPrefix(e.Error.Message, "The event has 1 issued certificate;") {
		t.Errorf("refused: %q", e.Error.Message)
	}
	if after := testkit.Fingerprint(t, env); after != before {
		t.Fatal("a refused delete changed the database")
	}
	// A draft is not issued: the attendee goes, and the draft with them.
	if res := acct.Client.Delete("/api/v1/attendees/" + drafted); res.StatusCode != 204 {
		t.Fatalf("delete with a draft: %d %s", res.StatusCode, res.Body)
	}
}

// An event whose attendees hold issued badges, and no certificate, stays with its attendees:
// the deletion of its attendees, which the event's deletion takes along (migration 00034's
// trigger), meets the badges' foreign key, and nothing is removed.
func TestAnEventWithBadgedAttendeesIsKept(t *testing.T) {
	t.Parallel()
	env := testkit.NewServer(t)
	acct := testkit.SignUp(t, env)
	event := acct.Event(t, env, "E")
	var a attendeeBody
	acct.Client.Post("/api/v1/attendees", map[string]any{"eventId": event, "firstName": "A", "lastName": "B", "email": "a@example.org"}).JSON(t, &a)
	var badge struct{ Data struct{ ID string } }
	acct.Client.Post("/api/v1/badges", map[string]any{"name": "Speaker"}).JSON(t, &badge)
	if res := acct.Client.Post("/api/v1/badges/"+badge.Data.ID+"/issue", map[string]any{"attendeeIds": []string{a.Data.ID}}); res.StatusCode != 200 {
		t.Fatalf("issue: %d %s", res.StatusCode, res.Body)
	}

	before := testkit.Fingerprint(t, env)
	res := acct.Client.Delete("/api/v1/events/" + event.String())
	if e := wantError(t, res, 409, res.StatusCode, "CONFLICT"); !strings.Contains(e.Error.Message, "badges") {
		t.Fatalf("the refusal does not say why: %q", e.Error.Message)
	}
	if after := testkit.Fingerprint(t, env); after != before {
		t.Fatal("a refused delete changed the database")
	}
	if res := acct.Client.Get("/api/v1/attendees/" + a.Data.ID); res.StatusCode != 200 {
		t.Fatalf("the badged attendee after the refused delete: %d %s", res.StatusCode, res.Body)
	}
}

func TestAttendeesOfAnotherAccountAreNotFound(t *testing.T) {
	t.Parallel()
	env := testkit.NewServer(t)
	alice, bob := testkit.SignUp(t, env), testkit.SignUp(t, env)
	bobsEvent := bob.Event(t, env, "Bob's").String()
	var a attendeeBody
	bob.Client.Post("/api/v1/attendees", map[string]any{"eventId": bobsEvent, "firstName": "A", "lastName": "B", "email": "a@example.org"}).JSON(t, &a)
	path := "/api/v1/attendees/" + a.Data.ID

	before := testkit.Fingerprint(t, env)
	for _, res := range []interface {
		JSON(testing.TB, any)
	}{
		alice.Client.Get(path),
		alice.Client.Put(path, map[string]any{"firstName": "Mallory"}),
		alice.Client.Delete(path),
		alice.Client.Get("/api/v1/events/" + bobsEvent + "/attendees"),
		alice.Client.Get("/api/v1/events/" + bobsEvent + "/attendees/export"),
		alice.Client.Post("/api/v1/attendees", map[string]any{"eventId": bobsEvent, "firstName": "M", "lastName": "M", "email": "m@example.org"}),
		alice.Client.Upload("/api/v1/attendees/import?eventId="+bobsEvent, "file", "a.csv", []byte("firstName,lastName,email\nM,M,m@example.org\n")),
	} {
		var e errorBody
		res.JSON(t, &e)
		if e.Error.Code != "NOT_FOUND" {
			t.Errorf("want NOT_FOUND, got %+v", e)
		}
	}
	var page attendeePage
	alice.Client.Get("/api/v1/attendees?eventId="+bobsEvent).JSON(t, &page)
	if page.Meta.Total != 0 {
		t.Fatalf("alice lists bob's attendees: %+v", page)
	}
	if after := testkit.Fingerprint(t, env); after != before {
		t.Fatal("another account's request changed the database")
	}
}
