// Package app wires the service together: database (a private cluster by default),
// migrations, HTTP server, and a graceful shutdown.
package app

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"path/filepath"
	"runtime/debug"
	"sync"
	"time"

	"github.com/certhub/credentiald/internal/auth"
	"github.com/certhub/credentiald/internal/config"
	"github.com/certhub/credentiald/internal/embeddedpg"
	"github.com/certhub/credentiald/internal/memory"
	"github.com/certhub/credentiald/internal/metrics"
	"github.com/certhub/credentiald/internal/searchindex"
	"github.com/certhub/credentiald/internal/store"
	"github.com/certhub/credentiald/internal/tracing"
)

// Database opens the configured database, or starts the private cluster under DataDir when
// DATABASE_URL is unset, and applies the migrations. The returned close function stops
// whatever was started.
// opts adjust the store (StoreOptions: its tracing).
func Database(ctx context.Context, cfg config.Config, logger *slog.Logger, opts ...store.Option) (*store.Store, func(), error) {
	url := cfg.DatabaseURL
	stopCluster := func() {}
	if url == "" {
		dir := filepath.Join(cfg.DataDir, "postgres")
		cluster, err := embeddedpg.Start(ctx, dir, embeddedpg.Options{})
		if err != nil {
			return nil, nil, fmt.Errorf("DATABASE_URL is unset and the private cluster in %s did not start: %w", dir, err)
		}
		logger.InfoContext(ctx, "using the private PostgreSQL cluster", "dir", cluster.Dir, "port", cluster.Port)
		url = cluster.URL()
		stopCluster = func() {
			if err := cluster.Stop(); err != nil {
				logger.Error("stopping the private cluster", "error", err)
			}
		}
	}
	st, err := store.Open(ctx, url, opts...)
	if err != nil {
		stopCluster()
		return nil, nil, err
	}
	if err := st.Migrate(ctx, logger); err != nil {
		st.Close()
		stopCluster()
		return nil, nil, err
	}
	return st, func() { st.Close(); stopCluster() }, nil
}

// defaultGOGC is the collector's pace when GOGC is not set (see RuntimeDefaults).
const defaultGOGC = 400

// defaultMemoryLimit is the heap's soft limit when GOMEMLIMIT is not set, above what the
// caches keep (see RuntimeDefaults).
const defaultMemoryLimit = 200 << 20

// RuntimeDefaults sets the Go runtime as the service runs: when GOGC is not in the
// environment, the collector's pace is defaultGOGC; when GOMEMLIMIT is not, the soft memory
// limit is defaultMemoryLimit. Serve calls it; so does BenchmarkVerifyLookup, which runs the
// service in its own process, so that it measures the service as it runs. restore puts back
// what there was before.
func RuntimeDefaults(cfg config.Config) (restore func()) {
	var restores []func()
	if !cfg.GOGCSet {
		// The renderer is bound by the garbage collector: maroto parses every embedded font for
		// every document, tens of megabytes of garbage per certificate PDF, and the collector
		// ran for every few PDFs at Go's default pace (GOGC=100). At 400 a PDF takes markedly
		// less time (BenchmarkPDFBesideBareMaroto; docs/decisions/gogc-400.md), the HTTP paths
		// spend less on collection, and the heap may grow to five times what is live before a
		// collection.
		prev := debug.SetGCPercent(defaultGOGC)
		restores = append(restores, func() { debug.SetGCPercent(prev) })
	}
	if !cfg.GOMEMLIMITSet {
		// Five times what is live was more memory than the service should take under the
		// verification page's load, whose garbage is plentiful (make bench-http). Near the soft
		// limit the collector runs as often as it must to stay under it, and the pace above
		// applies below it. The limit is this much above what the caches keep (package memory),
		// which they may fill to some 300 MiB: a limit under what is live would have the collector
		// run without pause. GOGC and GOMEMLIMIT in the environment win.
		prev := memory.Manage(defaultMemoryLimit)
		restores = append(restores, func() { memory.Manage(0); debug.SetMemoryLimit(prev) })
	}
	return func() {
		for _, r := range restores {
			r()
		}
	}
}

