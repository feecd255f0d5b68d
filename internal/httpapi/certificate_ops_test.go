package httpapi_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

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
	require.Equal(t, 200, res.StatusCode, "download: status (header %v)", res.Header)
	require.NoError(t, err, "download: the PDF's text")
	require.Contains(t, text, "Ada Lovelace", "download: text")
	require.Equal(t, `attachment; filename="`+c.Data.CertificateNumber+`.pdf"`, res.Header.Get("Content-Disposition"), `download: res.Header.Get("Content-Disposition")`)

	// The PDF keeps its snapshot until regenerate.
	s.acct.Client.Put("/api/v1/attendees/"+ada.String(), map[string]any{"firstName": "Augusta Ada"})
	text, _ = pdftext.Text(s.acct.Client.Get(path + "/download").Body)
	require.Contains(t, text, "Ada Lovelace", "the PDF before regenerate")
	require.NotContains(t, text, "Augusta", "the PDF before regenerate")
	var re certificateBody
	s.acct.Client.Post(path+"/regenerate", nil).JSON(t, &re)
	require.Equal(t, c.Data.CertificateNumber, re.Data.CertificateNumber, "regenerate: re.Data.CertificateNumber")
	require.Equal(t, c.Data.VerificationCode, re.Data.VerificationCode, "regenerate: re.Data.VerificationCode")
	require.Equal(t, "Augusta Ada", re.Data.Recipient.FirstName, "regenerate: re.Data.Recipient.FirstName")
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
	require.Equal(t, 202, res.StatusCode, "send: status (body %s)", res.Body)
	require.Equal(t, "queued", d.Data.Status, "send: d.Data.Status")
	require.Equal(t, "ada@example.org", d.Data.To, "send: d.Data.To")
	require.Equal(t, c.Data.ID, *d.Data.CertificateID, "send: *d.Data.CertificateID")

	res = s.acct.Client.Post(path+"/revoke", map[string]any{"reason": "Name misspelt", "reasonCode": "issued_in_error"})
	var rv struct {
		Data struct {
			Status, RevocationReasonCode string
			RevocationReason             *string
		}
	}
	res.JSON(t, &rv)
	require.Equal(t, 200, res.StatusCode, "revoke: status (body %s)", res.Body)
	require.Equal(t, "revoked", rv.Data.Status, "revoke: rv.Data.Status")
	require.Equal(t, "issued_in_error", rv.Data.RevocationReasonCode, "revoke: rv.Data.RevocationReasonCode")
	require.Equal(t, "Name misspelt", *rv.Data.RevocationReason, "revoke: *rv.Data.RevocationReason")
	// Again: unchanged, and no second event.
	res = s.acct.Client.Post(path+"/revoke", map[string]any{"reasonCode": "fraud"})
	res.JSON(t, &rv)
	require.Equal(t, 200, res.StatusCode, "revoke again: status (body %s)", res.Body)
	require.Equal(t, "issued_in_error", rv.Data.RevocationReasonCode, "revoke again: rv.Data.RevocationReasonCode")
	for _, p := range []string{path + "/send", path + "/regenerate"} {
		res := s.acct.Client.Post(p, nil)
		wantError(t, res, 409, res.StatusCode, "CONFLICT")
	}
	// Deleting a revoked certificate keeps it as it is.
	if res := s.acct.Client.Delete(path); res.StatusCode != 204 {
		t.Fatalf("delete: %d %s", res.StatusCode, res.Body)
	}
	s.acct.Client.Get(path).JSON(t, &rv)
	require.Equal(t, "revoked", rv.Data.Status, "after delete: rv.Data.Status")
	require.Equal(t, "issued_in_error", rv.Data.RevocationReasonCode, "after delete: rv.Data.RevocationReasonCode")
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
	require.Contains(t, string(res.Body), `"revocationReasonCode":"deleted_by_issuer"`, "after delete: body")
	require.Contains(t, string(res.Body), `"status":"revoked"`, "after delete: body")
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
