package httpapi_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"image/png"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/certhub/credentiald/internal/testkit"
	"github.com/certhub/credentiald/internal/testkit/browser"
	"github.com/certhub/credentiald/internal/testkit/contract"
	"github.com/certhub/credentiald/internal/testkit/coverage"
)

// What recipients hit first: the page of a badge, the site's icon, and the token of the
// delivery email.

// issueBadge issues the badge "Speaker" to Ada Lovelace and returns its verification code.
func issueBadge(t *testing.T, b badging) string {
	t.Helper()
	badge := b.badge(t, map[string]any{"name": "Speaker", "description": "Gave a talk at Go Conference"})
	res, issued := b.issue(t, b.acct.Client, badge.Data.ID, ids(b.attendee(t, "Ada")))
	require.Equal(t, http.StatusOK, res.StatusCode, "issue: status (body %s)", res.Body)
	require.Len(t, issued.Data, 1, "issue: issued.Data")
	return issued.Data[0].VerificationCode
}

// pageLinks are the URLs a page's markup points at: links, images, icons, its OpenGraph image
// and its copy beacon, in order, each once.
var pageLinks = regexp.MustCompile(`(?:href|src|content|data-copy-beacon)="((?:/|https?://)[^"]*)"`)

// checkPageLinks fetches every link of page that stays on the site, through the contract
// client: each answers 2xx, except a share link, which answers 302 to its network, and the
// copy beacon, a POST that answers 204. It returns the paths it fetched.
func checkPageLinks(t *testing.T, env *testkit.Env, page string) []string {
	t.Helper()
	site := env.Config.SiteURL.String()
	seen := map[string]bool{}
	var fetched []string
	for _, m := range pageLinks.FindAllStringSubmatch(page, -1) {
		link := strings.ReplaceAll(m[1], "&amp;", "&")
		switch {
		case strings.HasPrefix(link, site+"/"):
			link = strings.TrimPrefix(link, site)
		case strings.HasPrefix(link, "//") || !strings.HasPrefix(link, "/"):
			continue // another host: the issuer's website
		}
		if seen[link] {
			continue
		}
		seen[link] = true
		fetched = append(fetched, link)
		switch {
		case strings.HasSuffix(link, "/share/copy"):
			if res := env.Client.Post(link, nil); res.StatusCode != http.StatusNoContent {
				t.Errorf("POST %s: %d", link, res.StatusCode)
			}
		case strings.Contains(link, "/share/"):
			res := env.Client.Get(link)
			assert.Equal(t, http.StatusFound, res.StatusCode, "%s: status", link)
			assert.NotEmpty(t, res.Header.Get("Location"), "%s: Location", link)
		default:
			if res := env.Client.Get(link); res.StatusCode/100 != 2 {
				t.Errorf("%s: %d %.200s", link, res.StatusCode, res.Body)
			}
		}
	}
	return fetched
}

// A badge's page shows the badge's baked image, offers the badge (PNG, SVG) and its signed
// credential for download, names no certificate preview or PDF, and unfurls with the badge's
// image; every link on it answers.
func TestBadgePageShowsTheBadgeAndOffersItsDownloads(t *testing.T) {
	t.Parallel()
	b := newBadging(t)
	code := issueBadge(t, b)
	res := b.env.Client.Get("/verify/" + code)
	page := string(res.Body)
	if res.StatusCode != http.StatusOK {
		t.Fatalf("page: %d", res.StatusCode)
	}
	api := "/api/v1/verify/" + code
	for _, want := range []string{
		"This badge is valid", "Speaker", "Ada Lovelace",
		`src="` + api + `/badge.png"`,
		`href="` + api + `/badge.png" type="image/png" download="speaker.png"`,
		`href="` + api + `/badge.svg" type="image/svg+xml" download="speaker.svg"`,
		`href="` + api + `/credential.json" type="application/vc" download="speaker.credential.json"`,
		`<meta property="og:image" content="` + b.env.Config.SiteURL.String() + api + `/share.png">`,
		`<meta name="twitter:card" content="summary_large_image">`, "Skip to the badge",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the badge's page lacks %s", want)
		}
	}
	for _, wrong := range []string{"preview.png", "certificate.pdf", "Download PDF", "certificate"} {
		if strings.Contains(page, wrong) {
			t.Errorf("the badge's page names %q", wrong)
		}
	}
	fetched := checkPageLinks(t, b.env, page)
	if len(fetched) < 10 { // the image, three downloads, the JWT, four shares, the beacon, the home page
		t.Errorf("only %d links checked: %v", len(fetched), fetched)
	}
}

