package httpmw

import (
	"fmt"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

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

// CountRequests records every request in m (nil: metrics are off, and it does nothing): its
// operation, its status and its duration, and it counts the requests in flight. It runs first,
// and answers a handler's error itself (through the error handler, as Echo would after it), so
// that it records the status the client got: errors, the rate limiter's 429s and panics
// turned into 500s included.
func CountRequests(m *metrics.HTTP, names RouteNames) echo.MiddlewareFunc {
	if m == nil {
		return func(next echo.HandlerFunc) echo.HandlerFunc { return next }
	}
	ops := make(map[routeID]*metrics.Operation, len(names))
	for id, name := range names {
		ops[id] = m.Operation(name)
	}
	unknown := m.Operation(metrics.Unknown)
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			start := time.Now()
			m.Begin()
			defer m.End()
			if err := next(c); err != nil {
				c.Error(err)
			}
			op := ops[routeID{c.Request().Method, c.Path()}]
			// Echo also matches an empty parameter, or a last one that runs over slashes; the
			// validator takes such a request for no operation, and so does the label.
			if op == nil || !segmentParams(c) {
				op = unknown
			}
			op.Observe(c.Response().Status, time.Since(start))
			return nil
		}
	}
}
