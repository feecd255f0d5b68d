package httpapi_test

import (
	"encoding/base64"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/certhub/credentiald/internal/ratelimit"
	"github.com/certhub/credentiald/internal/testkit"
	"github.com/certhub/credentiald/internal/testkit/contract"
)

// venue is an event of 300 attendees with their certificates issued and each recipient's
// token (the delivery email's ?t=) known, on a stopped clock: no bucket fills again while the
// test runs, however slow the machine, so everything it sends counts as sent in one instant.
type venue struct {
	issuing
	codes []string
}

const venueSize = 300

// venueToken is the recipient token of the certificate of code.
func venueToken(code string) string { return "venue-" + code }

func newVenue(t *testing.T, size int) venue {
	t.Helper()
	clock := &testkit.Clock{}
	clock.Stop()
	s := newIssuing(t, testkit.WithClock(clock.Now), trustLoopback())
	importAttendees(t, s, size)
	logo := "data:image/svg+xml;base64," + base64.StdEncoding.EncodeToString([]byte(sampleLogo))
	if res := s.acct.Client.Put("/api/v1/branding", map[string]any{"issuerName": "Gophers e.V.", "logo": logo}); res.StatusCode != http.StatusOK {
		t.Fatalf("branding: %d %s", res.StatusCode, res.Body)
	}
	for page := 1; page <= (size+99)/100; page++ {
		var attendees struct{ Data []struct{ ID uuid.UUID } }
		s.acct.Client.Get(fmt.Sprintf("/api/v1/attendees?eventId=%s&pageSize=100&page=%d", s.event, page)).JSON(t, &attendees)
		var ids []uuid.UUID
		for _, a := range attendees.Data {
			ids = append(ids, a.ID)
		}
		res := s.acct.Client.Post("/api/v1/events/"+s.event.String()+"/certificates/generate", map[string]any{"attendeeIds": ids, "sendEmail": false})
		var out bulkResult
		res.JSON(t, &out)
		require.Equal(t, http.StatusOK, res.StatusCode, "generate page %d: status (body %s)", page, res.Body)
		require.Len(t, out.Data.Issued, len(ids), "generate page %d: issued", page)
	}
	v := venue{issuing: s}
	for page := 1; page <= (size+99)/100; page++ {
		var certs struct {
			Data []struct{ VerificationCode string }
		}
		s.acct.Client.Get(fmt.Sprintf("/api/v1/certificates?eventId=%s&pageSize=100&page=%d", s.event, page)).JSON(t, &certs)
		for _, c := range certs.Data {
			v.codes = append(v.codes, c.VerificationCode)
		}
	}
	if len(v.codes) != size {
		t.Fatalf("%d certificates", len(v.codes))
	}
	// The delivery emails' tokens (only their hashes are stored).
	testkit.SQL(t, s.env, `UPDATE certificates SET recipient_token_hash = sha256(convert_to('venue-' || verification_code, 'UTF8'))
		WHERE account_id = $1`, s.acct.ID)
	return v
}

// from is a validating client whose requests come from addr, behind the trusted proxy.
func (v venue) from(t *testing.T, addr string) *contract.Client {
	c := contract.NewClient(t, v.env.URL)
	c.Header.Set("X-Forwarded-For", addr)
	return c
}

// ownAssets are the links of a recipient's page to its preview and its issuer's logo.
var ownAssets = regexp.MustCompile(`src="(/api/v1/verify/[0-9A-Z]+/(?:preview\.png|issuer-logo)[^"]*)"`)

// At a venue, 300 attendees behind the conference Wi-Fi's one address open their certificate
// emails in the same minute: each page, with its recipient token, and the preview and the
// issuer's logo it loads answer 200, all 900 of them, on a clock that gives no token back (the
// address's own buckets would have refused the 31st page and the 101st request). The page's
// own assets carry the token too, which counts them against their credential's bucket.
//
// Its 300 previews cost twenty times as much under the race detector (their pixels encoded as
// PNG): `make test` runs it in its pass without the detector (test/run.sh), where the rate
// limits it is about are the same code.
func TestAVenueOfRecipientsBehindOneAddressOpensItsPages(t *testing.T) {
	if testkit.RaceDetector {
		t.Skip("load, not concurrency: make test runs it without the race detector (test/run.sh)")
	}
	t.Parallel()
	v := newVenue(t, venueSize)
	wifi := v.from(t, "198.51.100.80")
	for i, code := range v.codes {
		page := wifi.Get("/verify/" + code + "?t=" + url.QueryEscape(venueToken(code)))
		if page.StatusCode != http.StatusOK {
			t.Fatalf("page %d: %d %.200s", i+1, page.StatusCode, page.Body)
		}
		links := ownAssets.FindAllStringSubmatch(string(page.Body), -1)
		if len(links) != 2 {
			t.Fatalf("page %d links to %d of its preview and logo: %v", i+1, len(links), links)
		}
		for _, link := range links {
			if want := "?t=" + venueToken(code); link[1][len(link[1])-len(want):] != want {
				t.Fatalf("page %d links to %s without its token", i+1, link[1])
			}
			res := wifi.Get(link[1])
			if res.StatusCode != http.StatusOK {
				t.Fatalf("page %d, %s: %d %.200s", i+1, link[1], res.StatusCode, res.Body)
			}
			if got := res.Header.Get("RateLimit-Limit"); got != strconv.Itoa(ratelimit.Credential.Burst) {
				t.Fatalf("page %d, %s: RateLimit-Limit %s, want the credential's %d", i+1, link[1], got, ratelimit.Credential.Burst)
			}
		}
	}
}

