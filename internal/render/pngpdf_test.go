package render

import (
	"bytes"
	"compress/zlib"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"io"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// Every PNG variant the upload accepts is drawn in PDFs as it looks: 16-bit and interlaced
// PNGs, which the PDF library refuses (the signature became the red text "could not add image
// to document"), grey with alpha, bit depths under 8, and palettes with transparency, whose
// partial transparency the library would drop. Each is a signature's image, as stored before
// this was fixed: the PDF holds it, at its size, with its pixels and transparency.
func TestEveryPNGVariantIsDrawnInPDFs(t *testing.T) {
	t.Parallel()
	const w, h = 37, 23 // odd sizes: no other image of the page has them, and rows end mid-byte
	pal := color.Palette{color.NRGBA{0x1f, 0x2a, 0x44, 255}, color.NRGBA{0xc0, 0x30, 0x20, 255}, color.NRGBA{0xff, 0xff, 0xff, 255}, color.NRGBA{0x30, 0xa0, 0x60, 255}}
	alphaPal := color.Palette{color.NRGBA{0, 0, 0, 0}, color.NRGBA{0xc0, 0x30, 0x20, 128}, color.NRGBA{0x1f, 0x2a, 0x44, 255}, color.NRGBA{0x30, 0xa0, 0x60, 60}}
	oneClear := color.Palette{color.NRGBA{0x1f, 0x2a, 0x44, 255}, color.NRGBA{0, 0, 0, 0}, color.NRGBA{0xc0, 0x30, 0x20, 255}, color.NRGBA{0x30, 0xa0, 0x60, 255}}
	paletteTRNS := func(p color.Palette) []byte {
		var b []byte
		for _, c := range p {
			b = append(b, c.(color.NRGBA).A)
		}
		return b
	}
	type variant struct {
		name string
		spec pngSpec
	}
	var variants []variant
	for _, d := range []byte{1, 2, 4, 8, 16} {
		variants = append(variants, variant{fmt.Sprintf("grey %d-bit", d), pngSpec{colourType: 0, depth: d}})
	}
	for _, d := range []byte{1, 2, 4, 8} {
		variants = append(variants, variant{fmt.Sprintf("palette %d-bit", d), pngSpec{colourType: 3, depth: d, palette: pal[:min(len(pal), 1<<d)]}})
	}
	for _, d := range []byte{8, 16} {
		variants = append(variants,
			variant{fmt.Sprintf("RGB %d-bit", d), pngSpec{colourType: 2, depth: d}},
			variant{fmt.Sprintf("grey and alpha %d-bit", d), pngSpec{colourType: 4, depth: d}},
			variant{fmt.Sprintf("RGBA %d-bit", d), pngSpec{colourType: 6, depth: d}})
	}
	variants = append(variants,
		variant{"palette, one transparent colour", pngSpec{colourType: 3, depth: 8, palette: oneClear, trns: paletteTRNS(oneClear)}},
		variant{"palette, partly transparent colours", pngSpec{colourType: 3, depth: 8, palette: alphaPal, trns: paletteTRNS(alphaPal)}},
		variant{"grey, a transparent grey", pngSpec{colourType: 0, depth: 8, trns: []byte{0, 0}}},
		variant{"RGB, a transparent colour", pngSpec{colourType: 2, depth: 8, trns: []byte{0, 0x1f, 0, 0x2a, 0, 0x44}}},
	)
	for _, v := range append([]variant(nil), variants...) {
		if v.spec.depth == 8 || v.name == "RGBA 16-bit" {
			v.spec.interlace = true
			variants = append(variants, variant{v.name + ", interlaced", v.spec})
		}
	}
	for _, v := range variants {
		t.Run(v.name, func(t *testing.T) {
			t.Parallel()
			raw := writePNG(picture(w, h, v.spec), v.spec)
			want, err := png.Decode(bytes.NewReader(raw))
			if err != nil {
				t.Fatalf("the test's PNG does not decode: %v", err)
			}
			uri := pngURI(raw)
			if err := CheckImage(uri); err != nil {
				t.Fatalf("refused: %v", err)
			}
			tmpl := Template{Page: PageOf("A4", "landscape"), Layout: Layout{Rows: []Row{
				{Height: 40, Cols: []Col{{Size: 6, Content: Content{Type: "signature", Image: uri, Name: "Grace Hopper", Title: "Programme chair"}}}},
			}}}
			doc, err := PDF(tmpl, sample(names[0]))
			if err != nil {
				t.Fatal(err)
			}
			if text := pdfText(t, doc); strings.Contains(text, "could not") {
				t.Fatalf("the PDF says %q", text)
			}
			var got image.Image
			for _, img := range pdfImages(t, doc) {
				if img.Bounds().Size() == image.Pt(w, h) {
					got = img
				}
			}
			if got == nil {
				t.Fatalf("the PDF holds no image of %dx%d pixels", w, h)
			}
			for y := range h {
				for x := range w {
					g, e := color.NRGBAModel.Convert(got.At(x, y)).(color.NRGBA), color.NRGBAModel.Convert(want.At(x, y)).(color.NRGBA)
					if near(g.A, e.A) && (e.A == 0 || near(g.R, e.R) && near(g.G, e.G) && near(g.B, e.B)) {
						continue
					}
					t.Fatalf("pixel (%d, %d) is %v in the PDF; the image has %v", x, y, g, e)
				}
			}
		})
	}
}

func near(a, b uint8) bool { return max(a, b)-min(a, b) <= 2 }

// picture is a test image for spec: colours and transparency that vary across it, from the
// palette for a palette image.
func picture(w, h int, spec pngSpec) image.Image {
	img := image.NewNRGBA64(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			if spec.colourType == 3 {
				img.Set(x, y, spec.palette[(x/5+y/4)%len(spec.palette)])
				continue
			}
			c := color.NRGBA64{uint16(x * 0xffff / (w - 1)), uint16(y * 0xffff / (h - 1)), 0x8123, 0xffff}
			switch {
			case spec.colourType == 0 || spec.colourType == 4:
				c.G, c.B = c.R, c.R
			case spec.trns != nil: // RGB with a transparent colour: some pixels have it
				if (x+y)%7 == 0 {
					c = color.NRGBA64{0x1f1f, 0x2a2a, 0x4444, 0xffff}
				}
			}
			if spec.colourType >= 4 {
				c.A = []uint16{0xffff, 0x8080, 0x3456, 0}[x*4/w]
			}
			img.Set(x, y, c)
		}
	}
	return img
}

