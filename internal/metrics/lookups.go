package metrics

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/certhub/credentiald/internal/changecache"
)

// LookupCache are one lookup cache's figures, under its name (verification, certificates).
type LookupCache struct {
	Name string
	changecache.Stats
}

// NewLookupCacheCollector returns a collector of the lookups' caches, read at each scrape.
func NewLookupCacheCollector(stats func() []LookupCache) prometheus.Collector {
	return lookupCollector{stats: stats}
}

type lookupCollector struct{ stats func() []LookupCache }

func lookupDesc(name, help string) *prometheus.Desc {
	return prometheus.NewDesc(prometheus.BuildFQName(namespace, "lookup_cache", name), help, []string{"cache"}, nil)
}

var (
	lookupHits      = lookupDesc("hits_total", "Lookups answered from memory.")
	lookupMisses    = lookupDesc("misses_total", "Lookups that read the database.")
	lookupEntries   = lookupDesc("entries", "Credentials kept in memory now.")
	lookupListening = lookupDesc("listening", "1 while the cache keeps what it reads (the instance hears PostgreSQL's change notices), 0 while it keeps nothing.")
)

func (lookupCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{lookupHits, lookupMisses, lookupEntries, lookupListening} {
		ch <- d
	}
}

func (c lookupCollector) Collect(ch chan<- prometheus.Metric) {
	for _, s := range c.stats() {
		listening := 0.0
		if s.Listening {
			listening = 1
		}
		ch <- prometheus.MustNewConstMetric(lookupHits, prometheus.CounterValue, float64(s.Hits), s.Name)
		ch <- prometheus.MustNewConstMetric(lookupMisses, prometheus.CounterValue, float64(s.Misses), s.Name)
		ch <- prometheus.MustNewConstMetric(lookupEntries, prometheus.GaugeValue, float64(s.Entries), s.Name)
		ch <- prometheus.MustNewConstMetric(lookupListening, prometheus.GaugeValue, listening, s.Name)
	}
}
