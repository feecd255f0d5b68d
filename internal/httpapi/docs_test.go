package httpapi_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/certhub/credentiald/internal/spec"
	"github.com/certhub/credentiald/internal/testkit"
	"github.com/certhub/credentiald/internal/testkit/browser"
)

// /docs is the API reference, rendered in a real browser from the document: every operation
// of the contract is on the page, and the page asks nothing of another host and breaks no
// rule of its Content-Security-Policy.
func TestDocsShowEveryOperationInABrowser(t *testing.T) {
	t.Parallel()
	env := testkit.NewServer(t)
	if res := env.Client.Get("/docs"); res.StatusCode != 200 {
		t.Fatalf("/docs: %d", res.StatusCode)
	}
	doc := spec.MustLoad()
	var want []string
	for _, item := range doc.Paths.Map() {
		for _, op := range item.Operations() {
			want = append(want, op.OperationID)
		}
	}
	page := browser.Open(t, 1280, 900)
	page.Do(t, chromedp.Navigate(env.URL+"/docs"), chromedp.WaitVisible(chromedp.CSS(`[id*="operation/"]`)), chromedp.Sleep(200*time.Millisecond))
	found := browser.Value(t, page, chromedp.Evaluate[[]string](
		`Array.from(document.querySelectorAll('[id*="operation/"]')).map(e => e.id.split('operation/').pop())`))
	for _, id := range want {
		if !slices.Contains(found, id) {
			t.Errorf("operation %s is not on the page", id)
		}
	}
	if f := page.Foreign(env.URL); len(f) > 0 {
		t.Errorf("the page requested other hosts: %s", strings.Join(f, ", "))
	}
	if p := page.Problems(); len(p) > 0 {
		t.Errorf("the page reported: %s", strings.Join(p, "; "))
	}
}
