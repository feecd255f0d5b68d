package httpapi_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/certhub/credentiald/internal/testkit"
)

// hasDetail reports whether an error names field with a message containing want.
func hasDetail(e errorBody, field, want string) bool {
	for _, d := range e.Error.Details {
		if d.Field == field && strings.Contains(d.Message, want) {
			return true
		}
	}
	return false
}

// Text that Go's decoder would alter or cut short, and single-line text holding what it may
// not, answers 400 naming the field, and nothing is stored.
func TestTextInputThatCannotBeKeptAsSentIsRefused(t *testing.T) {
	t.Parallel()
	env := testkit.NewServer(t)
	acct := testkit.SignUp(t, env)
	eventID := acct.Event(t, env, "Go Conference")
	event := eventID.String()
	template := acct.Template(t, env).String()
	attendee := func(first, last, extra string) []byte {
		return []byte(`{"eventId":"` + event + `","firstName":"` + first + `","lastName":"` + last + `","email":"ada@example.org"` + extra + `}`)
	}
	eventBody := func(fields string) []byte {
		return []byte(`{"eventDate":"2026-11-12T09:00:00Z","templateId":"` + template + `",` + fields + `}`)
	}
	templateBody := func(name, signatureName string) []byte {
		return []byte(`{"name":"` + name + `","pageSize":"A4","orientation":"landscape","layout":{"rows":[{"height":40,"cols":[` +
			`{"size":12,"content":{"type":"signature","name":"` + signatureName + `"}}]}]}}`)
	}
	cases := []struct {
		name, method, path string
		body               []byte
		field, message     string
	}{
		// Not UTF-8, or not text at all.
		{"raw byte that is not UTF-8", "POST", "/api/v1/attendees", attendee("Ada\xff", "Lovelace", ""), "body.firstName", "not valid UTF-8"},
		{"lone high surrogate", "POST", "/api/v1/attendees", attendee(`Ada\ud800`, "Lovelace", ""), "body.firstName", `\ud800`},
		{"lone low surrogate", "POST", "/api/v1/attendees", attendee("Ada", `\udc00Lovelace`, ""), "body.lastName", `\udc00`},
		{"reversed surrogate pair", "POST", "/api/v1/attendees", attendee(`\ude00\ud83d`, "Lovelace", ""), "body.firstName", "surrogate"},
		{"surrogate in a metadata value", "POST", "/api/v1/attendees", attendee("Ada", "Lovelace", `,"metadata":{"company":"\ud83dAcme"}`), "body.metadata.company", "surrogate"},
		{"NUL in multi-line text", "POST", "/api/v1/events", eventBody(`"name":"E","description":"a\u0000b"`), "body.description", "U+0000"},
		// One JSON value, nothing after it.
		{"stray text after the body", "POST", "/api/v1/attendees", append(attendee("Ada", "Lovelace", ""), " x"...), "body", "more than one JSON value"},
		{"two JSON objects", "POST", "/api/v1/attendees", append(attendee("Ada", "Lovelace", ""), `{"firstName":"Eve"}`...), "body", "more than one JSON value"},
		// Single-line text.
		{"line feed in a first name", "POST", "/api/v1/attendees", attendee(`Ada\nEve`, "Lovelace", ""), "body.firstName", "U+000A"},
		{"carriage return in a last name", "POST", "/api/v1/attendees", attendee("Ada", `Love\rlace`, ""), "body.lastName", "U+000D"},
		{"tab", "POST", "/api/v1/attendees", attendee(`Ada\t`, "Lovelace", ""), "body.firstName", "U+0009"},
		{"bell", "POST", "/api/v1/attendees", attendee(`Ada\u0007`, "Lovelace", ""), "body.firstName", "U+0007"},
		{"C1 next line", "POST", "/api/v1/attendees", attendee("Ada\u0085", "Lovelace", ""), "body.firstName", "U+0085"},
		{"line separator", "POST", "/api/v1/attendees", attendee("Ada\u2028", "Lovelace", ""), "body.firstName", "U+2028"},
		{"paragraph separator", "POST", "/api/v1/attendees", attendee("Ada", `Lovelace\u2029`, ""), "body.lastName", "U+2029"},
		{"right-to-left override", "POST", "/api/v1/attendees", attendee(`\u202eecalevoL`, "Ada", ""), "body.firstName", "U+202E"},
		{"left-to-right embedding", "POST", "/api/v1/attendees", attendee("\u202aAda", "Lovelace", ""), "body.firstName", "U+202A"},
		{"first strong isolate", "POST", "/api/v1/attendees", attendee(`Ada\u2068`, "Lovelace", ""), "body.firstName", "U+2068"},
		{"pop directional isolate", "POST", "/api/v1/attendees", attendee("Ada", "Lovelace", `,"metadata":{"company":"Acme\u2069"}`), "body.metadata.company", "U+2069"},
		{"byte order mark", "POST", "/api/v1/attendees", attendee(`\ufeffAda`, "Lovelace", ""), "body.firstName", "U+FEFF"},
		{"attendee update", "PUT", "/api/v1/attendees/" + acct.Attendee(t, eventID, "Ada", "Lovelace", "ada@example.org").String(), []byte(`{"lastName":"L\u2066"}`), "body.lastName", "U+2066"},
		{"event name", "POST", "/api/v1/events", eventBody(`"name":"Go\u202eConf"`), "body.name", "U+202E"},
		{"event location", "PUT", "/api/v1/events/" + event, eventBody(`"name":"Go","location":"Berlin\nMitte"`), "body.location", "U+000A"},
		{"template name", "POST", "/api/v1/templates", templateBody(`T\u2067`, "Ada"), "body.name", "U+2067"},
		{"signature name in a layout", "POST", "/api/v1/templates", templateBody("T", `Ada\u0007`), "body.layout.rows[0].cols[0].content.name", "U+0007"},
		{"issuer name", "PUT", "/api/v1/branding", []byte(`{"issuerName":"Acme\u202d"}`), "body.issuerName", "U+202D"},
		{"email sender name", "PUT", "/api/v1/branding", []byte(`{"emailFromName":"Acme\r\nBcc: x@example.org"}`), "body.emailFromName", "U+000D"},
		{"badge name", "POST", "/api/v1/badges", []byte(`{"name":"Go\u2028Expert"}`), "body.name", "U+2028"},
		{"badge tag", "POST", "/api/v1/badges", []byte(`{"name":"Go","tags":["a\tb"]}`), "body.tags[0]", "U+0009"},
		{"API key name", "POST", "/api/v1/api-keys", []byte(`{"name":"ci\u202e","scopes":["events:read"]}`), "body.name", "U+202E"},
		{"preview sample name", "POST", "/api/v1/templates/" + template + "/preview", []byte(`{"sample":{"recipient":{"firstName":"Ada\u2066"}}}`), "body.sample.recipient.firstName", "U+2066"},
		{"account name at registration", "POST", "/api/v1/auth/register", []byte(`{"email":"x@example.org","password":"correct horse battery","name":"Ada","accountName":"Acme\u0000"}`), "body.accountName", "U+0000"},
		{"user name at registration", "POST", "/api/v1/auth/register", []byte(`{"email":"x@example.org","password":"correct horse battery","name":"Ada\u2029","accountName":"Acme"}`), "body.name", "U+2029"},
	}
	before := testkit.Fingerprint(t, env)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res := acct.Client.Do(acct.Client.Request(c.method, c.path, c.body))
			if e := wantError(t, res, 400, res.StatusCode, "VALIDATION_ERROR"); !hasDetail(e, c.field, c.message) {
				t.Fatalf("want a detail on %s saying %q: %s", c.field, c.message, res.Body)
			}
		})
	}
	if after := testkit.Fingerprint(t, env); after != before {
		t.Fatal("a refused request changed the database")
	}
}

