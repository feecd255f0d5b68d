package metrics

import (
	"context"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/certhub/credentiald/internal/ratelimit"
)

// Limiter returns l counting its refusals by limit name and its failures (l itself when r is
// nil). The HTTP middleware knows a 429's operation but not which limit refused it; the limiter
// knows the limit.
func (r *Registry) Limiter(l ratelimit.Limiter) ratelimit.Limiter {
	if r == nil {
		return l
	}
	refusals := prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: namespace, Subsystem: "rate_limit", Name: "refusals_total",
		Help: "Requests a rate limit refused, by limit (a request refused by two limits at once counts under each); token-lookups counts the recipient-token checks refused a database read, whose requests were then counted against their address.",
	}, []string{"limit"})
	failures := prometheus.NewCounter(prometheus.CounterOpts{
		Namespace: namespace, Subsystem: "rate_limit", Name: "errors_total",
		Help: "Times the rate limiter could not decide (Redis unreachable); the request was let through.",
	})
	r.reg.MustRegister(refusals, failures)
	c := &countingLimiter{next: l, refusals: refusals, failures: failures, byName: map[string]prometheus.Counter{}}
	// The service's limits are bound now: their series exist from the start, at 0, and a
	// refusal allocates nothing.
	for _, lim := range []ratelimit.Limit{ratelimit.Global, ratelimit.SignIn, ratelimit.Verification, ratelimit.Download,
		ratelimit.Credential, ratelimit.CodeAssets, ratelimit.TokenLookups} {
		c.byName[lim.Name] = refusals.WithLabelValues(lim.Name)
	}
	return c
}

type countingLimiter struct {
	next     ratelimit.Limiter
	refusals *prometheus.CounterVec
	failures prometheus.Counter
	byName   map[string]prometheus.Counter // read only after Limiter returns
}

func (c *countingLimiter) Take(ctx context.Context, l ratelimit.Limit, key string) (ratelimit.Result, error) {
	res, err := c.next.Take(ctx, l, key)
	switch {
	case err != nil:
		c.failures.Inc()
	case !res.Allowed:
		if counter, ok := c.byName[l.Name]; ok {
			counter.Inc()
		} else {
			c.refusals.WithLabelValues(l.Name).Inc()
		}
	}
	return res, err
}