// The counter-cases: a `t` that is not the recipient's counts against the address (its
// verification bucket empties at 30, while the recipient's token still opens the page from
// there); an asset asked without a token counts against its code's bucket, which refuses the
// 61st request whoever asks, while another code's assets answer; and a credential's own bucket
// holds 30 a minute.
func TestVerificationCountsByTokenAddressAndCode(t *testing.T) {
	t.Parallel()
	v := newVenue(t, 60)

	t.Run("a token that is not the recipient's counts against the address", func(t *testing.T) {
		guesser := v.from(t, "198.51.100.81")
		for i := range ratelimit.Verification.Burst {
			if res := guesser.Get("/verify/" + v.codes[i] + "?t=guessed"); res.StatusCode != http.StatusOK {
				t.Fatalf("page %d: %d", i+1, res.StatusCode)
			}
		}
		res := guesser.Get("/verify/" + v.codes[30] + "?t=guessed")
		require.Equal(t, http.StatusTooManyRequests, res.StatusCode, "page 31: status")
		require.Equal(t, strconv.Itoa(ratelimit.Verification.Burst), res.Header.Get("RateLimit-Limit"), "page 31: RateLimit-Limit")
		res = guesser.Get("/api/v1/verify/" + v.codes[31] + "/preview.png?t=guessed")
		wantError(t, res, http.StatusTooManyRequests, res.StatusCode, "RATE_LIMITED")
		code := v.codes[32]
		if res := guesser.Get("/verify/" + code + "?t=" + venueToken(code)); res.StatusCode != http.StatusOK {
			t.Fatalf("the recipient's own token from the address: %d", res.StatusCode)
		}
	})

	t.Run("assets without a token count against their code", func(t *testing.T) {
		code := v.codes[40]
		for i := range ratelimit.CodeAssets.Burst {
			res := v.from(t, fmt.Sprintf("198.51.100.%d", 100+i)).Get("/api/v1/verify/" + code + "/qr")
			if res.StatusCode != http.StatusOK {
				t.Fatalf("request %d: %d", i+1, res.StatusCode)
			}
		}
		late := v.from(t, "198.51.100.200")
		res := late.Get("/api/v1/verify/" + code + "/preview.png")
		wantError(t, res, http.StatusTooManyRequests, res.StatusCode, "RATE_LIMITED")
		if got := res.Header.Get("RateLimit-Limit"); got != strconv.Itoa(ratelimit.CodeAssets.Burst) {
			t.Fatalf("RateLimit-Limit %s, want the code's %d", got, ratelimit.CodeAssets.Burst)
		}
		if res := late.Get("/api/v1/verify/" + v.codes[41] + "/qr"); res.StatusCode != http.StatusOK {
			t.Fatalf("another code's asset: %d", res.StatusCode)
		}
		if res := late.Get("/api/v1/verify/" + code + "/preview.png?t=" + venueToken(code)); res.StatusCode != http.StatusOK {
			t.Fatalf("the recipient's own load of the asset: %d", res.StatusCode)
		}
	})

	t.Run("each attendee downloads their own PDF", func(t *testing.T) {
		// The address's download bucket holds 5 a minute: past it, a PDF asked without a token
		// is refused, while every attendee's own (with their token) still downloads.
		wifi := v.from(t, "198.51.100.82")
		for i := range ratelimit.Download.Burst + 3 {
			code := v.codes[46+i]
			res := wifi.Get("/api/v1/verify/" + code + "/certificate.pdf?t=" + url.QueryEscape(venueToken(code)))
			if res.StatusCode != http.StatusOK {
				t.Fatalf("PDF %d with its token: %d %.200s", i+1, res.StatusCode, res.Body)
			}
		}
		for i := range ratelimit.Download.Burst {
			if res := wifi.Get("/api/v1/verify/" + v.codes[54+i] + "/certificate.pdf"); res.StatusCode != http.StatusOK {
				t.Fatalf("PDF %d without a token: %d", i+1, res.StatusCode)
			}
		}
		res := wifi.Get("/api/v1/verify/" + v.codes[59] + "/certificate.pdf")
		wantError(t, res, http.StatusTooManyRequests, res.StatusCode, "RATE_LIMITED")
	})

	t.Run("a credential's bucket holds 30 a minute", func(t *testing.T) {
		code := v.codes[45]
		for i := range ratelimit.Credential.Burst {
			res := v.from(t, fmt.Sprintf("203.0.113.%d", 1+i)).Get("/api/v1/verify/" + code + "/issuer-logo?t=" + venueToken(code))
			if res.StatusCode != http.StatusOK {
				t.Fatalf("request %d: %d", i+1, res.StatusCode)
			}
		}
		res := v.from(t, "203.0.113.99").Get("/verify/" + code + "?t=" + venueToken(code))
		require.Equal(t, http.StatusTooManyRequests, res.StatusCode, "request 31: status")
		require.Equal(t, strconv.Itoa(ratelimit.Credential.Burst), res.Header.Get("RateLimit-Limit"), "request 31: RateLimit-Limit")
	})
}
