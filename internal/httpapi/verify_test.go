package httpapi_test

import (
	"bytes"
	"encoding/base64"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

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
	require.Equal(t, 200, res.StatusCode, "verify: status (body %s)", res.Body)
	require.Equal(t, "valid", d.Status, "verify: d.Status")
	require.Equal(t, "certificate", d.Credential.Type, "verify: d.Credential.Type")
	require.Equal(t, "Go Conference", d.Credential.Name, "verify: d.Credential.Name")
	require.Equal(t, c.Data.CertificateNumber, *d.Credential.Number, "verify: *d.Credential.Number")
	require.Equal(t, "Ada Lovelace", d.Recipient.Name, "verify: d.Recipient.Name")
	require.True(t, d.Dates.IssuedAt.Equal(*c.Data.IssuedAt), "verify: issuedAt %v, want %v", d.Dates.IssuedAt, *c.Data.IssuedAt)
	require.True(t, d.Dates.ExpiresAt.Equal(*c.Data.ExpiresAt), "verify: expiresAt %v, want %v", d.Dates.ExpiresAt, *c.Data.ExpiresAt)
	require.Nil(t, d.Dates.RevokedAt, "verify: d.Dates.RevokedAt")
	require.Nil(t, d.RevocationReason, "verify: d.RevocationReason")
	require.Nil(t, d.RevocationReasonCode, "verify: d.RevocationReasonCode")
	require.Nil(t, d.Issuer.LogoURL, "verify: d.Issuer.LogoURL")
	require.Nil(t, d.Issuer.URL, "verify: d.Issuer.URL")
	require.True(t, strings.HasPrefix(d.Issuer.Name, "Account "), "verify: %q should start with %q", d.Issuer.Name, "Account ")
	require.Equal(t, c.Data.VerificationURL, d.VerificationURL, "verify: d.VerificationURL")
	require.True(t, strings.HasSuffix(d.Credential.ImageURL, "/api/v1/verify/"+c.Data.VerificationCode+"/preview.png"), "verify: %q should end with %q", d.Credential.ImageURL, "/api/v1/verify/"+c.Data.VerificationCode+"/preview.png")
	if strings.Contains(string(res.Body), "@example.org") {
		t.Fatalf("the recipient's email is shown: %s", res.Body)
	}
	require.Equal(t, "*", res.Header.Get("Access-Control-Allow-Origin"), "headers: Access-Control-Allow-Origin")
	require.Equal(t, "no-cache", res.Header.Get("Cache-Control"), "headers: Cache-Control")
	require.Equal(t, "30", res.Header.Get("RateLimit-Limit"), "headers: RateLimit-Limit")
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
	require.Equal(t, "Analytical Society", v.Data.Issuer.Name, "issuer: v.Data.Issuer.Name")
	require.Equal(t, "https://analytical.example.org", *v.Data.Issuer.URL, "issuer: *v.Data.Issuer.URL")
	require.NotNil(t, v.Data.Issuer.LogoURL, "issuer: v.Data.Issuer.LogoURL")
	require.True(t, strings.HasSuffix(*v.Data.Issuer.LogoURL, "/verify/"+c.Data.VerificationCode+"/issuer-logo"), "issuer: %q should end with %q", *v.Data.Issuer.LogoURL, "/verify/"+c.Data.VerificationCode+"/issuer-logo")
	res := s.env.Client.Get("/api/v1/verify/" + c.Data.VerificationCode + "/issuer-logo")
	require.Equal(t, 200, res.StatusCode, "logo: status")
	require.True(t, bytes.Equal(res.Body, tinyPNG), "logo: the body is not the uploaded PNG (%d bytes)", len(res.Body))
	require.Equal(t, "image/png", res.Header.Get("Content-Type"), "logo: Content-Type")
	require.Contains(t, res.Header.Get("Content-Security-Policy"), "sandbox", "logo: Content-Security-Policy")
	again := s.env.Client.Request(http.MethodGet, "/api/v1/verify/"+c.Data.VerificationCode+"/issuer-logo", nil)
	again.Header.Set("If-None-Match", res.Header.Get("ETag"))
	res = s.env.Client.Do(again)
	require.Equal(t, http.StatusNotModified, res.StatusCode, "revalidated logo: status")
	require.Empty(t, res.Body, "revalidated logo: body")
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
		v, res := verify(t, s.env.Client, variant)
		assert.Equal(t, 200, res.StatusCode, "%s: status (body %s)", variant, res.Body)
		assert.Equal(t, s.env.Config.SiteURL.String()+"/verify/"+code, v.Data.VerificationURL, "%s: v.Data.VerificationURL", variant)
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
		assert.Equal(t, 400, res.StatusCode, "%s: status (body %s)", code, res.Body)
		if assert.Len(t, e.Error.Details, 1, "%s: details", code) {
			assert.Equal(t, "path.code", e.Error.Details[0].Field, "%s: details", code)
		}
	}
	res = env.Client.Get("/api/v1/verify/7K2M9QXRT4VZ1/qr?format=gif")
	e := decodeError(t, res)
	require.Equal(t, 400, res.StatusCode, "qr format: status (body %s)", res.Body)
	require.Equal(t, "query.format", e.Error.Details[0].Field, "qr format: details")
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
	require.Len(t, bulk.Data.Issued, 1, "draft: issued (body %s)", res.Body)
	require.Equal(t, "draft", bulk.Data.Issued[0].Status, "draft: bulk.Data.Issued[0].Status")
	code := bulk.Data.Issued[0].VerificationCode
	for _, path := range []string{"", "/qr", "/preview.png", "/certificate.pdf"} {
		res := s.env.Client.Get("/api/v1/verify/" + code + path)
		wantError(t, res, 404, res.StatusCode, "NOT_FOUND")
	}
	res = s.env.Client.Get("/verify/" + code)
	require.Equal(t, 404, res.StatusCode, "page of a draft: status")
	require.Contains(t, string(res.Body), "No credential with this code", "page of a draft: body")
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
	require.Equal(t, "expired", v.Data.Status, "after expiry: status (body %s)", res.Body)
	require.True(t, v.Data.Dates.ExpiresAt.Equal(expires), "after expiry: expiresAt %v, want %v", v.Data.Dates.ExpiresAt, expires)
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
	require.Equal(t, "revoked", v.Data.Status, "revoked: status (body %s)", res.Body)
	require.Equal(t, "Attendance not confirmed", *v.Data.RevocationReason, "revoked: *v.Data.RevocationReason")
	require.Equal(t, "fraud", *v.Data.RevocationReasonCode, "revoked: *v.Data.RevocationReasonCode")
	require.NotNil(t, v.Data.Dates.RevokedAt, "revoked: v.Data.Dates.RevokedAt")
	v, res = verify(t, s.env.Client, deleted.Data.VerificationCode)
	require.Equal(t, "revoked", v.Data.Status, "deleted: status (body %s)", res.Body)
	require.Equal(t, "deleted_by_issuer", *v.Data.RevocationReasonCode, "deleted: *v.Data.RevocationReasonCode")
	page := string(s.env.Client.Get("/verify/" + revoked.Data.VerificationCode).Body)
	for _, want := range []string{"This certificate has been revoked", "Reason: Fraud", "Attendance not confirmed"} {
		if !strings.Contains(page, want) {
			t.Errorf("the revoked page does not say %q", want)
		}
	}
	assert.NotContains(t, page, "/share/linkedin", "a revoked certificate is offered for sharing")
	assert.NotContains(t, page, "Download PDF", "a revoked certificate is offered for download")
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
		if !(assert.Equal(t, 200, res.StatusCode, "%s: status", a.path) &&
			assert.Equal(t, a.media, res.Header.Get("Content-Type"), "%s: Content-Type", a.path) &&
			assert.True(t, bytes.HasPrefix(res.Body, []byte(a.prefix)), "%s: the body does not start with %q", a.path, a.prefix) &&
			assert.Equal(t, a.cache, res.Header.Get("Cache-Control"), "%s: Cache-Control", a.path) &&
			assert.NotEmpty(t, res.Header.Get("ETag"), "%s: ETag", a.path) &&
			assert.Equal(t, "*", res.Header.Get("Access-Control-Allow-Origin"), "%s: Access-Control-Allow-Origin", a.path)) {
			continue
		}
		// What the client has is still what we would send: 304, no body.
		req := s.env.Client.Request(http.MethodGet, base+a.path, nil)
		req.Header.Set("If-None-Match", `"other", `+res.Header.Get("ETag"))
		again := s.env.Client.Do(req)
		assert.Equal(t, http.StatusNotModified, again.StatusCode, "%s revalidated: status", a.path)
		assert.Empty(t, again.Body, "%s revalidated: body", a.path)
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
	require.Equal(t, 429, page.StatusCode, "page past the limit: status")
	require.True(t, strings.HasPrefix(page.Header.Get("Content-Type"), "text/html"), "page past the limit: %q should start with %q", page.Header.Get("Content-Type"), "text/html")
	require.Contains(t, string(page.Body), "Too many lookups", "page past the limit: body")
	require.NotEmpty(t, page.Header.Get("Retry-After"), "page past the limit: page Retry-After")
	// Assets count toward the global limit only.
	if res := s.env.Client.Get("/api/v1/verify/" + code + "/qr"); res.StatusCode != 200 {
		t.Fatalf("qr past the verification limit: %d", res.StatusCode)
	}
}
