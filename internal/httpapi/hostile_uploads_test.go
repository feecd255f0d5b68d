package httpapi_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"image"
	"image/png"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/certhub/credentiald/internal/testkit"
	"github.com/certhub/credentiald/internal/testkit/browser"
)

// The policy every SVG answer carries.
const sandboxedSVGPolicy = "default-src 'none'; style-src 'unsafe-inline'; sandbox"

// An SVG that, should its script or its onload handler run, sets a cookie on the service's
// origin and calls the sink (SINK is replaced by its address).
const scriptedSVG = `<svg xmlns="http://www.w3.org/2000/svg" width="64" height="64" viewBox="0 0 64 64" ` +
	`onload="document.cookie='svgonload=ran; path=/'; fetch('SINK/onload', {mode: 'no-cors'})">` +
	`<circle cx="32" cy="32" r="30" fill="#1F2A44"/>` +
	`<script>document.cookie = 'svgscript=ran; path=/'; document.title = 'script ran'; fetch('SINK/script', {mode: 'no-cors'});</script>` +
	`</svg>`

// A badge image and an issuer logo that hold script, stored before uploads refused such SVGs
// (here written straight into the database), are served with a policy that runs no script
// and sandboxes the document, and with nosniff, as every SVG answer is (the QR code's too);
// opened in a real browser, neither the script nor the onload handler runs on the service's
// origin.
func TestStoredScriptInAnSVGDoesNotRun(t *testing.T) {
	t.Parallel()
	b := newBadging(t)
	badge := b.badge(t, map[string]any{"name": "Speaker"})
	_, issued := b.issue(t, b.acct.Client, badge.Data.ID, ids(b.attendee(t, "Ada")))
	code := issued.Data[0].VerificationCode

	var mu sync.Mutex
	var calls []string
	sink := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		calls = append(calls, r.URL.Path)
		mu.Unlock()
	}))
	t.Cleanup(sink.Close)
	svg := "data:image/svg+xml;base64," + base64.StdEncoding.EncodeToString([]byte(strings.ReplaceAll(scriptedSVG, "SINK", sink.URL)))
	testkit.SQL(t, b.env, `UPDATE badges SET image = $1 WHERE id = $2`, svg, badge.Data.ID)
	testkit.SQL(t, b.env, `INSERT INTO branding (account_id, logo) VALUES ($1, $2)
		ON CONFLICT (account_id) DO UPDATE SET logo = EXCLUDED.logo`, b.acct.ID, svg)

	assets := []string{"badge.svg", "issuer-logo", "qr?format=svg"}
	for _, asset := range assets {
		res := b.env.Client.Get("/api/v1/verify/" + code + "/" + asset)
		require.Equal(t, http.StatusOK, res.StatusCode, "%s: status", asset)
		require.Equal(t, "image/svg+xml", res.Header.Get("Content-Type"), "%s: Content-Type", asset)
		if csp := res.Header.Get("Content-Security-Policy"); csp != sandboxedSVGPolicy {
			t.Errorf("%s: Content-Security-Policy %q, want %q", asset, csp, sandboxedSVGPolicy)
		}
		if nosniff := res.Header.Get("X-Content-Type-Options"); nosniff != "nosniff" {
			t.Errorf("%s: X-Content-Type-Options %q, want nosniff", asset, nosniff)
		}
	}

	page := browser.Open(t, 800, 600)
	for _, asset := range assets[:2] {
		page.Do(t, chromedp.Navigate(b.env.URL+"/api/v1/verify/"+code+"/"+asset), chromedp.Sleep(300*time.Millisecond))
	}
	cookies := browser.Value(t, page, func(ctx context.Context, tgt *chromedp.Target) ([]*network.Cookie, error) {
		res, err := cdp.Call(ctx, tgt, network.GetCookies, network.GetCookiesParams{URLs: []string{b.env.URL + "/"}})
		return res.Cookies, err
	})
	for _, c := range cookies {
		t.Errorf("a script of the SVG ran on the service's origin: it set the cookie %s=%s", c.Name, c.Value)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(calls) > 0 {
		t.Errorf("a script of the SVG ran: it called %v", calls)
	}
}

// A template's create and update take a body of up to 4 MiB, room for the largest background
// image the contract documents (2 MiB, here a PNG of noise that does not compress, in
// base64); a larger template body answers 413, and every other JSON body keeps its 1 MiB.
func TestTemplateBodiesHoldTheLargestBackgroundImage(t *testing.T) {
	t.Parallel()
	env := testkit.NewServer(t)
	client := testkit.SignUp(t, env).Client

	background := "data:image/png;base64," + base64.StdEncoding.EncodeToString(noisePNG(t, 800, 620))
	require.GreaterOrEqual(t, len(background), 2_600_000, "the background's data URI's characters, want close to the documented 2 MiB decoded")
	require.LessOrEqual(t, len(background), 2_796_203, "the background's data URI's characters, want close to the documented 2 MiB decoded")
	body := map[string]any{"name": "Noise", "layout": map[string]any{
		"background": map[string]any{"color": "#FFFFFF", "image": background},
		"rows": []any{map[string]any{"height": 30, "cols": []any{map[string]any{"size": 12,
			"content": map[string]any{"type": "text", "text": "{{recipient.fullName}}", "fontSize": 20}}}}}}}
	res := client.Post("/api/v1/templates", body)
	if res.StatusCode != http.StatusCreated {
		t.Fatalf("create with the background: %d %.300s", res.StatusCode, res.Body)
	}
	var created templateBody
	res.JSON(t, &created)
	if res := client.Put("/api/v1/templates/"+created.Data.ID, body); res.StatusCode != http.StatusOK {
		t.Fatalf("update with the background: %d %.300s", res.StatusCode, res.Body)
	}

	oversize := func(n int) []byte { return []byte(`{"name":"` + strings.Repeat("a", n) + `"}`) }
	cases := []struct {
		name, method, path string
		body               []byte
	}{
		{"TemplateOver4MiB", http.MethodPost, "/api/v1/templates", oversize(5 << 20)},
		{"TemplateUpdateOver4MiB", http.MethodPut, "/api/v1/templates/" + created.Data.ID, oversize(5 << 20)},
		{"EventOver1MiB", http.MethodPost, "/api/v1/events", oversize(3 << 19)},
	}
	for _, tc := range cases {
		for name, length := range map[string]int64{"DeclaredLength": int64(len(tc.body)), "UnknownLength": -1} {
			req := client.Request(tc.method, tc.path, nil)
			req.Header.Set("Content-Type", "application/json")
			req.Body, req.ContentLength = io.NopCloser(bytes.NewReader(tc.body)), length
			res := client.Do(req)
			e := decodeError(t, res)
			assert.Equal(t, http.StatusRequestEntityTooLarge, res.StatusCode, "%s, %s: status", tc.name, name)
			assert.Equal(t, "PAYLOAD_TOO_LARGE", e.Error.Code, "%s, %s: e.Error.Code", tc.name, name)
		}
	}
}

// noisePNG encodes w x h pixels of random colour and opacity: a PNG about as large as its
// pixels, since noise does not compress.
func noisePNG(t *testing.T, w, h int) []byte {
	t.Helper()
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	r := rand.New(rand.NewPCG(1, 2))
	for i := range img.Pix {
		img.Pix[i] = byte(r.Uint32())
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}