// pdfObject finds the objects of a PDF as gofpdf writes them: a dictionary and a stream.
var pdfObject = regexp.MustCompile(`(?s)(\d+) 0 obj\s*<<(.*?)>>\s*stream\r?\n`)

// pdfImages returns the images a PDF holds (gofpdf's image XObjects), with their soft masks
// and colour-key masks applied. An image's data is PNG-predicted Flate, as in a PNG's IDAT
// chunk: each is put back into a PNG and decoded by image/png.
func pdfImages(t *testing.T, doc []byte) []image.Image {
	t.Helper()
	type object struct {
		dict string
		data []byte
	}
	objects := map[string]object{}
	for _, m := range pdfObject.FindAllSubmatchIndex(doc, -1) {
		dict := string(doc[m[4]:m[5]])
		n, _ := strconv.Atoi(field(dict, `/Length (\d+)`))
		objects[string(doc[m[2]:m[3]])] = object{dict, doc[m[1] : m[1]+n]}
	}
	decode := func(o object) (image.Image, error) {
		w, _ := strconv.Atoi(field(o.dict, `/Width (\d+)`))
		h, _ := strconv.Atoi(field(o.dict, `/Height (\d+)`))
		bpc, _ := strconv.Atoi(field(o.dict, `/BitsPerComponent (\d+)`))
		if !strings.Contains(o.dict, "/Predictor 15") {
			return nil, fmt.Errorf("not PNG-predicted: %s", o.dict)
		}
		var out bytes.Buffer
		out.WriteString(pngSignature)
		switch cs := field(o.dict, `/ColorSpace (\[[^]]*\]|\S+)`); {
		case cs == "/DeviceGray":
			appendChunk(&out, "IHDR", pngHeader(w, h, byte(bpc), 0, 0))
		case cs == "/DeviceRGB":
			appendChunk(&out, "IHDR", pngHeader(w, h, byte(bpc), 2, 0))
		case strings.HasPrefix(cs, "[/Indexed /DeviceRGB"):
			appendChunk(&out, "IHDR", pngHeader(w, h, byte(bpc), 3, 0))
			pal := objects[field(cs, `(\d+) 0 R`)]
			plte := pal.data
			if strings.Contains(pal.dict, "/FlateDecode") {
				zr, err := zlib.NewReader(bytes.NewReader(plte))
				if err != nil {
					return nil, err
				}
				if plte, err = io.ReadAll(zr); err != nil {
					return nil, err
				}
			}
			appendChunk(&out, "PLTE", plte)
		default:
			return nil, fmt.Errorf("colour space %s", cs)
		}
		appendChunk(&out, "IDAT", o.data)
		appendChunk(&out, "IEND", nil)
		return png.Decode(&out)
	}
	masks := map[string]bool{}
	for _, o := range objects {
		if m := field(o.dict, `/SMask (\d+) 0 R`); m != "" {
			masks[m] = true
		}
	}
	var out []image.Image
	for n, o := range objects {
		if !strings.Contains(o.dict, "/Subtype /Image") || masks[n] {
			continue
		}
		img, err := decode(o)
		if err != nil {
			t.Fatalf("image %s: %v", n, err)
		}
		b := img.Bounds()
		rgba := image.NewNRGBA(b)
		var key []int // a colour-key mask: the samples (or palette index) drawn transparent
		for _, s := range strings.Fields(field(o.dict, `/Mask \[([^]]*)\]`)) {
			v, _ := strconv.Atoi(s)
			key = append(key, v)
		}
		var alpha image.Image
		if m := field(o.dict, `/SMask (\d+) 0 R`); m != "" {
			if alpha, err = decode(objects[m]); err != nil {
				t.Fatalf("soft mask %s: %v", m, err)
			}
		}
		for y := b.Min.Y; y < b.Max.Y; y++ {
			for x := b.Min.X; x < b.Max.X; x++ {
				c := color.NRGBAModel.Convert(img.At(x, y)).(color.NRGBA)
				if alpha != nil {
					c.A = color.GrayModel.Convert(alpha.At(x, y)).(color.Gray).Y
				}
				if len(key) > 0 {
					var samples []int
					switch img := img.(type) {
					case *image.Paletted:
						samples = []int{int(img.ColorIndexAt(x, y))}
					case *image.Gray:
						samples = []int{int(img.GrayAt(x, y).Y)}
					default:
						samples = []int{int(c.R), int(c.G), int(c.B)}
					}
					if keyed(samples, key) {
						c.A = 0
					}
				}
				rgba.SetNRGBA(x, y, c)
			}
		}
		out = append(out, rgba)
	}
	return out
}

