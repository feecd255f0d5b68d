package render

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
	"math"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/certhub/credentiald/internal/testkit/pdftext"
)

var names = []Recipient{
	{FirstName: "José", LastName: "Müller"},
	{FirstName: "Łukasz", LastName: "Żółć"},
	{FirstName: "Дмитрий", LastName: "Шостакович"},
	{FirstName: "Αλέξανδρος", LastName: "Παπαδόπουλος"},
	{FirstName: "小龙", LastName: "李"},
	{FirstName: "太郎", LastName: "山田"},
}

func sample(r Recipient) Data {
	expires := time.Date(2028, 11, 12, 0, 0, 0, 0, time.UTC)
	return Data{Recipient: r, Event: Event{Name: "Go Conference 2026", Date: time.Date(2026, 11, 12, 9, 0, 0, 0, time.UTC), Location: "Berlin"},
		Certificate:     Certificate{Number: "CERT-2026-000042", IssuedAt: time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC), ExpiresAt: &expires},
		IssuerName:      "Gophers e.V.",
		VerificationURL: "https://certs.example.org/verify/7K3M9QX2PB4T",
		Metadata:        map[string]string{"track": "Concurrency"}}
}

func plainTemplate() Template {
	return Template{Page: PageOf("A4", "landscape"), Layout: Layout{
		Background: &Background{Color: "#FFFDF7", Border: &Border{Color: "#1F2A44", Width: 1.5, Style: "double"}},
		Rows: []Row{
			{Height: 30, Cols: []Col{{Size: 12, Content: Content{Type: "text", Text: "Certificate of Attendance", FontSize: 30, Bold: true, Font: "serif"}}}},
			{Height: 30, Cols: []Col{{Size: 12, Content: Content{Type: "text", Text: "{{recipient.fullName}}", FontSize: 28}}}},
			{Height: 20, Cols: []Col{{Size: 12, Content: Content{Type: "text", Text: "attended {{event.name}} on {{event.date}} ({{attendee.metadata.track}})", FontSize: 14, Italic: true}}}},
			{Height: 40, Cols: []Col{
				{Size: 4, Content: Content{Type: "signature", Name: "Grace Hopper", Title: "Programme chair"}},
				{Size: 4, Content: Content{Type: "qr"}},
				{Size: 4, Content: Content{Type: "text", Text: "{{certificate.number}}", FontSize: 9, Align: "right"}}}},
		}}}
}

func pdfText(t *testing.T, b []byte) string {
	t.Helper()
	text, err := pdftext.Text(b)
	if err != nil {
		t.Fatal(err)
	}
	return text
}

// Every name renders as itself: the text comes back out of the PDF, and each character is set
// in a face that has a real glyph for it (no replacement glyph).
func TestNamesInEveryScriptRenderAsThemselves(t *testing.T) {
	fams, err := loadFonts()
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range names {
		full := FullName(n.FirstName, n.LastName)
		t.Run(full, func(t *testing.T) {
			b, err := PDF(plainTemplate(), sample(n))
			if err != nil {
				t.Fatal(err)
			}
			text := pdfText(t, b)
			if !strings.Contains(strings.ReplaceAll(text, " ", ""), strings.ReplaceAll(full, " ", "")) {
				t.Fatalf("the PDF's text does not hold %q:\n%s", full, text)
			}
			runs, _ := newFallback(fams, "sans", regular, full).runs(full, 12)
			for _, r := range runs {
				if strings.ContainsRune(r.text, replacement) || r.raster {
					t.Fatalf("run %q in %s: replaced or drawn as an image", r.text, r.face.family)
				}
			}
		})
	}
}

