package httpapi_test

import (
	"context"
	"encoding/base64"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"

	"github.com/certhub/credentiald/internal/testkit"
	"github.com/certhub/credentiald/internal/testkit/browser"
	"github.com/certhub/credentiald/internal/testkit/coverage"
)

// seenWalletPage is what a visitor of the wallet page sees.
type seenWalletPage struct {
	Heading    string   `json:"heading"`
	What       string   `json:"what"`
	Links      []string `json:"links"`
	QRModules  int      `json:"qrModules"`
	QRWidth    float64  `json:"qrWidth"`
	Overflow   bool     `json:"overflow"`
	Violations []string `json:"violations"`
}

const readWalletPage = `(() => ({
  heading: document.querySelector(".wallet h1")?.textContent.trim() ?? "",
  what: document.querySelector(".wallet-what")?.textContent.trim() ?? "",
  links: [...document.querySelectorAll(".wallet-actions a")].map((a) => a.textContent.trim() + " " + a.getAttribute("href")),
  qrModules: (document.querySelector(".wallet-qr svg path")?.getAttribute("d") ?? "").split("M").length - 1,
  qrWidth: document.querySelector(".wallet-qr svg")?.getBoundingClientRect().width ?? 0,
  overflow: document.documentElement.scrollWidth > window.innerWidth,
  violations: window.__cspViolations,
}))()`

// A recipient opens their wallet link at a phone's size and a desktop's: the page says what
// is offered and by whom, shows both wallet links and a QR code big enough to scan, nothing
// overflows, fails or breaks the page's policy. UPDATE_SCREENSHOTS=1 writes
// docs/wallet-offer-phone.png and docs/wallet-offer.png (shown in the README).
func TestTheWalletPageInABrowser(t *testing.T) {
	chrome := browser.Binary(t)
	clock := &testkit.Clock{}
	clock.Stop()
	clock.Advance(time.Date(2026, time.November, 13, 10, 0, 0, 0, time.UTC).Sub(clock.Now()))
	s := newIssuing(t, testkit.WithClock(clock.Now))
	logo := "data:image/svg+xml;base64," + base64.StdEncoding.EncodeToString([]byte(sampleLogo))
	if res := s.acct.Client.Put("/api/v1/branding", map[string]any{"issuerName": "Gophers e.V.", "website": "https://gophers.example.org",
		"logo": logo, "primaryColor": "#1F2A44"}); res.StatusCode != 200 {
		t.Fatalf("branding: %d %s", res.StatusCode, res.Body)
	}
	cert := s.issue(t, "Ada", "Lovelace", nil)
	res := s.acct.Client.Post("/api/v1/certificates/"+cert.Data.ID+"/wallet-offers", nil)
	var o walletOfferBody
	res.JSON(t, &o)
	pagePath := o.Data.InteractionURL[strings.Index(o.Data.InteractionURL, "/interactions/"):]

	browserCtx := startBrowser(t, chrome)
	for _, vp := range []struct {
		name          string
		width, height int64
		mobile        bool
		file          string
	}{{"phone", 390, 844, true, "wallet-offer-phone.png"}, {"desktop", 1280, 900, false, "wallet-offer.png"}} {
		t.Run(vp.name, func(t *testing.T) {
			var mu sync.Mutex
			var problems []string
			tab, cancel := chromedp.NewContext(browserCtx, chromedp.WithListener(func(ev any) {
				mu.Lock()
				defer mu.Unlock()
				switch ev := ev.(type) {
				case *log.EventEntryAdded:
					if ev.Entry.Level == log.EntryLevelError || ev.Entry.Level == log.EntryLevelWarning {
						problems = append(problems, ev.Entry.Text+" "+ev.Entry.URL)
					}
				case *network.EventLoadingFailed:
					problems = append(problems, "loading failed: "+ev.ErrorText)
				}
			}))
			defer cancel()
			ctx, cancelTimeout := context.WithTimeout(tab, 60*time.Second)
			defer cancelTimeout()
			opts := []chromedp.EmulateViewportOption{chromedp.EmulateScale(1)}
			if vp.mobile {
				opts = []chromedp.EmulateViewportOption{chromedp.EmulateScale(2), chromedp.EmulateMobile}
			}
			err := chromedp.Do(ctx,
				chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
					_, err := cdp.Call(ctx, tg, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: watchCSP})
					return err
				}),
				chromedp.EmulateViewport(vp.width, vp.height, opts...),
				chromedp.Navigate(s.env.URL+pagePath),
				chromedp.WaitVisible(chromedp.CSS(".wallet h1")),
			)
			var seen seenWalletPage
			if err == nil {
				seen, err = chromedp.Run(ctx, chromedp.Evaluate[seenWalletPage](readWalletPage))
			}
			var shot []byte
			if err == nil {
				shot, err = chromedp.Run(ctx, chromedp.FullScreenshot(100))
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(problems) > 0 {
				t.Errorf("the browser reported: %v", problems)
			}
			assert.Equal(t, "Add your certificate to your wallet", seen.Heading, "the page's heading")
			assert.Contains(t, seen.What, "Ada Lovelace", "what the page offers")
			assert.Len(t, seen.Links, 2, "wallet links")
			assert.Equal(t, "Open in your wallet "+o.Data.WalletURL, seen.Links[0], "wallet links: seen.Links[0]")
			assert.True(t, strings.HasPrefix(seen.Links[1], "Open in Learner Credential Wallet https://lcw.app/request?request="), "wallet links: %q should start with %q", seen.Links[1], "Open in Learner Credential Wallet https://lcw.app/request?request=")
			// A code of a ~100-character URL has a few hundred dark modules; at 160 CSS px
			// and more, a phone's camera reads it off a screen.
			assert.GreaterOrEqual(t, seen.QRModules, 200, "QR code: modules")
			assert.GreaterOrEqual(t, seen.QRWidth, float64(160), "QR code: px wide")
			assert.False(t, seen.Overflow, "seen.Overflow")
			assert.Empty(t, seen.Violations, "CSP violations")
			if os.Getenv("UPDATE_SCREENSHOTS") == "1" {
				if err := os.WriteFile(filepath.Join(coverage.ModuleRoot(), "docs", vp.file), shot, 0o644); err != nil {
					t.Fatal(err)
				}
			}
		})
	}
}
