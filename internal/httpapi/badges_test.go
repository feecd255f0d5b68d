package httpapi_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"io"
	"mime/quotedprintable"
	"net/http"
	"net/mail"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/certhub/credentiald/internal/testkit"
	"github.com/certhub/credentiald/internal/testkit/contract"
)

type badgeBody struct {
	Data struct {
		ID           string
		Name         string
		Description  *string
		Criteria     struct{ Narrative, URL *string }
		Image        string
		Tags         []string
		ValidityDays *int
		Status       string
		IssuedCount  int
	}
}

type issuedBody struct {
	Data []struct {
		ID, BadgeID, AttendeeID, VerificationCode, Status string
		Recipient                                         struct{ FirstName, Email string }
		IssuedAt                                          time.Time
		ExpiresAt, RevokedAt                              *time.Time
		AlreadyIssued                                     bool
	}
}

// badging is an account with an event and its attendees, for badge tests through the API.
type badging struct {
	env   *testkit.Env
	acct  *testkit.Account
	event uuid.UUID
}

func newBadging(t *testing.T) badging {
	t.Helper()
	env := testkit.NewServer(t)
	acct := testkit.SignUp(t, env)
	return badging{env: env, acct: acct, event: acct.Event(t, env, "Go Conference")}
}

func (b badging) attendee(t *testing.T, first string) string {
	t.Helper()
	return b.acct.Attendee(t, b.event, first, "Lovelace", strings.ToLower(first)+"@example.org").String()
}

func (b badging) badge(t *testing.T, body map[string]any) badgeBody {
	t.Helper()
	res := b.acct.Client.Post("/api/v1/badges", body)
	if res.StatusCode != http.StatusOK {
		t.Fatalf("create badge: %d %s", res.StatusCode, res.Body)
	}
	var out badgeBody
	res.JSON(t, &out)
	return out
}

func (b badging) issue(t *testing.T, c *contract.Client, badge string, body map[string]any) (*contract.Response, issuedBody) {
	t.Helper()
	res := c.Post("/api/v1/badges/"+badge+"/issue", body)
	var out issuedBody
	if res.StatusCode == http.StatusOK {
		res.JSON(t, &out)
	}
	return res, out
}

func (b badging) creditsUsed(t *testing.T) int {
	t.Helper()
	var credits struct{ Data struct{ Used int } }
	b.acct.Client.Get("/api/v1/credits").JSON(t, &credits)
	return credits.Data.Used
}

func ids(v ...string) map[string]any { return map[string]any{"attendeeIds": v} }

