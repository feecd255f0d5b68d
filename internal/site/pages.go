package site

import (
	"bytes"
	"context"
	"crypto/sha256"
	"embed"
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"html/template"
	"image/png"
	"math"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/a-h/templ"
	"github.com/labstack/echo/v4"

	"github.com/certhub/credentiald/internal/links"
	"github.com/certhub/credentiald/internal/locale"
	"github.com/certhub/credentiald/internal/verification"
)

// The human pages (the verification page, the home page, their error pages) are rendered
// from templ components compiled into the binary (the *.templ files beside this one). They load nothing from another host: the style and
// the one small script are inline, allowed by their hashes in a strict Content-Security-Policy;
// images come from this site. The page works without the script, which only adds a copy button
// and removes the recipient token from the address bar.

//go:embed pages/page.css pages/copy.js pages/favicon.svg pages/favicon.png
var pageFiles embed.FS

const serviceName = "credentiald"

// defaultAccent is the accent of an issuer without a primary colour.
const defaultAccent = "#3538cd"

type pageRenderer struct {
	// sheet is the site's style sheet, served at sheetPath (its hash in the name, so a
	// browser keeps it for a year and a release changes the name).
	sheet      []byte
	sheetPath  string
	script     string
	scriptHash string
	// The site's icon: favicon.svg for the pages' <link rel="icon">, favicon.ico for whatever
	// asks the conventional path (older browsers, feed readers, link unfurlers).
	faviconSVG, faviconICO []byte
	// styles keeps each accent's style with its hash (styled), at most maxStyles.
	styles  sync.Map
	nStyles atomic.Int32
	// buffers are the pages' output buffers, reused.
	buffers sync.Pool
}

// styled is a page's inline style for one accent, with the hash its Content-Security-Policy
// names.
type styled struct{ css, hash string }

// maxStyles bounds the accents whose styles are kept: one per issuer colour in use; past it,
// a style is made for each page.
const maxStyles = 4096

// styleFor is the inline style of accent with its hash, made once per accent.
func (r *pageRenderer) styleFor(accent string) styled {
	if v, ok := r.styles.Load(accent); ok {
		return v.(styled)
	}
	css := r.style(accent)
	st := styled{css: css, hash: cspHash(css)}
	if r.nStyles.Load() < maxStyles {
		if _, loaded := r.styles.LoadOrStore(accent, st); !loaded {
			r.nStyles.Add(1)
		}
	}
	return st
}

func newPageRenderer() (*pageRenderer, error) {
	css, err := pageFiles.ReadFile("pages/page.css")
	if err != nil {
		return nil, err
	}
	script, err := pageFiles.ReadFile("pages/copy.js")
	if err != nil {
		return nil, err
	}
	svg, err := pageFiles.ReadFile("pages/favicon.svg")
	if err != nil {
		return nil, err
	}
	icon, err := pageFiles.ReadFile("pages/favicon.png")
	if err != nil {
		return nil, err
	}
	ico, err := icoOf(icon)
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256(css)
	return &pageRenderer{sheet: css, sheetPath: "/assets/" + sheetName(sum[:]), script: string(script), scriptHash: cspHash(string(script)),
		faviconSVG: svg, faviconICO: ico}, nil
}

// icoOf wraps a PNG in an ICO file of one image, which every browser since 2007 reads: a
// 6-byte header, one 16-byte directory entry, then the PNG as it is.
func icoOf(pngData []byte) ([]byte, error) {
	cfg, err := png.DecodeConfig(bytes.NewReader(pngData))
	if err != nil || cfg.Width > 256 || cfg.Height > 256 {
		return nil, fmt.Errorf("favicon: not a PNG of at most 256x256 (%v)", err)
	}
	const headerLen = 6 + 16
	ico := make([]byte, headerLen, headerLen+len(pngData))
	binary.LittleEndian.PutUint16(ico[2:], 1)                  // type: icon
	binary.LittleEndian.PutUint16(ico[4:], 1)                  // one image
	ico[6], ico[7] = byte(cfg.Width%256), byte(cfg.Height%256) // 0 stands for 256
	binary.LittleEndian.PutUint16(ico[10:], 1)                 // colour planes
	binary.LittleEndian.PutUint16(ico[12:], 32)                // bits per pixel
	binary.LittleEndian.PutUint32(ico[14:], uint32(len(pngData)))
	binary.LittleEndian.PutUint32(ico[18:], headerLen)
	return append(ico, pngData...), nil
}

