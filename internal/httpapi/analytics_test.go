package httpapi_test

import (
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/certhub/credentiald/internal/spec"
	"github.com/certhub/credentiald/internal/testkit"
)

type dashboardBody struct {
	Data struct {
		From, To                                            string
		CredentialsIssued, CertificatesIssued, BadgesIssued int
		Views, Shares, Downloads, Verifications             int
		VerificationRate                                    float64
	}
}

type eventDaysBody struct {
	Data []struct {
		Date                                     string
		Issued, CertificatesIssued, BadgesIssued int
		Views, Shares, Downloads, Verifications  int
	}
}

// The dashboard and an event's days count what was issued (certificates and badges, in the
// issuing transaction) and what people did on the public side (in batches, crawlers left
// out); the verification rate is the share of the period's credentials verified at least once.
func TestAnalyticsCountIssuesAndPublicActivity(t *testing.T) {
	t.Parallel()
	s := newIssuing(t)
	other := s.acct.Event(t, s.env, "Rust Meetup")

	// Four certificates at once on the Go Conference, one on the meetup.
	var wg sync.WaitGroup
	certs := make([]certificateBody, 4)
	for i := range certs {
		wg.Go(func() { certs[i] = s.issue(t, "Ada", "Lovelace", nil) })
	}
	wg.Wait()
	a := s.acct.Attendee(t, other, "Grace", "Hopper", "grace@example.org")
	if res := s.acct.Client.Post("/api/v1/certificates/generate", map[string]any{"eventId": other, "templateId": s.template,
		"attendeeId": a, "sendEmail": false}); res.StatusCode != http.StatusOK {
		t.Fatalf("generate on the meetup: %d %s", res.StatusCode, res.Body)
	}
	// A draft is not issued.
	d := s.acct.Attendee(t, s.event, "Draft", "Only", "draft@example.org")
	if res := s.acct.Client.Post("/api/v1/events/"+s.event.String()+"/certificates/generate",
		map[string]any{"attendeeIds": []uuid.UUID{d}, "draft": true, "sendEmail": false}); res.StatusCode != http.StatusOK {
		t.Fatalf("draft: %d %s", res.StatusCode, res.Body)
	}
	// Two badges on the Go Conference.
	var badge struct{ Data struct{ ID string } }
	s.acct.Client.Post("/api/v1/badges", map[string]any{"name": "Speaker", "description": "Gave a talk"}).JSON(t, &badge)
	var issued issuedBody
	res := s.acct.Client.Post("/api/v1/badges/"+badge.Data.ID+"/issue", map[string]any{"attendeeIds": []string{
		s.acct.Attendee(t, s.event, "Alan", "Turing", "alan@example.org").String(),
		s.acct.Attendee(t, s.event, "Edsger", "Dijkstra", "edsger@example.org").String()}})
	if res.StatusCode != http.StatusOK {
		t.Fatalf("issue badges: %d %s", res.StatusCode, res.Body)
	}
	res.JSON(t, &issued)

	person := "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Safari/537.36"
	code := certs[0].Data.VerificationCode
	getAs(s.env.Client, "/verify/"+code, person)                                        // a view and a verification
	getAs(s.env.Client, "/api/v1/verify/"+strings.ToLower(code), person)                // a verification
	getAs(s.env.Client, "/api/v1/verify/"+code+"/certificate.pdf", person)              // a download
	getAs(s.env.Client, "/verify/"+code+"/share/linkedin", person)                      // a share
	s.env.Client.Post("/verify/"+code+"/share/copy", nil)                               // a share
	getAs(s.env.Client, "/api/v1/verify/"+issued.Data[0].VerificationCode, person)      // a badge verified
	getAs(s.env.Client, "/verify/"+certs[1].Data.VerificationCode, linkedInBot)         // a crawler: nothing
	getAs(s.env.Client, "/api/v1/verify/"+certs[1].Data.VerificationCode+"/qr", person) // nothing
	flush(t, s.env)

	_, reader := s.acct.APIKey(t, "analytics:read")
	var dash dashboardBody
	res = reader.Get("/api/v1/analytics/dashboard")
	if res.StatusCode != http.StatusOK {
		t.Fatalf("dashboard: %d %s", res.StatusCode, res.Body)
	}
	res.JSON(t, &dash)
	today := time.Now().UTC()
	to, err := time.Parse(time.DateOnly, dash.Data.To)
	if err != nil || today.Sub(to) > 24*time.Hour || to.After(today) {
		t.Fatalf("to %q is not today (UTC)", dash.Data.To)
	}
	if want := to.AddDate(0, 0, -29).Format(time.DateOnly); dash.Data.From != want {
		t.Fatalf("from %s, want %s (30 days, today included)", dash.Data.From, want)
	}
	got := dash.Data
	// 7 credentials issued; the first certificate and a badge verified: 2 of 7.
	if got.CredentialsIssued != 7 || got.CertificatesIssued != 5 || got.BadgesIssued != 2 || got.Views != 1 ||
		got.Verifications != 3 || got.Downloads != 1 || got.Shares != 2 || got.VerificationRate != 0.2857 {
		t.Fatalf("dashboard: %+v", got)
	}

	// The Go Conference day by day: three days, oldest first, the days before with zeros.
	from := to.AddDate(0, 0, -2).Format(time.DateOnly)
	var days eventDaysBody
	res = reader.Get("/api/v1/analytics/events/" + s.event.String() + "?from=" + from + "&to=" + dash.Data.To)
	if res.StatusCode != http.StatusOK {
		t.Fatalf("event: %d %s", res.StatusCode, res.Body)
	}
	res.JSON(t, &days)
	if len(days.Data) != 3 || days.Data[0].Date != from || days.Data[2].Date != dash.Data.To {
		t.Fatalf("event days: %+v", days.Data)
	}
	var sum struct{ issued, certificates, badges, views, shares, downloads, verifications int }
	for _, d := range days.Data {
		if d.Issued != d.CertificatesIssued+d.BadgesIssued {
			t.Fatalf("%s: issued %d is not certificates %d and badges %d", d.Date, d.Issued, d.CertificatesIssued, d.BadgesIssued)
		}
		sum.issued += d.Issued
		sum.certificates += d.CertificatesIssued
		sum.badges += d.BadgesIssued
		sum.views += d.Views
		sum.shares += d.Shares
		sum.downloads += d.Downloads
		sum.verifications += d.Verifications
	}
	if sum.issued != 6 || sum.certificates != 4 || sum.badges != 2 || sum.views != 1 || sum.shares != 2 || sum.downloads != 1 || sum.verifications != 3 {
		t.Fatalf("event sums: %+v (%+v)", sum, days.Data)
	}
	if d := days.Data[0]; d.Issued+d.Views+d.Shares+d.Downloads+d.Verifications != 0 {
		t.Fatalf("the day before yesterday: %+v", d)
	}
	// The meetup: one certificate, nothing else.
	s.acct.Client.Get("/api/v1/analytics/events/"+other.String()+"?from="+dash.Data.To+"&to="+dash.Data.To).JSON(t, &days)
	if len(days.Data) != 1 || days.Data[0].Issued != 1 || days.Data[0].Verifications != 0 {
		t.Fatalf("meetup: %+v", days.Data)
	}

	// A period before any of it: zeros, and a rate of 0 (nothing issued).
	s.acct.Client.Get("/api/v1/analytics/dashboard?from=2025-01-01&to=2025-12-31").JSON(t, &dash)
	if dash.Data.CredentialsIssued != 0 || dash.Data.Verifications != 0 || dash.Data.Views != 0 ||
		dash.Data.VerificationRate != 0 || dash.Data.From != "2025-01-01" || dash.Data.To != "2025-12-31" {
		t.Fatalf("2025: %+v", dash.Data)
	}
	s.acct.Client.Get("/api/v1/analytics/events/"+s.event.String()+"?from=2024-01-01&to=2024-12-31").JSON(t, &days)
	if len(days.Data) != 366 || days.Data[365].Date != "2024-12-31" || days.Data[59].Date != "2024-02-29" {
		t.Fatalf("2024 has %d days", len(days.Data))
	}

	// Revoking does not undo an issue.
	if res := s.acct.Client.Post("/api/v1/certificates/"+certs[2].Data.ID+"/revoke", map[string]any{"reason": "Issued by mistake"}); res.StatusCode != http.StatusOK {
		t.Fatalf("revoke: %d %s", res.StatusCode, res.Body)
	}
	reader.Get("/api/v1/analytics/dashboard").JSON(t, &dash)
	if dash.Data.CredentialsIssued != 7 {
		t.Fatalf("after a revocation: %+v", dash.Data)
	}
}

