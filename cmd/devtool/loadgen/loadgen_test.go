package loadgen

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"
)

// An open loop counts a request's latency from the moment it was due: when the server holds
// the first answer, the requests due meanwhile wait for the one client, and that wait is
// theirs. A closed loop would have sent the second request only after the first answer and
// timed it from then.
func TestOpenLoopCountsTheWaitForAClient(t *testing.T) {
	const hold = 300 * time.Millisecond
	var served atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if served.Add(1) == 1 {
			time.Sleep(hold)
		}
	}))
	defer srv.Close()

	// The phase ends (200 ms) while the first answer is held: the requests due meanwhile are
	// still sent and timed, not dropped, for they are the slowest.
	const rate = 20.0
	const phase = 200 * time.Millisecond
	res := Run(context.Background(), Get(srv.URL, nil), Options{Clients: 1, Duration: phase, Rate: rate})
	if res.Failed > 0 {
		t.Fatalf("%d requests failed: %v", res.Failed, res.FirstErr)
	}
	if res.Requests < 2 || res.Missed != 0 || len(res.Latencies) != res.Requests {
		t.Fatalf("%d requests (%d latencies), %d missed; want 2 or more, all sent", res.Requests, len(res.Latencies), res.Missed)
	}
	// The second was due 50 ms after the first and could leave only after the first's answer.
	if second := res.Latencies[1]; second < hold-time.Second/time.Duration(rate) {
		t.Errorf("the second request's latency is %v: its wait for the client is missing", second)
	}
	// Never more than were due: one at the start and one every 1/rate within the phase.
	if res.Requests > int(rate*phase.Seconds())+1 {
		t.Errorf("%d requests due in %v at %v a second", res.Requests, phase, rate)
	}
	if res.Elapsed < hold {
		t.Errorf("the run ended after %v, before the requests waiting at its end were served", res.Elapsed)
	}
}