// Each part of a text is set in the face made for its script: a name that mixes scripts is
// not set in one face throughout.
func TestTheFontFollowsTheScriptRunByRun(t *testing.T) {
	fams, _ := loadFonts()
	for _, tc := range []struct {
		text      string
		preferred string
		want      []string // family:text of each run
	}{
		{"José Müller", "sans", []string{"sans:José Müller"}},
		{"Дмитрий Αλέξανδρος", "sans", []string{"sans:Дмитрий Αλέξανδρος"}},
		{"Łukasz Żółć", "serif", []string{"serif:Łukasz Żółć"}},
		{"李小龙", "sans", []string{"cjk:李小龙"}},
		{"やまだ たろう", "sans", []string{"ja:やまだ たろう"}},
		{"Jürgen 鈴木", "sans", []string{"sans:Jürgen ", "cjk:鈴木"}},
		{"山田 さくら Sakura", "serif", []string{"ja:山田 さくら ", "serif:Sakura"}},
		{"Ana 😀 Lima", "sans", []string{"sans:Ana ", "sans:😀", "sans: Lima"}},
		{"𝓐lice", "sans", []string{"symbols:𝓐", "sans:lice"}},
		{"𠀀田", "sans", []string{"cjk-ext:𠀀", "cjk:田"}},
		{"Zoë\u200d\ufe0f", "sans", []string{"sans:Zoë"}},
		{"👍🏽 Bo", "sans", []string{"symbols:👍 ", "sans:Bo"}},
		{"🥰 Ann", "sans", []string{"sans:\ufffd Ann"}},
	} {
		runs, width := newFallback(fams, tc.preferred, regular, tc.text).runs(tc.text, 12)
		var got []string
		sum := 0.0
		for _, r := range runs {
			got = append(got, r.face.family+":"+r.text)
			if math.Abs(r.offset-sum) > 1e-9 {
				t.Errorf("%q: run %q starts at %.2f, want %.2f", tc.text, r.text, r.offset, sum)
			}
			sum += r.width
			if wantRaster := !r.face.pdf || strings.ContainsFunc(r.text, func(c rune) bool { return c > 0xFFFF }); r.raster != wantRaster {
				t.Errorf("%q: run %q raster=%v", tc.text, r.text, r.raster)
			}
		}
		if strings.Join(got, "|") != strings.Join(tc.want, "|") {
			t.Errorf("%q: runs %q, want %q", tc.text, got, tc.want)
		}
		if width <= 0 || math.Abs(width-sum) > 1e-9 {
			t.Errorf("%q: width %.2f, runs add up to %.2f", tc.text, width, sum)
		}
	}
}

// Characters beyond the Basic Multilingual Plane (emoji, mathematical alphanumerics, CJK
// Extension B) used to panic inside the PDF library. They render: the PDF holds the rest of
// the name as text and the characters as images, and the PNG shows them.
func TestCharactersBeyondTheBMPRender(t *testing.T) {
	for _, n := range []Recipient{
		{FirstName: "Ana 😀", LastName: "Lima"},
		{FirstName: "𝓐lice", LastName: "𝓑rown"},
		{FirstName: "𠀀𠮷", LastName: "田中"},
		{FirstName: "Jürgen", LastName: "鈴木 👍🏽"},
		{FirstName: "😀", LastName: "🥰"},
	} {
		full := n.FirstName + " " + n.LastName
		t.Run(full, func(t *testing.T) {
			d := sample(n)
			d.Event.Name = "Go 😀 Conference 𠀀" // the PDF's metadata title takes the same guard
			b, err := PDF(plainTemplate(), d)
			if err != nil {
				t.Fatal(err)
			}
			text := strings.ReplaceAll(pdfText(t, b), " ", "")
			for _, r := range full {
				if r <= 0xFFFF && r != ' ' && !strings.ContainsRune(text, r) {
					t.Fatalf("the PDF's text lacks %q of %q:\n%s", r, full, text)
				}
			}
			if imgs := bytes.Count(b, []byte("/Subtype /Image")); imgs < 2 {
				t.Fatalf("the PDF holds %d images; the background and the name's image were expected", imgs)
			}

			pb, err := PNG(plainTemplate(), d, 100)
			if err != nil {
				t.Fatal(err)
			}
			img, _ := png.Decode(bytes.NewReader(pb))
			// The same name without its characters beyond the BMP.
			strip := func(s string) string {
				return strings.Map(func(r rune) rune {
					if r > 0xFFFF {
						return ' '
					}
					return r
				}, s)
			}
			missing := Recipient{FirstName: strip(n.FirstName), LastName: strip(n.LastName)}
			mb, _ := PNG(plainTemplate(), sample(missing), 100)
			mimg, _ := png.Decode(bytes.NewReader(mb))
			band := image.Rect(0, 177, 1169, 295)
			if ink(img, band) <= ink(mimg, band) {
				t.Fatalf("the PNG has no more ink with the characters (%d) than without (%d)", ink(img, band), ink(mimg, band))
			}
		})
	}
}

