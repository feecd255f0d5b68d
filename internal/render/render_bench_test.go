package render

import (
	"encoding/json"
	"io/fs"
	"path"
	"strings"
	"testing"

	dbfiles "github.com/certhub/credentiald/db"
)

// One page per iteration: the figures in the README are ns/op of these. Each renders its page
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
