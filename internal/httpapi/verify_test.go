package httpapi_test

import (
	"bytes"
	"encoding/base64"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/certhub/credentiald/internal/testkit"
	"github.com/certhub/credentiald/internal/testkit/contract"
)

type verificationBody struct {
	Data struct {
		Status     string
		Credential struct {
			Type, Name, ImageURL string
			Description, Number  *string
		}
		Recipient struct{ Name string }
		Issuer    struct {
			Name         string
			URL, LogoURL *string
		}
		Dates struct {
			IssuedAt             time.Time
			ExpiresAt, RevokedAt *time.Time
		}
		RevocationReason, RevocationReasonCode *string
		VerificationURL                        string
	}
}

// issue issues a certificate to a new attendee of the event and returns it.
func (s issuing) issue(t testing.TB, first, last string, extra map[string]any) certificateBody {
	t.Helper()
	a := s.acct.Attendee(t, s.event, first, last, strings.ToLower(first)+"."+uuid.NewString()[:8]+"@example.org")
	res := s.acct.Client.Post("/api/v1/certificates/generate", s.generate(a, extra))
	if res.StatusCode != http.StatusOK {
		t.Fatalf("generate: %d %s", res.StatusCode, res.Body)
	}
	var c certificateBody
	res.JSON(t, &c)
	return c
}

func verify(t *testing.T, c *contract.Client, code string) (verificationBody, *contract.Response) {
	t.Helper()
	res := c.Get("/api/v1/verify/" + code)
	var v verificationBody
	if res.StatusCode == http.StatusOK {
		res.JSON(t, &v)
	}
	return v, res
}

func TestVerifyAnswersAValidCertificateWithoutTheEmail(t *testing.T) {
	t.Parallel()
	s := newIssuing(t)
	c := s.issue(t, "Ada", "Lovelace", nil)

	v, res := verify(t, s.env.Client, c.Data.VerificationCode)
	d := v.Data
	if res.StatusCode != 200 || d.Status != "valid" || d.Credential.Type != "certificate" || d.Credential.Name != "Go Conference" ||
		*d.Credential.Number != c.Data.CertificateNumber || d.Recipient.Name != "Ada Lovelace" ||
		!d.Dates.IssuedAt.Equal(*c.Data.IssuedAt) || !d.Dates.ExpiresAt.Equal(*c.Data.ExpiresAt) || d.Dates.RevokedAt != nil ||
		d.RevocationReason != nil || d.RevocationReasonCode != nil || d.Issuer.LogoURL != nil || d.Issuer.URL != nil ||
		!strings.HasPrefix(d.Issuer.Name, "Account ") || d.VerificationURL != c.Data.VerificationURL ||
		!strings.HasSuffix(d.Credential.ImageURL, "/api/v1/verify/"+c.Data.VerificationCode+"/preview.png") {
		t.Fatalf("verify: %d %s", res.StatusCode, res.Body)
	}
	if strings.Contains(string(res.Body), "@example.org") {
		t.Fatalf("the recipient's email is shown: %s", res.Body)
	}
	if res.Header.Get("Access-Control-Allow-Origin") != "*" || res.Header.Get("Cache-Control") != "no-cache" ||
		res.Header.Get("RateLimit-Limit") != "30" {
		t.Fatalf("headers: %v", res.Header)
	}
}

