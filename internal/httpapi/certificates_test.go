package httpapi_test

import (
	"crypto/sha256"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/mail"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/certhub/credentiald/internal/testkit"
)

type certificateBody struct {
	Data struct {
		ID, CertificateNumber, VerificationCode, Status, VerificationURL string
		EventID, AttendeeID, TemplateID                                  string
		IssuedAt, ExpiresAt                                              *time.Time
		Recipient                                                        struct{ FirstName, LastName, Email string }
	}
}

// issuing is an account with an event (valid 365 days) on its own template.
type issuing struct {
	env      *testkit.Env
	acct     *testkit.Account
	event    uuid.UUID
	template uuid.UUID
}

func newIssuing(t testing.TB, opts ...testkit.Option) issuing {
	env := testkit.NewServer(t, opts...)
	acct := testkit.SignUp(t, env)
	tmpl := acct.Template(t, env)
	res := acct.Client.Post("/api/v1/events", map[string]any{"name": "Go Conference", "eventDate": "2026-11-12T09:00:00Z",
		"templateId": tmpl, "certificateValidityDays": 365})
	var ev eventBody
	res.JSON(t, &ev)
	return issuing{env: env, acct: acct, event: uuid.MustParse(ev.Data.ID), template: tmpl}
}

func (s issuing) generate(attendee uuid.UUID, extra map[string]any) map[string]any {
	body := map[string]any{"eventId": s.event, "templateId": s.template, "attendeeId": attendee, "sendEmail": false}
	for k, v := range extra {
		body[k] = v
	}
	return body
}

func TestGenerateIssuesOnceAndSpendsOneCredit(t *testing.T) {
	t.Parallel()
	s := newIssuing(t)
	ada := s.acct.Attendee(t, s.event, "Łukasz", "Żółć", "lukasz@example.org")
	_, issuer := s.acct.APIKey(t, "certificates:generate", "certificates:read")

	res := issuer.Post("/api/v1/certificates/generate", s.generate(ada, nil))
	var c certificateBody
	res.JSON(t, &c)
	year := time.Now().UTC().Year()
	require.Equal(t, 200, res.StatusCode, "generate: status (body %s)", res.Body)
	require.Equal(t, "valid", c.Data.Status, "generate: c.Data.Status")
	require.Equal(t, fmt.Sprintf("CERT-%d-000001", year), c.Data.CertificateNumber, "generate: c.Data.CertificateNumber")
	require.Len(t, c.Data.VerificationCode, 13, "generate: c.Data.VerificationCode")
	require.Equal(t, "Żółć", c.Data.Recipient.LastName, "generate: c.Data.Recipient.LastName")
	require.NotNil(t, c.Data.IssuedAt, "generate: c.Data.IssuedAt")
	require.NotNil(t, c.Data.ExpiresAt, "generate: c.Data.ExpiresAt")
	if d := c.Data.ExpiresAt.Sub(*c.Data.IssuedAt); d != 365*24*time.Hour {
		t.Fatalf("validity: %v", d)
	}
	if !strings.HasSuffix(c.Data.VerificationURL, "/verify/"+c.Data.VerificationCode) {
		t.Fatalf("verificationUrl: %s", c.Data.VerificationURL)
	}

	// The same attendee, event and template again: 409 with the existing one, nothing spent.
	res = issuer.Post("/api/v1/certificates/generate", s.generate(ada, nil))
	var e struct {
		Error struct {
			Code     string
			Existing struct{ ID, CertificateNumber, VerificationCode string }
		}
	}
	res.JSON(t, &e)
	require.Equal(t, 409, res.StatusCode, "again: status (body %s)", res.Body)
	require.Equal(t, "ALREADY_ISSUED", e.Error.Code, "again: e.Error.Code")
	require.Equal(t, c.Data.ID, e.Error.Existing.ID, "again: e.Error.Existing.ID")
	require.Equal(t, "/api/v1/certificates/"+c.Data.ID, res.Header.Get("Location"), `again: res.Header.Get("Location")`)
	res = s.acct.Client.Get("/api/v1/credits")
	require.Contains(t, string(res.Body), `"used":1`, "credits: body")
	require.Contains(t, string(res.Body), `"remaining":11`, "credits: body")

	if res := issuer.Get("/api/v1/certificates/" + c.Data.ID); res.StatusCode != 200 {
		t.Fatalf("get: %d %s", res.StatusCode, res.Body)
	}
	var page struct {
		Data []struct{ ID string }
		Meta struct{ Total int }
	}
	s.acct.Client.Get("/api/v1/events/"+s.event.String()+"/certificates").JSON(t, &page)
	require.Equal(t, 1, page.Meta.Total, "event certificates: page.Meta.Total")
	require.Equal(t, c.Data.ID, page.Data[0].ID, "event certificates: page.Data[0].ID")

	// sendEmail false held the email back.
	var deliveries struct{ Meta struct{ Total int } }
	s.acct.Client.Get("/api/v1/email/deliveries").JSON(t, &deliveries)
	if deliveries.Meta.Total != 0 {
		t.Fatalf("sendEmail false recorded %d emails", deliveries.Meta.Total)
	}
	// The issuance is in the outbox, written with it.
	events, err := s.env.Store.OutboxEvents(t.Context(), s.acct.ID)
	require.NoError(t, err, "outbox: err")
	require.Len(t, events, 1, "outbox: events")
	require.Equal(t, "certificate.issued", events[0].EventType, "outbox: events[0].EventType")
	require.Contains(t, string(events[0].Payload), c.Data.VerificationCode, "outbox: events[0].Payload")
	checkOutbox(t, events)
	// An event with an issued certificate stays.
	res = s.acct.Client.Delete("/api/v1/events/" + s.event.String())
	wantError(t, res, 409, res.StatusCode, "CONFLICT")
}

