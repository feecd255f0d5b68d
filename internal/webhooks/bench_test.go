package webhooks_test

import (
	"testing"
)

// BenchmarkDispatch measures the dispatcher's deliveries per second to a local HTTPS receiver:
// b.N events in the outbox, each fanned out to one subscription, signed, sent and recorded, one
// River job at a time (the service runs webhooks.Concurrency at once).
func BenchmarkDispatch(b *testing.B) {
	h := newHarness(b)
	h.subscribe("certificate.issued")
	for range b.N {
		h.event("certificate.issued")
	}
	d := h.dispatcher()
	d.Now = nil // the real clock
	b.ResetTimer()
	sent := 0
	for sent < b.N {
		sent += h.runOnce(d)
	}
	b.StopTimer()
	if got := len(h.recv.Got()); got != b.N {
		b.Fatalf("the receiver got %d of %d", got, b.N)
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "deliveries/s")
}