func cspHash(s string) string {
	h := sha256.Sum256([]byte(s))
	return "'sha256-" + base64.StdEncoding.EncodeToString(h[:]) + "'"
}

// sheetName is the style sheet's file name, named by its content's hash.
func sheetName(sum []byte) string { return fmt.Sprintf("page.%x.css", sum[:8]) }

// style is the page's inline style: the issuer's accent as the custom properties the site's
// style sheet reads.
func (r *pageRenderer) style(accent string) string {
	a := themeFor(accent)
	return fmt.Sprintf(":root{--accent:%s;--accent-ink:%s;--accent-text:%s;--accent-soft:%s;--accent-line:%s}",
		a.accent, a.ink, a.text, a.soft, a.line)
}

// csp allows exactly this site's style sheet, the page's inline style and script, images and
// beacons to this site, and nothing else; no plugin, frame or base URL. The style sheet is
// allowed as 'self': a browser takes a style sheet only when it comes as text/css, and nothing
// else here answers text/css.
func (r *pageRenderer) csp(styleHash string, withScript bool) string {
	script := "'none'"
	if withScript {
		script = r.scriptHash
	}
	return "default-src 'none'; img-src 'self'; style-src 'self' " + styleHash + "; script-src " + script +
		"; connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'"
}

// page is the data of a page: a view that embeds pageData.
type page interface{ base() *pageData }

// render writes view, the page of data, at status, with the page's security headers. The page
// is made whole before anything is sent, so a failure still gets its error page; it is made on
// a context that a client gone does not cancel (rendering is little work).
func (r *pageRenderer) render(c echo.Context, status int, data page, view templ.Component, cacheControl string) error {
	return r.renderKept(c, status, data, view, cacheControl, nil, "")
}

// renderKept is render that also keeps the page as sent in kept under key, when kept is not
// nil. A client that takes gzip gets it compressed.
func (r *pageRenderer) renderKept(c echo.Context, status int, data page, view templ.Component, cacheControl string,
	kept *keptPages, key string) error {
	d := data.base()
	d.Service = serviceName
	st := r.styleFor(d.accent)
	d.Style, d.Sheet = st.css, r.sheetPath
	buf, _ := r.buffers.Get().(*bytes.Buffer)
	if buf == nil {
		buf = bytes.NewBuffer(make([]byte, 0, 32<<10)) // a page is some 20 KB
	}
	defer func() {
		if buf.Cap() <= 256<<10 {
			buf.Reset()
			r.buffers.Put(buf)
		}
	}()
	if err := view.Render(context.WithoutCancel(c.Request().Context()), buf); err != nil {
		return err
	}
	csp := r.csp(st.hash, d.Script != "")
	if kept == nil {
		return send(c, status, csp, cacheControl, buf.Bytes(), false)
	}
	p := keptPage{csp: csp, gz: compress(buf.Bytes())}
	kept.put(key, p)
	if acceptsGzip(acceptEncoding(c)) {
		return send(c, status, csp, cacheControl, p.gz, true)
	}
	return send(c, status, csp, cacheControl, buf.Bytes(), false)
}

// sendKept writes a page kept: as it was kept to a client that takes gzip, inflated again for
// another.
func sendKept(c echo.Context, status int, p keptPage, cacheControl string) error {
	if acceptsGzip(acceptEncoding(c)) {
		return send(c, status, p.csp, cacheControl, p.gz, true)
	}
	html, err := decompress(p.gz)
	if err != nil {
		return err
	}
	return send(c, status, p.csp, cacheControl, html, false)
}

// acceptEncoding is the request's Accept-Encoding, its lines joined as one list.
func acceptEncoding(c echo.Context) string {
	return strings.Join(c.Request().Header.Values(echo.HeaderAcceptEncoding), ",")
}

// send writes a page's body with the page's headers; gzipped says the body is compressed. A
// page that may be kept varies by Accept-Encoding, compressed or not.
func send(c echo.Context, status int, csp, cacheControl string, body []byte, gzipped bool) error {
	h := c.Response().Header()
	h.Set(echo.HeaderContentLength, strconv.Itoa(len(body))) // one write, not chunks
	h.Set("Content-Security-Policy", csp)
	h.Set("Cache-Control", cacheControl)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "same-origin")
	if gzipped {
		h.Set(echo.HeaderContentEncoding, "gzip")
	}
	return c.HTMLBlob(status, body)
}

