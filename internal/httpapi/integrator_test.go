package httpapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"image/png"
	"net/http"
	"net/mail"
	"sort"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/certhub/credentiald/internal/domain"
	"github.com/certhub/credentiald/internal/testkit"
	"github.com/certhub/credentiald/internal/testkit/pdftext"
)

// The event's certificate list honours its status filter, with the API's meaning of each
// status: valid (issued, not past its expiry), expired (past it, whether or not a lookup has
// marked it yet), revoked and draft; meta.total counts the filtered list.
func TestEventCertificatesAreFilteredByStatus(t *testing.T) {
	t.Parallel()
	s := newIssuing(t)
	valid := s.issue(t, "Ada", "Lovelace", nil)
	revokedCert := s.issue(t, "Grace", "Hopper", nil)
	expired := s.issue(t, "Alan", "Turing", nil)
	if res := s.acct.Client.Post("/api/v1/certificates/"+revokedCert.Data.ID+"/revoke", nil); res.StatusCode != 200 {
		t.Fatalf("revoke: %d %s", res.StatusCode, res.Body)
	}
	// Past its expiry, still stored as issued: only the filter's reading of the dates says expired.
	testkit.SQL(t, s.env, `UPDATE certificates SET issued_at = now() - interval '2 days', expires_at = now() - interval '1 day' WHERE id = $1`, expired.Data.ID)
	draftee := s.acct.Attendee(t, s.event, "Edsger", "Dijkstra", "edsger@example.org")
	res := s.acct.Client.Post("/api/v1/events/"+s.event.String()+"/certificates/generate", map[string]any{
		"attendeeIds": []string{draftee.String()}, "draft": true, "sendEmail": false})
	if res.StatusCode != 200 {
		t.Fatalf("draft: %d %s", res.StatusCode, res.Body)
	}
	for status, want := range map[string]string{
		"valid":   valid.Data.ID,
		"revoked": revokedCert.Data.ID,
		"expired": expired.Data.ID,
		"draft":   "draft",
		"":        "all",
	} {
		path := "/api/v1/events/" + s.event.String() + "/certificates"
		if status != "" {
			path += "?status=" + status
		}
		var page struct {
			Data []struct{ ID, Status, AttendeeID string }
			Meta struct{ Total int }
		}
		res := s.acct.Client.Get(path)
		if res.StatusCode != 200 {
			t.Fatalf("%s: %d %s", path, res.StatusCode, res.Body)
		}
		res.JSON(t, &page)
		switch want {
		case "all":
			var got []string
			for _, c := range page.Data {
				got = append(got, c.Status)
			}
			sort.Strings(got)
			if page.Meta.Total != 4 || strings.Join(got, ",") != "draft,expired,revoked,valid" {
				t.Errorf("unfiltered: %d %v", page.Meta.Total, got)
			}
		case "draft":
			if page.Meta.Total != 1 || len(page.Data) != 1 || page.Data[0].Status != "draft" || page.Data[0].AttendeeID != draftee.String() {
				t.Errorf("status=draft: %s", res.Body)
			}
		default:
			if page.Meta.Total != 1 || len(page.Data) != 1 || page.Data[0].ID != want || page.Data[0].Status != status {
				t.Errorf("status=%s: %s", status, res.Body)
			}
		}
	}
	res = s.acct.Client.Get("/api/v1/events/" + s.event.String() + "/certificates?status=issued")
	if e := wantError(t, res, 400, res.StatusCode, "VALIDATION_ERROR"); e.Error.Details[0].Field != "query.status" {
		t.Errorf("unknown status: %s", res.Body)
	}
}

