package webhooks_test

import (
	"context"
	"testing"
	"time"

	"github.com/certhub/credentiald/internal/jobqueue"
)

// BenchmarkDispatch measures the deliveries per second of the process's River client, as the
// service runs it (jobqueue.New: webhooks.Concurrency workers), to a local HTTPS receiver: b.N
// events in the outbox, each fanned out to one subscription, signed, sent and recorded. The
// clock runs from the client's start until it has stopped, so every delivery is recorded.
func BenchmarkDispatch(b *testing.B) {
	h := newHarness(b)
	h.subscribe("certificate.issued")
	for range b.N {
		h.event("certificate.issued")
	}
	d := h.dispatcher()
	d.Now = nil // the real clock: River schedules on it
	q, err := jobqueue.New(h.st, jobqueue.Workers{Webhooks: d}, d.Logger, 0)
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute+time.Duration(b.N)*100*time.Millisecond)
	defer cancel()
	b.ResetTimer()
	if err := q.Start(ctx); err != nil {
		b.Fatal(err)
	}
	for len(h.recv.Got()) < b.N && ctx.Err() == nil {
		time.Sleep(5 * time.Millisecond)
	}
	if err := q.Stop(ctx); err != nil {
		b.Fatal(err)
	}
	b.StopTimer()
	if got := len(h.recv.Got()); got != b.N {
		b.Fatalf("the receiver got %d of %d", got, b.N)
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "deliveries/s")
}
