package render

import (
	"encoding/json"
	"image/color"
	"io/fs"
	"path"
	"strconv"
	"strings"
	"testing"

	dbfiles "github.com/certhub/credentiald/db"
)

func systemTemplates(t testing.TB) map[string]Template {
	t.Helper()
	files, err := fs.Glob(dbfiles.SystemTemplates, "system-templates/*.json")
	if err != nil || len(files) < 8 {
		t.Fatalf("want at least eight system templates: %v %v", files, err)
	}
	out := map[string]Template{}
	for _, f := range files {
		raw, _ := dbfiles.SystemTemplates.ReadFile(f)
		var st struct {
			PageSize, Orientation string
			Layout                Layout
		}
		if err := json.Unmarshal(raw, &st); err != nil {
			t.Fatal(err)
		}
		out[strings.TrimSuffix(path.Base(f), ".json")] = Template{Page: PageOf(st.PageSize, st.Orientation), Layout: st.Layout}
	}
	return out
}

// Every system template, for every gallery name, with and without branding signatories:
// each line of text lies inside its cell, no two lines of a cell overlap, nothing drawn in a
// cell overlaps its text, and the recipient's name is set whole, in its written order.
func TestSystemTemplatesKeepEveryTextInsideItsBox(t *testing.T) {
	const eps = 0.05 // mm
	for name, tmpl := range systemTemplates(t) {
		for _, r := range GalleryNames {
			for _, signed := range []bool{true, false} {
				d := GallerySample(r)
				if !signed {
					d.Signatories = nil
				}
				p, err := tmpl.plan(&d)
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				var nameLines []string
				for i, row := range p.rows {
					for j, c := range row.cols {
						where := func() string {
							return name + " " + FullName(r.FirstName, r.LastName) + " rows[" + itoa(i) + "].cols[" + itoa(j) + "]"
						}
						var boxes [][2]float64 // vertical extents of texts and images in the cell
						for _, it := range c.items {
							switch it := it.(type) {
							case textLine:
								sizeMM := it.size * 25.4 / 72
								x := it.x(c.width)
								top, bottom := it.baseline-0.8*sizeMM, it.baseline+0.2*sizeMM
								if x < -eps || x+it.width > c.width+eps {
									t.Errorf("%s: %q runs from %.1f to %.1f mm in a cell %.1f mm wide", where(), lineText(it), x, x+it.width, c.width)
								}
								if top < -eps || bottom > row.height+eps {
									t.Errorf("%s: %q spans %.1f to %.1f mm in a row %.1f mm tall", where(), lineText(it), top, bottom, row.height)
								}
								for _, b := range boxes {
									if top < b[1]-eps && bottom > b[0]+eps {
										t.Errorf("%s: %q (%.1f to %.1f mm) overlaps something above it (%.1f to %.1f mm)", where(), lineText(it), top, bottom, b[0], b[1])
									}
								}
								boxes = append(boxes, [2]float64{top, bottom})
								if tmpl.Layout.Rows[i].Cols[j].Content.Text == "{{recipient.fullName}}" {
									nameLines = append(nameLines, lineText(it))
								}
							case imageItem:
								if it.x < -eps || it.x+it.w > c.width+eps || it.y < -eps || it.y+it.h > row.height+eps {
									t.Errorf("%s: an image leaves its cell", where())
								}
								boxes = append(boxes, [2]float64{it.y, it.y + it.h})
							}
						}
					}
				}
				full := FullName(r.FirstName, r.LastName)
				if got := strings.Join(nameLines, " "); got != full {
					t.Errorf("%s: the name is set as %q, want %q", name, got, full)
				}
			}
		}
	}
}

func lineText(l textLine) string {
	var b strings.Builder
	for _, r := range l.runs {
		b.WriteString(r.text)
	}
	return b.String()
}

func itoa(i int) string { return strconv.Itoa(i) }