// Every other character is kept exactly as sent: joiners, emoji (raw or as a surrogate pair),
// right-to-left scripts and their marks; text that is not single-line keeps its line breaks.
func TestTextInputIsStoredExactlyAsSent(t *testing.T) {
	t.Parallel()
	env := testkit.NewServer(t)
	acct := testkit.SignUp(t, env)
	event := acct.Event(t, env, "Go Conference")
	cases := []struct {
		name, sent, want string
	}{
		{"zero-width joiner in an emoji sequence", "👩\u200d💻 Ada", "👩\u200d💻 Ada"},
		{"zero-width non-joiner", "می\u200cخواهم", "می\u200cخواهم"},
		{"emoji as a surrogate pair escape", `Ada \ud83d\ude00`, "Ada 😀"},
		{"right-to-left script with a mark", "עדה\u200f", "עדה\u200f"},
		{"no-break space and combining accent", "Jose\u0301\u00a0María", "Jose\u0301\u00a0María"},
		{"CJK beyond the basic plane", "𠮷野", "𠮷野"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res := acct.Client.Post("/api/v1/attendees", []byte(`{"eventId":"`+event.String()+`","firstName":"`+c.sent+`","lastName":"L","email":"a@example.org"}`))
			var created struct {
				Data struct{ ID, FirstName string }
			}
			res.JSON(t, &created)
			require.Equal(t, http.StatusCreated, res.StatusCode, "status (body %s)", res.Body)
			require.Equal(t, c.want, created.Data.FirstName, "created.Data.FirstName")
			var got struct{ Data struct{ FirstName string } }
			acct.Client.Get("/api/v1/attendees/"+created.Data.ID).JSON(t, &got)
			if got.Data.FirstName != c.want {
				t.Fatalf("stored %q, sent %q", got.Data.FirstName, c.want)
			}
		})
	}
	res := acct.Client.Put("/api/v1/events/"+event.String(), []byte(`{"name":"Go","eventDate":"2026-11-12T09:00:00Z","templateId":"`+
		acct.Template(t, env).String()+`","description":"Day one\nDay two\tworkshops"}`))
	var ev struct{ Data struct{ Description string } }
	res.JSON(t, &ev)
	require.Equal(t, 200, res.StatusCode, "multi-line description: status (body %s)", res.Body)
	require.Equal(t, "Day one\nDay two\tworkshops", ev.Data.Description, "multi-line description: ev.Data.Description")
}

// A query parameter with a fixed set of values refuses any other.
func TestQueryEnumsRefuseUnknownValues(t *testing.T) {
	t.Parallel()
	env := testkit.NewServer(t)
	acct := testkit.SignUp(t, env)
	event := acct.Event(t, env, "E").String()
	for _, path := range []string{
		"/api/v1/email/deliveries?status=delivered",
		"/api/v1/email/deliveries?status=",
		"/api/v1/events/" + event + "/certificates?status=VALID",
		"/api/v1/templates?active=maybe",
	} {
		res := acct.Client.Get(path)
		field := "query.status"
		if strings.Contains(path, "active=") {
			field = "query.active"
		}
		if e := wantError(t, res, 400, res.StatusCode, "VALIDATION_ERROR"); !hasDetail(e, field, "") {
			t.Errorf("%s: %s", path, res.Body)
		}
	}
}
