package testkit

import (
	"bytes"
	"log/slog"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/certhub/credentiald/gen/api"
	"github.com/certhub/credentiald/internal/httpapi"
	"github.com/certhub/credentiald/internal/logging"
	"github.com/certhub/credentiald/internal/store"
	"github.com/certhub/credentiald/internal/testkit/contract"
)

// Env is the service running over a fresh database, with a validating client.
type Env struct {
	URL    string
	Store  *store.Store
	Client *contract.Client
	logs   *syncBuffer
}

// Logs returns everything the service logged so far.
func (e *Env) Logs() string { return e.logs.String() }

// Option changes how NewServer builds the service.
type Option func(*httpapi.Options)

// WithStrictMiddleware wraps every operation, for tests that provoke failures.
func WithStrictMiddleware(m api.StrictMiddlewareFunc) Option {
	return func(o *httpapi.Options) { o.StrictMiddlewares = append(o.StrictMiddlewares, m) }
}

// NewServer starts the service on a fresh database.
func NewServer(t testing.TB, opts ...Option) *Env {
	t.Helper()
	st, _ := Store(t)
	logs := &syncBuffer{}
	o := httpapi.Options{Logger: logging.New(logs, slog.LevelDebug), Readiness: st}
	for _, opt := range opts {
		opt(&o)
	}
	handler, err := httpapi.New(o)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(handler)
	t.Cleanup(srv.Close)
	return &Env{URL: srv.URL, Store: st, Client: contract.NewClient(t, srv.URL), logs: logs}
}

type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
