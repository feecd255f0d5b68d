package metrics

import (
	"context"
	"errors"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	gomail "github.com/wneessen/go-mail"

	"github.com/certhub/credentiald/internal/domain"
	"github.com/certhub/credentiald/internal/email"
)

// Outcomes of an attempt to send a message.
const (
	emailSent           = "sent"
	emailTemporaryError = "temporary_error" // the worker tries again later, up to its last attempt
	emailPermanentError = "permanent_error" // the message is given up
)

// EmailSender returns s counting each attempt to send a message by kind of message and
// outcome, how long the sender took, and how long the message had waited since it was queued.
// now is the worker's clock (nil: time.Now), which queued the message. r nil: s itself.
func (r *Registry) EmailSender(s email.Sender, now func() time.Time) email.Sender {
	if r == nil {
		return s
	}
	if now == nil {
		now = time.Now
	}
	c := &countingSender{next: s, now: now,
		attempts: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: namespace, Subsystem: "email", Name: "send_attempts_total",
			Help: "Attempts to send a message (to the SMTP server, or to the .eml folder), by kind of message and outcome: sent, temporary_error (tried again later) or permanent_error (given up).",
		}, []string{"kind", "outcome"}),
		duration: prometheus.NewHistogram(prometheus.HistogramOpts{
			Namespace: namespace, Subsystem: "email", Name: "send_duration_seconds",
			Help:    "Time one attempt to send a message took.",
			Buckets: []float64{.01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30},
		}),
		wait: prometheus.NewHistogram(prometheus.HistogramOpts{
			Namespace: namespace, Subsystem: "email", Name: "queue_wait_seconds",
			Help:    "Time from a message's queueing to an attempt to send it (retries included, so it grows with the backoff).",
			Buckets: []float64{.5, 1, 2.5, 5, 10, 30, 60, 300, 900, 3600, 4 * 3600, 24 * 3600},
		}),
	}
	r.reg.MustRegister(c.attempts, c.duration, c.wait)
	return c
}

type countingSender struct {
	next     email.Sender
	now      func() time.Time
	attempts *prometheus.CounterVec
	duration prometheus.Histogram
	wait     prometheus.Histogram
}

func (c *countingSender) Send(ctx context.Context, d domain.EmailDelivery, m *gomail.Msg) error {
	if !d.CreatedAt.IsZero() {
		c.wait.Observe(max(0, c.now().Sub(d.CreatedAt).Seconds()))
	}
	start := time.Now()
	err := c.next.Send(ctx, d, m)
	c.duration.Observe(time.Since(start).Seconds())
	outcome := emailSent
	var permanent *email.PermanentError
	switch {
	case errors.As(err, &permanent):
		outcome = emailPermanentError
	case err != nil:
		outcome = emailTemporaryError
	}
	c.attempts.WithLabelValues(d.Kind, outcome).Inc()
	return err
}