func TestVerifyShowsTheIssuerAsItsBrandingSaysNow(t *testing.T) {
	t.Parallel()
	s := newIssuing(t)
	c := s.issue(t, "Ada", "Lovelace", nil)
	logo := "data:image/png;base64," + base64.StdEncoding.EncodeToString(tinyPNG)
	if res := s.acct.Client.Put("/api/v1/branding", map[string]any{"issuerName": "Analytical Society",
		"website": "https://analytical.example.org", "logo": logo, "primaryColor": "#0B6E4F"}); res.StatusCode != 200 {
		t.Fatalf("branding: %d %s", res.StatusCode, res.Body)
	}
	v, _ := verify(t, s.env.Client, c.Data.VerificationCode)
	if v.Data.Issuer.Name != "Analytical Society" || *v.Data.Issuer.URL != "https://analytical.example.org" ||
		v.Data.Issuer.LogoURL == nil || !strings.HasSuffix(*v.Data.Issuer.LogoURL, "/verify/"+c.Data.VerificationCode+"/issuer-logo") {
		t.Fatalf("issuer: %+v", v.Data.Issuer)
	}
	res := s.env.Client.Get("/api/v1/verify/" + c.Data.VerificationCode + "/issuer-logo")
	if res.StatusCode != 200 || !bytes.Equal(res.Body, tinyPNG) || res.Header.Get("Content-Type") != "image/png" ||
		!strings.Contains(res.Header.Get("Content-Security-Policy"), "sandbox") {
		t.Fatalf("logo: %d %v", res.StatusCode, res.Header)
	}
	again := s.env.Client.Request(http.MethodGet, "/api/v1/verify/"+c.Data.VerificationCode+"/issuer-logo", nil)
	again.Header.Set("If-None-Match", res.Header.Get("ETag"))
	if res := s.env.Client.Do(again); res.StatusCode != http.StatusNotModified || len(res.Body) != 0 {
		t.Fatalf("revalidated logo: %d", res.StatusCode)
	}
}

// tinyPNG is a 1x1 transparent PNG.
var tinyPNG, _ = base64.StdEncoding.DecodeString("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==")

func TestVerifyReadsCodesAsPeopleTypeThem(t *testing.T) {
	t.Parallel()
	s := newIssuing(t)
	code := s.issue(t, "Ada", "Lovelace", nil).Data.VerificationCode
	// Lower case, hyphens, and the letters Crockford reads as digits (O for 0, I and L for 1).
	typed := strings.ToLower(code[:4] + "-" + code[4:])
	typed = strings.NewReplacer("0", "o", "1", "l").Replace(typed)
	for _, variant := range []string{strings.ToLower(code), typed} {
		if v, res := verify(t, s.env.Client, variant); res.StatusCode != 200 || v.Data.VerificationURL != s.env.Config.SiteURL.String()+"/verify/"+code {
			t.Errorf("%s: %d %s", variant, res.StatusCode, res.Body)
		}
	}
}

func TestVerifyAnswersUnknownAndMalformedCodes(t *testing.T) {
	t.Parallel()
	env := testkit.NewServer(t)
	res := env.Client.Get("/api/v1/verify/7K2M9QXRT4VZ1")
	wantError(t, res, 404, res.StatusCode, "NOT_FOUND")
	if res.Header.Get("Access-Control-Allow-Origin") != "*" {
		t.Fatalf("an error without CORS: %v", res.Header)
	}
	for _, code := range []string{"7K2M9_QXRT", strings.Repeat("A", 65), "%E2%9C%93"} {
		res := env.Client.Get("/api/v1/verify/" + code)
		e := decodeError(t, res)
		if res.StatusCode != 400 || len(e.Error.Details) != 1 || e.Error.Details[0].Field != "path.code" {
			t.Errorf("%s: %d %s", code, res.StatusCode, res.Body)
		}
	}
	res = env.Client.Get("/api/v1/verify/7K2M9QXRT4VZ1/qr?format=gif")
	if e := decodeError(t, res); res.StatusCode != 400 || e.Error.Details[0].Field != "query.format" {
		t.Fatalf("qr format: %d %s", res.StatusCode, res.Body)
	}
}

func TestDraftsAreNotFound(t *testing.T) {
	t.Parallel()
	s := newIssuing(t)
	a := s.acct.Attendee(t, s.event, "Ada", "Lovelace", "ada@example.org")
	res := s.acct.Client.Post("/api/v1/events/"+s.event.String()+"/certificates/generate", map[string]any{"attendeeIds": []uuid.UUID{a}, "draft": true})
	var bulk struct {
		Data struct {
			Issued []struct{ VerificationCode, Status string }
		}
	}
	res.JSON(t, &bulk)
	if len(bulk.Data.Issued) != 1 || bulk.Data.Issued[0].Status != "draft" {
		t.Fatalf("draft: %s", res.Body)
	}
	code := bulk.Data.Issued[0].VerificationCode
	for _, path := range []string{"", "/qr", "/preview.png", "/certificate.pdf"} {
		res := s.env.Client.Get("/api/v1/verify/" + code + path)
		wantError(t, res, 404, res.StatusCode, "NOT_FOUND")
	}
	if res := s.env.Client.Get("/verify/" + code); res.StatusCode != 404 || !strings.Contains(string(res.Body), "No credential with this code") {
		t.Fatalf("page of a draft: %d", res.StatusCode)
	}
}

