package httpapi_test

import (
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/certhub/credentiald/internal/spec"
	"github.com/certhub/credentiald/internal/testkit"
)

type dashboardBody struct {
	Data struct {
		From, To                                            string
		CredentialsIssued, CertificatesIssued, BadgesIssued int
		Views, Shares, Downloads, Verifications             int
		VerificationRate                                    float64
		Days                                                []struct {
			Date                     string
			Issued                   int
			Views, Shares, Downloads int
		}
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
	require.NoError(t, err, "to %q is not a date", dash.Data.To)
	require.LessOrEqual(t, today.Sub(to), 24*time.Hour, "to %s is before today (UTC)", dash.Data.To)
	require.False(t, to.After(today), "to %s is after today %s (UTC)", dash.Data.To, today)
	if want := to.AddDate(0, 0, -29).Format(time.DateOnly); dash.Data.From != want {
		t.Fatalf("from %s, want %s (30 days, today included)", dash.Data.From, want)
	}
	got := dash.Data
	// 7 credentials issued; the first certificate and a badge verified: 2 of 7.
	require.Equal(t, 7, got.CredentialsIssued, "dashboard: got.CredentialsIssued")
	require.Equal(t, 5, got.CertificatesIssued, "dashboard: got.CertificatesIssued")
	require.Equal(t, 2, got.BadgesIssued, "dashboard: got.BadgesIssued")
	require.Equal(t, 1, got.Views, "dashboard: got.Views")
	require.Equal(t, 3, got.Verifications, "dashboard: got.Verifications")
	require.Equal(t, 1, got.Downloads, "dashboard: got.Downloads")
	require.Equal(t, 2, got.Shares, "dashboard: got.Shares")
	require.Equal(t, 0.2857, got.VerificationRate, "dashboard: got.VerificationRate")
	// Day by day: every day of the period, oldest first, adding up to the totals.
	require.Len(t, got.Days, 30, "dashboard: a day each")
	require.Equal(t, got.From, got.Days[0].Date)
	require.Equal(t, got.To, got.Days[29].Date)
	var daily struct{ issued, views, shares, downloads int }
	for _, d := range got.Days {
		daily.issued += d.Issued
		daily.views += d.Views
		daily.shares += d.Shares
		daily.downloads += d.Downloads
	}
	require.Equal(t, struct{ issued, views, shares, downloads int }{7, 1, 2, 1}, daily, "dashboard: the days add up to the totals")

	// The Go Conference day by day: three days, oldest first, the days before with zeros.
	from := to.AddDate(0, 0, -2).Format(time.DateOnly)
	var days eventDaysBody
	res = reader.Get("/api/v1/analytics/events/" + s.event.String() + "?from=" + from + "&to=" + dash.Data.To)
	if res.StatusCode != http.StatusOK {
		t.Fatalf("event: %d %s", res.StatusCode, res.Body)
	}
	res.JSON(t, &days)
	require.Len(t, days.Data, 3, "event days: days.Data")
	require.Equal(t, from, days.Data[0].Date, "event days: days.Data[0].Date")
	require.Equal(t, dash.Data.To, days.Data[2].Date, "event days: days.Data[2].Date")
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
	require.Equal(t, 6, sum.issued, "event sums: sum.issued")
	require.Equal(t, 4, sum.certificates, "event sums: sum.certificates")
	require.Equal(t, 2, sum.badges, "event sums: sum.badges")
	require.Equal(t, 1, sum.views, "event sums: sum.views")
	require.Equal(t, 2, sum.shares, "event sums: sum.shares")
	require.Equal(t, 1, sum.downloads, "event sums: sum.downloads")
	require.Equal(t, 3, sum.verifications, "event sums: sum.verifications")
	if d := days.Data[0]; d.Issued+d.Views+d.Shares+d.Downloads+d.Verifications != 0 {
		t.Fatalf("the day before yesterday: %+v", d)
	}
	// The meetup: one certificate, nothing else.
	s.acct.Client.Get("/api/v1/analytics/events/"+other.String()+"?from="+dash.Data.To+"&to="+dash.Data.To).JSON(t, &days)
	require.Len(t, days.Data, 1, "meetup: days.Data")
	require.Equal(t, 1, days.Data[0].Issued, "meetup: days.Data[0].Issued")
	require.Equal(t, 0, days.Data[0].Verifications, "meetup: days.Data[0].Verifications")

	// A period before any of it: zeros, and a rate of 0 (nothing issued).
	s.acct.Client.Get("/api/v1/analytics/dashboard?from=2025-01-01&to=2025-12-31").JSON(t, &dash)
	require.Equal(t, 0, dash.Data.CredentialsIssued, "2025: dash.Data.CredentialsIssued")
	require.Equal(t, 0, dash.Data.Verifications, "2025: dash.Data.Verifications")
	require.Equal(t, 0, dash.Data.Views, "2025: dash.Data.Views")
	require.Equal(t, float64(0), dash.Data.VerificationRate, "2025: dash.Data.VerificationRate")
	require.Equal(t, "2025-01-01", dash.Data.From, "2025: dash.Data.From")
	require.Equal(t, "2025-12-31", dash.Data.To, "2025: dash.Data.To")
	s.acct.Client.Get("/api/v1/analytics/events/"+s.event.String()+"?from=2024-01-01&to=2024-12-31").JSON(t, &days)
	require.Len(t, days.Data, 366, "2024: days.Data")
	require.Equal(t, "2024-12-31", days.Data[365].Date, "2024: days.Data[365].Date")
	require.Equal(t, "2024-02-29", days.Data[59].Date, "2024: days.Data[59].Date")

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
			require.NotEmpty(t, e.Error.Details, "%s%s: e.Error.Details", path, c.query)
			require.Equal(t, c.field, e.Error.Details[0].Field, "%s%s: e.Error.Details[0].Field", path, c.query)
			if c.message != "" {
				require.Equal(t, c.message, e.Error.Details[0].Message, "%s%s: e.Error.Details[0].Message", path, c.query)
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
