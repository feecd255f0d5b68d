// Package browser drives a real headless Chromium (Debian's package) through chromedp, for
// tests of what a person sees: pages load, show what they should, and request nothing from
// another host.
package browser

import (
	"context"
	"net/url"
	"os"
	"os/exec"
	"sync"
	"testing"
	"time"

	cdplog "github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// Binary returns the Chromium to drive: $CHROMIUM_PATH, or Debian's chromium on the PATH.
// Without one the test is skipped, except with CI=true, where it fails: CI installs Chromium.
func Binary(t testing.TB) string {
	t.Helper()
	if p := os.Getenv("CHROMIUM_PATH"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome-stable", "google-chrome", "headless-shell"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") == "true" {
		t.Fatal("no Chromium found, and CI=true: browser tests must run in CI (.ci/run installs Debian's chromium)")
	}
	t.Skip("no Chromium found: install Debian's chromium (apt-get install chromium) or set CHROMIUM_PATH")
	return ""
}

// Page is one browser tab and what it observed.
type Page struct {
	Ctx context.Context

	mu       sync.Mutex
	requests []string // every URL the page requested
	console  []string // console errors, exceptions, failed and blocked loads, CSP reports
}

// Open starts Chromium (see Binary) for the test, with a fresh profile, and returns a tab of
// width x height.
func Open(t testing.TB, width, height int64) *Page {
	t.Helper()
	bin := Binary(t)
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(bin), chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU, chromedp.NoFirstRun,
		chromedp.Flag("disable-background-networking", true), chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true), chromedp.UserDataDir(t.TempDir()), chromedp.WindowSize(int(width), int(height)),
	}
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelCtx := chromedp.NewContext(actx)
	ctx, cancelTimeout := context.WithTimeout(ctx, 90*time.Second)
	t.Cleanup(func() { cancelTimeout(); cancelCtx(); cancelAlloc() })
	p := &Page{Ctx: ctx}
	if err := chromedp.Listen(ctx, p.observe); err != nil {
		t.Fatalf("start Chromium: %v", err)
	}
	p.Do(t, chromedp.EmulateViewport(width, height))
	return p
}

// observe runs in the tab's message loop: it only records.
func (p *Page) observe(ev any) {
	p.mu.Lock()
	defer p.mu.Unlock()
	switch ev := ev.(type) {
	case *network.EventRequestWillBeSent:
		p.requests = append(p.requests, ev.Request.URL)
	case *runtime.EventConsoleAPICalled:
		if ev.Type == runtime.ConsoleAPICalledTypeError {
			p.console = append(p.console, "console.error")
		}
	case *runtime.EventExceptionThrown:
		text := ev.ExceptionDetails.Text
		if ex := ev.ExceptionDetails.Exception; ex != nil && ex.Description != "" {
			text += " " + ex.Description
		}
		p.console = append(p.console, "exception: "+text)
	case *cdplog.EventEntryAdded:
		if ev.Entry.Level == cdplog.EntryLevelError {
			p.console = append(p.console, "log: "+ev.Entry.Text)
		}
	case *network.EventLoadingFailed:
		if ev.BlockedReason != "" {
			p.console = append(p.console, "blocked: "+ev.BlockedReason.String())
		}
	}
}

// Do runs actions in the tab.
func (p *Page) Do(t testing.TB, actions ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	if err := chromedp.Do(p.Ctx, actions...); err != nil {
		t.Fatalf("browser: %v", err)
	}
}

// Value runs one action in the tab and returns its value.
func Value[T any](t testing.TB, p *Page, a chromedp.Action[T]) T {
	t.Helper()
	v, err := chromedp.Run(p.Ctx, a)
	if err != nil {
		t.Fatalf("browser: %v", err)
	}
	return v
}

// Foreign returns the requests the page made to a host other than base's.
func (p *Page) Foreign(base string) []string {
	b, _ := url.Parse(base)
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []string
	for _, r := range p.requests {
		u, err := url.Parse(r)
		if err != nil || (u.Scheme != "data" && u.Scheme != "blob" && u.Host != b.Host) {
			out = append(out, r)
		}
	}
	return out
}

// Problems returns the console errors, exceptions and blocked loads seen so far.
func (p *Page) Problems() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.console...)
}