// A template that only a bulk job names (its event uses another) cannot be deleted either:
// 409 CONFLICT naming the job, on every retry, and the template stays; one that nothing uses
// is deleted.
func TestDeletingATemplateThatABulkJobUsedIsAConflict(t *testing.T) {
	t.Parallel()
	s := newIssuing(t)
	jobTemplate := s.acct.Template(t, s.env)
	res := s.acct.Client.Post("/api/v1/events/"+s.event.String()+"/certificates/generate/jobs", map[string]any{
		"templateId": jobTemplate, "sendEmail": false})
	if res.StatusCode != http.StatusAccepted {
		t.Fatalf("job: %d %s", res.StatusCode, res.Body)
	}
	for range 2 {
		res := s.acct.Client.Delete("/api/v1/templates/" + jobTemplate.String())
		e := wantError(t, res, 409, res.StatusCode, "CONFLICT")
		if !strings.Contains(e.Error.Message, "1 bulk job") {
			t.Fatalf("message does not name the job: %q", e.Error.Message)
		}
	}
	if res := s.acct.Client.Get("/api/v1/templates/" + jobTemplate.String()); res.StatusCode != 200 {
		t.Fatalf("the template after refused deletes: %d", res.StatusCode)
	}
	res = s.acct.Client.Delete("/api/v1/templates/" + s.template.String())
	if e := wantError(t, res, 409, res.StatusCode, "CONFLICT"); !strings.Contains(e.Error.Message, "1 event") {
		t.Fatalf("the event's template: %q", e.Error.Message)
	}
	unused := s.acct.Template(t, s.env)
	if res := s.acct.Client.Delete("/api/v1/templates/" + unused.String()); res.StatusCode != 204 {
		t.Fatalf("an unused template: %d %s", res.StatusCode, res.Body)
	}
}

// null for a field the contract gives a default (and no null) is refused naming the field,
// never taken as the default: sendEmail at the top of a body, bold deep in a template's
// layout. Nothing is written.
func TestNullForAFieldWithADefaultIsRefused(t *testing.T) {
	t.Parallel()
	s := newIssuing(t)
	a := s.acct.Attendee(t, s.event, "Ada", "Lovelace", "ada@example.org")
	res := s.acct.Client.Post("/api/v1/certificates/generate", s.generate(a, map[string]any{"sendEmail": nil}))
	e := wantError(t, res, 400, res.StatusCode, "VALIDATION_ERROR")
	if len(e.Error.Details) != 1 || e.Error.Details[0].Field != "body.sendEmail" || !strings.Contains(e.Error.Details[0].Message, "leave it out") {
		t.Fatalf("sendEmail null: %s", res.Body)
	}
	var page struct{ Meta struct{ Total int } }
	s.acct.Client.Get("/api/v1/events/"+s.event.String()+"/certificates").JSON(t, &page)
	if page.Meta.Total != 0 {
		t.Fatalf("%d certificates after a refused request", page.Meta.Total)
	}
	layout := map[string]any{"rows": []any{map[string]any{"height": 40, "cols": []any{map[string]any{"size": 12,
		"content": map[string]any{"type": "text", "text": "{{recipient.fullName}}", "bold": nil}}}}}}
	res = s.acct.Client.Post("/api/v1/templates", map[string]any{"name": "Bold", "layout": layout})
	e = wantError(t, res, 400, res.StatusCode, "VALIDATION_ERROR")
	if len(e.Error.Details) != 1 || e.Error.Details[0].Field != "body.layout.rows[0].cols[0].content.bold" {
		t.Fatalf("bold null: %s", res.Body)
	}
	res = s.acct.Client.Put("/api/v1/templates/"+s.template.String(), map[string]any{"name": "Plain", "active": nil,
		"layout": map[string]any{"rows": []any{map[string]any{"height": 40, "cols": []any{map[string]any{"size": 12,
			"content": map[string]any{"type": "text", "text": "x"}}}}}}})
	if e := wantError(t, res, 400, res.StatusCode, "VALIDATION_ERROR"); e.Error.Details[0].Field != "body.active" {
		t.Fatalf("active null: %s", res.Body)
	}
}