// Create (200; a generated SVG when no image is given, the given one kept), get, list, replace
// (an omitted optional field is cleared, the image generated again) and delete of a badge never
// issued, which removes it.
func TestBadgesAreCreatedReadReplacedAndRemoved(t *testing.T) {
	t.Parallel()
	b := newBadging(t)
	c := b.acct.Client
	b.acct.Client.Put("/api/v1/branding", map[string]any{"issuerName": "Gophers e.V.", "primaryColor": "#1F6FEB"})
	speaker := b.badge(t, map[string]any{"name": " Speaker ", "description": "Gave a talk", "tags": []string{"talk"},
		"criteria": map[string]any{"narrative": "Presented", "url": "https://example.org/criteria"}, "validityDays": 365})
	d := speaker.Data
	require.Equal(t, "Speaker", d.Name, "created: d.Name")
	require.Equal(t, "Gave a talk", *d.Description, "created: *d.Description")
	require.Equal(t, "active", d.Status, "created: d.Status")
	require.Equal(t, 0, d.IssuedCount, "created: d.IssuedCount")
	require.Equal(t, 365, *d.ValidityDays, "created: *d.ValidityDays")
	require.Equal(t, "https://example.org/criteria", *d.Criteria.URL, "created: *d.Criteria.URL")
	require.Len(t, d.Tags, 1, "created: d.Tags")
	svg, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(d.Image, "data:image/svg+xml;base64,"))
	require.NoError(t, err, "the generated image: base64")
	require.True(t, strings.HasPrefix(d.Image, "data:image/svg+xml;base64,"), "the generated image: %q should start with %q", d.Image, "data:image/svg+xml;base64,")
	require.Contains(t, string(svg), "<title>Speaker</title>", "the generated image: SVG")
	require.Contains(t, string(svg), `fill="#1f6feb"`, "the generated image: SVG")
	own := "data:image/png;base64," + base64.StdEncoding.EncodeToString(tinyPNG)
	logo := b.badge(t, map[string]any{"name": "Organiser", "image": own})
	if logo.Data.Image != own {
		t.Fatal("the badge's own image was not kept")
	}

	var got badgeBody
	c.Get("/api/v1/badges/"+d.ID).JSON(t, &got)
	require.Equal(t, d.ID, got.Data.ID, "get: got.Data.ID")
	require.Equal(t, d.Image, got.Data.Image, "get: got.Data.Image")
	var list struct {
		Data []struct{ ID string }
		Meta struct{ Total int }
	}
	c.Get("/api/v1/badges?pageSize=1").JSON(t, &list)
	require.Equal(t, 2, list.Meta.Total, "list, newest first: list.Meta.Total")
	require.Len(t, list.Data, 1, "list, newest first: list.Data")
	require.Equal(t, logo.Data.ID, list.Data[0].ID, "list, newest first: list.Data[0].ID")

	res := c.Put("/api/v1/badges/"+logo.Data.ID, map[string]any{"name": "Organiser of the year"})
	var replaced badgeBody
	res.JSON(t, &replaced)
	require.Equal(t, 200, res.StatusCode, "replace: status (body %s)", res.Body)
	require.Equal(t, "Organiser of the year", replaced.Data.Name, "replace: replaced.Data.Name")
	require.Nil(t, replaced.Data.Description, "replace: replaced.Data.Description")
	require.True(t, strings.HasPrefix(replaced.Data.Image, "data:image/svg+xml;base64,"), "replace: %q should start with %q", replaced.Data.Image, "data:image/svg+xml;base64,")
	for name, body := range map[string]map[string]any{
		"blank name":       {"name": "   "},
		"name with a tab":  {"name": "a\tb"},
		"image not a PNG":  {"name": "x", "image": "data:image/png;base64,aGVsbG8="},
		"criteria not web": {"name": "x", "criteria": map[string]any{"url": "ftp://example.org/c"}},
		"unknown field":    {"name": "x", "colour": "red"},
		"validity 0":       {"name": "x", "validityDays": 0},
	} {
		if res := c.Post("/api/v1/badges", body); res.StatusCode != 400 {
			t.Errorf("%s: %d %s", name, res.StatusCode, res.Body)
		}
	}

	if res := c.Delete("/api/v1/badges/" + logo.Data.ID); res.StatusCode != 204 {
		t.Fatalf("delete: %d %s", res.StatusCode, res.Body)
	}
	res = c.Get("/api/v1/badges/" + logo.Data.ID)
	wantError(t, res, 404, res.StatusCode, "NOT_FOUND")
}

