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
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

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
			assert.Equal(t, 4, page.Meta.Total, "unfiltered: page.Meta.Total")
			assert.Equal(t, "draft,expired,revoked,valid", strings.Join(got, ","), "unfiltered: statuses")
		case "draft":
			assert.Equal(t, 1, page.Meta.Total, "status=draft: page.Meta.Total")
			if assert.Len(t, page.Data, 1, "status=draft: page.Data") {
				assert.Equal(t, "draft", page.Data[0].Status, "status=draft: page.Data[0].Status")
				assert.Equal(t, draftee.String(), page.Data[0].AttendeeID, "status=draft: page.Data[0].AttendeeID")
			}
		default:
			assert.Equal(t, 1, page.Meta.Total, "status=%s: page.Meta.Total", status)
			if assert.Len(t, page.Data, 1, "status=%s: page.Data", status) {
				assert.Equal(t, want, page.Data[0].ID, "status=%s: page.Data[0].ID", status)
				assert.Equal(t, status, page.Data[0].Status, "status=%s: page.Data[0].Status", status)
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
	require.Len(t, e.Error.Details, 1, "sendEmail null: e.Error.Details")
	require.Equal(t, "body.sendEmail", e.Error.Details[0].Field, "sendEmail null: e.Error.Details[0].Field")
	require.Contains(t, e.Error.Details[0].Message, "leave it out", "sendEmail null: e.Error.Details[0].Message")
	var page struct{ Meta struct{ Total int } }
	s.acct.Client.Get("/api/v1/events/"+s.event.String()+"/certificates").JSON(t, &page)
	if page.Meta.Total != 0 {
		t.Fatalf("%d certificates after a refused request", page.Meta.Total)
	}
	layout := map[string]any{"rows": []any{map[string]any{"height": 40, "cols": []any{map[string]any{"size": 12,
		"content": map[string]any{"type": "text", "text": "{{recipient.fullName}}", "bold": nil}}}}}}
	res = s.acct.Client.Post("/api/v1/templates", map[string]any{"name": "Bold", "layout": layout})
	e = wantError(t, res, 400, res.StatusCode, "VALIDATION_ERROR")
	require.Len(t, e.Error.Details, 1, "bold null: e.Error.Details")
	require.Equal(t, "body.layout.rows[0].cols[0].content.bold", e.Error.Details[0].Field, "bold null: e.Error.Details[0].Field")
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
	d := e.Error.Details
	require.Len(t, d, 1, "date-only eventDate: details")
	require.Equal(t, "body.eventDate", d[0].Field, "date-only eventDate: d[0].Field")
	require.Contains(t, d[0].Message, "2026-11-12T09:00:00Z", "date-only eventDate: d[0].Message")
	require.False(t, strings.ContainsAny(d[0].Message, "^$[]"), "date-only eventDate: %q shows a regular expression", d[0].Message)
	res = s.acct.Client.Upload("/api/v1/attendees/import?eventId="+s.event.String(), "upload", "people.csv",
		[]byte("firstName,lastName,email\nAda,Lovelace,ada@example.org\n"))
	e = wantError(t, res, 400, res.StatusCode, "VALIDATION_ERROR")
	d = e.Error.Details
	require.Len(t, d, 1, "file under another field: details")
	require.Equal(t, "body", d[0].Field, "file under another field: d[0].Field")
	require.Contains(t, d[0].Message, `the field "file"`, "file under another field: d[0].Message")
	require.NotContains(t, d[0].Message, "JSON", "file under another field: d[0].Message")
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
	require.NotEmpty(t, name, "account name")
	require.NotEmpty(t, conference, "system templates %+v: Conference Attendance", list.Data)
	a := s.acct.Attendee(t, s.event, "Ada", "Lovelace", "ada@example.org")
	res := s.acct.Client.Post("/api/v1/certificates/generate", s.generate(a, map[string]any{"templateId": conference, "sendEmail": true}))
	var c certificateBody
	res.JSON(t, &c)
	if res.StatusCode != 200 {
		t.Fatalf("generate: %d %s", res.StatusCode, res.Body)
	}
	text, err := pdftext.Text(s.acct.Client.Get("/api/v1/certificates/" + c.Data.ID + "/download").Body)
	require.NoError(t, err, "the PDF's text")
	require.Contains(t, text, name, "the PDF does not name the account")
	var fromName, body string
	testkit.QueryRow(t, s.env, `SELECT from_name, body_text FROM email_deliveries WHERE certificate_id = $1`, []any{c.Data.ID}, &fromName, &body)
	require.Equal(t, name, fromName, "the email's from name")
	require.Contains(t, body, name, "the email's text")
	require.NotContains(t, body, "organisers", "the email's text")
	n, err := runEmail(t, s.env)
	require.NoError(t, err, "email worker")
	require.Equal(t, 1, n, "messages the email worker sent")
	msg, raw := onlyMessageSent(t, s.env)
	from, err := mail.ParseAddress(msg.Header.Get("From"))
	require.NoError(t, err, "From %q", msg.Header.Get("From"))
	require.Equal(t, name, from.Name, "From: name")
	require.NotContains(t, string(raw), "Sent for the issuer", "the message leaves the issuer unnamed")
	require.NotContains(t, string(raw), `"credentiald"`, "the message leaves the issuer unnamed")
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
		if assert.Len(t, e.Error.Details, 1, "%s: e.Error.Details", path) {
			assert.Equal(t, field, e.Error.Details[0].Field, "%s: e.Error.Details[0].Field", path)
			assert.Contains(t, e.Error.Details[0].Message, "is not a parameter", "%s: e.Error.Details[0].Message", path)
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
	require.Equal(t, 2, page.Meta.Total, "by email: page.Meta.Total")
	require.Len(t, page.Data, 2, "by email: page.Data")
	s.acct.Client.Get("/api/v1/attendees?email=ada.lovelace@example.org&eventId="+other.String()).JSON(t, &page)
	require.Equal(t, 1, page.Meta.Total, "by email and event: page.Meta.Total")
	require.Equal(t, other.String(), page.Data[0].EventID, "by email and event: page.Data[0].EventID")
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
	require.Equal(t, 200, plain.StatusCode, "export: status without a BOM")
	require.Equal(t, 200, withBOM.StatusCode, "export: status with a BOM")
	bom := []byte{0xEF, 0xBB, 0xBF}
	require.False(t, bytes.HasPrefix(plain.Body, bom), "without: %.12q starts with a BOM", plain.Body)
	require.True(t, bytes.HasPrefix(withBOM.Body, bom), "with: %.12q does not start with a BOM", withBOM.Body)
	require.Equal(t, string(plain.Body), string(withBOM.Body[3:]), "with a BOM, after it")
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
	require.Equal(t, 200, res.StatusCode, "jobs: status (body %s)", res.Body)
	require.Equal(t, 2, page.Meta.Total, "jobs: page.Meta.Total")
	require.Len(t, page.Data, 2, "jobs: page.Data")
	require.Equal(t, ids[1], page.Data[0].ID, "jobs: page.Data[0].ID (created %v)", ids)
	require.Equal(t, ids[0], page.Data[1].ID, "jobs: page.Data[1].ID (created %v)", ids)
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
		require.Equal(t, 200, res.StatusCode, "%s: status (body %s)", path, res.Body)
		require.True(t, strings.HasPrefix(tag, `"`), "%s: ETag %q is not quoted", path, tag)
		require.False(t, strings.HasPrefix(tag, "W/"), "%s: ETag %q is weak", path, tag)
		notModified(t, s.acct.Client, path, tag)
		again := s.acct.Client.Do(withHeader(s.acct.Client.Request("GET", path, nil), "If-None-Match", `"stale"`))
		require.Equal(t, 200, again.StatusCode, "%s with another tag: status", path)
		require.Equal(t, string(res.Body), string(again.Body), "%s with another tag: body", path)
	}
	path := "/api/v1/certificates/" + c.Data.ID
	before := s.acct.Client.Get(path).Header.Get("ETag")
	testkit.SQL(t, s.env, `UPDATE certificates SET issued_at = now() - interval '2 days', expires_at = now() - interval '1 day' WHERE id = $1`, c.Data.ID)
	res := s.acct.Client.Do(withHeader(s.acct.Client.Request("GET", path, nil), "If-None-Match", before))
	require.Equal(t, 200, res.StatusCode, "after its expiry: status (body %s)", res.Body)
	require.Contains(t, string(res.Body), `"status":"expired"`, "after its expiry: body")
	require.NotEqual(t, before, res.Header.Get("ETag"), "after its expiry: ETag")
	res = s.acct.Client.Get("/api/v1/certificates/" + uuid.NewString())
	require.Equal(t, 404, res.StatusCode, "a 404 is tagged: status")
	require.Equal(t, "", res.Header.Get("ETag"), "a 404 is tagged: ETag")
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
	require.Equal(t, 201, res.StatusCode, "subscribe with patterns: status (body %s)", res.Body)
	require.Equal(t, "certificate.*,badge.*,job.completed", strings.Join(sub.Data.Events, ","), "subscribe with patterns: events")
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
			err := json.Unmarshal(e.Payload, &body)
			if assert.NoError(t, err, "job.completed: payload %s", e.Payload) {
				assert.Equal(t, job.Data.ID, body.Data.JobID, "job.completed names another job: body.Data.JobID")
			}
		}
	}
	require.Equal(t, 1, count["job.completed"], `events: count["job.completed"]`)
	require.Equal(t, 1, count["badge.issued"], `events: count["badge.issued"]`)
	require.Equal(t, 1, count["certificate.issued"], `events: count["certificate.issued"]`)
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
	require.NotEmpty(t, codes["portrait"], `system templates of both orientations: codes["portrait"]`)
	require.NotEmpty(t, codes["landscape"], `system templates of both orientations: codes["landscape"]`)
	for kind, code := range codes {
		res := s.env.Client.Get("/api/v1/verify/" + code + "/share.png")
		require.Equal(t, 200, res.StatusCode, "%s: status", kind)
		require.Equal(t, "image/png", res.Header.Get("Content-Type"), "%s: Content-Type", kind)
		cfg, err := png.DecodeConfig(bytes.NewReader(res.Body))
		require.NoError(t, err, "%s: decoding the PNG", kind)
		require.Equal(t, 1200, cfg.Width, "%s: cfg.Width", kind)
		require.Equal(t, 630, cfg.Height, "%s: cfg.Height", kind)
		notModified(t, s.env.Client, "/api/v1/verify/"+code+"/share.png", res.Header.Get("ETag"))
		if kind == "badge" { // revoked, its card is drawn again, saying so
			var got struct{ Data []struct{ ID string } }
			s.acct.Client.Get("/api/v1/badges/"+badge.Data.ID+"/assertions").JSON(t, &got)
			if r := s.acct.Client.Post("/api/v1/badges/"+badge.Data.ID+"/assertions/"+got.Data[0].ID+"/revoke", nil); r.StatusCode != 200 {
				t.Fatalf("revoke: %d %s", r.StatusCode, r.Body)
			}
			after := s.env.Client.Get("/api/v1/verify/" + code + "/share.png")
			require.Equal(t, 200, after.StatusCode, "the revoked badge's card: status")
			require.NotEqual(t, res.Header.Get("ETag"), after.Header.Get("ETag"), "the revoked badge's card is the valid one's: ETag")
			require.False(t, bytes.Equal(after.Body, res.Body), "the revoked badge's card is the valid one's: the same %d bytes", len(after.Body))
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
