package tracing

import (
	"context"

	gomail "github.com/wneessen/go-mail"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/certhub/credentiald/internal/domain"
	"github.com/certhub/credentiald/internal/email"
)

// EmailSender returns s sending each message inside a client span (email.send, child of the
// email job's span) that says the kind of message and the outcome; s itself when tp is nil.
func EmailSender(s email.Sender, tp trace.TracerProvider) email.Sender {
	if tp == nil {
		return s
	}
	return tracedSender{next: s, tracer: Tracer(tp)}
}

type tracedSender struct {
	next   email.Sender
	tracer trace.Tracer
}

func (t tracedSender) Send(ctx context.Context, d domain.EmailDelivery, m *gomail.Msg) error {
	ctx, span := t.tracer.Start(ctx, "email.send", trace.WithSpanKind(trace.SpanKindClient),
		trace.WithAttributes(attribute.String("email.kind", d.Kind), attribute.String("email.delivery_id", d.ID.String())))
	defer span.End()
	err := t.next.Send(ctx, d, m)
	if err != nil {
		span.RecordError(err)
		span.SetStatus(codes.Error, err.Error())
	}
	return err
}