// Every page links the site's style sheet by a name its content gives: kept a year by
// browsers, served as CSS with nosniff; a name of another release gets it uncached, a name of
// another shape is not found.
func TestSiteServesItsStyleSheet(t *testing.T) {
	t.Parallel()
	env := testkit.NewServer(t)
	sheet := regexp.MustCompile(`<link rel="stylesheet" href="(/assets/page\.[0-9a-f]{16}\.css)">`)
	var path string
	for _, page := range []string{"/", "/verify/7K2M9QXRT4VZ1", "/?code=%21"} {
		m := sheet.FindStringSubmatch(string(env.Client.Get(page).Body))
		require.NotNil(t, m, "%s links no style sheet", page)
		if path != "" {
			require.Equal(t, path, m[1], "%s links another style sheet", page)
		}
		path = m[1]
	}
	res := env.Client.Get(path)
	require.Equal(t, http.StatusOK, res.StatusCode, "%s: status (body %s)", path, res.Body)
	require.Equal(t, "public, max-age=31536000, immutable", res.Header.Get("Cache-Control"), "%s: Cache-Control", path)
	require.Equal(t, "nosniff", res.Header.Get("X-Content-Type-Options"), "%s: X-Content-Type-Options", path)
	require.Contains(t, string(res.Body), "var(--accent)", "%s: body", path)
	require.Equal(t, strconv.Itoa(len(res.Body)), res.Header.Get("Content-Length"), "%s: Content-Length", path)
	// A page of another release names its own sheet: it gets this one, not to be kept.
	old := env.Client.Get("/assets/page.0123456789abcdef.css")
	assert.Equal(t, http.StatusOK, old.StatusCode, "another release's sheet: status")
	assert.Equal(t, "no-cache", old.Header.Get("Cache-Control"), "another release's sheet: Cache-Control")
	assert.Equal(t, string(res.Body), string(old.Body), "another release's sheet: body")
	for _, other := range []string{"/assets/page.0123.css", "/assets/favicon.svg", "/assets/page.0123456789ABCDEF.css", "/assets/"} {
		if res := env.Client.Get(other); res.StatusCode != http.StatusNotFound {
			t.Errorf("%s: %d, want 404", other, res.StatusCode)
		}
	}
}

// The site has an icon: every page names /favicon.svg, and /favicon.ico answers a real icon
// for what asks the conventional path; both are kept a day. (The contract client knows the
// icon as site furniture, as it knows /docs.)
func TestSiteServesItsIcon(t *testing.T) {
	t.Parallel()
	env := testkit.NewServer(t)
	get := func(path string) (*contract.Response, []byte) {
		t.Helper()
		res := env.Client.Get(path)
		return res, res.Body
	}
	for _, path := range []string{"/", "/verify/7K2M9QXRT4VZ1"} {
		if _, body := get(path); !strings.Contains(string(body), `<link rel="icon" href="/favicon.svg" type="image/svg+xml">`) {
			t.Errorf("%s names no icon", path)
		}
	}
	res, svg := get("/favicon.svg")
	assert.Equal(t, http.StatusOK, res.StatusCode, "favicon.svg: status")
	assert.Equal(t, "image/svg+xml", res.Header.Get("Content-Type"), "favicon.svg: Content-Type")
	assert.Equal(t, "public, max-age=86400", res.Header.Get("Cache-Control"), "favicon.svg: Cache-Control")
	assert.True(t, bytes.HasPrefix(svg, []byte("<svg ")), "favicon.svg: %.80s", svg)
	res, ico := get("/favicon.ico")
	require.Equal(t, http.StatusOK, res.StatusCode, "favicon.ico: status")
	require.Equal(t, "image/x-icon", res.Header.Get("Content-Type"), "favicon.ico: Content-Type")
	require.Equal(t, "public, max-age=86400", res.Header.Get("Cache-Control"), "favicon.ico: Cache-Control")
	require.LessOrEqual(t, len(ico), 4096, "favicon.ico: bytes")
	// An ICO of one image: reserved 0, type 1, count 1, then the entry that locates the PNG.
	require.GreaterOrEqual(t, len(ico), 22, "favicon.ico is no ICO: bytes")
	require.Equal(t, uint16(1), binary.LittleEndian.Uint16(ico[2:]), "favicon.ico is no ICO: type (% x)", ico[:22])
	require.Equal(t, uint16(1), binary.LittleEndian.Uint16(ico[4:]), "favicon.ico is no ICO: image count (% x)", ico[:22])
	require.Equal(t, len(ico), int(binary.LittleEndian.Uint32(ico[18:]))+int(binary.LittleEndian.Uint32(ico[14:])), "favicon.ico is no ICO: its image's offset and size (% x)", ico[:22])
	img, err := png.Decode(bytes.NewReader(ico[binary.LittleEndian.Uint32(ico[18:]):]))
	require.NoError(t, err, "favicon.ico's image")
	require.Equal(t, int(ico[6]), img.Bounds().Dx(), "favicon.ico's image: width")
	require.Equal(t, int(ico[7]), img.Bounds().Dy(), "favicon.ico's image: height")
}

