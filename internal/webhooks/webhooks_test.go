package webhooks

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"
)

// The headers verify with an independent implementation: the Standard Webhooks library for
// webhook-*, and the specification's recipe recomputed here for X-Service-Signature.
func TestSignatureHeadersVerifyIndependently(t *testing.T) {
	secret, err := NewSecret()
	if err != nil || !strings.HasPrefix(secret, "whsec_") || len(secret) != 6+44 {
		t.Fatalf("secret %q: %v", secret, err)
	}
	body := []byte(`{"event":"certificate.issued","data":{"name":"Ana 😀"}}`)
	now := time.Now()
	h, err := Headers(secret, "certificate.issued", "0193b3a0-0000-7000-8000-000000000001", now, body)
	if err != nil {
		t.Fatal(err)
	}
	wh, err := standardwebhooks.NewWebhook(secret)
	if err != nil {
		t.Fatal(err)
	}
	if err := wh.Verify(body, h); err != nil {
		t.Fatalf("the Standard Webhooks library refuses the signature: %v", err)
	}
	if err := wh.Verify(append(body, ' '), h); err == nil {
		t.Fatal("a changed body still verifies")
	}
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write([]byte(h.Get("X-Service-Timestamp") + "." + string(body)))
	if want := "sha256=" + hex.EncodeToString(mac.Sum(nil)); h.Get("X-Service-Signature") != want {
		t.Fatalf("X-Service-Signature %s, want %s", h.Get("X-Service-Signature"), want)
	}
	if h.Get("X-Service-Delivery") != h.Get("webhook-id") || h.Get("X-Service-Timestamp") != h.Get("webhook-timestamp") || h.Get("X-Service-Event") != "certificate.issued" {
		t.Fatalf("headers: %v", h)
	}
	if _, err := Headers("not-a-secret", "x", "y", now, body); err == nil {
		t.Fatal("a malformed secret signs")
	}
}

func TestUnsafeURLsAreRefusedWhereTheURLShowsIt(t *testing.T) {
	p := Policy{}
	for _, raw := range []string{
		"http://hooks.example.org/x", "ftp://hooks.example.org", "/relative", "https://user:pw@hooks.example.org/",
		"https://127.0.0.1/", "https://[::1]:8443/", "https://10.0.0.1/", "https://192.168.1.20/", "https://172.16.0.1/",
		"https://169.254.169.254/latest/meta-data", "https://[::ffff:127.0.0.1]/", "https://[fe80::1]/", "https://0.0.0.0/",
		"https://2130706433/", "https://0x7f000001/", "https://017700000001/", "https://127.1/", "https://localhost/",
	} {
		if err := p.CheckURL(t.Context(), raw); !errors.Is(err, ErrUnsafeTarget) {
			t.Errorf("%s accepted (%v)", raw, err)
		}
	}
	for _, raw := range []string{"https://hooks.example.org/credentials", "https://93.184.216.34:8443/in", "https://cafe.example/"} {
		if err := p.CheckURL(t.Context(), raw); err != nil {
			t.Errorf("%s refused: %v", raw, err)
		}
	}
	if err := (Policy{AllowInsecure: true}).CheckURL(t.Context(), "http://127.0.0.1:8080/hook"); err != nil {
		t.Errorf("the unsafe development switch: %v", err)
	}
}

// At connect time the dialer checks the address it dials: a name resolving to loopback is
// refused and nothing reaches the receiver; the test-only loopback allowance lets the same
// request through. Redirects are not followed, and proxies from the environment are not used.
func TestTheClientChecksEveryAddressAtConnectTime(t *testing.T) {
	var hits, redirected atomic.Int32
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/redirect":
			http.Redirect(w, r, "/target", http.StatusFound)
		case "/target":
			redirected.Add(1)
		default:
			hits.Add(1)
			w.WriteHeader(http.StatusNoContent)
		}
	}))
	defer srv.Close()
	roots := srv.Client().Transport.(*http.Transport).TLSClientConfig.RootCAs
	t.Setenv("HTTPS_PROXY", "http://127.0.0.1:1") // must be ignored
	byName := strings.Replace(srv.URL, "127.0.0.1", "localhost", 1)

	for _, target := range []string{srv.URL, byName} {
		res, err := Policy{RootCAs: roots}.Client(2*time.Second).Post(target+"/hook", "application/json", strings.NewReader("{}"))
		if err == nil {
			res.Body.Close()
			t.Fatalf("%s: delivered to loopback", target)
		}
		if !strings.Contains(err.Error(), "not a permitted destination") && !strings.Contains(err.Error(), "prohibited") {
			t.Fatalf("%s: refused for another reason: %v", target, err)
		}
	}
	if hits.Load() != 0 {
		t.Fatalf("the receiver got %d requests", hits.Load())
	}

	c := Policy{RootCAs: roots, AllowLoopbackTLS: true}.Client(2 * time.Second)
	res, err := c.Post(srv.URL+"/hook", "application/json", strings.NewReader("{}"))
	if err != nil || res.StatusCode != 204 {
		t.Fatalf("allowed loopback: %v %v", res, err)
	}
	res.Body.Close()
	res, err = c.Get(srv.URL + "/redirect")
	if err != nil || res.StatusCode != http.StatusFound || redirected.Load() != 0 {
		t.Fatalf("redirect: %v %v, followed %d", res, err, redirected.Load())
	}
	_, _ = io.Copy(io.Discard, res.Body)
	res.Body.Close()
}

// A slow receiver is cut at the timeout.
func TestTheClientGivesUpAtItsTimeout(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { <-release }))
	defer srv.Close()
	defer close(release)
	roots := srv.Client().Transport.(*http.Transport).TLSClientConfig.RootCAs
	start := time.Now()
	_, err := Policy{RootCAs: roots, AllowLoopbackTLS: true}.Client(300 * time.Millisecond).Get(srv.URL)
	if err == nil || time.Since(start) > 5*time.Second {
		t.Fatalf("a receiver that never answers: %v after %v", err, time.Since(start))
	}
}
