package metrics

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/certhub/credentiald/internal/webhooks"
)

// WebhookObserver returns the dispatcher's observer counting each attempt at a delivery by
// outcome and how long the delivery had waited since its event occurred; nil when r is
// (metrics off: the dispatcher then tells no one).
func (r *Registry) WebhookObserver() webhooks.Observer {
	if r == nil {
		return nil
	}
	attempts := prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: namespace, Subsystem: "webhook", Name: "deliveries_total",
		Help: "Attempts at webhook deliveries, by outcome: delivered (2xx), retrying (failed, another attempt scheduled), failed (failed, given up) or disabled (failed, given up because the subscription is switched off).",
	}, []string{"outcome"})
	wait := prometheus.NewHistogram(prometheus.HistogramOpts{
		Namespace: namespace, Subsystem: "webhook", Name: "queue_wait_seconds",
		Help: "Time from a delivery's event to an attempt at it (retries included, so it grows with the backoff).",
		// From a fan-out right after the commit (tens of milliseconds) to the last retry, some
		// two and a half hours after the first attempt.
		Buckets: []float64{.05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60, 300, 900, 1800, 3600, 3 * 3600, 24 * 3600},
	})
	r.reg.MustRegister(attempts, wait)
	o := &webhookObserver{wait: wait, byOutcome: map[webhooks.Outcome]prometheus.Counter{}}
	// Every outcome's series exists from the start, at 0: a rate of failures reads 0, not nothing.
	for _, outcome := range webhooks.Outcomes {
		o.byOutcome[outcome] = attempts.WithLabelValues(string(outcome))
	}
	return o
}

type webhookObserver struct {
	wait      prometheus.Histogram
	byOutcome map[webhooks.Outcome]prometheus.Counter // read only after WebhookObserver returns
}

func (o *webhookObserver) Attempted(outcome webhooks.Outcome, waited time.Duration) {
	if c, ok := o.byOutcome[outcome]; ok {
		c.Inc()
	}
	o.wait.Observe(waited.Seconds())
}