func TestGenerateRefusesWhatItCannotIssue(t *testing.T) {
	t.Parallel()
	s := newIssuing(t)
	other := testkit.SignUp(t, s.env)
	otherEvent := other.Event(t, s.env, "Other")
	stranger := other.Attendee(t, otherEvent, "M", "M", "m@example.org")
	ada := s.acct.Attendee(t, s.event, "Ada", "Lovelace", "ada@example.org")
	before := testkit.Fingerprint(t, s.env)
	for name, c := range map[string]struct {
		body   map[string]any
		status int
		field  string
	}{
		"another account's attendee": {s.generate(stranger, nil), 404, "body.attendeeId"},
		"attendee of another event":  {map[string]any{"eventId": otherEvent, "templateId": s.template, "attendeeId": ada}, 404, "body.attendeeId"},
		"unknown template":           {s.generate(ada, map[string]any{"templateId": uuid.New()}), 404, "body.templateId"},
		"expiry in the past":         {s.generate(ada, map[string]any{"expiresAt": "2020-01-01T00:00:00Z"}), 400, "body.expiresAt"},
		"no attendee":                {map[string]any{"eventId": s.event, "templateId": s.template}, 400, "body"},
	} {
		res := s.acct.Client.Post("/api/v1/certificates/generate", c.body)
		var e errorBody
		res.JSON(t, &e)
		assert.Equal(t, c.status, res.StatusCode, "%s: status (body %s)", name, res.Body)
		if assert.NotEmpty(t, e.Error.Details, "%s: e.Error.Details", name) {
			assert.True(t, strings.HasPrefix(e.Error.Details[0].Field, c.field), "%s: %q should start with %q", name, e.Error.Details[0].Field, c.field)
		}
	}
	if after := testkit.Fingerprint(t, s.env); after != before {
		t.Fatal("a refused generate changed the database")
	}
}

