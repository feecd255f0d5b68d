package logging

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"
)

// syncBuffer is a bytes.Buffer that the buffer's goroutine and the test may share; it counts
// the calls of Sync a writer of its kind would get.
type syncBuffer struct {
	mu    sync.Mutex
	b     bytes.Buffer
	syncs int
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) Sync() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.syncs++
	return nil
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// Info lines wait in the buffer; a warning is written at once with the lines before it, in
// order, without syncing the writer (an fsync of stderr per warning); stop writes the rest.
func TestBufferedLinesWaitButWarningsDoNot(t *testing.T) {
	var out syncBuffer
	logger, stop := newBuffered(&out, slog.LevelInfo, time.Hour)
	ctx := WithRequestID(context.Background(), "req-1")
	logger.InfoContext(ctx, "first")
	logger.Info("second")
	if got := out.String(); got != "" {
		t.Fatalf("info lines written before the buffer's time: %q", got)
	}
	logger.With("part", "store").Warn("third")
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 3 || !strings.Contains(lines[0], `"msg":"first"`) || !strings.Contains(lines[0], `"request_id":"req-1"`) ||
		!strings.Contains(lines[2], `"msg":"third"`) || !strings.Contains(lines[2], `"part":"store"`) {
		t.Fatalf("after the warning: %q", lines)
	}
	logger.Info("fourth")
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "fourth") {
		t.Fatal("stop did not write what was waiting")
	}
	if out.syncs != 0 {
		t.Errorf("the writer was synced %d times", out.syncs)
	}
}

// What waits is written within the buffer's delay, with no warning to push it.
func TestBufferedLinesAreWrittenWithinTheDelay(t *testing.T) {
	var out syncBuffer
	logger, stop := newBuffered(&out, slog.LevelInfo, 20*time.Millisecond)
	defer func() { _ = stop() }()
	logger.Info("waiting")
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(out.String(), "waiting") {
		if time.Now().After(deadline) {
			t.Fatal("an info line was never written")
		}
		time.Sleep(10 * time.Millisecond)
	}
}