// Serve runs the API until ctx is cancelled, then drains requests for up to 20 seconds.
// ready, when not nil, receives the listening address.
func Serve(ctx context.Context, cfg config.Config, logger *slog.Logger, ready chan<- net.Addr) error {
	return ServeWith(ctx, cfg, logger, ready, Overrides{})
}

// ServeWith is Serve with parts of the service replaced: tests that run the whole process (its
// metrics listener, its tracer provider) and deliver webhooks to a receiver of their own, whose
// CA the service must trust.
func ServeWith(ctx context.Context, cfg config.Config, logger *slog.Logger, ready chan<- net.Addr, o Overrides) error {
	RuntimeDefaults(cfg)
	// Tracing starts first and stops last (deferred first): its shutdown exports the spans of
	// everything that stops before it, the last requests' and jobs' included.
	tp, err := tracing.Start(ctx, cfg.TracesEndpoint, cfg.ServiceName)
	if err != nil {
		return err
	}
	if tp != nil {
		o.TracerProvider = tp
		logger.InfoContext(ctx, "exporting traces", "endpoint", cfg.TracesEndpoint, "service_name", cfg.ServiceName)
		defer func() {
			flushCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
			defer cancel()
			if err := tp.Shutdown(flushCtx); err != nil {
				logger.Error("exporting the last traces", "error", err)
			}
		}()
	}
	st, closeDB, err := Database(ctx, cfg, logger, StoreOptions(o.TracerProvider)...)
	if err != nil {
		return err
	}
	defer closeDB()

	svc, err := Build(ctx, cfg, st, logger, o)
	if err != nil {
		return err
	}
	defer svc.Close()
	// TOTP secrets stored plain before secrets were sealed are sealed now, before serving.
	if n, err := auth.SealTOTPSecrets(ctx, st, svc.Secrets, false); err != nil {
		return fmt.Errorf("sealing the TOTP secrets stored in plain: %w", err)
	} else if n > 0 {
		logger.InfoContext(ctx, "sealed the TOTP secrets stored in plain", "count", n)
	}
	// Accounts created before they came with an issuer key get theirs now, before serving: no
	// read makes one.
	if n, err := svc.Credentials.BackfillIssuerKeys(ctx); err != nil {
		return fmt.Errorf("making the issuer keys of the accounts without one: %w", err)
	} else if n > 0 {
		logger.InfoContext(ctx, "made the issuer keys of the accounts without one", "count", n)
	}
	// SVGs stored before a stricter upload check are checked again, once per version of the
	// check (a River job, unique: queued until it has finished).
	if err := svc.SVGRecheck.Enqueue(ctx); err != nil {
		return fmt.Errorf("queuing the recheck of the stored SVGs: %w", err)
	}
	workers, stopWorkers := context.WithCancel(context.WithoutCancel(ctx))
	var workersDone sync.WaitGroup
	// These loops run with RUN_WORKERS=false too: they are the API's own, and send nothing.
	// Counted verification activity is written in batches (reads write counters); stopping
	// flushes what is left, after the HTTP server has drained (its shutdown comes first, below).
	workersDone.Go(func() { svc.Verification.Activity.Run(workers) })
	workersDone.Go(func() { svc.WatchChanges(workers) })
	// The certificates' search index is merged apart, not by an issuing transaction; and the
	// attendees written through the API are indexed by it, within the 2 s a search may trail.
	workersDone.Go(func() { (&searchindex.Cleaner{Store: st, Logger: logger}).Run(workers) })
	defer func() { stopWorkers(); workersDone.Wait() }()
	// Email, webhooks, bulk jobs and the periodic jobs are River jobs on one client; without
	// it they stay queued in the database, for a server with workers.
	if cfg.RunWorkers {
		if err := svc.Jobs.Start(workers); err != nil {
			return fmt.Errorf("starting the job queue: %w", err)
		}
		defer stopJobs(ctx, svc.Jobs, logger)
	} else {
		logger.WarnContext(ctx, "RUN_WORKERS is off: no background workers run. Emails, webhook deliveries, bulk jobs "+
			"and periodic jobs stay queued in the database until a server with workers runs on it; the API serves "+
			"reads and commits writes. Use it for a restored copy of a database only")
	}

	if cfg.PprofAddr != "" {
		stopProfiler, err := serveProfiler(cfg.PprofAddr, logger)
		if err != nil {
			return err
		}
		defer stopProfiler()
	}

	if svc.Metrics != nil {
		stopMetrics, err := serveMetrics(cfg.MetricsAddr, svc.Metrics, logger)
		if err != nil {
			return err
		}
		defer stopMetrics()
	}

	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		return err
	}
	srv := HTTPServer(svc.Handler, logger, 0)
	logger.InfoContext(ctx, "listening", "addr", ln.Addr().String(), "site_url", cfg.SiteURL.String())
	if ready != nil {
		ready <- ln.Addr()
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	logger.Info("shutting down")
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := srv.Shutdown(shutdownCtx); err != nil {
		return fmt.Errorf("shutdown: %w", err)
	}
	if err := <-errc; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	logger.Info("stopped")
	return nil
}

