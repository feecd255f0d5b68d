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
	if res.StatusCode != http.StatusOK || len(issued.Data) != 1 {
		t.Fatalf("issue: %d %s", res.StatusCode, res.Body)
	}
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
			if res := env.Client.Get(link); res.StatusCode != http.StatusFound || res.Header.Get("Location") == "" {
				t.Errorf("%s: %d", link, res.StatusCode)
			}
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
		if m == nil || (path != "" && m[1] != path) {
			t.Fatalf("%s links no style sheet, or another one than %q (%v)", page, path, m)
		}
		path = m[1]
	}
	res := env.Client.Get(path)
	if res.StatusCode != http.StatusOK || res.Header.Get("Cache-Control") != "public, max-age=31536000, immutable" ||
		res.Header.Get("X-Content-Type-Options") != "nosniff" || !bytes.Contains(res.Body, []byte("var(--accent)")) ||
		res.Header.Get("Content-Length") != strconv.Itoa(len(res.Body)) {
		t.Fatalf("%s: %d %v %.80s", path, res.StatusCode, res.Header, res.Body)
	}
	// A page of another release names its own sheet: it gets this one, not to be kept.
	old := env.Client.Get("/assets/page.0123456789abcdef.css")
	if old.StatusCode != http.StatusOK || old.Header.Get("Cache-Control") != "no-cache" || !bytes.Equal(old.Body, res.Body) {
		t.Errorf("another release's sheet: %d %v", old.StatusCode, old.Header)
	}
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
	if res.StatusCode != http.StatusOK || res.Header.Get("Content-Type") != "image/svg+xml" ||
		res.Header.Get("Cache-Control") != "public, max-age=86400" || !bytes.HasPrefix(svg, []byte("<svg ")) {
		t.Errorf("favicon.svg: %d %v %.80s", res.StatusCode, res.Header, svg)
	}
	res, ico := get("/favicon.ico")
	if res.StatusCode != http.StatusOK || res.Header.Get("Content-Type") != "image/x-icon" ||
		res.Header.Get("Cache-Control") != "public, max-age=86400" || len(ico) > 4096 {
		t.Fatalf("favicon.ico: %d %v, %d bytes", res.StatusCode, res.Header, len(ico))
	}
	// An ICO of one image: reserved 0, type 1, count 1, then the entry that locates the PNG.
	if len(ico) < 22 || binary.LittleEndian.Uint16(ico[2:]) != 1 || binary.LittleEndian.Uint16(ico[4:]) != 1 ||
		int(binary.LittleEndian.Uint32(ico[18:]))+int(binary.LittleEndian.Uint32(ico[14:])) != len(ico) {
		t.Fatalf("favicon.ico is no ICO: % x", ico[:min(len(ico), 22)])
	}
	img, err := png.Decode(bytes.NewReader(ico[binary.LittleEndian.Uint32(ico[18:]):]))
	if err != nil || img.Bounds().Dx() != int(ico[6]) || img.Bounds().Dy() != int(ico[7]) {
		t.Fatalf("favicon.ico's image: %v", err)
	}
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
		if got := strings.Contains(string(res.Body), "This is your certificate, Ada."); res.StatusCode != http.StatusOK || got != tc.recipient {
			t.Errorf("token of %d characters: %d, recipient's page %v", len([]rune(tc.token)), res.StatusCode, got)
		}
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
			seen, problems, shot := loadInBrowser(t, browserCtx, b.env.URL+"/verify/"+code, vp.width, vp.height, vp.mobile)
			if len(problems) > 0 {
				t.Errorf("the browser reported:\n  %s", strings.Join(problems, "\n  "))
			}
			if seen.Status != "This badge is valid" || seen.Name != "Speaker" || seen.Recipient != "Ada Lovelace" || seen.Issuer != "Gophers e.V." {
				t.Errorf("the page shows %+v", seen)
			}
			if !seen.PreviewLoaded || !seen.LogoLoaded {
				t.Errorf("images not loaded: badge %v, logo %v", seen.PreviewLoaded, seen.LogoLoaded)
			}
			if seen.Overflow || len(seen.Violations) > 0 || !seen.CopyButton {
				t.Errorf("overflow %v, CSP violations %v, copy button %v", seen.Overflow, seen.Violations, seen.CopyButton)
			}
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
