package credentials

import (
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// Concurrent requests for an answer the cache does not hold sign it once, and all get it.
func TestConcurrentMissesSignOnce(t *testing.T) {
	c := newSignedCache(8)
	var signed atomic.Int32
	release := make(chan struct{})
	var wg sync.WaitGroup
	got := make([][]byte, 16)
	for i := range got {
		wg.Go(func() {
			got[i], _ = c.get("list-1", func() ([]byte, error) {
				signed.Add(1)
				<-release
				return []byte("signed"), nil
			})
		})
	}
	time.Sleep(50 * time.Millisecond) // let the requests pile up behind the first signature
	close(release)
	wg.Wait()
	if n := signed.Load(); n != 1 {
		t.Fatalf("signed %d times", n)
	}
	for i, b := range got {
		if string(b) != "signed" {
			t.Fatalf("request %d got %q", i, b)
		}
	}
}