// The PDF of every system template says the name, in its written order (李小龙, not 小龙 李),
// and its date and number, and sets every text in the face its plan chose.
func TestSystemTemplatePDFsSayTheNameInItsOrder(t *testing.T) {
	t.Parallel()
	for name, tmpl := range systemTemplates(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			for _, r := range GalleryNames {
				d := GallerySample(r)
				b, err := PDF(tmpl, d)
				if err != nil {
					t.Fatal(err)
				}
				pdfSetsTheTextsAsPlanned(t, tmpl, d, b)
				text := strings.ReplaceAll(pdfText(t, b), "\n", " ")
				full := FullName(r.FirstName, r.LastName)
				// A long name may be set in two lines: each of its words, in order.
				at := 0
				for _, w := range strings.Fields(full) {
					i := strings.Index(text[at:], w)
					if i < 0 {
						t.Fatalf("the PDF does not say %q of %q in order:\n%s", w, full, text)
					}
					at += i + len(w)
				}
				if !strings.Contains(text, "CERT-2026-000042") {
					t.Errorf("%s: no certificate number", full)
				}
			}
		})
	}
}

// Bold CJK text has no bold face: it is overstruck, in the PDF and the PNG alike, so that a
// bold CJK name stands as heavy as a bold Latin one beside it.
func TestBoldCJKIsOverstruck(t *testing.T) {
	fams, _ := loadFonts()
	runs, _ := newFallback(fams, "serif", bold, "Jürgen 鈴木").runs("Jürgen 鈴木", 30)
	if len(runs) != 2 || runs[0].face.synthBold || !runs[1].face.synthBold {
		t.Fatalf("runs: %+v", runs)
	}
	if got := overstrike(runs[1].face, 10); len(got) != 3 || got[2] != emboldenEm*10 {
		t.Fatalf("overstrike offsets %v", got)
	}
	regularRuns, _ := newFallback(fams, "serif", regular, "鈴木").runs("鈴木", 30)
	if regularRuns[0].face.synthBold {
		t.Fatal("regular CJK is overstruck")
	}
	// Drawn, the bold name is darker than the regular one.
	ink := func(bold bool) int {
		tmpl := Template{Page: PageOf("A4", "landscape"), Layout: Layout{Rows: []Row{{Height: 40, Cols: []Col{{Size: 12, Content: Content{Type: "text", Text: "鈴木", FontSize: 40, Bold: bold}}}}}}}
		img, err := Image(tmpl, Data{}, 100)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for i := 0; i < len(img.Pix); i += 4 {
			n += 255 - int(img.Pix[i])
		}
		return n
	}
	if r, b := ink(false), ink(true); float64(b) < float64(r)*1.15 {
		t.Fatalf("bold CJK carries %d of ink, regular %d", b, r)
	}
}

// A template's accent colour becomes the account's colour wherever the layout uses it (text,
// border, bands, seal), and nowhere else; without a branding colour nothing changes.
func TestTheAccentColourTakesTheBrandingColour(t *testing.T) {
	tmpl := systemTemplates(t)["modern"]
	d := GallerySample(GalleryNames[0])
	d.BrandColor = "#8B0000"
	p, err := tmpl.plan(&d)
	if err != nil {
		t.Fatal(err)
	}
	if got := p.background.bands[0].color; got != (color.RGBA{0x8B, 0, 0, 255}) {
		t.Fatalf("the band is %v", got)
	}
	if got := p.background.bands[1].color; got != (color.RGBA{0xC9, 0xA2, 0x27, 255}) {
		t.Fatalf("the gold stripe changed: %v", got)
	}
	d.BrandColor = ""
	p, _ = tmpl.plan(&d)
	if got := p.background.bands[0].color; got != (color.RGBA{0x0F, 0x4C, 0x5C, 255}) {
		t.Fatalf("without branding the band is %v", got)
	}
	if tmpl.Layout.Background.Bands[0].Color != "#0F4C5C" {
		t.Fatal("the template itself was changed")
	}
}