// Errors say how to fix the input in words: a date where a date and time is expected names
// the format with an example, not a regular expression; a form whose file is under another
// field's name says which field the file goes in, not "not valid JSON".
func TestErrorsSayHowToFixDatesAndForms(t *testing.T) {
	t.Parallel()
	s := newIssuing(t)
	res := s.acct.Client.Post("/api/v1/events", map[string]any{"name": "Dated", "eventDate": "2026-11-12", "templateId": s.template})
	e := wantError(t, res, 400, res.StatusCode, "VALIDATION_ERROR")
	if d := e.Error.Details; len(d) != 1 || d[0].Field != "body.eventDate" || !strings.Contains(d[0].Message, "2026-11-12T09:00:00Z") ||
		strings.ContainsAny(d[0].Message, "^$[]") {
		t.Fatalf("date-only eventDate: %s", res.Body)
	}
	res = s.acct.Client.Upload("/api/v1/attendees/import?eventId="+s.event.String(), "upload", "people.csv",
		[]byte("firstName,lastName,email\nAda,Lovelace,ada@example.org\n"))
	e = wantError(t, res, 400, res.StatusCode, "VALIDATION_ERROR")
	if d := e.Error.Details; len(d) != 1 || d[0].Field != "body" || !strings.Contains(d[0].Message, `the field "file"`) ||
		strings.Contains(d[0].Message, "JSON") {
		t.Fatalf("file under another field: %s", res.Body)
	}
}

// An account that set no issuer name is named by its own name wherever a recipient looks: the
// signature line of a system template's PDF, the email's sender, its text and its footer.
func TestTheAccountNameStandsInForAnUnsetIssuerName(t *testing.T) {
	t.Parallel()
	s := newIssuing(t)
	var me struct {
		Data struct{ Account struct{ Name string } }
	}
	s.acct.Client.Get("/api/v1/auth/me").JSON(t, &me)
	name := me.Data.Account.Name
	var list struct{ Data []struct{ ID, Name string } }
	s.acct.Client.Get("/api/v1/system-templates").JSON(t, &list)
	conference := ""
	for _, st := range list.Data {
		if st.Name == "Conference Attendance" {
			conference = st.ID
		}
	}
	if name == "" || conference == "" {
		t.Fatalf("account %q, system templates %+v", name, list.Data)
	}
	a := s.acct.Attendee(t, s.event, "Ada", "Lovelace", "ada@example.org")
	res := s.acct.Client.Post("/api/v1/certificates/generate", s.generate(a, map[string]any{"templateId": conference, "sendEmail": true}))
	var c certificateBody
	res.JSON(t, &c)
	if res.StatusCode != 200 {
		t.Fatalf("generate: %d %s", res.StatusCode, res.Body)
	}
	text, err := pdftext.Text(s.acct.Client.Get("/api/v1/certificates/" + c.Data.ID + "/download").Body)
	if err != nil || !strings.Contains(text, name) {
		t.Fatalf("the PDF does not name %q (%v):\n%s", name, err, text)
	}
	var fromName, body string
	testkit.QueryRow(t, s.env, `SELECT from_name, body_text FROM email_deliveries WHERE certificate_id = $1`, []any{c.Data.ID}, &fromName, &body)
	if fromName != name || !strings.Contains(body, name) || strings.Contains(body, "organisers") {
		t.Fatalf("email from %q:\n%s", fromName, body)
	}
	if n, err := runEmail(t, s.env); err != nil || n != 1 {
		t.Fatalf("the worker sent %d messages: %v", n, err)
	}
	msg, raw := onlyMessageSent(t, s.env)
	if from, err := mail.ParseAddress(msg.Header.Get("From")); err != nil || from.Name != name {
		t.Fatalf("From: %q (%v)", msg.Header.Get("From"), err)
	}
	if strings.Contains(string(raw), "Sent for the issuer") || strings.Contains(string(raw), `"credentiald"`) {
		t.Fatalf("the message leaves the issuer unnamed:\n%s", raw)
	}
}

// A 405 names the methods the path takes in Allow (RFC 9110), in the error envelope.
func TestMethodNotAllowedListsTheAllowedMethods(t *testing.T) {
	t.Parallel()
	s := newIssuing(t)
	for path, want := range map[string][]string{
		"/api/v1/credits":                    {"GET"},
		"/api/v1/events":                     {"GET", "POST"},
		"/api/v1/events/" + s.event.String(): {"GET", "PUT", "DELETE"},
	} {
		res := s.acct.Client.Do(s.acct.Client.Request(http.MethodPatch, path, nil))
		wantError(t, res, 405, res.StatusCode, "METHOD_NOT_ALLOWED")
		allow := res.Header.Get("Allow")
		for _, m := range want {
			if !strings.Contains(allow, m) {
				t.Errorf("PATCH %s: Allow %q lacks %s", path, allow, m)
			}
		}
		if strings.Contains(allow, "PATCH") {
			t.Errorf("PATCH %s: Allow %q names PATCH", path, allow)
		}
	}
}