// 20 simultaneous generates for 20 attendees with 12 credits left: exactly 12 issued.
func TestConcurrentGeneratesNeverOverspend(t *testing.T) {
	t.Parallel()
	s := newIssuing(t)
	attendees := make([]uuid.UUID, 20)
	for i := range attendees {
		attendees[i] = s.acct.Attendee(t, s.event, "A", fmt.Sprint(i), fmt.Sprintf("a%d@example.org", i))
	}
	counts := testkit.Race(20, func(i int) int {
		return s.acct.Client.Post("/api/v1/certificates/generate", s.generate(attendees[i], nil)).StatusCode
	})
	require.Equal(t, 12, counts[200], "statuses: counts[200]")
	require.Equal(t, 8, counts[402], "statuses: counts[402]")
	var credits struct{ Data struct{ Used, Remaining int } }
	s.acct.Client.Get("/api/v1/credits").JSON(t, &credits)
	var page struct{ Meta struct{ Total int } }
	s.acct.Client.Get("/api/v1/events/"+s.event.String()+"/certificates").JSON(t, &page)
	require.Equal(t, 12, credits.Data.Used, "credits used")
	require.Equal(t, 0, credits.Data.Remaining, "credits remaining")
	require.Equal(t, 12, page.Meta.Total, "certificates")
}

// 10 simultaneous generates for one attendee: exactly one certificate, one credit.
func TestConcurrentGeneratesForOneAttendeeIssueOnce(t *testing.T) {
	t.Parallel()
	s := newIssuing(t)
	ada := s.acct.Attendee(t, s.event, "Ada", "Lovelace", "ada@example.org")
	counts := testkit.Race(10, func(int) int {
		return s.acct.Client.Post("/api/v1/certificates/generate", s.generate(ada, nil)).StatusCode
	})
	require.Equal(t, 1, counts[200], "statuses: counts[200]")
	require.Equal(t, 9, counts[409], "statuses: counts[409]")
	if res := s.acct.Client.Get("/api/v1/credits"); !strings.Contains(string(res.Body), `"used":1`) {
		t.Fatalf("credits: %s", res.Body)
	}
}

func TestCreditLimitAnswers402WithFigures(t *testing.T) {
	t.Parallel()
	s := newIssuing(t)
	testkit.SQL(t, s.env, `INSERT INTO credit_usage (account_id, period, used) VALUES ($1, date_trunc('month', now() AT TIME ZONE 'UTC')::date, 12)`, s.acct.ID)
	ada := s.acct.Attendee(t, s.event, "Ada", "Lovelace", "ada@example.org")
	before := testkit.Fingerprint(t, s.env)
	res := s.acct.Client.Post("/api/v1/certificates/generate", s.generate(ada, nil))
	var e struct {
		Error struct {
			Code    string
			Credits struct {
				Limit, Used, Remaining *int
				ResetsAt               time.Time
			}
		}
	}
	res.JSON(t, &e)
	now := time.Now().UTC()
	next := time.Date(now.Year(), now.Month()+1, 1, 0, 0, 0, 0, time.UTC)
	cr := e.Error.Credits
	require.Equal(t, 402, res.StatusCode, "402: status (body %s)", res.Body)
	require.Equal(t, "CREDIT_LIMIT", e.Error.Code, "402: e.Error.Code")
	require.Equal(t, 12, *cr.Limit, "402: *cr.Limit")
	require.Equal(t, 12, *cr.Used, "402: *cr.Used")
	require.Equal(t, 0, *cr.Remaining, "402: *cr.Remaining")
	require.True(t, cr.ResetsAt.Equal(next), "402: resetsAt %v, want %v", cr.ResetsAt, next)
	if after := testkit.Fingerprint(t, s.env); after != before {
		t.Fatal("a refused generate changed the database")
	}
}

// An expired certificate reads as expired and no longer blocks a new one.
func TestExpiredCertificateDoesNotBlockANewOne(t *testing.T) {
	t.Parallel()
	clock := &testkit.Clock{}
	s := newIssuing(t, testkit.WithClock(clock.Now))
	ada := s.acct.Attendee(t, s.event, "Ada", "Lovelace", "ada@example.org")
	// An API key outlives the session's access token across the clock's jump.
	_, client := s.acct.APIKey(t, "certificates:generate", "certificates:read")
	var first certificateBody
	client.Post("/api/v1/certificates/generate", s.generate(ada, map[string]any{"expiresAt": clock.Now().Add(time.Hour)})).JSON(t, &first)
	clock.Advance(2 * time.Hour)
	var got certificateBody
	client.Get("/api/v1/certificates/"+first.Data.ID).JSON(t, &got)
	if got.Data.Status != "expired" {
		t.Fatalf("status after expiry: %s", got.Data.Status)
	}
	res := client.Post("/api/v1/certificates/generate", s.generate(ada, nil))
	var second certificateBody
	res.JSON(t, &second)
	require.Equal(t, 200, res.StatusCode, "reissue: status (body %s)", res.Body)
	require.NotEqual(t, first.Data.ID, second.Data.ID, "reissue: second.Data.ID")
	require.Equal(t, "valid", second.Data.Status, "reissue: second.Data.Status")
	client.Get("/api/v1/certificates/"+first.Data.ID).JSON(t, &got)
	if got.Data.Status != "expired" {
		t.Fatalf("the first one now reads %s", got.Data.Status)
	}
}

