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
	if d.Name != "Speaker" || *d.Description != "Gave a talk" || d.Status != "active" || d.IssuedCount != 0 || *d.ValidityDays != 365 ||
		*d.Criteria.URL != "https://example.org/criteria" || len(d.Tags) != 1 {
		t.Fatalf("created: %+v", d)
	}
	svg, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(d.Image, "data:image/svg+xml;base64,"))
	if err != nil || !strings.HasPrefix(d.Image, "data:image/svg+xml;base64,") || !strings.Contains(string(svg), "<title>Speaker</title>") ||
		!strings.Contains(string(svg), `fill="#1f6feb"`) {
		t.Fatalf("the generated image: %.120s", d.Image)
	}
	own := "data:image/png;base64," + base64.StdEncoding.EncodeToString(tinyPNG)
	logo := b.badge(t, map[string]any{"name": "Organiser", "image": own})
	if logo.Data.Image != own {
		t.Fatal("the badge's own image was not kept")
	}

	var got badgeBody
	c.Get("/api/v1/badges/"+d.ID).JSON(t, &got)
	if got.Data.ID != d.ID || got.Data.Image != d.Image {
		t.Fatalf("get: %+v", got.Data)
	}
	var list struct {
		Data []struct{ ID string }
		Meta struct{ Total int }
	}
	c.Get("/api/v1/badges?pageSize=1").JSON(t, &list)
	if list.Meta.Total != 2 || len(list.Data) != 1 || list.Data[0].ID != logo.Data.ID {
		t.Fatalf("list, newest first: %+v", list)
	}

	res := c.Put("/api/v1/badges/"+logo.Data.ID, map[string]any{"name": "Organiser of the year"})
	var replaced badgeBody
	res.JSON(t, &replaced)
	if res.StatusCode != 200 || replaced.Data.Name != "Organiser of the year" || replaced.Data.Description != nil ||
		!strings.HasPrefix(replaced.Data.Image, "data:image/svg+xml;base64,") {
		t.Fatalf("replace: %d %s", res.StatusCode, res.Body)
	}
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
	if res.StatusCode != 200 || len(first.Data) != 2 || first.Data[0].AttendeeID != ada || first.Data[0].AlreadyIssued ||
		first.Data[0].Status != "active" || first.Data[0].Recipient.FirstName != "Ada" || first.Data[0].ExpiresAt == nil {
		t.Fatalf("first: %d %s", res.StatusCode, res.Body)
	}
	if used := b.creditsUsed(t); used != 2 {
		t.Fatalf("%d credits used, want 2", used)
	}
	res, second := b.issue(t, b.acct.Client, badge, ids(ada, grace, linus))
	if res.StatusCode != 200 || !second.Data[0].AlreadyIssued || !second.Data[1].AlreadyIssued || second.Data[2].AlreadyIssued ||
		second.Data[0].ID != first.Data[0].ID || second.Data[2].AttendeeID != linus {
		t.Fatalf("second: %d %s", res.StatusCode, res.Body)
	}
	if used := b.creditsUsed(t); used != 3 {
		t.Fatalf("%d credits used, want 3", used)
	}
	var assertions struct {
		Data []struct{ AttendeeID, Status string }
		Meta struct{ Total int }
	}
	b.acct.Client.Get("/api/v1/badges/"+badge+"/assertions?pageSize=2").JSON(t, &assertions)
	if assertions.Meta.Total != 3 || len(assertions.Data) != 2 || assertions.Data[0].Status != "active" {
		t.Fatalf("assertions: %+v", assertions)
	}
	var got badgeBody
	b.acct.Client.Get("/api/v1/badges/"+badge).JSON(t, &got)
	if got.Data.IssuedCount != 3 {
		t.Fatalf("issuedCount %d", got.Data.IssuedCount)
	}
	var outbox, issuedEvents int
	testkit.QueryRow(t, b.env, `SELECT count(*), count(*) FILTER (WHERE event_type = 'badge.issued') FROM outbox_events`, nil, &outbox, &issuedEvents)
	if outbox != 3 || issuedEvents != 3 {
		t.Fatalf("issuing a badge to 3 new attendees (twice to 2 of them) wrote %d outbox events, %d badge.issued; want one badge.issued per new assertion", outbox, issuedEvents)
	}
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
	if c := e.Error.Credits; c.Limit != 12 || c.Used != 10 || c.Remaining != 2 {
		t.Fatalf("credits: %+v", c)
	}
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
	if first.StatusCode != 200 || again.StatusCode != 200 || again.Header.Get("Idempotent-Replayed") != "true" ||
		!bytes.Equal(first.Body, again.Body) || !strings.Contains(string(again.Body), `"alreadyIssued":false`) {
		t.Fatalf("first %d %s\nagain %d %v %s", first.StatusCode, first.Body, again.StatusCode, again.Header, again.Body)
	}
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
	if list.Meta.Total != 0 || got.Data.Status != "retired" || got.Data.IssuedCount != 1 {
		t.Fatalf("listed %d, got %+v", list.Meta.Total, got.Data)
	}
	var assertions struct {
		Data []struct {
			Status    string
			RevokedAt *time.Time
		}
	}
	c.Get("/api/v1/badges/"+badge+"/assertions").JSON(t, &assertions)
	if len(assertions.Data) != 1 || assertions.Data[0].Status != "revoked" || assertions.Data[0].RevokedAt == nil {
		t.Fatalf("assertions: %+v", assertions)
	}
	res, _ := b.issue(t, c, badge, ids(b.attendee(t, "Grace")))
	wantError(t, res, 409, res.StatusCode, "CONFLICT")
	res = c.Put("/api/v1/badges/"+badge, map[string]any{"name": "Renamed"})
	wantError(t, res, 409, res.StatusCode, "CONFLICT")
	res = b.env.Client.Get("/ob/v2/assertions/" + issued.Data[0].ID)
	if res.StatusCode != 410 || !strings.Contains(string(res.Body), `"revoked":true`) {
		t.Fatalf("hosted assertion of a retired badge: %d %s", res.StatusCode, res.Body)
	}
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
	if deliveries.Meta.Total != 1 || *deliveries.Data[0].BadgeAssertionID != issued.Data[0].ID ||
		deliveries.Data[0].To != "ada@example.org" || deliveries.Data[0].Subject != "Your badge: Speaker" {
		t.Fatalf("deliveries: %+v", deliveries)
	}
	var kind string
	testkit.QueryRow(t, b.env, `SELECT kind FROM email_deliveries`, nil, &kind)
	if kind != "badge" {
		t.Fatalf("recorded as a %s email", kind)
	}
	// The email worker sends it as it sends any other (here into .eml files), with the link.
	if n, err := runEmail(t, b.env); err != nil || n != 1 {
		t.Fatalf("the worker sent %d messages: %v", n, err)
	}
	msg, raw := onlyMessageSent(t, b.env)
	text, _ := io.ReadAll(quotedprintable.NewReader(msg.Body))
	if link := b.env.Config.SiteURL.String() + "/verify/" + issued.Data[0].VerificationCode; !strings.Contains(string(text), link) ||
		!strings.Contains(msg.Header.Get("To"), "ada@example.org") {
		t.Fatalf("the email lacks %s:\n%s", link, raw)
	}
	b.acct.Client.Get("/api/v1/email/deliveries").JSON(t, &deliveries)
	if deliveries.Meta.Total != 1 || !strings.Contains(string(b.acct.Client.Get("/api/v1/email/deliveries").Body), `"status":"sent"`) {
		t.Fatalf("the delivery is not recorded sent")
	}
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
		if e := decodeError(t, res); res.StatusCode != 404 || e.Error.Code != "NOT_FOUND" {
			t.Errorf("%s: %d %s", name, res.StatusCode, res.Body)
		}
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
	if res.StatusCode != 200 || res.Header.Get("Content-Type") != "application/ld+json" ||
		res.Header.Get("Access-Control-Allow-Origin") != "*" || res.Header.Get("RateLimit-Limit") == "" {
		t.Fatalf("assertion: %d %v %s", res.StatusCode, res.Header, res.Body)
	}
	var doc struct {
		ID, Badge, Image string
		Recipient        struct{ Salt, Identity string }
	}
	res.JSON(t, &doc)
	sum := sha256.Sum256([]byte("ada@example.org" + doc.Recipient.Salt))
	if doc.ID != site+"/ob/v2/assertions/"+a.ID || doc.Badge != site+"/ob/v2/badges/"+badge ||
		doc.Image != site+"/api/v1/verify/"+a.VerificationCode+"/badge.png" || len(doc.Recipient.Salt) != 32 ||
		doc.Recipient.Identity != "sha256$"+hex.EncodeToString(sum[:]) {
		t.Fatalf("assertion: %s", res.Body)
	}
	res = public.Get("/ob/v2/badges/" + badge)
	var class struct{ ID, Name, Issuer, Image string }
	res.JSON(t, &class)
	if res.StatusCode != 200 || class.Name != "Speaker" || !strings.HasPrefix(class.Image, "data:image/svg+xml;base64,") {
		t.Fatalf("badge class: %d %s", res.StatusCode, res.Body)
	}
	res = public.Get(strings.TrimPrefix(class.Issuer, site))
	if res.StatusCode != 200 || !strings.Contains(string(res.Body), `"name":"Account `) {
		t.Fatalf("issuer: %d %s", res.StatusCode, res.Body)
	}
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