// pageData is what every page reads. Style and Script are the site's own, written as they are
// (the Content-Security-Policy names their hashes); Sheet is the path of the site's style sheet.
type pageData struct {
	Service string
	Sheet   string
	Style   string
	Script  string
	// L is the page's language; Langs, when set, is its language switcher.
	L      lang
	Langs  []langLink
	accent string
}

func (d *pageData) base() *pageData { return d }

// verificationView is the verification page of one credential (verify.templ).
type verificationView struct {
	pageData
	Status             verification.Status
	Kind               verification.Kind
	Name, Number, Code string
	Description        *string
	// Tx are the page's fixed texts in its language, for its kind of credential.
	Tx                             *verifyTexts
	Title, ShareTitle, Summary     string
	Headline, StatusLabel          string
	StatusMessage                  string
	ReasonLabel, Reason            string
	KindLabel, KindLower           string
	Recipient, RecipientFirst      string
	IssuerName, IssuerURL, LogoURL string
	Monogram                       string
	IssuedOn, ExpiresOn, RevokedOn string
	IssuedISO, ExpiresISO          string
	RevokedISO, EventWhen          string
	PageURL, ImageURL, PreviewURL  string
	PreviewAlt, Caption            string
	CopyBeacon, TwitterCard        string
	// The signed forms of the credential (credential.json, credential.jwt).
	CredentialJSONURL, CredentialJWTURL string
	PreviewWidth, PreviewHeight         int
	Portal                              bool
	// Wallet, on the recipient's page of a valid credential, offers it to their wallet.
	Wallet    *walletCard
	Downloads []downloadLink
	Shares    []shareLink
}

// downloadLink is a button of the page's download row; the first is the primary one.
// Filename, when set, names the saved file (the answer itself names none).
type downloadLink struct {
	Label, Href, Type, Filename string
}

// shareLink is a share button; on a phone only its Label shows (Prefix stays for screen readers).
type shareLink struct {
	Network, Prefix, Label, Href string
	Icon                         template.HTML
}

// reasonIDs are the catalog's texts of the revocation reasons, by code.
var reasonIDs = map[string]string{"issued_in_error": "page.reason.issuedInError", "superseded": "page.reason.superseded",
	"fraud": "page.reason.fraud", "other": "page.reason.byIssuer", "deleted_by_issuer": "page.reason.deletedByIssuer",
	"erased": "page.reason.erased"}

// verifyTexts are the verification page's texts without fields, in one language for one kind
// of credential: made once (verifyTextsFor) and read by the page as fields, where each text
// looked up in the catalog for each page was a large share of the page's making.
type verifyTexts struct {
	Skip, Yours, PortalText, Signed, Share                                           string
	Stamp, AwardedTo, IssuedBy, IssuedOn, RevokedOn, ExpiredOn, ValidUntil, NoExpiry string
	Event, Number, Code, SignedJSON                                                  string
	WalletTitle, WalletText, OpenWallet, OpenLCW, ScanQR                             string
	ShareText, LinkLabel, CopyLink                                                   string
}

// verifyTextsMade keeps verifyTexts by language and kind ("en badge"): ten languages, two kinds.
var verifyTextsMade sync.Map

// verifyTextsFor are the fixed texts of a page of kind (certificate or badge) in l.
func verifyTextsFor(l lang, kind string) *verifyTexts {
	key := string(l) + " " + kind
	if t, ok := verifyTextsMade.Load(key); ok {
		return t.(*verifyTexts)
	}
	k := func(id string) string { return l.T("page." + kind + "." + id) }
	t := &verifyTexts{Skip: k("skip"), Yours: k("yours"), PortalText: k("portalText"), Signed: k("signed"), Share: k("share"),
		Stamp: l.T("page.stamp"), AwardedTo: l.T("page.awardedTo"), IssuedBy: l.T("page.issuedBy"), IssuedOn: l.T("page.issuedOn"),
		RevokedOn: l.T("page.revokedOn"), ExpiredOn: l.T("page.expiredOn"), ValidUntil: l.T("page.validUntil"),
		NoExpiry: l.T("page.noExpiry"), Event: l.T("page.event"), Number: l.T("page.number"), Code: l.T("page.code"),
		SignedJSON: l.T("page.signedJSON"), WalletTitle: l.T("page.walletTitle"), WalletText: l.T("page.walletText"),
		OpenWallet: l.T("page.openWallet"), OpenLCW: l.T("page.openLCW"), ScanQR: l.T("page.scanQR"),
		ShareText: l.T("page.shareText"), LinkLabel: l.T("page.linkLabel"), CopyLink: l.T("page.copyLink")}
	verifyTextsMade.Store(key, t)
	return t
}