// Issuing to two, then to the same two and a third: only the third is charged, holders come
// back with alreadyIssued: true and their assertion, in the request's order.
func TestIssuingABadgeToTwoThenThreeChargesOnlyTheNewOne(t *testing.T) {
	t.Parallel()
	b := newBadging(t)
	badge := b.badge(t, map[string]any{"name": "Speaker", "validityDays": 30}).Data.ID
	ada, grace, linus := b.attendee(t, "Ada"), b.attendee(t, "Grace"), b.attendee(t, "Linus")
	res, first := b.issue(t, b.acct.Client, badge, ids(ada, grace))
	require.Equal(t, 200, res.StatusCode, "first: status (body %s)", res.Body)
	require.Len(t, first.Data, 2, "first: first.Data")
	require.Equal(t, ada, first.Data[0].AttendeeID, "first: first.Data[0].AttendeeID")
	require.False(t, first.Data[0].AlreadyIssued, "first: first.Data[0].AlreadyIssued")
	require.Equal(t, "active", first.Data[0].Status, "first: first.Data[0].Status")
	require.Equal(t, "Ada", first.Data[0].Recipient.FirstName, "first: first.Data[0].Recipient.FirstName")
	require.NotNil(t, first.Data[0].ExpiresAt, "first: first.Data[0].ExpiresAt")
	if used := b.creditsUsed(t); used != 2 {
		t.Fatalf("%d credits used, want 2", used)
	}
	res, second := b.issue(t, b.acct.Client, badge, ids(ada, grace, linus))
	require.Equal(t, 200, res.StatusCode, "second: status (body %s)", res.Body)
	require.True(t, second.Data[0].AlreadyIssued, "second: second.Data[0].AlreadyIssued")
	require.True(t, second.Data[1].AlreadyIssued, "second: second.Data[1].AlreadyIssued")
	require.False(t, second.Data[2].AlreadyIssued, "second: second.Data[2].AlreadyIssued")
	require.Equal(t, first.Data[0].ID, second.Data[0].ID, "second: second.Data[0].ID")
	require.Equal(t, linus, second.Data[2].AttendeeID, "second: second.Data[2].AttendeeID")
	if used := b.creditsUsed(t); used != 3 {
		t.Fatalf("%d credits used, want 3", used)
	}
	var assertions struct {
		Data []struct{ AttendeeID, Status string }
		Meta struct{ Total int }
	}
	b.acct.Client.Get("/api/v1/badges/"+badge+"/assertions?pageSize=2").JSON(t, &assertions)
	require.Equal(t, 3, assertions.Meta.Total, "assertions: assertions.Meta.Total")
	require.Len(t, assertions.Data, 2, "assertions: assertions.Data")
	require.Equal(t, "active", assertions.Data[0].Status, "assertions: assertions.Data[0].Status")
	var got badgeBody
	b.acct.Client.Get("/api/v1/badges/"+badge).JSON(t, &got)
	if got.Data.IssuedCount != 3 {
		t.Fatalf("issuedCount %d", got.Data.IssuedCount)
	}
	var outbox, issuedEvents int
	testkit.QueryRow(t, b.env, `SELECT count(*), count(*) FILTER (WHERE event_type = 'badge.issued') FROM outbox_events`, nil, &outbox, &issuedEvents)
	require.Equal(t, 3, outbox, "issuing a badge to 3 new attendees (twice to 2 of them): outbox events")
	require.Equal(t, 3, issuedEvents, "issuing a badge to 3 new attendees (twice to 2 of them): badge.issued events, want one per new assertion")
}

// More new attendees than credits left: 402 CREDIT_LIMIT with the figures, and nothing is
// issued, charged or written.
func TestBadgeIssuanceBeyondTheCreditsIssuesNothing(t *testing.T) {
	t.Parallel()
	b := newBadging(t)
	badge := b.badge(t, map[string]any{"name": "Speaker"}).Data.ID
	var people []string
	for i := range 13 {
		people = append(people, b.attendee(t, fmt.Sprintf("P%d", i)))
	}
	if res, _ := b.issue(t, b.acct.Client, badge, ids(people[:10]...)); res.StatusCode != 200 {
		t.Fatalf("%d %s", res.StatusCode, res.Body)
	}
	before := testkit.Fingerprint(t, b.env)
	res, _ := b.issue(t, b.acct.Client, badge, map[string]any{"attendeeIds": people[9:], "sendEmail": true})
	wantError(t, res, 402, res.StatusCode, "CREDIT_LIMIT")
	var e struct {
		Error struct {
			Credits struct{ Limit, Used, Remaining int }
		}
	}
	res.JSON(t, &e)
	c := e.Error.Credits
	require.Equal(t, 12, c.Limit, "credits: c.Limit")
	require.Equal(t, 10, c.Used, "credits: c.Used")
	require.Equal(t, 2, c.Remaining, "credits: c.Remaining")
	if after := testkit.Fingerprint(t, b.env); after != before {
		t.Fatal("the refused issuance changed the database")
	}
}

