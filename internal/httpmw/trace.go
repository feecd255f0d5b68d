package httpmw

import (
	"strings"
	"sync"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/labstack/echo/v4"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"

	"github.com/certhub/credentiald/internal/metrics"
	"github.com/certhub/credentiald/internal/spec"
	"github.com/certhub/credentiald/internal/tracing"
)

// startServerSpan starts the request's span, named by its operation (the contract's operation
// id, or a fixed name; a request that matched no route is named by its method, as
// OpenTelemetry's HTTP conventions name a span without a route), as a child of the caller's
// span when the request carries a traceparent, and puts it in the request's context: the
// handlers', the store's and the log's spans and lines follow it. Its url.path is the
// telemetry path (a route with a secret in its path records its route) and it records no
// query string: recipient tokens travel there.
func startServerSpan(c echo.Context, tracer trace.Tracer, name string) trace.Span {
	req := c.Request()
	ctx := tracing.Propagator.Extract(req.Context(), propagation.HeaderCarrier(req.Header))
	attrs := []attribute.KeyValue{
		attribute.String("http.request.method", req.Method),
		attribute.String("url.path", telemetryPath(c)),
		attribute.String("url.scheme", c.Scheme()),
		attribute.String("user_agent.original", req.UserAgent()),
	}
	if name == metrics.Unknown {
		name = req.Method
	} else {
		attrs = append(attrs, attribute.String("http.route", c.Path()))
	}
	ctx, span := tracer.Start(ctx, name, trace.WithSpanKind(trace.SpanKindServer), trace.WithAttributes(attrs...))
	c.SetRequest(req.WithContext(ctx))
	return span
}

// endServerSpan records the status the client got; a 5xx marks the span failed (a 4xx is the
// client's error, not the server's, in OpenTelemetry's HTTP conventions).
func endServerSpan(span trace.Span, status int) {
	span.SetAttributes(attribute.Int("http.response.status_code", status))
	if status >= 500 {
		span.SetStatus(codes.Error, "")
	}
}

// secretExtension marks a path parameter whose value is a secret: whoever has the URL holds
// what it grants (a wallet offer's token claims the credential). Logs, metrics and spans
// never carry its value.
const secretExtension = "x-secret"

// telemetryPath is the request's path as the access logs and the server span record it: the
// path itself, unless it is one of a route whose path holds a secret parameter. A request of
// such a route is recorded by its route (/exchanges/:offerToken); one that matched no route
// (a segment too many, a method the route does not take) but whose path runs as far as such
// a route's secret segment, by that route's template up to the secret, the rest left out.
func telemetryPath(c echo.Context) string {
	secrets := secretRoutes()
	if secrets.templates[c.Path()] {
		return c.Path()
	}
	path := c.Request().URL.Path
	for _, r := range secrets.routes {
		if redacted, ok := r.redact(path); ok {
			return redacted
		}
	}
	return path
}

// secretPaths are the routes whose path holds a secret parameter.
type secretPaths struct {
	templates map[string]bool // by Echo route
	routes    []secretRoute
}

// secretRoute is one route whose path holds a secret parameter.
type secretRoute struct {
	segments []string // of its Echo route: "exchanges", ":offerToken"
	secret   int      // the index of its first secret segment
	upTo     string   // the route up to that segment: /exchanges/:offerToken
}

// secretRoutes are read once from the contract, where a path parameter says it is a secret
// (secretExtension); nothing else names them, so a new route with such a parameter is
// covered as soon as it is documented.
var secretRoutes = sync.OnceValue(func() secretPaths { return secretPathsOf(spec.MustLoad()) })

func secretPathsOf(doc *openapi3.T) secretPaths {
	out := secretPaths{templates: map[string]bool{}}
	for path, item := range doc.Paths.Map() {
		secret := map[string]bool{}
		markSecrets(item.Parameters, secret)
		for _, op := range item.Operations() {
			markSecrets(op.Parameters, secret)
		}
		if len(secret) == 0 {
			continue
		}
		route := EchoRoute(spec.FullPath(path, item))
		if out.templates[route] {
			continue
		}
		out.templates[route] = true
		segments := strings.Split(strings.TrimPrefix(route, "/"), "/")
		for i, seg := range segments {
			if name, ok := strings.CutPrefix(seg, ":"); ok && secret[name] {
				out.routes = append(out.routes, secretRoute{segments: segments, secret: i, upTo: "/" + strings.Join(segments[:i+1], "/")})
				break
			}
		}
	}
	return out
}

// markSecrets adds the names of the path parameters marked secret to secret.
func markSecrets(params openapi3.Parameters, secret map[string]bool) {
	for _, p := range params {
		if p.Value != nil && p.Value.In == openapi3.ParameterInPath && p.Value.Extensions[secretExtension] == true {
			secret[p.Value.Name] = true
		}
	}
}

// redact reports whether path runs, segment by segment, as far as the route's secret segment,
// and then gives the route up to that segment. Segments are compared as loosely as a client's
// mistake may make them (letter case, empty segments), so that a path Echo did not match
// still has its secret left out.
func (r secretRoute) redact(path string) (string, bool) {
	rest := path
	for i, seg := range r.segments {
		var part string
		part, rest = nextSegment(rest)
		if part == "" {
			return "", false
		}
		if i == r.secret {
			return r.upTo, true
		}
		if !strings.HasPrefix(seg, ":") && !strings.EqualFold(seg, part) {
			return "", false
		}
	}
	return "", false
}

// nextSegment is the first non-empty segment of path and what follows it.
func nextSegment(path string) (segment, rest string) {
	path = strings.TrimLeft(path, "/")
	segment, rest, _ = strings.Cut(path, "/")
	return segment, rest
}