// An image drawn for a run holds the run's glyphs.
func TestRasterRunsHoldTheirGlyphs(t *testing.T) {
	fams, _ := loadFonts()
	runs, _ := newFallback(fams, "sans", bold, "𝓐").runs("𝓐", 28)
	b, _, dy, w, h, err := rasterRun(runs[0], 28, color.RGBA{0x1f, 0x2a, 0x44, 255})
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	if dy >= 0 || w <= runs[0].width || h <= 0 {
		t.Fatalf("placement: dy %.2f, %.2f x %.2f mm for a run %.2f mm wide", dy, w, h, runs[0].width)
	}
	opaque := 0
	bounds := img.Bounds()
	for y := bounds.Min.Y; y < bounds.Max.Y; y++ {
		for x := bounds.Min.X; x < bounds.Max.X; x++ {
			if _, _, _, a := img.At(x, y).RGBA(); a > 0x8000 {
				opaque++
			}
		}
	}
	if opaque < 2000 {
		t.Fatalf("the image of %q has %d opaque pixels", "𝓐", opaque)
	}
}

// The PNG shows the name: the band where the name is drawn holds dark ink, and its ink differs
// from a rendering of the same page with the name's characters replaced by a missing glyph.
func TestPNGDrawsTheNames(t *testing.T) {
	for _, n := range names {
		full := n.FirstName + " " + n.LastName
		b, err := PNG(plainTemplate(), sample(n), 100)
		if err != nil {
			t.Fatal(err)
		}
		img, err := png.Decode(bytes.NewReader(b))
		if err != nil {
			t.Fatalf("%s: the PNG does not decode: %v", full, err)
		}
		if w, h := img.Bounds().Dx(), img.Bounds().Dy(); w != 1169 || h != 827 {
			t.Fatalf("%s: %dx%d, want A4 landscape at 100 dpi", full, w, h)
		}
		// Row 2 (the name) spans 45..75 mm from the top.
		band := image.Rect(0, 177, 1169, 295)
		if ink(img, band) < 200 {
			t.Fatalf("%s: the name band has %d dark pixels", full, ink(img, band))
		}
		tofu := n
		tofu.FirstName, tofu.LastName = strings.Repeat("\U000F0000", len([]rune(n.FirstName))), strings.Repeat("\U000F0000", len([]rune(n.LastName)))
		tb, _ := PNG(plainTemplate(), sample(tofu), 100)
		timg, _ := png.Decode(bytes.NewReader(tb))
		if sameInk(img, timg, band) {
			t.Fatalf("%s renders like missing glyphs", full)
		}
	}
}

func ink(img image.Image, r image.Rectangle) int {
	n := 0
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			if c := color.GrayModel.Convert(img.At(x, y)).(color.Gray); c.Y < 100 {
				n++
			}
		}
	}
	return n
}

func sameInk(a, b image.Image, r image.Rectangle) bool {
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			ca := color.GrayModel.Convert(a.At(x, y)).(color.Gray).Y < 100
			cb := color.GrayModel.Convert(b.At(x, y)).(color.Gray).Y < 100
			if ca != cb {
				return false
			}
		}
	}
	return true
}

func TestCheckFindsUnknownPlaceholdersAndOverfullPages(t *testing.T) {
	tmpl := plainTemplate()
	tmpl.Layout.Rows[0].Cols[0].Content.Text = "Hello {{recipient.nickname}} {{attendee.metadata.}} {{event.name"
	tmpl.Layout.Rows = append(tmpl.Layout.Rows, Row{Height: 90, Cols: []Col{{Size: 12, Content: Content{Type: "spacer"}}}})
	problems := Check(tmpl)
	var msgs []string
	for _, p := range problems {
		msgs = append(msgs, p.Path+": "+p.Message)
	}
	all := strings.Join(msgs, "\n")
	for _, want := range []string{"{{recipient.nickname}}", "{{attendee.metadata.}}", "not closed", "rows: the rows are 210.0 mm tall; the page holds 180.0 mm"} {
		if !strings.Contains(all, want) {
			t.Errorf("missing %q in:\n%s", want, all)
		}
	}
	if p := Check(plainTemplate()); len(p) != 0 {
		t.Fatalf("a good template has problems: %+v", p)
	}
}

func TestFillReplacesEveryPlaceholder(t *testing.T) {
	d := sample(names[0])
	got := fill("{{recipient.fullName}}|{{ event.date }}|{{certificate.expiresAt}}|{{issuer.name}}|{{attendee.metadata.track}}|{{attendee.metadata.none}}", &d, "")
	if got != "José Müller|12 November 2026|12 November 2028|Gophers e.V.|Concurrency|" {
		t.Fatal(got)
	}
}