// A query parameter that an operation needing credentials does not declare is refused naming
// it, with the ones it takes (a typo must not answer everything); public routes ignore what
// they do not know, so a shared link with tracking parameters still opens.
func TestUnknownQueryParametersAreRefusedWhereCredentialsAreNeeded(t *testing.T) {
	t.Parallel()
	s := newIssuing(t)
	c := s.issue(t, "Ada", "Lovelace", nil)
	for path, field := range map[string]string{
		"/api/v1/events?serach=go": "query.serach",
		"/api/v1/events/" + s.event.String() + "/certificates?status=valid&order=-issuedAt": "query.order",
		"/api/v1/credits?verbose=1": "query.verbose",
	} {
		res := s.acct.Client.Get(path)
		e := wantError(t, res, 400, res.StatusCode, "VALIDATION_ERROR")
		if len(e.Error.Details) != 1 || e.Error.Details[0].Field != field || !strings.Contains(e.Error.Details[0].Message, "is not a parameter") {
			t.Errorf("%s: %s", path, res.Body)
		}
	}
	if res := s.acct.Client.Get("/api/v1/events?page=1&pageSize=5"); res.StatusCode != 200 {
		t.Errorf("declared parameters: %d %s", res.StatusCode, res.Body)
	}
	for _, path := range []string{
		"/api/v1/verify/" + c.Data.VerificationCode + "?utm_source=linkedin&trk=public_profile",
		"/verify/" + c.Data.VerificationCode + "?fbclid=IwAR0abc&utm_campaign=x",
		"/api/v1/verify/" + c.Data.VerificationCode + "/qr?utm_source=mail",
	} {
		if res := s.env.Client.Get(path); res.StatusCode != 200 {
			t.Errorf("%s: %d %s", path, res.StatusCode, res.Body)
		}
	}
}

// GET /attendees?email= finds an address on every event of the account, compared trimmed and
// without regard to case, alone or with eventId; a malformed address is 400 naming it.
func TestAttendeesAreFoundByEmail(t *testing.T) {
	t.Parallel()
	s := newIssuing(t)
	other := s.acct.Event(t, s.env, "Go Meetup")
	s.acct.Attendee(t, s.event, "Ada", "Lovelace", "Ada.Lovelace@Example.org")
	s.acct.Attendee(t, other, "Ada", "Lovelace", "ada.lovelace@example.org")
	s.acct.Attendee(t, other, "Grace", "Hopper", "grace@example.org")
	stranger := testkit.SignUp(t, s.env)
	stranger.Attendee(t, stranger.Event(t, s.env, "Theirs"), "Ada", "Lovelace", "ada.lovelace@example.org")
	var page struct {
		Data []struct{ EventID, Email string }
		Meta struct{ Total int }
	}
	s.acct.Client.Get("/api/v1/attendees?email=ADA.lovelace@example.org").JSON(t, &page)
	if page.Meta.Total != 2 || len(page.Data) != 2 {
		t.Fatalf("by email: %+v", page)
	}
	s.acct.Client.Get("/api/v1/attendees?email=ada.lovelace@example.org&eventId="+other.String()).JSON(t, &page)
	if page.Meta.Total != 1 || page.Data[0].EventID != other.String() {
		t.Fatalf("by email and event: %+v", page)
	}
	res := s.acct.Client.Get("/api/v1/attendees?email=not-an-address")
	if e := wantError(t, res, 400, res.StatusCode, "VALIDATION_ERROR"); e.Error.Details[0].Field != "query.email" {
		t.Fatalf("malformed: %s", res.Body)
	}
}

