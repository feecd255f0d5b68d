package render

import (
	"fmt"
	"testing"
)

// The caches forget by weight, the least recently used first: an entry's bytes count, not
// the number of entries; a used entry outlives older unused ones; an entry heavier than the
// whole budget is not kept; replacing an entry counts its new weight only.
func TestMemoForgetsTheLeastRecentlyUsedByBytes(t *testing.T) {
	t.Parallel()
	c := newMemo[string](100, bytesLen)
	c.put("a", make([]byte, 40))
	c.put("b", make([]byte, 40))
	if _, ok := c.get("a"); !ok { // a is now more recently used than b
		t.Fatal("a was forgotten within the budget")
	}
	c.put("c", make([]byte, 40))
	if _, ok := c.get("b"); ok {
		t.Fatal("b, the least recently used, was kept past the budget")
	}
	for _, k := range []string{"a", "c"} {
		if _, ok := c.get(k); !ok {
			t.Fatalf("%s was forgotten", k)
		}
	}
	if got := c.bytes(); got != 80 {
		t.Fatalf("the cache weighs %d bytes, want 80", got)
	}
	c.put("huge", make([]byte, 101))
	if _, ok := c.get("huge"); ok || c.bytes() != 80 {
		t.Fatalf("an entry heavier than the budget was kept (cache %d bytes)", c.bytes())
	}
	c.put("a", make([]byte, 10))
	if got := c.bytes(); got != 50 {
		t.Fatalf("after replacing a, the cache weighs %d bytes, want 50", got)
	}
	c.clear()
	if _, ok := c.get("a"); ok || c.bytes() != 0 {
		t.Fatal("clear kept something")
	}
}

// Many distinct images that are small files but large once decoded (16 bits per channel)
// leave the decoded-image cache within its budget: an attacker's thousands of 130 KB PNGs of
// 128 MiB each took the process to 7.3 GiB when the cache counted entries. What is kept is
// their 8-bit pixels, and the most recently drawn are the ones kept.
//
// Not parallel: it lowers the cache's budget for its run (to draw few and small images), which
// no other test may see.
func TestManyLargeImagesStayWithinTheCacheBudget(t *testing.T) {
	const side, budget = 256, 1 << 20 // each image decodes to 512 KiB and is kept as 256 KiB
	defer lowerBudget(decodedPixels, budget)()
	var last []*asset
	for i := range 12 { // 6 MiB decoded, 3 MiB kept without a bound
		uri := pngURI(flatPNG16(side, side, fmt.Sprint("image ", i)))
		if err := CheckImage(uri); err != nil {
			t.Fatal(err)
		}
		a, err := decodeDataURI(uri)
		if err != nil {
			t.Fatal(err)
		}
		img, err := a.pixels() // as a preview draws it
		if err != nil {
			t.Fatal(err)
		}
		if n := imageBytes(img); n != side*side*4 {
			t.Fatalf("the decoded image holds %d bytes; its 8-bit pixels are %d", n, side*side*4)
		}
		if got := decodedPixels.bytes(); got > budget {
			t.Fatalf("after %d images the cache holds %d bytes; its budget is %d", i+1, got, budget)
		}
		last = append(last, a)
	}
	for _, a := range last[len(last)-3:] {
		if _, ok := decodedPixels.get(a.key); !ok {
			t.Fatal("one of the most recently drawn images was forgotten")
		}
	}
	if _, ok := decodedPixels.get(last[0].key); ok {
		t.Fatal("the first image is still kept")
	}
	if got := assets.bytes(); got > assetsBudget {
		t.Fatalf("the encoded images take %d bytes; their budget is %d", got, assetsBudget)
	}
}

// The budgets hold what they are for: an image at the decoding limit fits in the decoded-image
// cache (else each page drawn with it would decode it anew), and the caches of pixels stay
// within 128 MiB together.
func TestCacheBudgetsFitTheLimits(t *testing.T) {
	t.Parallel()
	if maxDecodedBytes > pixelsBudget {
		t.Fatalf("an image at the limit (%d bytes) does not fit in the cache (%d)", maxDecodedBytes, pixelsBudget)
	}
	if rasters := int64(pixelsBudget + backgroundsBudget + sealsBudget); rasters > 128<<20 {
		t.Fatalf("the caches of pixels may hold %d MiB", rasters>>20)
	}
}

// lowerBudget sets c's budget to n (forgetting what no longer fits) until the function it
// returns is called.
func lowerBudget[K comparable, V any](c *memo[K, V], n int64) (restore func()) {
	c.mu.Lock()
	old := c.budget
	c.budget = n
	for c.used > c.budget {
		c.remove(c.lru.Back())
	}
	c.mu.Unlock()
	return func() {
		c.mu.Lock()
		c.budget = old
		c.mu.Unlock()
	}
}
