// Package tracing is the service's OpenTelemetry tracing, on only when an OTLP endpoint is
// configured (config.Config.TracesEndpoint, from OTEL_EXPORTER_OTLP_ENDPOINT): Start then
// returns a tracer provider exporting over OTLP/HTTP in batches, which the parts of the service
// are given explicitly (the HTTP middleware, the pgx tracer, River's middleware, the webhook
// dispatcher, the email sender). Off, Start returns nil and none of them is installed: no span
// is made, no header is read or written.
//
// The provider is not installed as OpenTelemetry's global one: tests run several services in
// one process, each with its own (or none). Trace context crosses processes as W3C trace
// context (traceparent, tracestate): Propagator.
package tracing

import (
	"context"
	"fmt"
	"runtime/debug"

	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	semconv "go.opentelemetry.io/otel/semconv/v1.39.0"
	"go.opentelemetry.io/otel/trace"
)

// Scope is the instrumentation scope of the spans the service makes itself (requests, webhook
// and email sends); pgx's and River's carry their libraries' names.
const Scope = "github.com/certhub/credentiald"

// Propagator reads and writes W3C trace context: traceparent and tracestate.
var Propagator propagation.TextMapPropagator = propagation.TraceContext{}

// Start returns a tracer provider exporting to endpoint (an OTLP/HTTP traces URL) as
// serviceName; nil, and no error, when endpoint is empty (tracing off). Its Shutdown flushes
// the spans not yet exported: call it when the process stops, after everything that makes
// spans has stopped.
func Start(ctx context.Context, endpoint, serviceName string) (*sdktrace.TracerProvider, error) {
	if endpoint == "" {
		return nil, nil
	}
	// The exporter reads OTEL_EXPORTER_OTLP_HEADERS, _COMPRESSION, _TIMEOUT and the like from
	// the environment; the URL given here wins over its endpoint variables (they were read into
	// it already).
	exp, err := otlptracehttp.New(ctx, otlptracehttp.WithEndpointURL(endpoint))
	if err != nil {
		return nil, fmt.Errorf("OTLP traces exporter for %s: %w", endpoint, err)
	}
	version := "unknown"
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" {
		version = bi.Main.Version
	}
	// OTEL_RESOURCE_ATTRIBUTES adds to the resource; the service's name and version, last, win.
	res, err := resource.New(ctx, resource.WithTelemetrySDK(), resource.WithFromEnv(),
		resource.WithAttributes(semconv.ServiceName(serviceName), semconv.ServiceVersion(version)))
	if err != nil {
		return nil, fmt.Errorf("tracing resource: %w", err)
	}
	// The batcher reads OTEL_BSP_SCHEDULE_DELAY, OTEL_BSP_MAX_QUEUE_SIZE and the like; a full
	// queue drops spans rather than slowing requests.
	return sdktrace.NewTracerProvider(sdktrace.WithBatcher(exp), sdktrace.WithResource(res)), nil
}

// Tracer is tp's tracer of the service's own spans; nil when tp is (tracing off).
func Tracer(tp trace.TracerProvider) trace.Tracer {
	if tp == nil {
		return nil
	}
	return tp.Tracer(Scope)
}
