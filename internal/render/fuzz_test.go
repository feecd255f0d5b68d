package render

import (
	"bytes"
	"image/png"
	"testing"
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