// The attendee export starts with a UTF-8 byte order mark when asked (bom=true), for
// spreadsheet programs, and without one otherwise.
func TestTheExportStartsWithAByteOrderMarkWhenAsked(t *testing.T) {
	t.Parallel()
	s := newIssuing(t)
	s.acct.Attendee(t, s.event, "Łukasz", "Żółć", "lukasz@example.org")
	path := "/api/v1/events/" + s.event.String() + "/attendees/export"
	plain := s.acct.Client.Get(path)
	withBOM := s.acct.Client.Get(path + "?bom=true")
	if plain.StatusCode != 200 || withBOM.StatusCode != 200 {
		t.Fatalf("export: %d %d", plain.StatusCode, withBOM.StatusCode)
	}
	bom := []byte{0xEF, 0xBB, 0xBF}
	if bytes.HasPrefix(plain.Body, bom) || !bytes.HasPrefix(withBOM.Body, bom) || !bytes.Equal(withBOM.Body[3:], plain.Body) {
		t.Fatalf("without: %.12q, with: %.12q", plain.Body, withBOM.Body)
	}
}

// An event's jobs are listed newest first with their counts, to whoever may read a job
// (certificates:read suffices); another account's event is 404.
func TestAnEventsBulkJobsAreListed(t *testing.T) {
	t.Parallel()
	s := newIssuing(t)
	if err := s.env.Service.Jobs.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.env.Service.Jobs.Stop(context.Background()) })
	var ids []string
	for range 2 {
		res := s.acct.Client.Post("/api/v1/events/"+s.event.String()+"/certificates/generate/jobs", map[string]any{"sendEmail": false})
		if res.StatusCode != http.StatusAccepted {
			t.Fatalf("job: %d %s", res.StatusCode, res.Body)
		}
		var j struct{ Data struct{ ID string } }
		res.JSON(t, &j)
		ids = append(ids, j.Data.ID)
		// A job with nobody to issue finishes at once; the next may start after it.
		waitForJob(t, s, "/api/v1/events/"+s.event.String()+"/certificates/generate/jobs/"+j.Data.ID,
			func(j domain.BulkJob) bool { return j.Status == "completed" || j.Status == "failed" })
	}
	_, reader := s.acct.APIKey(t, "certificates:read")
	var page struct {
		Data []struct{ ID, EventID, Status string }
		Meta struct{ Total int }
	}
	res := reader.Get("/api/v1/events/" + s.event.String() + "/certificates/generate/jobs?pageSize=10")
	res.JSON(t, &page)
	if res.StatusCode != 200 || page.Meta.Total != 2 || len(page.Data) != 2 || page.Data[0].ID != ids[1] || page.Data[1].ID != ids[0] {
		t.Fatalf("jobs: %d %s (created %v)", res.StatusCode, res.Body, ids)
	}
	stranger := testkit.SignUp(t, s.env)
	res = stranger.Client.Get("/api/v1/events/" + s.event.String() + "/certificates/generate/jobs")
	wantError(t, res, 404, res.StatusCode, "NOT_FOUND")
}

