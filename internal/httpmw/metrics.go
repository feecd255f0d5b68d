package httpmw

import (
	"fmt"
	"strings"
	"time"

	"github.com/labstack/echo/v4"
	"go.opentelemetry.io/otel/trace"

	"github.com/certhub/credentiald/internal/metrics"
)

// RouteNames names every route the server serves for the metrics' operation label: the
// contract's operation id (as the request validator finds it, by method and Echo route), and
// for the few routes outside the contract a fixed name. No value comes from the request, so
// the label's values are bounded.
type RouteNames map[routeID]string

// routeID is a route by method and Echo route (a struct key: looking it up allocates nothing).
type routeID struct{ method, path string }

// RouteNamesOf names the contract's operations by their ids, and the routes outside the
// contract by others: its keys are "GET /healthz" (method, space, Echo route).
func RouteNamesOf(ops Operations, others map[string]string) RouteNames {
	names := RouteNames{}
	for key, op := range ops {
		method, route, _ := strings.Cut(key, " ")
		names[routeID{method, route}] = op.ID
	}
	for key, name := range others {
		method, route, _ := strings.Cut(key, " ")
		names[routeID{method, route}] = name
	}
	return names
}

// Cover checks that every route of the server has a name, so that no route of a new feature
// is counted as unknown: the server does not start otherwise.
func (n RouteNames) Cover(routes []*echo.Route) error {
	for _, r := range routes {
		if _, ok := n[routeID{r.Method, r.Path}]; !ok {
			return fmt.Errorf("httpmw: the route %s %s has no name for the metrics: add it to the names of the routes outside the contract", r.Method, r.Path)
		}
	}
	return nil
}

// Observe records every request: in m, its operation, its status and its duration, and the
// requests in flight (nil: metrics off); and, with tracer (nil: tracing off), as a server span
// named by its operation, continuing the trace of an incoming traceparent. The route's name is
// looked up once for both. It runs first, and answers a handler's error itself (through the
// error handler, as Echo would after it), so that both record the status the client got:
// errors, the rate limiter's 429s and panics turned into 500s included. Both nil: it does
// nothing.
func Observe(m *metrics.HTTP, tracer trace.Tracer, names RouteNames) echo.MiddlewareFunc {
	if m == nil && tracer == nil {
		return func(next echo.HandlerFunc) echo.HandlerFunc { return next }
	}
	type route struct {
		name string
		op   *metrics.Operation // nil when metrics are off
	}
	routes := make(map[routeID]route, len(names))
	unknown := route{name: metrics.Unknown}
	for id, name := range names {
		routes[id] = route{name: name}
	}
	if m != nil {
		for id, r := range routes {
			r.op = m.Operation(r.name)
			routes[id] = r
		}
		unknown.op = m.Operation(metrics.Unknown)
	}
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			start := time.Now()
			r, ok := routes[routeID{c.Request().Method, c.Path()}]
			// Echo also matches an empty parameter, or a last one that runs over slashes; the
			// validator takes such a request for no operation, and so does the name.
			if !ok || !segmentParams(c) {
				r = unknown
			}
			if m != nil {
				m.Begin()
				defer m.End()
			}
			var span trace.Span
			if tracer != nil {
				span = startServerSpan(c, tracer, r.name)
				defer span.End()
			}
			if err := next(c); err != nil {
				c.Error(err)
			}
			status := c.Response().Status
			if r.op != nil {
				r.op.Observe(status, time.Since(start))
			}
			if span != nil {
				endServerSpan(span, status)
			}
			return nil
		}
	}
}
