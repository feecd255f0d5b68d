package badges

import (
	"bytes"
	"testing"
)

// The drawn-image cache is bounded by bytes, whatever the number of distinct images: many
// large images never hold more than imageCacheBytes, and one larger than the budget is not
// kept at all.
func TestImageCacheIsBoundedByBytes(t *testing.T) {
	t.Parallel()
	c := newImageCache()
	for i := range 100 {
		img := bytes.Repeat([]byte{byte(i)}, 1<<20)
		got, err := c.get("png", i, func() ([]byte, error) { return img, nil })
		if err != nil || !bytes.Equal(got, img) {
			t.Fatalf("image %d: %v", i, err)
		}
		if c.bytes > imageCacheBytes {
			t.Fatalf("after %d images the cache holds %d bytes", i+1, c.bytes)
		}
	}
	huge := make([]byte, imageCacheBytes+1)
	if _, err := c.get("png", "huge", func() ([]byte, error) { return huge, nil }); err != nil {
		t.Fatal(err)
	}
	for k, v := range c.m {
		if len(v) > imageCacheBytes {
			t.Fatalf("kept an image of %d bytes under %x", len(v), k[:4])
		}
	}
}
