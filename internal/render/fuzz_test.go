package render

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"image/png"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/html/charset"
)

// Any text in any placeholder renders as a PDF and a PNG: no error, no panic. The seeds are the
// characters that once stopped the process and their neighbours; `make fuzz` explores further.
func FuzzRenderAnyText(f *testing.F) {
	for _, s := range []string{"Ana 😀", "𝓐lice", "𠀀𠮷", "Jürgen 鈴木", "👨\u200d👩\u200d👧 🇩🇪", "\U0010FFFF\U000F0000", "\xff\xfe", "a\u0301\u20dd",
		"\u202e\u2066x\u2069", "\ufeff\u2028\u2029", "﷽", "𒀱", "\x00\t\r\n", "やまだ 山田 Ли"} {
		f.Add(s, s, s)
	}
	// One row per placeholder family and no background: the fuzzer's time goes to the text.
	tmpl := Template{Page: PageOf("A4", "landscape"), Layout: Layout{Rows: []Row{
		{Height: 30, Cols: []Col{{Size: 8, Content: Content{Type: "text", Text: "{{recipient.fullName}}", FontSize: 28, Bold: true, Font: "serif"}},
			{Size: 4, Content: Content{Type: "text", Text: "{{attendee.metadata.track}} {{event.location}}", FontSize: 9, Align: "right"}}}},
		{Height: 30, Cols: []Col{{Size: 12, Content: Content{Type: "text", Text: "{{event.name}} · {{issuer.name}}", FontSize: 14, Italic: true}}}},
		{Height: 40, Cols: []Col{{Size: 6, Content: Content{Type: "signature", Name: "{{issuer.name}}", Title: "{{recipient.firstName}}"}}}},
	}}}
	f.Fuzz(func(t *testing.T, name, event, meta string) {
		d := sample(Recipient{FirstName: name, LastName: meta})
		d.Event.Name, d.Event.Location, d.IssuerName = event, meta, name
		d.Metadata = map[string]string{"track": meta}
		if _, err := PDF(tmpl, d); err != nil {
			t.Fatalf("PDF: %v", err)
		}
		b, err := PNG(tmpl, d, 30)
		if err != nil {
			t.Fatalf("PNG: %v", err)
		}
		if _, err := png.Decode(bytes.NewReader(b)); err != nil {
			t.Fatalf("the PNG does not decode: %v", err)
		}
	})
}

