package httpapi_test

import (
	"strings"
	"testing"

	"github.com/certhub/credentiald/internal/testkit"
	"github.com/certhub/credentiald/internal/testkit/pdftext"
)

func TestCertificateDownloadRegenerateRevokeAndSend(t *testing.T) {
	t.Parallel()
	s := newIssuing(t)
	ada := s.acct.Attendee(t, s.event, "Ada", "Lovelace", "ada@example.org")
	var c certificateBody
	s.acct.Client.Post("/api/v1/certificates/generate", s.generate(ada, nil)).JSON(t, &c)
	path := "/api/v1/certificates/" + c.Data.ID

	res := s.acct.Client.Get(path + "/download")
	text, err := pdftext.Text(res.Body)
	if res.StatusCode != 200 || err != nil || !strings.Contains(text, "Ada Lovelace") ||
		res.Header.Get("Content-Disposition") != `attachment; filename="`+c.Data.CertificateNumber+`.pdf"` {
		t.Fatalf("download: %d %v %v\n%s", res.StatusCode, res.Header, err, text)
	}

	// The PDF keeps its snapshot until regenerate.
	s.acct.Client.Put("/api/v1/attendees/"+ada.String(), map[string]any{"firstName": "Augusta Ada"})
	text, _ = pdftext.Text(s.acct.Client.Get(path + "/download").Body)
	if !strings.Contains(text, "Ada Lovelace") || strings.Contains(text, "Augusta") {
		t.Fatalf("the PDF changed before regenerate:\n%s", text)
	}
	var re certificateBody
	s.acct.Client.Post(path+"/regenerate", nil).JSON(t, &re)
	if re.Data.CertificateNumber != c.Data.CertificateNumber || re.Data.VerificationCode != c.Data.VerificationCode ||
		re.Data.Recipient.FirstName != "Augusta Ada" {
		t.Fatalf("regenerate: %+v", re.Data)
	}
	text, _ = pdftext.Text(s.acct.Client.Get(path + "/download").Body)
	if !strings.Contains(text, "Augusta Ada Lovelace") {
		t.Fatalf("the regenerated PDF:\n%s", text)
	}

	res = s.acct.Client.Post(path+"/send", nil)
	var d struct {
		Data struct {
			ID, To, Status string
			CertificateID  *string
		}
	}
	res.JSON(t, &d)
	if res.StatusCode != 202 || d.Data.Status != "queued" || d.Data.To != "ada@example.org" || *d.Data.CertificateID != c.Data.ID {
		t.Fatalf("send: %d %s", res.StatusCode, res.Body)
	}

	res = s.acct.Client.Post(path+"/revoke", map[string]any{"reason": "Name misspelt", "reasonCode": "issued_in_error"})
	var rv struct {
		Data struct {
			Status, RevocationReasonCode string
			RevocationReason             *string
		}
	}
	res.JSON(t, &rv)
	if res.StatusCode != 200 || rv.Data.Status != "revoked" || rv.Data.RevocationReasonCode != "issued_in_error" || *rv.Data.RevocationReason != "Name misspelt" {
		t.Fatalf("revoke: %d %s", res.StatusCode, res.Body)
	}
	// Again: unchanged, and no second event.
	res = s.acct.Client.Post(path+"/revoke", map[string]any{"reasonCode": "fraud"})
	res.JSON(t, &rv)
	if res.StatusCode != 200 || rv.Data.RevocationReasonCode != "issued_in_error" {
		t.Fatalf("revoke again: %d %s", res.StatusCode, res.Body)
	}
	for _, p := range []string{path + "/send", path + "/regenerate"} {
		res := s.acct.Client.Post(p, nil)
		wantError(t, res, 409, res.StatusCode, "CONFLICT")
	}
	// Deleting a revoked certificate keeps it as it is.
	if res := s.acct.Client.Delete(path); res.StatusCode != 204 {
		t.Fatalf("delete: %d %s", res.StatusCode, res.Body)
	}
	s.acct.Client.Get(path).JSON(t, &rv)
	if rv.Data.Status != "revoked" || rv.Data.RevocationReasonCode != "issued_in_error" {
		t.Fatalf("after delete: %+v", rv.Data)
	}
	events, _ := s.env.Store.OutboxEvents(t.Context(), s.acct.ID)
	var kinds []string
	for _, e := range events {
		kinds = append(kinds, e.EventType)
	}
	if strings.Join(kinds, ",") != "certificate.issued,certificate.revoked" {
		t.Fatalf("outbox: %v", kinds)
	}
	checkOutbox(t, events)
	if res := s.acct.Client.Get("/api/v1/credits"); !strings.Contains(string(res.Body), `"used":1`) {
		t.Fatalf("regenerate used a credit: %s", res.Body)
	}
}

// Deleting an issued certificate revokes it with deleted_by_issuer and keeps it: nothing
// issued is ever erased. The attendee then holds no valid certificate and can be issued again.
func TestDeletingAnIssuedCertificateRevokesIt(t *testing.T) {
	t.Parallel()
	s := newIssuing(t)
	ada := s.acct.Attendee(t, s.event, "Ada", "Lovelace", "ada@example.org")
	var c certificateBody
	s.acct.Client.Post("/api/v1/certificates/generate", s.generate(ada, nil)).JSON(t, &c)
	if res := s.acct.Client.Delete("/api/v1/certificates/" + c.Data.ID); res.StatusCode != 204 {
		t.Fatalf("delete: %d %s", res.StatusCode, res.Body)
	}
	res := s.acct.Client.Get("/api/v1/certificates/" + c.Data.ID)
	if !strings.Contains(string(res.Body), `"revocationReasonCode":"deleted_by_issuer"`) || !strings.Contains(string(res.Body), `"status":"revoked"`) {
		t.Fatalf("after delete: %s", res.Body)
	}
	if res := s.acct.Client.Post("/api/v1/certificates/generate", s.generate(ada, nil)); res.StatusCode != 200 {
		t.Fatalf("reissue after revocation: %d %s", res.StatusCode, res.Body)
	}
}

// Downloads share the download bucket: 5 a minute per client.
func TestDownloadsAreRateLimited(t *testing.T) {
	t.Parallel()
	clock := &testkit.Clock{}
	clock.Stop()
	s := newIssuing(t, testkit.WithClock(clock.Now))
	ada := s.acct.Attendee(t, s.event, "Ada", "Lovelace", "ada@example.org")
	var c certificateBody
	s.acct.Client.Post("/api/v1/certificates/generate", s.generate(ada, nil)).JSON(t, &c)
	for i := range 5 {
		if res := s.acct.Client.Get("/api/v1/certificates/" + c.Data.ID + "/download"); res.StatusCode != 200 {
			t.Fatalf("download %d: %d", i+1, res.StatusCode)
		}
	}
	res := s.acct.Client.Get("/api/v1/certificates/" + c.Data.ID + "/download")
	wantError(t, res, 429, res.StatusCode, "RATE_LIMITED")
	if res.Header.Get("Retry-After") == "" {
		t.Fatal("no Retry-After")
	}
}
