package httpmw

import (
	"github.com/labstack/echo/v4"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"

	"github.com/certhub/credentiald/internal/metrics"
	"github.com/certhub/credentiald/internal/tracing"
)

// startServerSpan starts the request's span, named by its operation (the contract's operation
// id, or a fixed name; a request that matched no route is named by its method, as
// OpenTelemetry's HTTP conventions name a span without a route), as a child of the caller's
// span when the request carries a traceparent, and puts it in the request's context: the
// handlers', the store's and the log's spans and lines follow it.
func startServerSpan(c echo.Context, tracer trace.Tracer, name string) trace.Span {
	req := c.Request()
	ctx := tracing.Propagator.Extract(req.Context(), propagation.HeaderCarrier(req.Header))
	attrs := []attribute.KeyValue{
		attribute.String("http.request.method", req.Method),
		attribute.String("url.path", req.URL.Path),
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
