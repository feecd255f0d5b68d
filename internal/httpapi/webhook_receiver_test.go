package httpapi_test

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/certhub/credentiald/internal/webhooks"
	"github.com/certhub/credentiald/internal/webhooks/receiverexample"
)

// The receiver of docs/api.md, run against real deliveries: it takes a certificate.issued delivery
// (the dispatcher records it succeeded), acknowledges a retry of it without handling it twice,
// and refuses a stale timestamp and a wrong signature.
func TestTheReceiverExampleTakesARealDelivery(t *testing.T) {
	t.Parallel()
	h := newHookEnv(t)
	var mu sync.Mutex
	var handled []string
	var handler http.Handler
	count := func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), handled...)
	}
	ex := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		hd := handler
		mu.Unlock()
		hd.ServeHTTP(w, r)
	}))
	t.Cleanup(ex.Close)
	sub := h.subscribe(t, ex.URL+"/hooks", "certificate.issued")
	secret := sub.Data.Secret
	mu.Lock()
	handler = receiverexample.Handler(secret, func(kind string, _ []byte) {
		mu.Lock()
		handled = append(handled, kind)
		mu.Unlock()
	})
	mu.Unlock()

	attendee := h.acct.Attendee(t, h.event, "Ada", "Lovelace", "ada@example.org")
	if res := h.acct.Client.Post("/api/v1/certificates/generate", h.generate(attendee, nil)); res.StatusCode != 200 {
		t.Fatalf("generate: %d %s", res.StatusCode, res.Body)
	}
	h.dispatch(t)
	ds := h.deliveries(t, sub.Data.ID)
	require.Len(t, ds, 1, "deliveries")
	require.Equal(t, "succeeded", ds[0].Status, "delivery: status")
	require.Len(t, count(), 1, "events handled")
	require.Equal(t, "certificate.issued", count()[0], "event handled")

	// A retry of the same delivery, as the dispatcher would send it: acknowledged, not redone.
	body := []byte(`{"eventType":"certificate.issued"}`)
	send := func(at time.Time, id, sig string) int {
		hdr, err := webhooks.Headers(sig, "certificate.issued", id, at, body)
		if err != nil {
			t.Fatal(err)
		}
		req, _ := http.NewRequest(http.MethodPost, ex.URL+"/hooks", bytes.NewReader(body))
		req.Header = hdr
		res, err := ex.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		return res.StatusCode
	}
	code := send(time.Now(), ds[0].ID, secret)
	require.Equal(t, 204, code, "a retry: status")
	require.Len(t, count(), 1, "a retry: events handled")
	if code := send(time.Now().Add(-10*time.Minute), "0193b3a0-0000-7000-8000-00000000f001", secret); code != 400 {
		t.Fatalf("a stale timestamp: %d", code)
	}
	other, _ := webhooks.NewSecret()
	code = send(time.Now(), "0193b3a0-0000-7000-8000-00000000f002", other)
	require.Equal(t, 401, code, "another secret's signature: status")
	require.Len(t, count(), 1, "another secret's signature: events handled")
}

// docs/api.md shows the receiver's code as it is in internal/webhooks/receiverexample.
func TestReadmeShowsTheReceiverExample(t *testing.T) {
	src, err := os.ReadFile("../webhooks/receiverexample/receiver.go")
	if err != nil {
		t.Fatal(err)
	}
	readme, err := os.ReadFile("../../docs/api.md")
	if err != nil {
		t.Fatal(err)
	}
	code := string(src)
	code = code[strings.Index(code, "// receiver:begin\n")+len("// receiver:begin\n") : strings.Index(code, "// receiver:end")]
	_, block, _ := strings.Cut(string(readme), "<!-- receiver:begin -->\n```go\npackage receiver\n\n")
	block, _, _ = strings.Cut(block, "```\n<!-- receiver:end -->")
	if strings.TrimSpace(block) != strings.TrimSpace(code) {
		t.Fatal("the receiver of docs/api.md differs from internal/webhooks/receiverexample/receiver.go")
	}
}
