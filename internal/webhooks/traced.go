package webhooks

import (
	"context"
	"net/url"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/certhub/credentiald/internal/store"
)

// send makes one attempt's request, inside a client span (webhook.deliver, child of the
// delivery job's span) when the dispatcher traces; the request then carries that span's trace
// context (traceparent), so a receiver that traces joins the same trace.
func (d *Dispatcher) send(ctx context.Context, a store.WebhookAttempt) result {
	if d.Tracer == nil {
		return d.post(ctx, a)
	}
	w := a.Delivery
	attrs := []attribute.KeyValue{
		attribute.String("http.request.method", "POST"),
		attribute.String("webhook.event_type", w.EventType),
		attribute.String("webhook.delivery_id", w.ID.String()),
		attribute.String("webhook.subscription_id", w.SubscriptionID.String()),
		attribute.Int("webhook.attempt", w.Attempts),
	}
	// The URL without its query and user: a tenant may have put a token there.
	if u, err := url.Parse(a.URL); err == nil {
		attrs = append(attrs, attribute.String("server.address", u.Hostname()),
			attribute.String("url.full", (&url.URL{Scheme: u.Scheme, Host: u.Host, Path: u.Path}).String()))
	}
	ctx, span := d.Tracer.Start(ctx, "webhook.deliver", trace.WithSpanKind(trace.SpanKindClient), trace.WithAttributes(attrs...))
	defer span.End()
	r := d.post(ctx, a)
	if r.status != 0 {
		span.SetAttributes(attribute.Int("http.response.status_code", r.status))
	}
	if r.problem != "" {
		span.SetStatus(codes.Error, r.problem)
	}
	return r
}