// The recipient token's limit of 128 is in characters, as the contract counts: a token of 128
// two-byte characters opens the recipient's page, one of 129 the public one.
func TestRecipientTokenLengthCountsCharacters(t *testing.T) {
	t.Parallel()
	s := newIssuing(t)
	c := s.issue(t, "Ada", "Lovelace", nil)
	for _, tc := range []struct {
		token     string
		recipient bool
	}{{strings.Repeat("é", 128), true}, {strings.Repeat("é", 129), false}} {
		hash := sha256.Sum256([]byte(tc.token))
		if err := s.env.Store.SetRecipientToken(t.Context(), uuid.MustParse(c.Data.ID), hash[:]); err != nil {
			t.Fatal(err)
		}
		res := s.env.Client.Get("/verify/" + c.Data.VerificationCode + "?t=" + url.QueryEscape(tc.token))
		got := strings.Contains(string(res.Body), "This is your certificate, Ada.")
		assert.Equal(t, http.StatusOK, res.StatusCode, "token of %d characters: status", len([]rune(tc.token)))
		assert.Equal(t, tc.recipient, got, "token of %d characters: the recipient's page", len([]rune(tc.token)))
	}
}

// A real browser opens a badge's page at a phone's size and a desktop's: the badge's image
// loads, nothing fails or is blocked, nothing overflows, and every link and button answers.
// UPDATE_SCREENSHOTS=1 writes docs/verify-badge.png (desktop) and docs/verify-badge-phone.png;
// SCREENSHOT_DIR=dir writes both there.
func TestBadgePageInABrowser(t *testing.T) {
	chrome := browser.Binary(t)
	clock := &testkit.Clock{} // the date of the screenshots in docs/
	clock.Stop()
	clock.Advance(time.Date(2026, time.November, 13, 10, 0, 0, 0, time.UTC).Sub(clock.Now()))
	env := testkit.NewServer(t, testkit.WithClock(clock.Now))
	acct := testkit.SignUp(t, env)
	b := badging{env: env, acct: acct, event: acct.Event(t, env, "Go Conference")}
	logo := "data:image/svg+xml;base64," + base64.StdEncoding.EncodeToString([]byte(sampleLogo))
	if res := b.acct.Client.Put("/api/v1/branding", map[string]any{"issuerName": "Gophers e.V.", "website": "https://gophers.example.org",
		"logo": logo, "primaryColor": "#1F2A44"}); res.StatusCode != 200 {
		t.Fatalf("branding: %d %s", res.StatusCode, res.Body)
	}
	code := issueBadge(t, b)

	browserCtx := startBrowser(t, chrome)
	for _, vp := range []struct {
		name          string
		width, height int64
		mobile        bool
		file          string
	}{{"phone", 390, 844, true, "verify-badge-phone.png"}, {"desktop", 1280, 900, false, "verify-badge.png"}} {
		t.Run(vp.name, func(t *testing.T) {
			seen, problems, shot := loadInBrowser(t, browserCtx, b.env.URL+"/verify/"+code, vp.width, vp.height, vp.mobile, axeSource(t))
			if len(problems) > 0 {
				t.Errorf("the browser reported:\n  %s", strings.Join(problems, "\n  "))
			}
			assert.Equal(t, "This badge is valid", seen.Status, "seen.Status")
			assert.Equal(t, "Speaker", seen.Name, "seen.Name")
			assert.Equal(t, "Ada Lovelace", seen.Recipient, "seen.Recipient")
			assert.Equal(t, "Gophers e.V.", seen.Issuer, "seen.Issuer")
			assert.True(t, seen.PreviewLoaded, "images not loaded: seen.PreviewLoaded")
			assert.True(t, seen.LogoLoaded, "images not loaded: seen.LogoLoaded")
			assert.False(t, seen.Overflow, "seen.Overflow")
			assert.Empty(t, seen.Violations, "CSP violations")
			assert.True(t, seen.CopyButton, "seen.CopyButton")
			if dir := os.Getenv("SCREENSHOT_DIR"); dir != "" {
				if err := os.WriteFile(filepath.Join(dir, vp.file), shot, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if os.Getenv("UPDATE_SCREENSHOTS") == "1" {
				if err := os.WriteFile(filepath.Join(coverage.ModuleRoot(), "docs", vp.file), shot, 0o644); err != nil {
					t.Fatal(err)
				}
			}
		})
	}
	// What the browser was given to follow, answered by the server.
	page := string(b.env.Client.Get("/verify/" + code).Body)
	checkPageLinks(t, b.env, page)
}