// keyed reports whether samples lie in the ranges of a colour-key mask ([min max] a sample).
func keyed(samples, key []int) bool {
	if len(key) != 2*len(samples) {
		return false
	}
	for i, s := range samples {
		if s < key[2*i] || s > key[2*i+1] {
			return false
		}
	}
	return true
}

func field(s, pattern string) string {
	if m := regexp.MustCompile(pattern).FindStringSubmatch(s); m != nil {
		return m[1]
	}
	return ""
}

// An image with more pixels than its box needs is embedded at print resolution (pdfImageDPI)
// for its box, its proportions kept: what a PDF costs follows the box, not the upload (the PDF
// library unpacks and packs every pixel of a transparent PNG for every document).
func TestLargeImagesAreEmbeddedAtPrintResolution(t *testing.T) {
	t.Parallel()
	big := image.NewNRGBA(image.Rect(0, 0, 1200, 600))
	for y := 150; y < 450; y++ {
		for x := 300; x < 900; x++ {
			big.SetNRGBA(x, y, color.NRGBA{0x1f, 0x2a, 0x44, 0xff})
		}
	}
	raw, err := encodePNG(big)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := Template{Page: PageOf("A4", "landscape"), Layout: Layout{Rows: []Row{
		{Height: 30, Cols: []Col{{Size: 1, Content: Content{Type: "image", Image: pngURI(raw)}}}},
	}}}
	p, err := tmpl.plan(&Data{})
	if err != nil {
		t.Fatal(err)
	}
	box := p.rows[0].cols[0].items[0].(imageItem)
	want := image.Pt(int(box.w*pdfImageDPI/25.4+0.999), int(box.h*pdfImageDPI/25.4+0.999))
	doc, err := PDF(tmpl, sample(names[0]))
	if err != nil {
		t.Fatal(err)
	}
	var sizes []image.Point
	for _, img := range pdfImages(t, doc) {
		sizes = append(sizes, img.Bounds().Size())
		if d := img.Bounds().Size().Sub(want); max(d.X, -d.X, d.Y, -d.Y) <= 1 {
			return
		}
	}
	t.Fatalf("the PDF holds images of %v; a box of %.1f x %.1f mm needs %v pixels", sizes, box.w, box.h, want)
}