// The list is 1 to 100 distinct attendees (400 otherwise, naming it), each of the account
// (404): nothing is written either way.
func TestBadgeIssuanceRefusesBadLists(t *testing.T) {
	t.Parallel()
	b := newBadging(t)
	badge := b.badge(t, map[string]any{"name": "Speaker"}).Data.ID
	ada := b.attendee(t, "Ada")
	var many []string
	for range 101 {
		many = append(many, uuid.NewString())
	}
	before := testkit.Fingerprint(t, b.env)
	for name, body := range map[string]map[string]any{
		"empty":      ids(),
		"too many":   ids(many...),
		"twice":      ids(ada, ada),
		"not a uuid": ids("ada"),
		"no list":    {"sendEmail": true},
	} {
		res, _ := b.issue(t, b.acct.Client, badge, body)
		if e := wantError(t, res, 400, res.StatusCode, "VALIDATION_ERROR"); !strings.HasPrefix(e.Error.Details[0].Field, "body.attendeeIds") {
			t.Errorf("%s: details %+v", name, e.Error.Details)
		}
	}
	res, _ := b.issue(t, b.acct.Client, badge, ids(ada, uuid.NewString()))
	if e := wantError(t, res, 404, res.StatusCode, "NOT_FOUND"); e.Error.Details[0].Field != "body.attendeeIds[1]" {
		t.Fatalf("details %+v", e.Error.Details)
	}
	if after := testkit.Fingerprint(t, b.env); after != before {
		t.Fatal("a refused issuance changed the database")
	}
}

// A replay with the same Idempotency-Key and body answers the first answer again, issuing and
// charging nothing; the key with another body is refused.
func TestBadgeIssuanceReplaysWithTheSameIdempotencyKey(t *testing.T) {
	t.Parallel()
	b := newBadging(t)
	badge := b.badge(t, map[string]any{"name": "Speaker"}).Data.ID
	ada, grace := b.attendee(t, "Ada"), b.attendee(t, "Grace")
	send := func(body map[string]any) *contract.Response {
		req := b.acct.Client.Request(http.MethodPost, "/api/v1/badges/"+badge+"/issue", body)
		req.Header.Set("Idempotency-Key", "award-42")
		return b.acct.Client.Do(req)
	}
	first, again := send(ids(ada)), send(ids(ada))
	require.Equal(t, 200, first.StatusCode, "first status (body %s)", first.Body)
	require.Equal(t, 200, again.StatusCode, "again status (body %s)", again.Body)
	require.Equal(t, "true", again.Header.Get("Idempotent-Replayed"), "again: Idempotent-Replayed")
	require.Equal(t, string(first.Body), string(again.Body), "the replayed body")
	require.Contains(t, string(again.Body), `"alreadyIssued":false`, "again: body")
	if used := b.creditsUsed(t); used != 1 {
		t.Fatalf("%d credits used, want 1", used)
	}
	res := send(ids(ada, grace))
	wantError(t, res, 422, res.StatusCode, "IDEMPOTENCY_KEY_REUSED")
}