// shareLabels are a share button's prefix (a catalog id, or "") and the network's own name.
var shareLabels = map[string][2]string{"linkedin": {"page.shareAddTo", "LinkedIn"}, "x": {"page.sharePostOn", "X"}, "facebook": {"", "Facebook"}, "email": {"", "page.shareEmail"}}

// day is t's UTC day as the page's language writes it.
func (l lang) day(t time.Time) string { return locale.LongDate(t, string(l)) }

// newVerificationView builds what the page shows; paths to this site's resources are relative,
// so the page loads them from wherever it was served, while the tags that leave the site
// (OpenGraph, canonical, share targets) carry absolute URLs.
func (s *Site) newVerificationView(p verification.Page, l lang) verificationView {
	c := p.Credential
	v := verificationView{Status: c.Status, Kind: c.Kind, Name: c.Name, Number: c.Number, Code: c.Code, Description: c.Description,
		Portal: p.Recipient(), Recipient: c.RecipientName, IssuerName: c.Issuer.Name}
	v.accent, v.L = c.Issuer.Color, l
	v.Script = s.pages.script
	v.KindLower = "certificate" // names the kind's texts (page.certificate.*) and CSS classes
	if c.Kind == verification.KindBadge {
		v.KindLower = "badge"
	}
	v.Tx = verifyTextsFor(l, v.KindLower)
	k := func(id string, kv ...any) string { return l.T("page."+v.KindLower+"."+id, kv...) }
	v.KindLabel = k("kind")
	v.RecipientFirst = c.RecipientFirstName
	if c.Issuer.Website != nil {
		v.IssuerURL = *c.Issuer.Website
	}
	// The assets the page loads and offers are its own: on the recipient's page they carry the
	// recipient's token, as the page's address did, so that the browser's loads count against
	// the credential's rate limit rather than the address's (a venue's Wi-Fi). The share card
	// (og:image) goes to the networks, and never carries it.
	asset := func(name string) string { return links.VerificationAssetPath(c.Code, name) }
	if p.Recipient() {
		asset = func(name string) string {
			return links.VerificationAssetPath(c.Code, name) + "?t=" + url.QueryEscape(p.Token)
		}
	}
	if c.Issuer.HasLogo {
		v.LogoURL = asset("issuer-logo")
	}
	v.Monogram = monogram(c.Issuer.Name)
	v.PageURL = s.links.Verification(c.Code)
	v.ImageURL = s.verification.ShareCardURL(c) // og:image: the 1200x630 share card, for any credential
	v.PreviewAlt = k("previewAlt", "Name", c.Name, "Recipient", c.RecipientName, "Issuer", c.Issuer.Name)
	v.CopyBeacon = links.VerificationShare(c.Code, "copy")
	v.CredentialJSONURL, v.CredentialJWTURL = asset("credential.json"), asset("credential.jwt")
	if c.Kind == verification.KindBadge {
		// A badge has no rendered page and no PDF: its image is the baked PNG (square), and
		// what a recipient keeps is that image, as PNG or SVG, and the signed credential.
		v.PreviewURL, v.PreviewWidth, v.PreviewHeight = asset("badge.png"), 600, 600
		v.Caption, v.TwitterCard = k("caption"), "summary_large_image" // the share card is wide
		file := fileName(c.Name, "badge")
		v.Downloads = []downloadLink{
			{Label: l.T("page.downloadPNG"), Href: asset("badge.png"), Type: "image/png", Filename: file + ".png"},
			{Label: l.T("page.svgVersion"), Href: asset("badge.svg"), Type: "image/svg+xml", Filename: file + ".svg"},
			{Label: l.T("page.signedCredential"), Href: v.CredentialJSONURL, Type: "application/vc", Filename: file + ".credential.json"},
		}
	} else {
		v.PreviewURL, v.PreviewWidth, v.PreviewHeight = asset("preview.png"), 1754, 1240
		v.Caption, v.TwitterCard = k("caption", "Number", c.Number), "summary_large_image"
		v.Downloads = []downloadLink{{Label: l.T("page.downloadPDF"), Href: asset("certificate.pdf"), Type: "application/pdf"}}
	}
	v.IssuedOn, v.IssuedISO = l.day(c.IssuedAt), c.IssuedAt.Format(time.RFC3339)
	if c.ExpiresAt != nil {
		v.ExpiresOn, v.ExpiresISO = l.day(*c.ExpiresAt), c.ExpiresAt.Format(time.RFC3339)
	}
	if c.RevokedAt != nil {
		v.RevokedOn, v.RevokedISO = l.day(*c.RevokedAt), c.RevokedAt.Format(time.RFC3339)
	}
	if c.EventDate != nil {
		v.EventWhen = l.day(*c.EventDate)
		if c.EventLocation != "" {
			v.EventWhen = l.T("page.eventWhen", "Date", v.EventWhen, "Location", c.EventLocation)
		}
	}
	switch c.Status {
	case verification.Valid:
		v.StatusLabel, v.Headline = l.T("page.statusValid"), k("headlineValid")
		v.StatusMessage = l.T("page.messageValid", "Issuer", c.Issuer.Name, "Recipient", c.RecipientName, "Date", v.IssuedOn)
		if v.ExpiresOn != "" {
			v.StatusMessage += l.T("page.messageValidUntil", "Date", v.ExpiresOn)
		}
	case verification.Expired:
		v.StatusLabel, v.Headline = l.T("page.statusExpired"), k("headlineExpired")
		v.StatusMessage = l.T("page.messageExpired", "Issuer", c.Issuer.Name, "Recipient", c.RecipientName, "Date", v.IssuedOn, "Until", v.ExpiresOn)
	case verification.Revoked:
		v.StatusLabel, v.Headline = l.T("page.statusRevoked"), k("headlineRevoked")
		v.StatusMessage = l.T("page.messageRevoked", "Issuer", c.Issuer.Name, "Date", v.RevokedOn)
		v.ReasonLabel = l.T(reasonIDs["other"])
		if c.ReasonCode != nil && reasonIDs[*c.ReasonCode] != "" {
			v.ReasonLabel = l.T(reasonIDs[*c.ReasonCode])
		}
		if c.RevocationReason != nil {
			v.Reason = *c.RevocationReason
		}
	}
	v.Title = fmt.Sprintf("%s: %s · %s", v.StatusLabel, c.Name, c.RecipientName)
	v.ShareTitle = fmt.Sprintf("%s: %s", c.RecipientName, c.Name)
	if c.Status != verification.Valid {
		v.ShareTitle = v.StatusLabel + ": " + v.ShareTitle
	}
	v.Summary = k("summary", "Name", c.Name, "Issuer", c.Issuer.Name, "Date", v.IssuedOn, "Status", strings.ToLower(v.StatusLabel))
	for _, n := range verification.Networks {
		prefix, label := shareLabels[n][0], shareLabels[n][1]
		if prefix != "" {
			prefix = l.T(prefix)
		}
		if strings.HasPrefix(label, "page.") {
			label = l.T(label)
		}
		v.Shares = append(v.Shares, shareLink{Network: n, Prefix: prefix, Label: label, Href: links.VerificationShare(c.Code, n), Icon: shareIcons[n]})
	}
	if c.Erased {
		// The holder had their data erased at their request: the page keeps the credential's
		// verification and says the name is withheld; its files are gone (410), so it offers
		// none, and shows no picture of them. The issuer's logo is the organisation's: it stays.
		v.Recipient = l.T("page.nameWithheld")
		v.Title = fmt.Sprintf("%s: %s", v.StatusLabel, c.Name)
		v.ShareTitle = v.StatusLabel + ": " + c.Name
		v.PreviewURL, v.ImageURL, v.Downloads = "", "", nil
		v.CredentialJSONURL, v.CredentialJWTURL = "", ""
	}
	return v
}

