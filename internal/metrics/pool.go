package metrics

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// PoolStats are the database pool's figures at one moment: those of pgxpool.Stat, which the
// store owns (pgx stays inside it) and copies into a value of this shape.
type PoolStats struct {
	AcquiredConns     int32
	IdleConns         int32
	ConstructingConns int32
	TotalConns        int32
	MaxConns          int32

	AcquireCount            int64
	AcquireDuration         time.Duration
	CanceledAcquireCount    int64
	EmptyAcquireCount       int64
	EmptyAcquireWaitTime    time.Duration
	NewConnsCount           int64
	MaxLifetimeDestroyCount int64
	MaxIdleDestroyCount     int64
}

// NewPoolCollector returns a collector of the pool's figures, read from stats at each scrape
// (the pool keeps them; copying them is a few atomic loads).
func NewPoolCollector(stats func() PoolStats) prometheus.Collector {
	return poolCollector{stats: stats}
}

type poolCollector struct{ stats func() PoolStats }

func poolDesc(name, help string) *prometheus.Desc {
	return prometheus.NewDesc(prometheus.BuildFQName(namespace, "db_pool", name), help, nil, nil)
}

var (
	poolAcquired     = poolDesc("acquired_connections", "Connections in use now.")
	poolIdle         = poolDesc("idle_connections", "Connections idle in the pool now.")
	poolConstructing = poolDesc("constructing_connections", "Connections being opened now.")
	poolTotal        = poolDesc("connections", "Connections open now: acquired, idle and being opened.")
	poolMax          = poolDesc("max_connections", "Most connections the pool opens.")
	poolAcquires     = poolDesc("acquires_total", "Connections acquired from the pool.")
	poolAcquireTime  = poolDesc("acquire_duration_seconds_total", "Time spent acquiring connections, waits included.")
	poolCanceled     = poolDesc("canceled_acquires_total", "Acquisitions given up because their context ended.")
	poolEmpty        = poolDesc("empty_acquires_total", "Acquisitions that found no idle connection and waited for one.")
	poolEmptyWait    = poolDesc("empty_acquire_wait_seconds_total", "Time spent waiting by the acquisitions that found no idle connection.")
	poolNew          = poolDesc("new_connections_total", "Connections opened.")
	poolLifetime     = poolDesc("max_lifetime_destroys_total", "Connections closed for reaching their maximum lifetime.")
	poolIdleDestroy  = poolDesc("max_idle_destroys_total", "Connections closed for staying idle too long.")
)

func (poolCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{poolAcquired, poolIdle, poolConstructing, poolTotal, poolMax, poolAcquires,
		poolAcquireTime, poolCanceled, poolEmpty, poolEmptyWait, poolNew, poolLifetime, poolIdleDestroy} {
		ch <- d
	}
}

func (c poolCollector) Collect(ch chan<- prometheus.Metric) {
	s := c.stats()
	gauge := func(d *prometheus.Desc, v int32) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, float64(v))
	}
	counter := func(d *prometheus.Desc, v float64) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.CounterValue, v)
	}
	gauge(poolAcquired, s.AcquiredConns)
	gauge(poolIdle, s.IdleConns)
	gauge(poolConstructing, s.ConstructingConns)
	gauge(poolTotal, s.TotalConns)
	gauge(poolMax, s.MaxConns)
	counter(poolAcquires, float64(s.AcquireCount))
	counter(poolAcquireTime, s.AcquireDuration.Seconds())
	counter(poolCanceled, float64(s.CanceledAcquireCount))
	counter(poolEmpty, float64(s.EmptyAcquireCount))
	counter(poolEmptyWait, s.EmptyAcquireWaitTime.Seconds())
	counter(poolNew, float64(s.NewConnsCount))
	counter(poolLifetime, float64(s.MaxLifetimeDestroyCount))
	counter(poolIdleDestroy, float64(s.MaxIdleDestroyCount))
}
