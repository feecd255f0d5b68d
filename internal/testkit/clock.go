package testkit

import (
	"sync/atomic"
	"time"
)

// Clock is a clock for the service that a test can move: the real time plus an offset, or,
// once stopped, a fixed time plus an offset. A stopped clock makes rate-limit tests independent
// of how fast the machine is.
type Clock struct {
	offset    atomic.Int64
	stoppedAt atomic.Int64 // Unix nanoseconds; 0 while running
}

// Now is the clock's time.
func (c *Clock) Now() time.Time {
	base := time.Now()
	if s := c.stoppedAt.Load(); s != 0 {
		base = time.Unix(0, s)
	}
	return base.Add(time.Duration(c.offset.Load()))
}

// Advance moves the clock by d.
func (c *Clock) Advance(d time.Duration) { c.offset.Add(int64(d)) }

// Stop stops the clock at the present moment; Advance still moves it.
func (c *Clock) Stop() { c.stoppedAt.CompareAndSwap(0, time.Now().UnixNano()) }
