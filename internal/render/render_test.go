package render

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
	"strings"
	"testing"
	"time"

	"golang.org/x/image/font/sfnt"

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

// Every name renders as itself: the text comes back out of the PDF, and the face chosen for it
// has a real glyph (not .notdef) for every character.
func TestNamesInEveryScriptRenderAsThemselves(t *testing.T) {
	fams, err := loadFonts()
	if err != nil {
		t.Fatal(err)
	}
	var buf sfnt.Buffer
	for _, n := range names {
		full := n.FirstName + " " + n.LastName
		t.Run(full, func(t *testing.T) {
			b, err := PDF(plainTemplate(), sample(n))
			if err != nil {
				t.Fatal(err)
			}
			text := pdfText(t, b)
			if !strings.Contains(strings.ReplaceAll(text, " ", ""), strings.ReplaceAll(full, " ", "")) {
				t.Fatalf("the PDF's text does not hold %q:\n%s", full, text)
			}
			f := chooseFamily(fams, "sans", regular, full)
			if c, total := f.covers(full, &buf); c != total {
				t.Fatalf("%s covers %d of %d characters", f.family, c, total)
			}
		})
	}
}

func TestTheFontFollowsTheScript(t *testing.T) {
	fams, _ := loadFonts()
	for text, want := range map[string]string{"José Müller": "sans", "Дмитрий": "sans", "Αλέξανδρος": "sans",
		"李小龙": "cjk", "山田太郎": "cjk", "やまだ たろう": "ja", "ヤマダ": "ja"} {
		if got := chooseFamily(fams, "sans", regular, text).family; got != want {
			t.Errorf("%s: %s, want %s", text, got, want)
		}
	}
	if got := chooseFamily(fams, "serif", bold, "Łukasz Żółć").family; got != "serif" {
		t.Errorf("serif Polish: %s", got)
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
	got := fill("{{recipient.fullName}}|{{ event.date }}|{{certificate.expiresAt}}|{{issuer.name}}|{{attendee.metadata.track}}|{{attendee.metadata.none}}", &d)
	if got != "José Müller|12 November 2026|12 November 2028|Gophers e.V.|Concurrency|" {
		t.Fatal(got)
	}
}