// fileName turns a credential's name into the name of a downloaded file: letters and digits
// joined by hyphens, at most 60 of them; fallback when nothing is left.
func fileName(name, fallback string) string {
	var b strings.Builder
	n, gap := 0, false
	for _, r := range strings.ToLower(name) {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			gap = true
			continue
		}
		if n == 60 {
			break
		}
		if gap && n > 0 {
			b.WriteByte('-')
		}
		b.WriteRune(r)
		n, gap = n+1, false
	}
	if n == 0 {
		return fallback
	}
	return b.String()
}

// monogram is the initial shown in place of a logo.
func monogram(name string) string {
	r, _ := utf8.DecodeRuneInString(strings.TrimSpace(name))
	if r == utf8.RuneError {
		return "?"
	}
	return strings.ToUpper(string(r))
}

var shareIcons = map[string]template.HTML{
	"linkedin": `<svg viewBox="0 0 24 24" fill="currentColor" aria-hidden="true" focusable="false"><path d="M20.4 2H3.6A1.6 1.6 0 0 0 2 3.6v16.8A1.6 1.6 0 0 0 3.6 22h16.8a1.6 1.6 0 0 0 1.6-1.6V3.6A1.6 1.6 0 0 0 20.4 2zM8 19H5V9.5h3zM6.5 8.2a1.7 1.7 0 1 1 0-3.5 1.7 1.7 0 0 1 0 3.5zM19 19h-3v-4.6c0-1.1 0-2.5-1.5-2.5s-1.8 1.2-1.8 2.4V19h-3V9.5h2.9v1.3a3.2 3.2 0 0 1 2.8-1.6c3 0 3.6 2 3.6 4.6z"/></svg>`,
	"x":        `<svg viewBox="0 0 24 24" fill="currentColor" aria-hidden="true" focusable="false"><path d="M17.8 3h3.1l-6.8 7.7L22 21h-6.2l-4.9-6.3L5.3 21H2.2l7.2-8.3L1.8 3h6.4l4.4 5.8zm-1.1 16.2h1.7L7.2 4.7H5.4z"/></svg>`,
	"facebook": `<svg viewBox="0 0 24 24" fill="currentColor" aria-hidden="true" focusable="false"><path d="M22 12a10 10 0 1 0-11.6 9.9v-7H7.9V12h2.5V9.8c0-2.5 1.5-3.9 3.8-3.9 1.1 0 2.2.2 2.2.2v2.5h-1.3c-1.2 0-1.6.8-1.6 1.6V12h2.8l-.4 2.9h-2.3v7A10 10 0 0 0 22 12z"/></svg>`,
	"email":    `<svg viewBox="0 0 24 24" fill="none" stroke="currentColor" stroke-width="2" stroke-linecap="round" stroke-linejoin="round" aria-hidden="true" focusable="false"><rect x="2.5" y="4.5" width="19" height="15" rx="2"/><path d="M3 6l9 7 9-7"/></svg>`,
}

