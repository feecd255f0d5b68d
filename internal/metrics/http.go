package metrics

import (
	"maps"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// Unknown is the operation of a request that matched no route (a 404 or a 405 of the router).
const Unknown = "unknown"

// durationBuckets span the API's answers: from a verification lookup (about a millisecond) to
// a certificate's PDF and a synchronous bulk issuance of a hundred attendees (seconds).
var durationBuckets = []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30}

// HTTP holds the API's request metrics. The middleware asks for one Operation per route when
// it starts, and records each request on its route's.
type HTTP struct {
	requests    *prometheus.CounterVec
	duration    *prometheus.HistogramVec
	inFlight    prometheus.Gauge
	rateLimited *prometheus.CounterVec
}

func newHTTP(reg prometheus.Registerer) *HTTP {
	h := &HTTP{
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: namespace, Subsystem: "http", Name: "requests_total",
			Help: "HTTP requests answered, by operation (the contract's operation id, a fixed name for the few routes outside it, or unknown) and status code.",
		}, []string{"operation", "code"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Namespace: namespace, Subsystem: "http", Name: "request_duration_seconds",
			Help:    "Time from the request's routing to its answer's end, by operation and status code.",
			Buckets: durationBuckets,
		}, []string{"operation", "code"}),
		inFlight: prometheus.NewGauge(prometheus.GaugeOpts{
			Namespace: namespace, Subsystem: "http", Name: "requests_in_flight",
			Help: "HTTP requests being answered now.",
		}),
		rateLimited: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: namespace, Subsystem: "http", Name: "rate_limited_total",
			Help: "HTTP requests refused with 429 by the rate limits, by operation (credentiald_rate_limit_refusals_total has them by limit).",
		}, []string{"operation"}),
	}
	reg.MustRegister(h.requests, h.duration, h.inFlight, h.rateLimited)
	return h
}

// Begin counts a request in flight; End, once it is answered.
func (h *HTTP) Begin() { h.inFlight.Inc() }

// End counts a request answered (see Begin).
func (h *HTTP) End() { h.inFlight.Dec() }

// Operation returns the recorder of the operation named name. Call it once per route, when
// the routes are known, not per request.
func (h *HTTP) Operation(name string) *Operation {
	o := &Operation{name: name, http: h}
	o.codes.Store(&map[int]*observers{})
	return o
}

// Operation records the requests of one operation. Its observers are bound to their label
// values once per status code and kept: recording a request takes one lock-free map read and
// allocates nothing.
type Operation struct {
	name  string
	http  *HTTP
	mu    sync.Mutex // held while a status code is added
	codes atomic.Pointer[map[int]*observers]
}

// observers are an operation's series for one status code.
type observers struct {
	requests    prometheus.Counter
	duration    prometheus.Observer
	rateLimited prometheus.Counter // nil unless the code is 429
}

// Observe records one request answered with code after elapsed.
func (o *Operation) Observe(code int, elapsed time.Duration) {
	obs := o.observers(code)
	obs.requests.Inc()
	obs.duration.Observe(elapsed.Seconds())
	if obs.rateLimited != nil {
		obs.rateLimited.Inc()
	}
}

func (o *Operation) observers(code int) *observers {
	if obs := (*o.codes.Load())[code]; obs != nil {
		return obs
	}
	// A status code this operation has not answered yet: copy the map with it added. An
	// operation answers a handful of codes, so this happens a handful of times.
	o.mu.Lock()
	defer o.mu.Unlock()
	current := *o.codes.Load()
	if obs := current[code]; obs != nil {
		return obs
	}
	c := strconv.Itoa(code)
	obs := &observers{
		requests: o.http.requests.WithLabelValues(o.name, c),
		duration: o.http.duration.WithLabelValues(o.name, c),
	}
	if code == http.StatusTooManyRequests {
		obs.rateLimited = o.http.rateLimited.WithLabelValues(o.name)
	}
	next := maps.Clone(current)
	next[code] = obs
	o.codes.Store(&next)
	return obs
}
