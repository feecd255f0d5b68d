package render

import (
	"bytes"
	"testing"
	"unicode/utf16"

	"github.com/ledongthuc/pdf"
)

// shownText is a string a PDF shows and the font it is shown in (the font's BaseFont, which
// gofpdf writes as "utf8" + family + style: utf8modern, utf8modernB, utf8cjkB).
type shownText struct{ text, font string }

// shownTexts reads the first page's content stream: every string shown, with its font.
// gofpdf writes UTF-8 faces with Identity-H and the character's UTF-16 code as its code.
func shownTexts(t *testing.T, b []byte) []shownText {
	t.Helper()
	r, err := pdf.NewReader(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	page := r.Page(1)
	fonts := page.Resources().Key("Font")
	var out []shownText
	font := ""
	pdf.Interpret(page.V.Key("Contents"), func(stk *pdf.Stack, op string) {
		n := stk.Len()
		args := make([]pdf.Value, n)
		for k := n - 1; k >= 0; k-- {
			args[k] = stk.Pop()
		}
		switch {
		case op == "Tf" && n == 2:
			font = fonts.Key(args[0].Name()).Key("BaseFont").Name()
		case op == "Tj" && n == 1:
			raw := args[0].RawString()
			units := make([]uint16, 0, len(raw)/2)
			for i := 0; i+1 < len(raw); i += 2 {
				units = append(units, uint16(raw[i])<<8|uint16(raw[i+1]))
			}
			out = append(out, shownText{string(utf16.Decode(units)), font})
		}
	})
	return out
}

func pdfFontName(f *face) string {
	return "utf8" + f.family + string(pdfStyle(f.style))
}

// A CJK name used to turn every Latin text of the certificate bold ("This is to certify
// that", the footer): maroto fills a text's empty style (its "normal") from the document's
// default font, and the default was the first face used in alphabetical order, the CJK bold
// face of the name. Beside a Chinese name the text is in the regular Latin face, as it is
// beside a Latin name. (Every text of every system template, for every gallery name, is
// checked against its plan by TestSystemTemplatePDFsSayTheNameInItsOrder.)
func TestCertifyThatStaysRegularBesideAChineseName(t *testing.T) {
	t.Parallel()
	tmpl := systemTemplates(t)["conference"]
	faceOf := func(r Recipient) string {
		b, err := PDF(tmpl, GallerySample(r))
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range shownTexts(t, b) {
			if s.text == "This is to certify that" {
				return s.font
			}
		}
		t.Fatal("the conference template no longer writes \"This is to certify that\"")
		return ""
	}
	latin, chinese := faceOf(Recipient{FirstName: "Ada", LastName: "Lovelace"}), faceOf(Recipient{FirstName: "小龙", LastName: "李"})
	if latin != "utf8modern" || chinese != latin {
		t.Fatalf("\"This is to certify that\" is set in %s beside a Latin name and in %s beside a Chinese one; want utf8modern (Lato regular)", latin, chinese)
	}
}

// pdfSetsTheTextsAsPlanned checks that every text of the plan of t filled with d reaches the
// PDF b as planned: the same strings, in the same order, each in the face the plan chose for
// it (a face maroto cannot find, or a style it fills in, shows here as another font).
func pdfSetsTheTextsAsPlanned(t *testing.T, tmpl Template, d Data, b []byte) {
	t.Helper()
	p, err := tmpl.plan(&d)
	if err != nil {
		t.Fatal(err)
	}
	var want []shownText
	for _, row := range p.rows {
		for _, c := range row.cols {
			for _, it := range c.items {
				if l, ok := it.(textLine); ok {
					for _, run := range l.runs {
						for range overstrike(run.face, l.size*25.4/72) {
							if !run.raster {
								want = append(want, shownText{run.text, pdfFontName(run.face)})
							}
						}
					}
				}
			}
		}
	}
	got := shownTexts(t, b)
	who := FullName(d.Recipient.FirstName, d.Recipient.LastName)
	if len(got) != len(want) {
		t.Fatalf("%s: the PDF shows %d strings, the plan %d:\n%v\n%v", who, len(got), len(want), got, want)
	}
	for i := range got {
		if got[i] != want[i] {
			t.Errorf("%s: the PDF shows %q in %s, the plan %q in %s", who, got[i].text, got[i].font, want[i].text, want[i].font)
		}
	}
}