// Deleting a badge that was issued retires it: 204, it leaves the list, still answers with
// status retired, its assertions read revoked (and their Open Badges documents 410), and it
// can be neither issued nor changed (409). Nothing is erased.
func TestDeletingAnIssuedBadgeRetiresIt(t *testing.T) {
	t.Parallel()
	b := newBadging(t)
	c := b.acct.Client
	badge := b.badge(t, map[string]any{"name": "Speaker"}).Data.ID
	_, issued := b.issue(t, c, badge, ids(b.attendee(t, "Ada")))
	if res := c.Delete("/api/v1/badges/" + badge); res.StatusCode != 204 {
		t.Fatalf("delete: %d %s", res.StatusCode, res.Body)
	}
	var list struct{ Meta struct{ Total int } }
	c.Get("/api/v1/badges").JSON(t, &list)
	var got badgeBody
	c.Get("/api/v1/badges/"+badge).JSON(t, &got)
	require.Equal(t, 0, list.Meta.Total, "retired badges listed")
	require.Equal(t, "retired", got.Data.Status, "retired badge: got.Data.Status")
	require.Equal(t, 1, got.Data.IssuedCount, "retired badge: got.Data.IssuedCount")
	var assertions struct {
		Data []struct {
			Status    string
			RevokedAt *time.Time
		}
	}
	c.Get("/api/v1/badges/"+badge+"/assertions").JSON(t, &assertions)
	require.Len(t, assertions.Data, 1, "assertions: assertions.Data")
	require.Equal(t, "revoked", assertions.Data[0].Status, "assertions: assertions.Data[0].Status")
	require.NotNil(t, assertions.Data[0].RevokedAt, "assertions: assertions.Data[0].RevokedAt")
	res, _ := b.issue(t, c, badge, ids(b.attendee(t, "Grace")))
	wantError(t, res, 409, res.StatusCode, "CONFLICT")
	res = c.Put("/api/v1/badges/"+badge, map[string]any{"name": "Renamed"})
	wantError(t, res, 409, res.StatusCode, "CONFLICT")
	res = b.env.Client.Get("/ob/v2/assertions/" + issued.Data[0].ID)
	require.Equal(t, 410, res.StatusCode, "hosted assertion of a retired badge: status (body %s)", res.Body)
	require.Contains(t, string(res.Body), `"revoked":true`, "hosted assertion of a retired badge: body")
	if res := c.Delete("/api/v1/badges/" + badge); res.StatusCode != 204 {
		t.Fatalf("deleting a retired badge: %d", res.StatusCode)
	}
}

// sendEmail records one email per new recipient, with the link to the verification page, in
// the issuing transaction; holders are not emailed again. The deliveries list shows it, also
// filtered by the attendee's event.
func TestIssuingWithSendEmailRecordsTheBadgeEmail(t *testing.T) {
	t.Parallel()
	b := newBadging(t)
	badge := b.badge(t, map[string]any{"name": "Speaker"}).Data.ID
	ada := b.attendee(t, "Ada")
	_, issued := b.issue(t, b.acct.Client, badge, map[string]any{"attendeeIds": []string{ada}, "sendEmail": true})
	b.issue(t, b.acct.Client, badge, map[string]any{"attendeeIds": []string{ada}, "sendEmail": true})
	var deliveries struct {
		Data []struct {
			BadgeAssertionID *string
			To, Subject      string
		}
		Meta struct{ Total int }
	}
	b.acct.Client.Get("/api/v1/email/deliveries?eventId="+b.event.String()).JSON(t, &deliveries)
	require.Equal(t, 1, deliveries.Meta.Total, "deliveries: deliveries.Meta.Total")
	require.Equal(t, issued.Data[0].ID, *deliveries.Data[0].BadgeAssertionID, "deliveries: *deliveries.Data[0].BadgeAssertionID")
	require.Equal(t, "ada@example.org", deliveries.Data[0].To, "deliveries: deliveries.Data[0].To")
	require.Equal(t, "Your badge: Speaker", deliveries.Data[0].Subject, "deliveries: deliveries.Data[0].Subject")
	var kind string
	testkit.QueryRow(t, b.env, `SELECT kind FROM email_deliveries`, nil, &kind)
	if kind != "badge" {
		t.Fatalf("recorded as a %s email", kind)
	}
	// The email worker sends it as it sends any other (here into .eml files), with the link.
	n, err := runEmail(t, b.env)
	require.NoError(t, err, "email worker")
	require.Equal(t, 1, n, "messages the email worker sent")
	msg, raw := onlyMessageSent(t, b.env)
	text, _ := io.ReadAll(quotedprintable.NewReader(msg.Body))
	link := b.env.Config.SiteURL.String() + "/verify/" + issued.Data[0].VerificationCode
	require.Contains(t, string(text), link, "the email lacks the link:\n%s", raw)
	require.Contains(t, msg.Header.Get("To"), "ada@example.org", "the email: To")
	b.acct.Client.Get("/api/v1/email/deliveries").JSON(t, &deliveries)
	require.Equal(t, 1, deliveries.Meta.Total, "the delivery is not recorded sent: deliveries.Meta.Total")
	require.Contains(t, string(b.acct.Client.Get("/api/v1/email/deliveries").Body), `"status":"sent"`, "the delivery is not recorded sent: deliveries")
}

