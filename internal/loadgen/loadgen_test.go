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

	const rate = 20.0
	res := Run(context.Background(), Get(srv.URL, nil), Options{Clients: 1, Duration: time.Second, Rate: rate})
	if res.Failed > 0 {
		t.Fatalf("%d requests failed: %v", res.Failed, res.FirstErr)
	}
	if res.Requests < 2 {
		t.Fatalf("%d requests in a second at %v a second", res.Requests, rate)
	}
	// The second was due 50 ms after the first and could leave only after the first's answer.
	if second := res.Latencies[1]; second < hold-time.Second/time.Duration(rate) {
		t.Errorf("the second request's latency is %v: its wait for the client is missing", second)
	}
	// Never more than were due: one at the start and one every 1/rate.
	if due := res.Requests + res.Missed; due > int(rate)+1 {
		t.Errorf("%d requests due in a second at %v a second", due, rate)
	}
}
