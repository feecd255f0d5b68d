package testkit

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync"
	"testing"
	"time"

	"github.com/certhub/credentiald/gen/api"
	"github.com/certhub/credentiald/internal/app"
	"github.com/certhub/credentiald/internal/config"
	"github.com/certhub/credentiald/internal/email"
	"github.com/certhub/credentiald/internal/logging"
	"github.com/certhub/credentiald/internal/ratelimit"
	"github.com/certhub/credentiald/internal/store"
	"github.com/certhub/credentiald/internal/testkit/contract"
	"github.com/certhub/credentiald/internal/webhooks"
)

// Env is the service running over a fresh database, with a validating client.
type Env struct {
	URL     string
	Store   *store.Store
	Client  *contract.Client
	Service *app.Service
	Config  config.Config
	logs    *Buffer
}

// Logs returns everything the service logged so far.
func (e *Env) Logs() string { return e.logs.String() }

type settings struct {
	siteAtServer bool
	cfg          config.Config
	ov           app.Overrides
	logTo        io.Writer
	logLevel     slog.Level
	readTimeout  time.Duration
	noNotices    bool
	checkAll     bool
}

// Option changes how NewServer builds the service.
type Option func(*settings)

// WithStrictMiddleware wraps every operation, for tests that provoke failures.
func WithStrictMiddleware(m api.StrictMiddlewareFunc) Option {
	return func(s *settings) { s.ov.StrictMiddlewares = append(s.ov.StrictMiddlewares, m) }
}

// WithConfig changes the configuration the service starts with.
func WithConfig(f func(*config.Config)) Option { return func(s *settings) { f(&s.cfg) } }

// WithClock makes the service read the time from now.
func WithClock(now func() time.Time) Option { return func(s *settings) { s.ov.Now = now } }

// WithLimiter replaces the in-memory rate limiter.
func WithLimiter(l ratelimit.Limiter) Option { return func(s *settings) { s.ov.Limiter = l } }

// WithLogOutput sends the service's log to w at level instead of keeping it in memory at
// debug level (benchmarks log as production does).
func WithLogOutput(w io.Writer, level slog.Level) Option {
	return func(s *settings) { s.logTo, s.logLevel = w, level }
}

// WithWebhookPolicy replaces the webhook policy made from the configuration, and sets the
// timeout of an attempt when timeout is not 0.
func WithWebhookPolicy(p webhooks.Policy, timeout time.Duration) Option {
	return func(s *settings) { s.ov.WebhookPolicy, s.ov.WebhookTimeout = &p, timeout }
}

// WithResolver makes the service look up DNS records (single sign-on domains' TXT records)
// with r.
func WithResolver(r *net.Resolver) Option { return func(s *settings) { s.ov.Resolver = r } }

// WithReadTimeout sets the server's read timeout (app.DefaultReadTimeout otherwise), for
// tests of a request body that stops arriving.
func WithReadTimeout(d time.Duration) Option { return func(s *settings) { s.readTimeout = d } }

// WithSiteAtServer makes the service's site_url the test server's own address, so that the
// absolute links it gives (a wallet offer's URLs, an issuer's endpoints) lead back to it: for
// clients written by others that follow them, such as wallets.
func WithSiteAtServer() Option { return func(s *settings) { s.siteAtServer = true } }

// WithChangeNoticesWithheld has the lookups keep certificates as if the service listened for
// changes, but no notice ever reaches them: only the service's own commits tell it what
// changed, as when a notice is late.
func WithChangeNoticesWithheld() Option { return func(s *settings) { s.noNotices = true } }

// WithEmailSender replaces the .eml folder the email worker writes to.
func WithEmailSender(e email.Sender) Option { return func(s *settings) { s.ov.EmailSender = e } }

// NewServer starts the service on a fresh database. Its configuration is the default one, with
// its data folder in a temporary directory.
func NewServer(t testing.TB, opts ...Option) *Env {
	t.Helper()
	st, dbURL := Store(t)
	logs := &Buffer{}
	cfg, err := config.FromEnv(func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	cfg.DataDir = t.TempDir()
	cfg.DatabaseURL = dbURL
	cfg.SecretsKey = SecretsKey()
	s := settings{cfg: cfg, logTo: logs, logLevel: slog.LevelDebug}
	for _, opt := range opts {
		opt(&s)
	}
	logger := logging.New(s.logTo, s.logLevel)
	// The server listens before the service is built, so that its address can be the site's.
	var handler http.Handler
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { handler.ServeHTTP(w, r) }))
	if s.siteAtServer {
		s.cfg.SiteURL = &url.URL{Scheme: "http", Host: srv.Listener.Addr().String()}
	}
	svc, err := app.Build(context.Background(), s.cfg, st, logger, s.ov)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(svc.Close)
	// The lookups keep certificates in memory while the service listens for changes, as Serve
	// has it: every test that verifies runs through that cache.
	if s.noNotices {
		svc.Changes().Listening()
	} else {
		watching, stopWatching := context.WithCancel(context.Background())
		watched := make(chan struct{})
		go func() { defer close(watched); svc.WatchChanges(watching) }()
		t.Cleanup(func() { stopWatching(); <-watched })
	}
	handler = svc.Handler
	if s.checkAll {
		handler = checked(t, svc.Handler)
	}
	// The server is the one the service runs in, with its timeouts.
	srv.Config = app.HTTPServer(handler, logger, s.readTimeout)
	srv.Start()
	t.Cleanup(srv.Close)
	return &Env{URL: srv.URL, Store: st, Client: contract.NewClient(t, srv.URL), Service: svc, Config: s.cfg, logs: logs}
}

// Buffer is a bytes.Buffer that goroutines may write while a test reads it (a logger's output).
type Buffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *Buffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *Buffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