func TestVerifyShowsExpiryOnceItsTimeHasCome(t *testing.T) {
	t.Parallel()
	clock := &testkit.Clock{}
	s := newIssuing(t, testkit.WithClock(clock.Now))
	expires := clock.Now().Add(time.Hour).UTC().Truncate(time.Second)
	c := s.issue(t, "Ada", "Lovelace", map[string]any{"expiresAt": expires})
	if v, _ := verify(t, s.env.Client, c.Data.VerificationCode); v.Data.Status != "valid" {
		t.Fatalf("before expiry: %s", v.Data.Status)
	}
	// Nothing writes "expired": the lookup reads it from the time.
	clock.Advance(time.Hour + time.Second)
	v, res := verify(t, s.env.Client, c.Data.VerificationCode)
	if v.Data.Status != "expired" || !v.Data.Dates.ExpiresAt.Equal(expires) {
		t.Fatalf("after expiry: %s", res.Body)
	}
	page := s.env.Client.Get("/verify/" + c.Data.VerificationCode)
	if !strings.Contains(string(page.Body), "This certificate has expired") {
		t.Fatalf("page after expiry:\n%s", page.Body)
	}
}

func TestVerifyShowsARevocationWithItsReason(t *testing.T) {
	t.Parallel()
	s := newIssuing(t)
	revoked := s.issue(t, "Ada", "Lovelace", nil)
	deleted := s.issue(t, "Charles", "Babbage", nil)
	s.acct.Client.Post("/api/v1/certificates/"+revoked.Data.ID+"/revoke", map[string]any{"reason": "Attendance not confirmed", "reasonCode": "fraud"})
	s.acct.Client.Delete("/api/v1/certificates/" + deleted.Data.ID)

	v, res := verify(t, s.env.Client, revoked.Data.VerificationCode)
	if v.Data.Status != "revoked" || *v.Data.RevocationReason != "Attendance not confirmed" || *v.Data.RevocationReasonCode != "fraud" ||
		v.Data.Dates.RevokedAt == nil {
		t.Fatalf("revoked: %s", res.Body)
	}
	v, res = verify(t, s.env.Client, deleted.Data.VerificationCode)
	if v.Data.Status != "revoked" || *v.Data.RevocationReasonCode != "deleted_by_issuer" {
		t.Fatalf("deleted: %s", res.Body)
	}
	page := string(s.env.Client.Get("/verify/" + revoked.Data.VerificationCode).Body)
	for _, want := range []string{"This certificate has been revoked", "Reason: Fraud", "Attendance not confirmed"} {
		if !strings.Contains(page, want) {
			t.Errorf("the revoked page does not say %q", want)
		}
	}
	if strings.Contains(page, "/share/linkedin") || strings.Contains(page, "Download PDF") {
		t.Error("a revoked certificate is offered for sharing or download")
	}
}