// Any upload is refused or drawn: CheckImage never panics and answers in bounded time, and an
// image it accepts is drawn into a PDF as itself (an image of its size, never the PDF library's
// "could not add image" in its place). The seeds are the images that once took the process's
// memory, CPU or stack, and those the PDF library could not embed.
func FuzzCheckImage(f *testing.F) {
	interlaced := pngSpec{colourType: 6, depth: 8, interlace: true}
	for _, seed := range []struct {
		svg  bool
		data []byte
	}{
		{false, bombPNG(4096, 4096, 16)},                           // 128 MiB once decoded
		{false, flatPNG16(64, 48, "16-bit")},                       // the PDF library refused 16 bits
		{false, writePNG(picture(37, 23, interlaced), interlaced)}, // and interlacing
		{true, []byte(dashBombSVG)},                                // half a minute of rasterising
		{true, []byte(`<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10"><script>alert(1)</script></svg>`)},
		{true, []byte(`<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10"><g id="a"><use href="#a"/></g></svg>`)}, // a stack overflow
		{true, []byte(`<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10"><rect width="4" height="3" fill="#123"/></svg>`)},
	} {
		f.Add(seed.svg, seed.data)
	}
	// Issue 49's shapes: each XHTML element of the probe in one of the spellings a browser
	// reads as HTML (every element and every spelling once), and the other ways to hide
	// markup from a check (TestSVGsThatHideMarkupAreRefused).
	for i, shape := range xhtmlProbes.shapes {
		for j, el := range xhtmlProbes.elements {
			if j == i%len(xhtmlProbes.elements) || i == j%len(xhtmlProbes.shapes) {
				f.Add(true, []byte(shape.doc(el)))
			}
		}
	}
	const open = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10">`
	for _, svg := range []string{
		`<!DOCTYPE svg [<!ENTITY ns "http://www.w3.org/1999/xhtml">]>` + open + `<h:img xmlns:h="&ns;" src="x"/></svg>`,
		open + `<style>rect { fill: u<![CDATA[rl(https://evil.example/p.svg#p)]]> }</style><rect width="4" height="3"/></svg>`,
		open + `<style>@im<g/>port url(https://evil.example/a.css);</style></svg>`,
		open + `<text><![CDATA[<h:img xmlns:h="http://www.w3.org/1999/xhtml" src="x"/>]]></text></svg>`,
		open + `<m:math xmlns:m="http://www.w3.org/1998/Math/MathML"><m:mtext>x</m:mtext></m:math></svg>`,
		open + `</svg><svg xmlns="http://www.w3.org/2000/svg"><h:img xmlns:h="http://www.w3.org/1999/xhtml" src="x"/></svg>`,
		open + `<a xml:base="https://evil.example/" href="#x"><rect width="1" height="1"/></a></svg>`,
		`<?xml version="1.0" encoding="Shift_JIS"?>` + open + `<rect width="4" height="3"/></svg>`,
	} {
		f.Add(true, []byte(svg))
	}
	f.Fuzz(func(t *testing.T, svg bool, data []byte) {
		uri := pngURI(data)
		if svg {
			uri = svgURI(string(data))
		}
		start := time.Now()
		err := CheckImage(uri)
		if took := time.Since(start); took > svgDeadline+2*time.Second {
			t.Fatalf("judging the image took %s", took)
		}
		if err != nil {
			return
		}
		if svg {
			if el := liveMarkup(data); el != "" {
				t.Fatalf("accepted, with %s", el)
			}
		}
		a, err := decodeDataURI(uri)
		if err != nil {
			t.Fatalf("accepted, then not drawn: %v", err)
		}
		tmpl := Template{Page: PageOf("A4", "landscape"), Layout: Layout{Rows: []Row{
			{Height: 40, Cols: []Col{{Size: 6, Content: Content{Type: "signature", Image: uri, Name: "Grace Hopper"}}}},
		}}}
		doc, err := PDF(tmpl, sample(names[0]))
		if err != nil {
			t.Fatalf("accepted, then the PDF failed: %v", err)
		}
		if text := pdfText(t, doc); strings.Contains(text, "could not") {
			t.Fatalf("the PDF says %q", text)
		}
		// The image is embedded at its size, or scaled down to its box at print resolution.
		want := a.bounds.Size()
		for _, img := range pdfImages(t, doc) {
			got := img.Bounds().Size()
			if got.X <= want.X && got.Y <= want.Y && abs(got.X*want.Y-got.Y*want.X) <= max(want.X, want.Y) {
				return
			}
		}
		t.Fatalf("the PDF holds no image of %v or its proportions", want)
	})
}

// liveMarkup names the first thing of an SVG that a browser would make live HTML or MathML, or
// an HTML attribute on an SVG element, or "" when there is none: a rule
// simpler than the check's, for the fuzzer to hold it to.
func liveMarkup(raw []byte) string {
	d := xml.NewDecoder(bytes.NewReader(raw))
	d.CharsetReader = charset.NewReaderLabel
	for {
		tok, err := d.Token()
		if err != nil {
			return ""
		}
		el, ok := tok.(xml.StartElement)
		if !ok {
			continue
		}
		if el.Name.Space == "http://www.w3.org/1999/xhtml" || el.Name.Space == "http://www.w3.org/1998/Math/MathML" {
			return fmt.Sprintf("the element {%s}%s", el.Name.Space, el.Name.Local)
		}
		for _, a := range el.Attr {
			if el.Name.Space != "http://www.w3.org/2000/svg" {
				break // a drawing program's element: a browser makes nothing of its attributes
			}
			switch strings.ToLower(a.Name.Local) {
			case "src", "srcdoc", "poster", "action", "formaction", "data", "ping", "background", "http-equiv":
				return fmt.Sprintf("the attribute %s on <%s>", a.Name.Local, el.Name.Local)
			}
		}
	}
}
