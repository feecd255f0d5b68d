// Package metrics is the service's Prometheus exposition, served on the operator's listener
// (METRICS_ADDR), never on the API's: the registry and its handler, the API's request metrics
// (recorded by httpapi's middleware), counting decorators for the rate limiter and the email
// sender, the webhook dispatcher's observer, the credentials issued and credits spent (told by
// the store after each commit), River's jobs and the database pool's figures (read at each
// scrape), the Go runtime, the process and the build.
//
// Every label takes a bounded set of values: operation ids, status codes, limit names, kinds
// of message and outcomes; never an account, a verification code or a path with an id in it.
package metrics

import (
	"log/slog"
	"net/http"
	"runtime"
	"runtime/debug"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// namespace prefixes the service's own metrics.
const namespace = "credentiald"

// Registry is the set of metrics one service serves. A nil *Registry is metrics off: its
// decorators return what they were given, and Requests is nil.
type Registry struct {
	reg  *prometheus.Registry
	http *HTTP
}

// New returns a registry holding the request metrics, the Go runtime's and the process's
// collectors and credentiald_build_info. Each service has a registry of its own, not the
// global one: tests run several services in one process.
func New() *Registry {
	reg := prometheus.NewRegistry()
	reg.MustRegister(
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		buildInfo(),
	)
	return &Registry{reg: reg, http: newHTTP(reg)}
}

// Requests returns the API's request metrics; nil when r is (metrics off).
func (r *Registry) Requests() *HTTP {
	if r == nil {
		return nil
	}
	return r.http
}

// Register adds collectors, such as one that reads figures kept elsewhere at scrape time.
func (r *Registry) Register(cs ...prometheus.Collector) { r.reg.MustRegister(cs...) }

// Handler serves the metrics in the exposition formats Prometheus asks for. A collector that
// fails is logged and left out; the others are still served, so that one failing figure does
// not turn the whole target down.
func (r *Registry) Handler(logger *slog.Logger) http.Handler {
	return promhttp.HandlerFor(r.reg, promhttp.HandlerOpts{
		ErrorLog:            slog.NewLogLogger(logger.Handler(), slog.LevelError),
		ErrorHandling:       promhttp.ContinueOnError,
		Registry:            r.reg, // counts the handler's own errors (promhttp_metric_handler_errors_total)
		MaxRequestsInFlight: 4,
	})
}

// buildInfo is credentiald_build_info: 1, with the binary's version, VCS revision and Go
// version as labels (one series per binary), for joining on other series and for telling
// instances of different releases apart during an upgrade.
func buildInfo() prometheus.Collector {
	version, revision := "unknown", "unknown"
	if bi, ok := debug.ReadBuildInfo(); ok {
		if bi.Main.Version != "" {
			version = bi.Main.Version
		}
		for _, s := range bi.Settings {
			if s.Key == "vcs.revision" && s.Value != "" {
				revision = s.Value
			}
		}
	}
	g := prometheus.NewGauge(prometheus.GaugeOpts{
		Namespace:   namespace,
		Name:        "build_info",
		Help:        "Always 1; its labels name the running binary's version, VCS revision and Go version.",
		ConstLabels: prometheus.Labels{"version": version, "revision": revision, "goversion": runtime.Version()},
	})
	g.Set(1)
	return g
}