// Every badge operation on another account's badge answers 404 and changes nothing, and an
// account cannot issue its badge to another account's attendee.
func TestBadgesOfAnotherAccountAreNotFound(t *testing.T) {
	t.Parallel()
	b := newBadging(t)
	alice := testkit.SignUp(t, b.env)
	bobs := b.badge(t, map[string]any{"name": "Bob's"}).Data.ID
	bobsAttendee := b.attendee(t, "Ada")
	b.issue(t, b.acct.Client, bobs, ids(bobsAttendee))
	var alicesBadge badgeBody
	alice.Client.Post("/api/v1/badges", map[string]any{"name": "Alice's"}).JSON(t, &alicesBadge)

	before := testkit.Fingerprint(t, b.env)
	path := "/api/v1/badges/" + bobs
	for name, res := range map[string]*contract.Response{
		"get":        alice.Client.Get(path),
		"put":        alice.Client.Put(path, map[string]any{"name": "Mallory's"}),
		"delete":     alice.Client.Delete(path),
		"issue":      alice.Client.Post(path+"/issue", ids(bobsAttendee)),
		"assertions": alice.Client.Get(path + "/assertions"),
		"issue to another's attendee": alice.Client.Post("/api/v1/badges/"+alicesBadge.Data.ID+"/issue",
			ids(bobsAttendee)),
	} {
		e := decodeError(t, res)
		assert.Equal(t, 404, res.StatusCode, "%s: status (body %s)", name, res.Body)
		assert.Equal(t, "NOT_FOUND", e.Error.Code, "%s: e.Error.Code", name)
	}
	var list struct{ Meta struct{ Total int } }
	alice.Client.Get("/api/v1/badges").JSON(t, &list)
	if list.Meta.Total != 1 {
		t.Fatalf("alice lists %d badges", list.Meta.Total)
	}
	if after := testkit.Fingerprint(t, b.env); after != before {
		t.Fatal("another account's requests changed the database")
	}
}