// Single resources answer a strong ETag of what they send, and If-None-Match with it answers
// 304 without a body; a change of the resource, or of what time makes of it (a certificate
// past its expiry), changes the tag.
func TestSingleResourcesAnswer304ToTheirETag(t *testing.T) {
	t.Parallel()
	s := newIssuing(t)
	c := s.issue(t, "Ada", "Lovelace", nil)
	paths := []string{
		"/api/v1/events/" + s.event.String(), "/api/v1/certificates/" + c.Data.ID, "/api/v1/attendees/" + c.Data.AttendeeID,
		"/api/v1/templates/" + s.template.String(), "/api/v1/credits", "/api/v1/auth/me", "/api/v1/branding",
		"/api/v1/events/" + s.event.String() + "/registration",
	}
	for _, path := range paths {
		res := s.acct.Client.Get(path)
		tag := res.Header.Get("ETag")
		if res.StatusCode != 200 || !strings.HasPrefix(tag, `"`) || strings.HasPrefix(tag, "W/") {
			t.Fatalf("%s: %d, ETag %q", path, res.StatusCode, tag)
		}
		notModified(t, s.acct.Client, path, tag)
		again := s.acct.Client.Do(withHeader(s.acct.Client.Request("GET", path, nil), "If-None-Match", `"stale"`))
		if again.StatusCode != 200 || !bytes.Equal(again.Body, res.Body) {
			t.Fatalf("%s with another tag: %d", path, again.StatusCode)
		}
	}
	path := "/api/v1/certificates/" + c.Data.ID
	before := s.acct.Client.Get(path).Header.Get("ETag")
	testkit.SQL(t, s.env, `UPDATE certificates SET issued_at = now() - interval '2 days', expires_at = now() - interval '1 day' WHERE id = $1`, c.Data.ID)
	res := s.acct.Client.Do(withHeader(s.acct.Client.Request("GET", path, nil), "If-None-Match", before))
	if res.StatusCode != 200 || !strings.Contains(string(res.Body), `"status":"expired"`) || res.Header.Get("ETag") == before {
		t.Fatalf("after its expiry: %d %s", res.StatusCode, res.Body)
	}
	if res := s.acct.Client.Get("/api/v1/certificates/" + uuid.NewString()); res.StatusCode != 404 || res.Header.Get("ETag") != "" {
		t.Fatalf("a 404 is not tagged: %d %q", res.StatusCode, res.Header.Get("ETag"))
	}
}

// Subscriptions may name patterns beside kinds, and answer them as sent; an unknown one is
// refused naming the kinds and patterns. A new badge assertion writes badge.issued and a
// finished bulk job job.completed, each as the contract documents its webhook body.
func TestBadgeAndJobEventsAndPatternSubscriptions(t *testing.T) {
	t.Parallel()
	s := newIssuing(t)
	res := s.acct.Client.Post("/api/v1/webhooks", map[string]any{"url": "https://93.184.216.34/hook", "events": []string{"certificate.*", "badge.*", "job.completed"}})
	var sub struct{ Data struct{ Events []string } }
	res.JSON(t, &sub)
	if res.StatusCode != 201 || strings.Join(sub.Data.Events, ",") != "certificate.*,badge.*,job.completed" {
		t.Fatalf("subscribe with patterns: %d %s", res.StatusCode, res.Body)
	}
	res = s.acct.Client.Post("/api/v1/webhooks", map[string]any{"url": "https://93.184.216.34/hook", "events": []string{"job.*"}})
	wantError(t, res, 400, res.StatusCode, "VALIDATION_ERROR")

	if err := s.env.Service.Jobs.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.env.Service.Jobs.Stop(context.Background()) })
	a := s.acct.Attendee(t, s.event, "Ada", "Lovelace", "ada@example.org")
	res = s.acct.Client.Post("/api/v1/events/"+s.event.String()+"/certificates/generate/jobs", map[string]any{"sendEmail": false})
	if res.StatusCode != http.StatusAccepted {
		t.Fatalf("job: %d %s", res.StatusCode, res.Body)
	}
	job := waitForJob(t, s, res.Header.Get("Location"), func(j domain.BulkJob) bool { return j.Status == "completed" })
	res = s.acct.Client.Post("/api/v1/badges", map[string]any{"name": "Speaker"})
	var badge struct{ Data struct{ ID string } }
	res.JSON(t, &badge)
	for range 2 { // the second time she holds it: no second event
		if res := s.acct.Client.Post("/api/v1/badges/"+badge.Data.ID+"/issue", map[string]any{"attendeeIds": []string{a.String()}}); res.StatusCode != 200 {
			t.Fatalf("issue badge: %d %s", res.StatusCode, res.Body)
		}
	}
	events, err := s.env.Store.OutboxEvents(t.Context(), s.acct.ID)
	if err != nil {
		t.Fatal(err)
	}
	count := map[string]int{}
	for _, e := range events {
		count[e.EventType]++
		if e.EventType == "job.completed" {
			var body struct{ Data struct{ JobID string } }
			if err := json.Unmarshal(e.Payload, &body); err != nil || body.Data.JobID != job.Data.ID {
				t.Errorf("job.completed names another job: %s", e.Payload)
			}
		}
	}
	if count["job.completed"] != 1 || count["badge.issued"] != 1 || count["certificate.issued"] != 1 {
		t.Fatalf("events: %v", count)
	}
	checkOutbox(t, events)
}