// Periods the service refuses name the field to change; another account's event is not found;
// the figures need analytics:read.
func TestAnalyticsRefuseBadPeriodsOtherAccountsAndMissingScope(t *testing.T) {
	t.Parallel()
	s := newIssuing(t)
	event := "/api/v1/analytics/events/" + s.event.String()
	for _, path := range []string{"/api/v1/analytics/dashboard", event} {
		for _, c := range []struct{ query, field, message string }{
			{"?from=2026-11-10&to=2026-11-09", "query.to", ""},
			{"?from=2025-01-01&to=2026-01-02", "query.from", ""},
			{"?from=2999-01-01", "query.from", ""},
			// A date that is not one is told the form in words, never a pattern.
			{"?from=2026-13-01", "query.from", spec.DateMessage},
			{"?from=2026-02-30", "query.from", spec.DateMessage},
			{"?to=2026-02-31", "query.to", spec.DateMessage},
			{"?to=yesterday", "query.to", spec.DateMessage},
		} {
			res := s.acct.Client.Get(path + c.query)
			e := wantError(t, res, 400, res.StatusCode, "VALIDATION_ERROR")
			if len(e.Error.Details) == 0 || e.Error.Details[0].Field != c.field ||
				(c.message != "" && e.Error.Details[0].Message != c.message) {
				t.Fatalf("%s%s: %+v, want the field %s (%s)", path, c.query, e.Error, c.field, c.message)
			}
		}
	}

	stranger := testkit.SignUp(t, s.env)
	for _, id := range []string{s.event.String(), uuid.NewString()} {
		res := stranger.Client.Get("/api/v1/analytics/events/" + id)
		wantError(t, res, 404, res.StatusCode, "NOT_FOUND")
	}
	res := s.acct.Client.Get("/api/v1/analytics/events/not-a-uuid")
	wantError(t, res, 400, res.StatusCode, "VALIDATION_ERROR")

	_, writer := s.acct.APIKey(t, "certificates:generate")
	for _, path := range []string{"/api/v1/analytics/dashboard", event} {
		res := writer.Get(path)
		if e := wantError(t, res, 403, res.StatusCode, "INSUFFICIENT_SCOPE"); !strings.Contains(string(res.Body), "analytics:read") {
			t.Fatalf("%s: %+v", path, e)
		}
	}
	if res := s.env.Client.Get("/api/v1/analytics/dashboard"); res.StatusCode != http.StatusUnauthorized {
		t.Fatalf("anonymous: %d", res.StatusCode)
	}
}