func TestFullNameWritesCJKNamesFamilyFirst(t *testing.T) {
	for _, c := range [][3]string{
		{"José", "Müller", "José Müller"}, {"小龙", "李", "李小龙"}, {"太郎", "山田", "山田太郎"}, {"さくら", "山田", "山田さくら"},
		{"민준", "김", "김민준"}, {"Taro", "山田", "Taro 山田"}, {"Ana", "", "Ana"}, {" ", "Lee", "Lee"},
	} {
		if got := FullName(c[0], c[1]); got != c[2] {
			t.Errorf("FullName(%q, %q) = %q, want %q", c[0], c[1], got, c[2])
		}
	}
}

// A text is fitted to its box: a name a little too long shrinks onto one line; one far too
// long for one line breaks into lines of even width, inside the box's height; an event line
// does not leave one short word alone on its last line.
func TestTextIsFittedToItsBox(t *testing.T) {
	fams, _ := loadFonts()
	measure := func(preferred string, st style, text string) func(string, float64) float64 {
		return newFallback(fams, preferred, st, text).measure
	}
	name := "Maria Fernanda de los Ángeles García-Villanueva"
	m := measure("serif", bold, name)
	full := m(name, 28)
	// 10% too wide: shrinks, stays on one line.
	size, lines := fit(name, full/1.1, 30, 28, m)
	if len(lines) != 1 || size >= 28 || size < 28*minFitScale || m(lines[0], size) > full/1.1 {
		t.Fatalf("slightly too long: %.1f pt, %q", size, lines)
	}
	// Twice too wide: two lines of even width, inside 30 mm.
	size, lines = fit(name, full/2, 30, 28, m)
	if len(lines) != 2 || float64(len(lines))*size*25.4/72*multiLineSpacing > 30 {
		t.Fatalf("twice too long: %.1f pt, %q", size, lines)
	}
	if w0, w1 := m(lines[0], size), m(lines[1], size); w1 < 0.5*w0 || w0 > full/2 || w1 > full/2 {
		t.Fatalf("unbalanced lines %q: %.1f and %.1f mm", lines, w0, w1)
	}
	event := "attended the International Conference on Concurrency and Distributed Systems 2026"
	me := measure("sans", regular, event)
	_, lines = fit(event, me(event, 14)*0.6, 40, 14, me)
	if last := lines[len(lines)-1]; len(lines) < 2 || !strings.Contains(last, " ") {
		t.Fatalf("a last line of one word: %q", lines)
	}
}

func TestDatesFollowTheTemplatesLocale(t *testing.T) {
	d := sample(names[0])
	d.Certificate.ExpiresAt = nil
	for locale, want := range map[string]string{
		"": "12 November 2026|no expiry", "en": "12 November 2026|no expiry", "de": "12. November 2026|unbefristet",
		"fr": "12 novembre 2026|sans date d'expiration", "es": "12 de noviembre de 2026|sin caducidad",
		"pl": "12 listopada 2026|bezterminowo", "ja": "2026年11月12日|無期限",
	} {
		if got := fill("{{event.date}}|{{certificate.expiresAt}}", &d, locale); got != want {
			t.Errorf("%q: %q, want %q", locale, got, want)
		}
	}
}

// PDFs rendered at the same time share the loaded fonts and must not write into them: run
// under the race detector (make test), this fails if one document's font subsetting touches
// the bytes another reads. Each document reads as one rendered alone.
func TestPDFsRenderedAtTheSameTimeShareNoFontBytes(t *testing.T) {
	d := sample(Recipient{FirstName: "Łukasz", LastName: "Żółć 鈴木"})
	want, err := PDF(plainTemplate(), d)
	if err != nil {
		t.Fatal(err)
	}
	docs := make([][]byte, 4)
	errs := make([]error, len(docs))
	var wg sync.WaitGroup
	for i := range docs {
		wg.Go(func() { docs[i], errs[i] = PDF(plainTemplate(), d) })
	}
	wg.Wait()
	for i := range docs {
		if errs[i] != nil {
			t.Fatal(errs[i])
		}
		if got := pdfText(t, docs[i]); got != pdfText(t, want) {
			t.Fatalf("document %d rendered at the same time as others reads %q, alone %q", i, got, pdfText(t, want))
		}
	}
}
