package site

import (
	"fmt"
	"testing"
)

func TestAcceptsGzipReadsTheWeights(t *testing.T) {
	for header, want := range map[string]bool{
		"": false, "gzip": true, "GZIP": true, "x-gzip": true, "gzip, deflate, br, zstd": true, "br": false,
		"gzip;q=0": false, "gzip; q=0.0": false, "gzip;q=0.001": true, "*": true, "*;q=0": false,
		"*, gzip;q=0": false, "gzip;q=0, *": false, "br, *;q=0.1": true, "identity": false, "deflate;q=1, gzip ; q=0.5": true,
	} {
		if got := acceptsGzip(header); got != want {
			t.Errorf("Accept-Encoding %q: %v, want %v", header, got, want)
		}
	}
}

// Pages past the budget of bytes go, the least recently used first; a page made twice is kept
// once.
func TestKeptPagesStayWithinTheirBudget(t *testing.T) {
	k := newKeptPages()
	page := keptPage{csp: "x", gz: make([]byte, 64<<10)}
	n := keptPagesBudget/len(page.gz) + 10
	for i := range n {
		k.put(fmt.Sprint(i), page)
		k.put(fmt.Sprint(i), page)
	}
	if used := k.used.Load(); used > keptPagesBudget || used < keptPagesBudget-int64(len(page.gz)) {
		t.Fatalf("%d bytes kept, budget %d", used, keptPagesBudget)
	}
	if _, ok := k.get("0"); ok {
		t.Fatal("the oldest page was kept past the budget")
	}
	if _, ok := k.get(fmt.Sprint(n - 1)); !ok {
		t.Fatal("the newest page is not kept")
	}
	html := []byte("<!doctype html><title>x</title>")
	if back, err := decompress(compress(html)); err != nil || string(back) != string(html) {
		t.Fatalf("%q %v", back, err)
	}
}