// Every credential has a share card, 1200x630 whatever its template's orientation, which its
// page names as og:image with its size: a portrait certificate, a landscape one and a badge.
func TestEveryCredentialHasAWideShareCard(t *testing.T) {
	t.Parallel()
	s := newIssuing(t)
	var list struct {
		Data []struct{ ID, Name, Orientation string }
	}
	s.acct.Client.Get("/api/v1/system-templates").JSON(t, &list)
	codes := map[string]string{}
	for _, st := range list.Data {
		if _, seen := codes[st.Orientation]; seen {
			continue
		}
		a := s.acct.Attendee(t, s.event, "Ada", st.Orientation, "ada."+st.Orientation+"@example.org")
		res := s.acct.Client.Post("/api/v1/certificates/generate", s.generate(a, map[string]any{"templateId": st.ID}))
		var c certificateBody
		res.JSON(t, &c)
		codes[st.Orientation] = c.Data.VerificationCode
	}
	res := s.acct.Client.Post("/api/v1/badges", map[string]any{"name": "Speaker"})
	var badge struct{ Data struct{ ID string } }
	res.JSON(t, &badge)
	a := s.acct.Attendee(t, s.event, "Grace", "Hopper", "grace@example.org")
	res = s.acct.Client.Post("/api/v1/badges/"+badge.Data.ID+"/issue", map[string]any{"attendeeIds": []string{a.String()}})
	var issued struct {
		Data []struct{ VerificationCode string }
	}
	res.JSON(t, &issued)
	codes["badge"] = issued.Data[0].VerificationCode
	if codes["portrait"] == "" || codes["landscape"] == "" {
		t.Fatalf("system templates of both orientations: %+v", list.Data)
	}
	for kind, code := range codes {
		res := s.env.Client.Get("/api/v1/verify/" + code + "/share.png")
		if res.StatusCode != 200 || res.Header.Get("Content-Type") != "image/png" {
			t.Fatalf("%s: %d %v", kind, res.StatusCode, res.Header)
		}
		cfg, err := png.DecodeConfig(bytes.NewReader(res.Body))
		if err != nil || cfg.Width != 1200 || cfg.Height != 630 {
			t.Fatalf("%s: %dx%d (%v)", kind, cfg.Width, cfg.Height, err)
		}
		notModified(t, s.env.Client, "/api/v1/verify/"+code+"/share.png", res.Header.Get("ETag"))
		if kind == "badge" { // revoked, its card is drawn again, saying so
			var got struct{ Data []struct{ ID string } }
			s.acct.Client.Get("/api/v1/badges/"+badge.Data.ID+"/assertions").JSON(t, &got)
			if r := s.acct.Client.Post("/api/v1/badges/"+badge.Data.ID+"/assertions/"+got.Data[0].ID+"/revoke", nil); r.StatusCode != 200 {
				t.Fatalf("revoke: %d %s", r.StatusCode, r.Body)
			}
			after := s.env.Client.Get("/api/v1/verify/" + code + "/share.png")
			if after.StatusCode != 200 || after.Header.Get("ETag") == res.Header.Get("ETag") || bytes.Equal(after.Body, res.Body) {
				t.Fatalf("the revoked badge's card is the valid one's: %d", after.StatusCode)
			}
		}
		page := string(s.env.Client.Get("/verify/" + code).Body)
		for _, want := range []string{`<meta property="og:image" content="` + s.env.Config.SiteURL.String() + `/api/v1/verify/` + code + `/share.png">`,
			`<meta property="og:image:width" content="1200">`, `<meta property="og:image:height" content="630">`,
			`<meta name="twitter:card" content="summary_large_image">`} {
			if !strings.Contains(page, want) {
				t.Errorf("%s page lacks %s", kind, want)
			}
		}
	}
}