// The delivery email carries the verification link with a recipient token and the PDF.
func TestGenerateSendsTheCertificateByEmail(t *testing.T) {
	t.Parallel()
	s := newIssuing(t)
	ada := s.acct.Attendee(t, s.event, "Дмитрий", "Шостакович", "dmitri@example.org")
	var c certificateBody
	s.acct.Client.Post("/api/v1/certificates/generate", s.generate(ada, map[string]any{"sendEmail": true})).JSON(t, &c)
	if _, err := runEmail(t, s.env); err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(s.env.Config.DataDir, "outbox", "*.eml"))
	var msg string
	for _, f := range files {
		raw, _ := os.ReadFile(f)
		if strings.Contains(string(raw), "dmitri@example.org") {
			msg = string(raw)
		}
	}
	require.Contains(t, msg, "/verify/"+c.Data.VerificationCode+"?t=", "message: the link")
	require.Contains(t, msg, "application/pdf", "message: the attachment")
	require.Contains(t, msg, c.Data.CertificateNumber+".pdf", "message: the attachment's name")
	// The token is made as the email is sent: the recorded body holds none, the certificate
	// holds its hash.
	m := regexp.MustCompile(`\?t=([A-Za-z0-9_-]{43})`).FindStringSubmatch(plainText(t, msg))
	if m == nil {
		t.Fatalf("no token in:\n%.2000s", msg)
	}
	var body string
	var hash []byte
	testkit.QueryRow(t, s.env, `SELECT d.body_text, c.recipient_token_hash FROM email_deliveries d JOIN certificates c ON c.id = d.certificate_id WHERE c.id = $1`,
		[]any{c.Data.ID}, &body, &hash)
	sum := sha256.Sum256([]byte(m[1]))
	require.NotContains(t, body, m[1], "the stored body holds the token")
	require.Equal(t, string(sum[:]), string(hash), "the certificate does not hold the token's hash")
	events, _ := s.env.Store.OutboxEvents(t.Context(), s.acct.ID)
	require.Len(t, events, 2, "outbox: events")
	require.Equal(t, "certificate.sent", events[1].EventType, "outbox: events[1].EventType")
	checkOutbox(t, events)
}

// plainText returns the decoded text/plain part of a MIME message, wherever it is nested:
// delivery emails are multipart/mixed (the PDF) around multipart/related (the inline logo)
// around multipart/alternative (the plain text and the HTML).
func plainText(t *testing.T, raw string) string {
	t.Helper()
	msg, err := mail.ReadMessage(strings.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	if text, ok := findPlainText(t, msg.Header.Get("Content-Type"), msg.Body); ok {
		return text
	}
	t.Fatal("no text/plain part")
	return ""
}

func findPlainText(t *testing.T, contentType string, body io.Reader) (string, bool) {
	t.Helper()
	media, params, err := mime.ParseMediaType(contentType)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(media, "multipart/") {
		return "", false
	}
	parts := multipart.NewReader(body, params["boundary"])
	for {
		p, err := parts.NextPart()
		if err != nil {
			return "", false
		}
		ct := p.Header.Get("Content-Type")
		if strings.HasPrefix(ct, "text/plain") {
			b, _ := io.ReadAll(p) // the reader undoes quoted-printable
			return string(b), true
		}
		if text, ok := findPlainText(t, ct, p); ok {
			return text, true
		}
	}
}
