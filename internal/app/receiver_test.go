package app_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/certhub/credentiald/internal/app"
	"github.com/certhub/credentiald/internal/webhooks"
)

// hookReceiver is a real HTTPS endpoint on loopback, trusted by the service of the test only.
type hookReceiver struct {
	srv *httptest.Server
	mu  sync.Mutex
	got []http.Header
}

func newHookReceiver(t *testing.T) *hookReceiver {
	r := &hookReceiver{}
	r.srv = httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		_, _ = io.Copy(io.Discard, req.Body)
		r.mu.Lock()
		r.got = append(r.got, req.Header.Clone())
		r.mu.Unlock()
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(r.srv.Close)
	return r
}

// policy makes the service trust the receiver's CA and reach it on loopback (the test-only
// setting, not the unsafe switch).
func (r *hookReceiver) policy() app.Overrides {
	roots := r.srv.Client().Transport.(*http.Transport).TLSClientConfig.RootCAs
	return app.Overrides{WebhookPolicy: &webhooks.Policy{RootCAs: roots, AllowLoopbackTLS: true}, WebhookTimeout: 5 * time.Second}
}

// requests are the headers of the requests received so far.
func (r *hookReceiver) requests() []http.Header {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]http.Header(nil), r.got...)
}
