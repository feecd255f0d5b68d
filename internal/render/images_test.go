package render

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"image"
	"image/png"
	"net/url"
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

// A stored SVG that today's upload check refuses is replaced by its rasterisation as a PNG
// data URI (scaled down to fit the limit of its place), one that cannot be drawn by a
// transparent pixel; what passes, and what is not a base64 SVG, stays.
func TestStoredSVGsThatFailTheCheckBecomePNGs(t *testing.T) {
	t.Parallel()
	const xhtml = `<svg xmlns="http://www.w3.org/2000/svg" xmlns:h="http://www.w3.org/1999/xhtml" viewBox="0 0 200 100">` +
		`<rect width="200" height="100" fill="#1F2A44"/><h:img src="https://evil.example/p.png"/></svg>`
	decoded := func(t *testing.T, uri string) image.Image {
		t.Helper()
		raw, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(uri, "data:image/png;base64,"))
		if err != nil || !strings.HasPrefix(uri, "data:image/png;base64,") {
			t.Fatalf("not a PNG data URI: %.60s", uri)
		}
		img, err := png.Decode(bytes.NewReader(raw))
		if err != nil {
			t.Fatal(err)
		}
		return img
	}

	out, replace, err := RecheckSVG(svgURI(xhtml), 256<<10, false)
	if err != nil || !replace {
		t.Fatalf("replace %v, %v", replace, err)
	}
	img := decoded(t, out)
	if b := img.Bounds(); b.Dx() != svgRasterSide || b.Dy() != svgRasterSide/2 {
		t.Fatalf("rasterised at %v", b)
	}
	if r, g, b, a := img.At(100, 50).RGBA(); r>>8 != 0x1F || g>>8 != 0x2A || b>>8 != 0x44 || a>>8 != 0xFF {
		t.Fatalf("the picture is not drawn: %v", img.At(100, 50))
	}
	if CheckImage(out) != nil {
		t.Fatal("the PNG does not pass the upload check")
	}

	noise := `<svg xmlns="http://www.w3.org/2000/svg" xmlns:h="http://www.w3.org/1999/xhtml" viewBox="0 0 100 100"><h:img src="x"/>`
	for i := range 12 {
		noise += fmt.Sprintf(`<circle cx="%d" cy="%d" r="%d" fill="#%06x" fill-opacity="0.5"/>`, i*17%100, i*29%100, 10+i%20, i*0x30507)
	}
	out, replace, err = RecheckSVG(svgURI(noise+`</svg>`), 4<<10, false)
	if err != nil || !replace {
		t.Fatalf("replace %v, %v", replace, err)
	}
	raw, _ := base64.StdEncoding.DecodeString(strings.TrimPrefix(out, "data:image/png;base64,"))
	if img := decoded(t, out); len(raw) > 4<<10 || img.Bounds().Dx() >= svgRasterSide {
		t.Fatalf("%d bytes, %v: not scaled down to fit 4 KiB", len(raw), img.Bounds())
	}

	undrawable := `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10"><g id="a"><use href="#a"/></g></svg>`
	out, replace, err = RecheckSVG(svgURI(undrawable), 256<<10, false)
	if err != nil || !replace || decoded(t, out).Bounds().Dx() != 1 {
		t.Fatalf("an SVG that cannot be drawn: replace %v, %v, %.80s", replace, err, out)
	}

	for name, uri := range map[string]string{
		"a passing SVG":        svgURI(`<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10"><rect width="4" height="3"/></svg>`),
		"a PNG":                pngURI(flatPNG16(4, 3, "png")),
		"an SVG not in base64": "data:image/svg+xml," + url.PathEscape(xhtml),
	} {
		if out, replace, err := RecheckSVG(uri, 256<<10, false); replace || err != nil || out != "" {
			t.Errorf("%s: replaced by %.40q, %v", name, out, err)
		}
	}
}