// theme is an issuer's accent and what reads well with it: text on the accent, and the accent
// darkened where it is text on white (WCAG AA asks 4.5:1).
type theme struct{ accent, ink, text, soft, line string }

func themeFor(hex string) theme {
	rgb, ok := parseHex(hex)
	if !ok {
		rgb, _ = parseHex(defaultAccent)
	}
	t := theme{accent: toHex(rgb), ink: "#ffffff"}
	if contrast(rgb, [3]float64{255, 255, 255}) < 4.5 {
		t.ink = "#111827"
	}
	text := rgb
	for i := 0; i < 20 && contrast(text, [3]float64{255, 255, 255}) < 4.5; i++ {
		for k := range text {
			text[k] *= 0.88
		}
	}
	t.text = toHex(text)
	mix := func(f float64) string {
		var m [3]float64
		for k := range rgb {
			m[k] = 255 - (255-rgb[k])*f
		}
		return toHex(m)
	}
	t.soft, t.line = mix(0.08), mix(0.3)
	return t
}

func parseHex(s string) ([3]float64, bool) {
	var rgb [3]float64
	if len(s) != 7 || s[0] != '#' {
		return rgb, false
	}
	for i := range 3 {
		v, err := strconv.ParseUint(s[1+2*i:3+2*i], 16, 8)
		if err != nil {
			return rgb, false
		}
		rgb[i] = float64(v)
	}
	return rgb, true
}

func toHex(rgb [3]float64) string {
	return fmt.Sprintf("#%02x%02x%02x", int(math.Round(rgb[0])), int(math.Round(rgb[1])), int(math.Round(rgb[2])))
}

func luminance(rgb [3]float64) float64 {
	var l [3]float64
	for i, c := range rgb {
		c /= 255
		if c <= 0.04045 {
			l[i] = c / 12.92
		} else {
			l[i] = math.Pow((c+0.055)/1.055, 2.4)
		}
	}
	return 0.2126*l[0] + 0.7152*l[1] + 0.0722*l[2]
}

func contrast(a, b [3]float64) float64 {
	la, lb := luminance(a), luminance(b)
	if la < lb {
		la, lb = lb, la
	}
	return (la + 0.05) / (lb + 0.05)
}

// homeView is the home page, with the code typed and what is wrong with it.
type homeView struct {
	pageData
	Code, Error string
	// KeepLang: the page was asked for in a language by ?lang=, which the lookup keeps.
	KeepLang bool
}

// errorView is an error page.
type errorView struct {
	pageData
	Title, Message, RequestID string
	Lookup                    bool
}