// stopJobs stops the job queue: running jobs finish (a bulk job its batch in hand, an email or
// a webhook its attempt) for up to 15 seconds, then are cancelled and given 5 seconds more; a
// job still running after that is left to River's rescuer, in the next process, so that one
// job that ignores its context cannot keep the process from stopping. The rest resumes after
// the next start.
func stopJobs(ctx context.Context, jobs *store.JobQueue, logger *slog.Logger) {
	ctx = context.WithoutCancel(ctx)
	stopCtx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	err := jobs.Stop(stopCtx)
	if err == nil {
		return
	}
	logger.Warn("running jobs did not finish within 15 s of stopping; cancelling them", "error", err)
	cancelCtx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if err := jobs.StopAndCancel(cancelCtx); err != nil {
		logger.Error("jobs still running when the process stopped; River's rescuer takes them up again", "error", err)
	}
}

// DefaultReadTimeout bounds the reading of one request, its body included.
const DefaultReadTimeout = 60 * time.Second

// answerTime is how long the write deadline runs past the read deadline.
const answerTime = 60 * time.Second

// HTTPServer returns the HTTP server Serve runs handler in (the tests' servers too).
// readTimeout (0: DefaultReadTimeout) bounds the reading of a whole request: a body that stops
// arriving fails its reader then, and the handler answers 408 REQUEST_TIMEOUT. net/http sets
// the write deadline when the headers have been read, so writing may go on answerTime past
// the read deadline: time for that 408, or for the answer to a body that came just in time.
func HTTPServer(handler http.Handler, logger *slog.Logger, readTimeout time.Duration) *http.Server {
	if readTimeout <= 0 {
		readTimeout = DefaultReadTimeout
	}
	return &http.Server{
		Handler:           handler,
		ReadHeaderTimeout: min(10*time.Second, readTimeout),
		ReadTimeout:       readTimeout,
		WriteTimeout:      readTimeout + answerTime,
		IdleTimeout:       120 * time.Second,
		ErrorLog:          slog.NewLogLogger(logger.Handler(), slog.LevelWarn),
	}
}

// serveMetrics serves the Prometheus metrics at /metrics on addr, a listener of its own like
// the profiler's: the metrics are the operator's, outside the contract, and the API's mux never
// carries them. It returns the function that stops it (after the API has drained, so that the
// last scrapes see the drain).
func serveMetrics(addr string, m *metrics.Registry, logger *slog.Logger) (func(), error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("METRICS_ADDR: %w", err)
	}
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", m.Handler(logger))
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second, WriteTimeout: time.Minute}
	logger.Info("serving metrics", "addr", ln.Addr().String(), "path", "/metrics")
	go func() { _ = srv.Serve(ln) }()
	return func() { _ = srv.Close() }, nil
}

// serveProfiler serves net/http/pprof on addr, a listener of its own: the API's mux never
// carries it, so it is reachable only where the operator binds it (loopback, for a profile
// under load). It returns the function that stops it.
func serveProfiler(addr string, logger *slog.Logger) (func(), error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("PPROF_ADDR: %w", err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	logger.Warn("the profiler is on (PPROF_ADDR): keep its address private", "addr", ln.Addr().String())
	go func() { _ = srv.Serve(ln) }()
	return func() { _ = srv.Close() }, nil
}
