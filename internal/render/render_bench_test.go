package render

import (
	"bytes"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"io/fs"
	"path"
	"runtime"
	"runtime/metrics"
	"strings"
	"testing"
	"time"

	dbfiles "github.com/certhub/credentiald/db"
)

// One page per iteration: the figures in docs/benchmarks.md are ns/op of these. Each renders its page
// once before it measures, so that what a template draws once per process (its background,
// BenchmarkDrawBackground) is not spread over however many iterations the run happens to take.
func BenchmarkRenderPDF(b *testing.B) {
	for name, tmpl := range benchTemplates(b) {
		for _, r := range []Recipient{names[0], names[4]} {
			b.Run(name+"/"+r.LastName, func(b *testing.B) {
				d := sample(r)
				if _, err := PDF(tmpl, d); err != nil {
					b.Fatal(err)
				}
				b.ReportAllocs()
				for b.Loop() {
					if _, err := PDF(tmpl, d); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

func BenchmarkRenderPNG(b *testing.B) {
	for name, tmpl := range benchTemplates(b) {
		b.Run(name, func(b *testing.B) {
			d := sample(names[0])
			if _, err := PNG(tmpl, d, PreviewDPI); err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := PNG(tmpl, d, PreviewDPI); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func benchTemplates(b testing.TB) map[string]Template {
	out := map[string]Template{"plain": plainTemplate()}
	files, _ := fs.Glob(dbfiles.SystemTemplates, "system-templates/*.json")
	for _, f := range files {
		raw, _ := dbfiles.SystemTemplates.ReadFile(f)
		var t struct {
			PageSize, Orientation string
			Layout                Layout
		}
		if err := json.Unmarshal(raw, &t); err != nil {
			b.Fatal(err)
		}
		out[strings.TrimSuffix(path.Base(f), ".json")] = Template{Page: PageOf(t.PageSize, t.Orientation), Layout: t.Layout}
	}
	return out
}

// BenchmarkDrawBackground is what the first PDF of a template with a 300 dpi background pays
// once per process (drawn, paletted, encoded; cached afterwards).
func BenchmarkDrawBackground(b *testing.B) {
	for name, tmpl := range benchTemplates(b) {
		d := sample(names[0])
		p, err := tmpl.plan(&d)
		if err != nil {
			b.Fatal(err)
		}
		if p.background == nil || !p.background.fineLines() {
			continue
		}
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				backgroundPNGs.clear()
				if _, err := backgroundPNG(p, ornamentDPI); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkRenderLargestImages renders a certificate whose images are the largest the limits
// let through: a template background at the pixel limit (4096 x 4096, under the 2 MiB upload
// limit), a logo at the pixel limit (under 256 KiB), a signature of 16 bits per channel at the
// decoded-bytes limit (4096 x 2048, under 128 KiB; converted for the PDF) and an SVG image of
// 256 KiB of shapes. Cold, every cache is emptied before each page (a template's first page,
// or a process whose caches keep forgetting); warm, the caches hold what the page needs. It
// reports the time a page takes and the heap it reaches: peak-heap-MiB is the most the heap
// held while the pages were drawn (sampled every millisecond) above what it held before, and
// alloc-MiB/op what a page allocates.
func BenchmarkRenderLargestImages(b *testing.B) {
	tmpl, d := largestImagesCertificate(b)
	for _, cold := range []bool{true, false} {
		for _, format := range []string{"pdf", "png"} {
			name := format + "/warm"
			if cold {
				name = format + "/cold"
			}
			b.Run(name, func(b *testing.B) {
				render := func() error {
					if cold {
						clearCaches()
					}
					var err error
					if format == "pdf" {
						_, err = PDF(tmpl, d)
					} else {
						_, err = PNG(tmpl, d, PreviewDPI)
					}
					return err
				}
				clearCaches()
				if err := render(); err != nil {
					b.Fatal(err)
				}
				stop, peak := sampleHeap()
				var before, after runtime.MemStats
				runtime.ReadMemStats(&before)
				for b.Loop() {
					if err := render(); err != nil {
						b.Fatal(err)
					}
				}
				runtime.ReadMemStats(&after)
				stop()
				b.ReportMetric(float64(*peak)/(1<<20), "peak-heap-MiB")
				b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/float64(b.N)/(1<<20), "alloc-MiB/op")
			})
		}
	}
}

// largestImagesCertificate is the page of BenchmarkRenderLargestImages.
func largestImagesCertificate(b *testing.B) (Template, Data) {
	b.Helper()
	encode := func(img image.Image, limit int) string {
		var buf bytes.Buffer
		if err := (&png.Encoder{CompressionLevel: png.BestCompression}).Encode(&buf, img); err != nil {
			b.Fatal(err)
		}
		if buf.Len() > limit {
			b.Fatalf("a %v image is %d KiB, over the upload limit of %d KiB", img.Bounds().Size(), buf.Len()>>10, limit>>10)
		}
		return pngURI(buf.Bytes())
	}
	// A background of soft gradients (a photograph would not fit in 2 MiB at this size).
	bg := image.NewNRGBA(image.Rect(0, 0, 4096, 4096))
	for y := range 4096 {
		for x := range 4096 {
			bg.SetNRGBA(x, y, color.NRGBA{uint8(x >> 4), uint8(y >> 4), 0xe0, 0xff})
		}
	}
	logo := image.NewNRGBA(image.Rect(0, 0, 4096, 4096))
	for y := 1024; y < 3072; y++ {
		for x := 1024; x < 3072; x++ {
			logo.SetNRGBA(x, y, color.NRGBA{0x1f, 0x2a, 0x44, 0xff})
		}
	}
	var shapes strings.Builder
	for i := 0; shapes.Len() < 250<<10; i++ {
		fmt.Fprintf(&shapes, `<path d="M%d %d l4 0 l-2 3 z" fill="#%06x" stroke="#123" stroke-width="0.3"/>`, i*7%400, i*13%300, i*2654435761%0xffffff)
	}
	svg := svgURI(`<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 400 300">` + shapes.String() + `</svg>`)
	signature := pngURI(flatPNG16(4096, 2048, "signature"))
	for _, uri := range []string{signature, svg} {
		if _, raw, _ := splitDataURI(uri); len(raw) > 256<<10 {
			b.Fatalf("an image is %d KiB", len(raw)>>10)
		}
	}
	tmpl := Template{Page: PageOf("A4", "landscape"), Layout: Layout{
		Background: &Background{Color: "#FFFDF7", Image: encode(bg, 2<<20), Border: &Border{Color: "#1F2A44", Width: 1.5, Style: "double"}},
		Rows: []Row{
			{Height: 40, Cols: []Col{{Size: 4, Content: Content{Type: "logo"}}, {Size: 4, Content: Content{Type: "image", Image: svg}}}},
			{Height: 30, Cols: []Col{{Size: 12, Content: Content{Type: "text", Text: "{{recipient.fullName}}", FontSize: 28}}}},
			{Height: 50, Cols: []Col{
				{Size: 4, Content: Content{Type: "signature", Image: signature, Name: "Grace Hopper", Title: "Programme chair"}},
				{Size: 4, Content: Content{Type: "qr"}}}},
		}}}
	d := sample(names[0])
	d.IssuerLogo = encode(logo, 256<<10)
	for _, p := range Check(tmpl) {
		b.Fatalf("the template is refused: %s: %s", p.Path, p.Message)
	}
	if err := CheckImage(d.IssuerLogo); err != nil {
		b.Fatal(err)
	}
	return tmpl, d
}

// clearCaches empties every cache of the package.
func clearCaches() {
	assets.clear()
	decodedPixels.clear()
	narrowedPNGs.clear()
	scaledPNGs.clear()
	scaledPixels.clear()
	backgrounds.clear()
	backgroundPNGs.clear()
	seals.clear()
}

// sampleHeap samples the heap's live and unswept objects every millisecond until stop is
// called; peak is then the most above what it held when sampling started.
func sampleHeap() (stop func(), peak *uint64) {
	runtime.GC()
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(sample)
	base := sample[0].Value.Uint64()
	peak = new(uint64)
	done, finished := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(finished)
		t := time.NewTicker(time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				metrics.Read(sample)
				if v := sample[0].Value.Uint64(); v > base && v-base > *peak {
					*peak = v - base
				}
			}
		}
	}()
	return func() { close(done); <-finished }, peak
}
