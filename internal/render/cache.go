package render

import (
	"container/list"
	"image"
	"sync"

	"github.com/certhub/credentiald/internal/memory"
)

// What the caches of this package may hold, in bytes. Decoded images and drawn rasters are
// the large entries (a decoded background at the pixel limit is 64 MiB), so they are bounded by
// what they weigh, not by how many they are: 128 MiB of pixels in all, and 72 MiB of encoded
// PNGs beside them. An entry heavier than its cache's whole budget is not kept at all.
const (
	pixelsBudget         = 72 << 20 // decoded data URI images: one at the limit and more
	backgroundsBudget    = 32 << 20 // page backgrounds of previews (an A4 page at 150 dpi is 8.7 MB)
	sealsBudget          = 16 << 20 // drawn seals (a seal at print resolution is 1-2 MB)
	scaledPixelsBudget   = 8 << 20  // images scaled to their box in a preview (a few hundred KB each)
	assetsBudget         = 32 << 20 // data URI images as PNG bytes (SVGs rasterised), for PDFs
	scaledPNGsBudget     = 16 << 20 // images scaled to their box at print resolution, for PDFs
	backgroundPNGsBudget = 16 << 20 // encoded page backgrounds of PDFs (paletted, a few hundred KB)
	narrowedBudget       = 8 << 20  // images narrowed by ImagePNG (an email's logo)
)

// memo keeps what the renderer drew or decoded, by key, for the next document that needs the
// same (a template's background, its images, a seal), within a budget of bytes: an entry
// weighs what size says, and when a new one would pass the budget the least recently used
// entries are forgotten first; what was forgotten is drawn again on its next use. (The Go
// caches in wide use, such as hashicorp/golang-lru, bound the number of entries, not their
// weight; this is container/list and a map.)
type memo[K comparable, V any] struct {
	mu     sync.Mutex
	budget int64
	size   func(V) int64
	used   int64
	lru    *list.List // of *memoEntry[K, V], the most recently used at the front
	m      map[K]*list.Element
}

type memoEntry[K comparable, V any] struct {
	key  K
	val  V
	size int64
}

func newMemo[K comparable, V any](budget int64, size func(V) int64) *memo[K, V] {
	return &memo[K, V]{budget: budget, size: size, lru: list.New(), m: map[K]*list.Element{}}
}

func (c *memo[K, V]) get(k K) (V, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.m[k]
	if !ok {
		var zero V
		return zero, false
	}
	c.lru.MoveToFront(e)
	return e.Value.(*memoEntry[K, V]).val, true
}

func (c *memo[K, V]) put(k K, v V) {
	n := c.size(v)
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.m[k]; ok {
		c.remove(e)
	}
	if n > c.budget {
		return
	}
	for c.used+n > c.budget {
		c.remove(c.lru.Back())
	}
	c.m[k] = c.lru.PushFront(&memoEntry[K, V]{key: k, val: v, size: n})
	c.used += n
	memory.Hold(n)
}

func (c *memo[K, V]) remove(e *list.Element) {
	me := c.lru.Remove(e).(*memoEntry[K, V])
	delete(c.m, me.key)
	c.used -= me.size
	memory.Hold(-me.size)
}

// bytes is what the entries weigh together.
func (c *memo[K, V]) bytes() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.used
}

// clear forgets every entry (benchmarks draw anew with it).
func (c *memo[K, V]) clear() {
	c.mu.Lock()
	defer c.mu.Unlock()
	clear(c.m)
	c.lru.Init()
	memory.Hold(-c.used)
	c.used = 0
}

func bytesLen(b []byte) int64 { return int64(len(b)) }

// imageBytes is what img's pixels take in memory.
func imageBytes(img image.Image) int64 {
	switch img := img.(type) {
	case *image.RGBA:
		return int64(len(img.Pix))
	case *image.NRGBA:
		return int64(len(img.Pix))
	case *image.RGBA64:
		return int64(len(img.Pix))
	case *image.NRGBA64:
		return int64(len(img.Pix))
	case *image.Gray:
		return int64(len(img.Pix))
	case *image.Gray16:
		return int64(len(img.Pix))
	case *image.Alpha:
		return int64(len(img.Pix))
	case *image.Paletted:
		return int64(len(img.Pix) + 4*len(img.Palette))
	case *image.CMYK:
		return int64(len(img.Pix))
	case *image.YCbCr:
		return int64(len(img.Y) + len(img.Cb) + len(img.Cr))
	case *image.NYCbCrA:
		return int64(len(img.Y) + len(img.Cb) + len(img.Cr) + len(img.A))
	}
	b := img.Bounds()
	return int64(b.Dx()) * int64(b.Dy()) * 8 // the widest pixel a decoder makes
}