func TestVerificationAssets(t *testing.T) {
	t.Parallel()
	s := newIssuing(t)
	c := s.issue(t, "Ada", "Lovelace", nil)
	base := "/api/v1/verify/" + strings.ToLower(c.Data.VerificationCode)

	for _, a := range []struct{ path, media, prefix, cache string }{
		{"/qr", "image/png", "\x89PNG", "public, max-age=86400"},
		{"/qr?format=svg", "image/svg+xml", "<svg", "public, max-age=86400"},
		{"/preview.png", "image/png", "\x89PNG", "public, max-age=300"},
		{"/certificate.pdf", "application/pdf", "%PDF", "private, max-age=0, must-revalidate"},
	} {
		res := s.env.Client.Get(base + a.path)
		if res.StatusCode != 200 || res.Header.Get("Content-Type") != a.media || !bytes.HasPrefix(res.Body, []byte(a.prefix)) ||
			res.Header.Get("Cache-Control") != a.cache || res.Header.Get("ETag") == "" || res.Header.Get("Access-Control-Allow-Origin") != "*" {
			t.Errorf("%s: %d %v", a.path, res.StatusCode, res.Header)
			continue
		}
		// What the client has is still what we would send: 304, no body.
		req := s.env.Client.Request(http.MethodGet, base+a.path, nil)
		req.Header.Set("If-None-Match", `"other", `+res.Header.Get("ETag"))
		if again := s.env.Client.Do(req); again.StatusCode != http.StatusNotModified || len(again.Body) != 0 {
			t.Errorf("%s revalidated: %d", a.path, again.StatusCode)
		}
	}
	res := s.env.Client.Get(base + "/certificate.pdf")
	if res.Header.Get("Content-Disposition") != `attachment; filename="`+c.Data.CertificateNumber+`.pdf"` {
		t.Fatalf("Content-Disposition %q", res.Header.Get("Content-Disposition"))
	}
	// A certificate has no badge image, and this issuer no logo.
	for _, path := range []string{"/badge.png", "/badge.svg", "/issuer-logo"} {
		res := s.env.Client.Get(base + path)
		wantError(t, res, 404, res.StatusCode, "NOT_FOUND")
	}
}

// certificate.pdf and the issuer's own download share the download bucket (5 a minute).
func TestPublicPDFAndDownloadShareTheDownloadBucket(t *testing.T) {
	t.Parallel()
	clock := &testkit.Clock{}
	clock.Stop()
	s := newIssuing(t, testkit.WithClock(clock.Now))
	c := s.issue(t, "Ada", "Lovelace", nil)
	for i := range 3 {
		if res := s.acct.Client.Get("/api/v1/certificates/" + c.Data.ID + "/download"); res.StatusCode != 200 {
			t.Fatalf("download %d: %d", i, res.StatusCode)
		}
	}
	for i := range 2 {
		if res := s.env.Client.Get("/api/v1/verify/" + c.Data.VerificationCode + "/certificate.pdf"); res.StatusCode != 200 {
			t.Fatalf("public pdf %d: %d", i, res.StatusCode)
		}
	}
	res := s.env.Client.Get("/api/v1/verify/" + c.Data.VerificationCode + "/certificate.pdf")
	wantError(t, res, 429, res.StatusCode, "RATE_LIMITED")
}

// The JSON lookup and the page take from one bucket of 30 a minute per client address.
func TestLookupAndPageShareTheVerificationLimit(t *testing.T) {
	t.Parallel()
	clock := &testkit.Clock{}
	clock.Stop()
	s := newIssuing(t, testkit.WithClock(clock.Now))
	code := s.issue(t, "Ada", "Lovelace", nil).Data.VerificationCode
	for i := range 30 {
		path := "/api/v1/verify/" + code
		if i%2 == 1 {
			path = "/verify/" + code
		}
		if res := s.env.Client.Get(path); res.StatusCode != 200 {
			t.Fatalf("lookup %d: %d", i, res.StatusCode)
		}
	}
	res := s.env.Client.Get("/api/v1/verify/" + code)
	wantError(t, res, 429, res.StatusCode, "RATE_LIMITED")
	page := s.env.Client.Get("/verify/" + code)
	if page.StatusCode != 429 || !strings.HasPrefix(page.Header.Get("Content-Type"), "text/html") ||
		!strings.Contains(string(page.Body), "Too many lookups") || page.Header.Get("Retry-After") == "" {
		t.Fatalf("page past the limit: %d %v", page.StatusCode, page.Header)
	}
	// Assets count toward the global limit only.
	if res := s.env.Client.Get("/api/v1/verify/" + code + "/qr"); res.StatusCode != 200 {
		t.Fatalf("qr past the verification limit: %d", res.StatusCode)
	}
}
