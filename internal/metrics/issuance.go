package metrics

import "github.com/prometheus/client_golang/prometheus"

// Issuance counts the credentials issued by kind and the credits spent, as committed: the store
// tells it after each commit (store.Store.OnCommit), so a rolled-back issuance never counts.
type Issuance struct {
	issued  *prometheus.CounterVec
	byKind  map[string]prometheus.Counter // read only after Issuance returns
	credits prometheus.Counter
	grouped prometheus.Histogram
}

// Issuance returns the issuance counters, with a series at 0 from the start for each of kinds
// (the kinds the service issues); nil when r is (metrics off).
func (r *Registry) Issuance(kinds ...string) *Issuance {
	if r == nil {
		return nil
	}
	i := &Issuance{
		issued: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: namespace, Subsystem: "credentials", Name: "issued_total",
			Help: "Credentials issued (committed), by kind: certificate or badge_assertion. Drafts are not issued.",
		}, []string{"kind"}),
		credits: prometheus.NewCounter(prometheus.CounterOpts{
			Namespace: namespace, Subsystem: "credits", Name: "spent_total",
			Help: "Credits spent (committed) by the accounts' issuances.",
		}),
		grouped: prometheus.NewHistogram(prometheus.HistogramOpts{
			Namespace: namespace, Subsystem: "issuance", Name: "transaction_requests",
			Help:    "Single issuances (POST /certificates/generate) that shared one transaction and commit, per transaction.",
			Buckets: []float64{1, 2, 4, 8, 16, 32},
		}),
		byKind: map[string]prometheus.Counter{},
	}
	r.reg.MustRegister(i.issued, i.credits, i.grouped)
	for _, k := range kinds {
		i.byKind[k] = i.issued.WithLabelValues(k)
	}
	return i
}

// Committed counts what one committed transaction issued, by kind, and the credits it spent.
func (i *Issuance) Committed(issued map[string]int, credits int) {
	for kind, n := range issued {
		c, ok := i.byKind[kind]
		if !ok {
			c = i.issued.WithLabelValues(kind) // a kind of the service's own code: bounded
		}
		c.Add(float64(n))
	}
	if credits > 0 {
		i.credits.Add(float64(credits))
	}
}

// Grouped counts a transaction that n single issuances of one account shared.
func (i *Issuance) Grouped(n int, _ bool) { i.grouped.Observe(float64(n)) }
