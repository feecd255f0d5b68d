package bulk

import (
	"context"
	"testing"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"
	"github.com/stretchr/testify/require"
)

// A run yields at RunFor and its context ends halfway between RunFor and River's timeout, so
// that a slow batch is rolled back by the run itself, never timed out by River; a timeout
// shorter than RunFor ends the run at RunFor.
func TestARunYieldsAtRunForAndEndsHalfwayToRiversTimeout(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name            string
		runFor, timeout time.Duration
		wantEnd         time.Duration
	}{
		{name: "production", runFor: 20 * time.Second, timeout: time.Minute, wantEnd: 40 * time.Second},
		{name: "a short run under a long timeout", runFor: 100 * time.Millisecond, timeout: 16 * time.Second, wantEnd: 8050 * time.Millisecond},
		{name: "a timeout shorter than the run", runFor: 10 * time.Second, timeout: 5 * time.Second, wantEnd: 10 * time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := &Service{timing: Timing{RunFor: tc.runFor, JobTimeout: tc.timeout}}
			before := time.Now()
			ctx, yieldAt, cancel := s.runContext(context.Background())
			defer cancel()
			after := time.Now()
			end, ok := ctx.Deadline()
			require.True(t, ok, "the run's context has no deadline")
			require.WithinRange(t, end, before.Add(tc.wantEnd), after.Add(tc.wantEnd), "end of the run's context")
			require.WithinRange(t, yieldAt, before.Add(tc.runFor), after.Add(tc.runFor), "when the run yields")
		})
	}
}

// A failed run is tried again soon, its progress being recorded: 1 s, doubling with each
// error, at most 30 s.
func TestAFailedRunIsTriedAgainWithinThirtySeconds(t *testing.T) {
	t.Parallel()
	w := &worker{s: &Service{}}
	for errs, want := range map[int]time.Duration{0: time.Second, 1: 2 * time.Second, 2: 4 * time.Second, 4: 16 * time.Second,
		5: 30 * time.Second, 6: 30 * time.Second, 24: 30 * time.Second} {
		job := &river.Job[JobArgs]{JobRow: &rivertype.JobRow{Errors: make([]rivertype.AttemptError, errs)}}
		before := time.Now()
		at := w.NextRetry(job)
		after := time.Now()
		require.WithinRange(t, at, before.Add(want), after.Add(want), "retry after %d errors", errs)
	}
}

// The CREDIT_LIMIT message counts in English.
func TestCountedAgreesWithItsNumber(t *testing.T) {
	t.Parallel()
	for n, want := range map[int]string{0: "0 credits are", 1: "1 credit is", 2: "2 credits are", 13: "13 credits are"} {
		require.Equal(t, want, counted(n, "credit is", "credits are"), "counted(%d)", n)
	}
}