// The Open Badges 2.0 documents are served at the site root as JSON-LD to anyone: the
// assertion (its recipient the email hashed with its salt), the badge class and the issuer.
func TestOpenBadgesDocumentsAreServedAtTheSiteRoot(t *testing.T) {
	t.Parallel()
	b := newBadging(t)
	badge := b.badge(t, map[string]any{"name": "Speaker", "tags": []string{"talk"}}).Data.ID
	_, issued := b.issue(t, b.acct.Client, badge, ids(b.attendee(t, "Ada")))
	a := issued.Data[0]
	site := b.env.Config.SiteURL.String()
	public := b.env.Client

	res := public.Get("/ob/v2/assertions/" + a.ID)
	require.Equal(t, 200, res.StatusCode, "assertion: status (body %s)", res.Body)
	require.Equal(t, "application/ld+json", res.Header.Get("Content-Type"), `assertion: res.Header.Get("Content-Type")`)
	require.Equal(t, "*", res.Header.Get("Access-Control-Allow-Origin"), `assertion: res.Header.Get("Access-Control-Allow-Origin")`)
	require.NotEmpty(t, res.Header.Get("RateLimit-Limit"), `assertion: res.Header.Get("RateLimit-Limit")`)
	var doc struct {
		ID, Badge, Image string
		Recipient        struct{ Salt, Identity string }
	}
	res.JSON(t, &doc)
	sum := sha256.Sum256([]byte("ada@example.org" + doc.Recipient.Salt))
	require.Equal(t, site+"/ob/v2/assertions/"+a.ID, doc.ID, "assertion: doc.ID")
	require.Equal(t, site+"/ob/v2/badges/"+badge, doc.Badge, "assertion: doc.Badge")
	require.Equal(t, site+"/api/v1/verify/"+a.VerificationCode+"/badge.png", doc.Image, "assertion: doc.Image")
	require.Len(t, doc.Recipient.Salt, 32, "assertion: doc.Recipient.Salt")
	require.Equal(t, "sha256$"+hex.EncodeToString(sum[:]), doc.Recipient.Identity, "assertion: doc.Recipient.Identity")
	res = public.Get("/ob/v2/badges/" + badge)
	var class struct{ ID, Name, Issuer, Image string }
	res.JSON(t, &class)
	require.Equal(t, 200, res.StatusCode, "badge class: status (body %s)", res.Body)
	require.Equal(t, "Speaker", class.Name, "badge class: class.Name")
	require.True(t, strings.HasPrefix(class.Image, "data:image/svg+xml;base64,"), "badge class: %q should start with %q", class.Image, "data:image/svg+xml;base64,")
	res = public.Get(strings.TrimPrefix(class.Issuer, site))
	require.Equal(t, 200, res.StatusCode, "issuer: status (body %s)", res.Body)
	require.Contains(t, string(res.Body), `"name":"Account `, "issuer: body")
	for path, status := range map[string]int{
		"/ob/v2/assertions/" + uuid.NewString():                  404,
		"/ob/v2/badges/" + uuid.NewString():                      404,
		"/ob/v2/issuers/" + uuid.NewString():                     404,
		"/ob/v2/assertions/not-a-uuid":                           400,
		"/api/v1/ob/v2/assertions/" + a.ID:                       404, // not under the API
		"/ob/v2/issuers/" + testkit.SignUp(t, b.env).ID.String(): 404,
	} {
		if res := public.Get(path); res.StatusCode != status {
			t.Errorf("%s: %d, want %d: %s", path, res.StatusCode, status, res.Body)
		}
	}
}

// Simultaneous requests issuing one badge to overlapping attendees, through the API: every
// answer is 200, each attendee is new in exactly one of them, and the credits used are the
// attendees issued.
func TestSimultaneousBadgeIssuancesNeverChargeTwice(t *testing.T) {
	t.Parallel()
	b := newBadging(t)
	badge := b.badge(t, map[string]any{"name": "Speaker"}).Data.ID
	var people []string
	for i := range 6 {
		people = append(people, b.attendee(t, fmt.Sprintf("P%d", i)))
	}
	answers := make([]issuedBody, 6)
	testkit.Race(len(answers), func(i int) int {
		res, out := b.issue(t, b.acct.Client, badge, ids(people[i], people[(i+1)%6], people[(i+2)%6]))
		answers[i] = out
		return res.StatusCode
	})
	fresh := map[string]int{}
	for _, a := range answers {
		if len(a.Data) != 3 {
			t.Fatalf("an answer holds %d assertions", len(a.Data))
		}
		for _, d := range a.Data {
			if !d.AlreadyIssued {
				fresh[d.AttendeeID]++
			}
		}
	}
	for _, p := range people {
		if fresh[p] != 1 {
			t.Fatalf("attendee %s was new in %d answers", p, fresh[p])
		}
	}
	if used := b.creditsUsed(t); used != len(people) {
		t.Fatalf("%d credits used for %d attendees", used, len(people))
	}
}

// onlyMessageSent reads the one message the email worker wrote (into .eml files, SMTP_URL
// being unset in tests), parsed and raw.
func onlyMessageSent(t *testing.T, env *testkit.Env) (*mail.Message, []byte) {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(env.Config.DataDir, "outbox", "*.eml"))
	if len(files) != 1 {
		t.Fatalf("%d messages written", len(files))
	}
	raw, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	msg, err := mail.ReadMessage(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	return msg, raw
}
