package render

import (
	"bytes"
	"encoding/base64"
	"image"
	"image/png"
	"runtime"
	"strings"
	"testing"
)

// An SVG with <use> is refused before the SVG library sees it: one that uses its own
// ancestor made the library recurse until the stack overflowed, which no recover catches.
// Well-formed SVGs without it still draw, and a <use> in another namespace is refused too.
func TestSVGsWithUseElementsAreRefused(t *testing.T) {
	uri := func(svg string) string {
		return "data:image/svg+xml;base64," + base64.StdEncoding.EncodeToString([]byte(svg))
	}
	for _, svg := range []string{
		`<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10"><g id="a"><use href="#a"/></g></svg>`,
		`<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" viewBox="0 0 10 10"><defs><rect id="r" width="1" height="1"/></defs><svg:use xmlns:svg="http://www.w3.org/2000/svg" xlink:href="#r"/></svg>`,
	} {
		if err := CheckImage(uri(svg)); err == nil || !strings.Contains(err.Error(), "<use>") {
			t.Errorf("%s: %v", svg, err)
		}
	}
	if err := CheckImage(uri(`<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10"><rect width="10" height="5" fill="#123"/></svg>`)); err != nil {
		t.Fatalf("a plain SVG: %v", err)
	}
}

// ImagePNG narrows an image wider than asked (once: the second answer is the cached one) and
// answers a narrower one as it is; what the renderer refuses it refuses too.
func TestImagePNGNarrowsWideImages(t *testing.T) {
	wide := image.NewNRGBA(image.Rect(0, 0, 1000, 300))
	var buf bytes.Buffer
	if err := png.Encode(&buf, wide); err != nil {
		t.Fatal(err)
	}
	uri := "data:image/png;base64," + base64.StdEncoding.EncodeToString(buf.Bytes())
	out, err := ImagePNG(uri, 440)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := png.DecodeConfig(bytes.NewReader(out))
	if err != nil || cfg.Width != 440 || cfg.Height != 132 {
		t.Fatalf("narrowed to %dx%d, %v", cfg.Width, cfg.Height, err)
	}
	if again, _ := ImagePNG(uri, 440); &again[0] != &out[0] {
		t.Fatal("the narrowed image was drawn again")
	}
	if same, _ := ImagePNG(uri, 1200); !bytes.Equal(same, buf.Bytes()) {
		t.Fatal("an image narrower than asked was changed")
	}
	if _, err := ImagePNG("data:image/gif;base64,R0lGODlh", 440); err == nil {
		t.Fatal("a GIF was answered")
	}
}

// A seal in a row with barely more room than the padding draws nothing, as a QR code there
// does; its image would have been 0 pixels wide, which no encoder writes (a 500 on a template
// the service had accepted).
func TestASealWithoutRoomDrawsNothing(t *testing.T) {
	for _, h := range []float64{4.01, 4.04, 4.2} {
		tmpl := Template{Page: PageOf("A4", "landscape"), Layout: Layout{Rows: []Row{
			{Height: h, Cols: []Col{{Size: 12, Content: Content{Type: "seal", Text: "Certified", Ribbons: true}}}},
		}}}
		if _, err := PNG(tmpl, sample(names[0]), 72); err != nil {
			t.Errorf("PNG, row of %.2f mm: %v", h, err)
		}
		if _, err := PDF(tmpl, sample(names[0])); err != nil {
			t.Errorf("PDF, row of %.2f mm: %v", h, err)
		}
	}
}

// An image is judged by what decoding it would cost, from its header, before it is decoded:
// a PNG of 4096 x 4096 pixels of 16 bits per channel (a file of some 130 KB decodes to 128
// MiB) is refused with the limit and how to meet it, and so is one of too many pixels,
// without taking the memory their pixels would; a smaller image of 16 bits is accepted.
//
// Not parallel: it measures the memory CheckImage allocates, which other tests would add to.
func TestImagesAreJudgedByWhatDecodingThemCosts(t *testing.T) {
	for _, c := range []struct {
		name  string
		png   []byte
		words []string
	}{
		{"16-bit 4096x4096", bombPNG(4096, 4096, 16), []string{"4096x4096 pixels of 16 bits per channel", "128 MiB", "at most 64 MiB", "save it with 8 bits per channel or scale it down"}},
		{"8-bit 8192x8192", bombPNG(8192, 8192, 8), []string{"8192x8192 pixels", "at most 16777216 pixels (e.g. 4096x4096)", "scale it down"}},
		{"8-bit 20000x1000", bombPNG(20000, 1000, 8), []string{"20000x1000 pixels", "at most 16777216 pixels"}},
	} {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		err := CheckImage(pngURI(c.png))
		runtime.ReadMemStats(&after)
		if err == nil {
			t.Fatalf("%s: accepted", c.name)
		}
		for _, w := range c.words {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: %q does not say %q", c.name, err, w)
			}
		}
		if n := after.TotalAlloc - before.TotalAlloc; n > 4<<20 {
			t.Errorf("%s: judging the image allocated %d MiB", c.name, n>>20)
		}
	}
	if err := CheckImage(pngURI(flatPNG16(300, 200, "small"))); err != nil {
		t.Fatalf("a small image of 16 bits per channel: %v", err)
	}
}
