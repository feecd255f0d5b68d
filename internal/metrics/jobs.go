package metrics

import (
	"context"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/riverqueue/river/rivertype"
)

// JobCount is how many of River's jobs one queue holds in one state: the store's
// (store.JobCount), copied into a value of this shape.
type JobCount struct {
	Queue, State string
	Jobs         int
}

// JobsTimeout bounds the count at each scrape: a database too slow to answer leaves the family
// out of that scrape (and the handler logs why) rather than holding the scrape.
const JobsTimeout = 3 * time.Second

var jobsDesc = prometheus.NewDesc(prometheus.BuildFQName(namespace, "", "jobs"),
	"River's jobs now, by queue and state (available, scheduled, running, retryable, completed, cancelled, discarded, pending), counted in the database at each scrape.",
	[]string{"queue", "state"}, nil)

// NewJobsCollector returns a collector of River's jobs by queue and state, counted by count (one
// GROUP BY statement) at each scrape, within JobsTimeout. Each of queues (the service's) shows
// every state, at 0 when it has no job in it, so that a series does not vanish when its queue
// empties; a queue the database holds beyond those shows what it has.
func NewJobsCollector(count func(context.Context) ([]JobCount, error), queues []string) prometheus.Collector {
	return jobsCollector{count: count, queues: queues}
}

type jobsCollector struct {
	count  func(context.Context) ([]JobCount, error)
	queues []string
}

func (jobsCollector) Describe(ch chan<- *prometheus.Desc) { ch <- jobsDesc }

func (c jobsCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), JobsTimeout)
	defer cancel()
	counts, err := c.count(ctx)
	if err != nil {
		ch <- prometheus.NewInvalidMetric(jobsDesc, err)
		return
	}
	type key struct{ queue, state string }
	n := map[key]int{}
	for _, q := range c.queues {
		for _, s := range rivertype.JobStates() {
			n[key{q, string(s)}] = 0
		}
	}
	for _, j := range counts {
		n[key{j.Queue, j.State}] += j.Jobs
	}
	for k, v := range n {
		ch <- prometheus.MustNewConstMetric(jobsDesc, prometheus.GaugeValue, float64(v), k.queue, k.state)
	}
}
