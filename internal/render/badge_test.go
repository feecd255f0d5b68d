package render

import (
	"bytes"
	"encoding/xml"
	"image/png"
	"strings"
	"testing"
)

// A generated badge is a picture in the issuer's colour with the name drawn on it, the same in
// SVG and PNG: the SVG is well-formed, names the badge in its title and holds one path per
// shape; the PNG is transparent around the rosette and shows the colour and white lettering.
func TestGeneratedBadgeImages(t *testing.T) {
	for _, b := range []BadgeArt{
		{Name: "Go", Issuer: "Gophers e.V.", Color: "#1F6FEB"},
		{Name: "Certified <Kubernetes> & Workshop Facilitator", Issuer: "Cloud Native Academy", Color: "#8A5A00"},
		{Name: "鈴木賞 😀 𠀀", Issuer: "", Color: ""},
		{Name: strings.Repeat("Distinguished Contributor ", 20), Issuer: strings.Repeat("Foundation ", 30), Color: "#7B1FA2"},
	} {
		svg, err := BadgeSVG(b)
		if err != nil {
			t.Fatal(err)
		}
		var doc struct {
			XMLName xml.Name
			Title   string `xml:"title"`
			Paths   []struct {
				D string `xml:"d,attr"`
			} `xml:"path"`
		}
		if err := xml.Unmarshal(svg, &doc); err != nil {
			t.Fatalf("%q: the SVG is not well-formed: %v", b.Name, err)
		}
		shapes, _ := b.shapes()
		if doc.XMLName.Local != "svg" || doc.Title != b.Name || len(doc.Paths) != len(shapes) {
			t.Fatalf("%q: svg %q titled %q with %d paths for %d shapes", b.Name, doc.XMLName.Local, doc.Title, len(doc.Paths), len(shapes))
		}
		// The name's lines follow the six shapes of the design, and they hold outlines.
		if len(shapes) < 7 || len(shapes[6].path) < 10 {
			t.Fatalf("%q: no lettering", b.Name)
		}

		raw, err := BadgePNG(b, 300)
		if err != nil {
			t.Fatal(err)
		}
		img, err := png.Decode(bytes.NewReader(raw))
		if err != nil || img.Bounds().Dx() != 300 {
			t.Fatalf("%q: png %v %v", b.Name, err, img.Bounds())
		}
		if _, _, _, a := img.At(2, 2).RGBA(); a != 0 {
			t.Fatalf("%q: the corner is not transparent", b.Name)
		}
		white := 0
		for y := 110; y < 150; y++ {
			for x := 80; x < 220; x++ {
				if r, g, bb, a := img.At(x, y).RGBA(); a > 0xf000 && r > 0xf000 && g > 0xf000 && bb > 0xf000 {
					white++
				}
			}
		}
		if white < 50 {
			t.Fatalf("%q: %d white pixels where the name is drawn", b.Name, white)
		}
	}
}
