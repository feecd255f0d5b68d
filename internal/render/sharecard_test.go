package render

import (
	"bytes"
	"encoding/json"
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	dbfiles "github.com/certhub/credentiald/db"
)

// systemTemplate reads one system template, as systemTemplates reads them all.
func systemTemplate(name string) (Template, error) {
	raw, err := dbfiles.SystemTemplates.ReadFile("system-templates/" + name + ".json")
	if err != nil {
		return Template{}, err
	}
	var st struct {
		PageSize, Orientation string
		Layout                Layout
	}
	if err := json.Unmarshal(raw, &st); err != nil {
		return Template{}, err
	}
	return Template{Page: PageOf(st.PageSize, st.Orientation), Layout: st.Layout}, nil
}

// cardPictures are the pictures a card is drawn from, made once: a landscape certificate's
// preview as served (PNG at PreviewDPI), a generated badge (PNG), and a landscape and a
// portrait page drawn at the card's size (ShareCardPicture).
var cardPictures = sync.OnceValues(func() (map[string]ShareCardInput, error) {
	classic, err := systemTemplate("classic")
	if err != nil {
		return nil, err
	}
	academic, err := systemTemplate("academic")
	if err != nil {
		return nil, err
	}
	d := GallerySample(GalleryNames[0])
	preview, err := PNG(classic, d, PreviewDPI)
	if err != nil {
		return nil, err
	}
	badge, err := BadgePNG(BadgeArt{Name: "Gopher Contributor", Issuer: "Gophers e.V.", Color: "#1F6FEB"}, 600)
	if err != nil {
		return nil, err
	}
	landscape, err := ShareCardPicture(classic, d)
	if err != nil {
		return nil, err
	}
	portrait, err := ShareCardPicture(academic, d)
	if err != nil {
		return nil, err
	}
	return map[string]ShareCardInput{"preview": {PicturePNG: preview}, "badge": {PicturePNG: badge},
		"landscape": {Picture: landscape}, "portrait": {Picture: portrait}}, nil
})

// cardPicture returns an input holding the named picture of cardPictures.
func cardPicture(t testing.TB, name string) ShareCardInput {
	t.Helper()
	pics, err := cardPictures()
	if err != nil {
		t.Fatal(err)
	}
	return pics[name]
}

// pictureBounds is the size of an input's picture.
func pictureBounds(t testing.TB, in ShareCardInput) image.Rectangle {
	t.Helper()
	if in.Picture != nil {
		return in.Picture.Bounds()
	}
	cfg, err := png.DecodeConfig(bytes.NewReader(in.PicturePNG))
	if err != nil {
		t.Fatal(err)
	}
	return image.Rect(0, 0, cfg.Width, cfg.Height)
}

// The card is 1200 x 630 whatever it shows: a landscape page, a portrait one, a badge, long
// names and CJK ones, nothing at all; its picture lies whole inside it, and its texts beside
// the picture, never on it and never past the card's edge.
func TestShareCardIs1200x630WhateverItShows(t *testing.T) {
	t.Parallel()
	long := "International Conference on Distributed Systems, Concurrency Theory and Practical Programming Language Design 2026"
	for _, tc := range []struct {
		name, picture string
		in            ShareCardInput
	}{
		{"landscape certificate preview", "preview", ShareCardInput{Label: "Certificate", Name: "Go Conference 2026", Issuer: "Gophers e.V.", BrandColor: "#0B3D2E"}},
		{"landscape certificate", "landscape", ShareCardInput{Label: "Certificate", Name: "Go Conference 2026", Issuer: "Gophers e.V.", BrandColor: "#0B3D2E"}},
		{"portrait certificate", "portrait", ShareCardInput{Label: "Certificate", Name: "Advanced Concurrency Workshop", Issuer: "Gophers e.V."}},
		{"badge", "badge", ShareCardInput{Label: "Badge", Name: "Gopher Contributor", Issuer: "Gophers e.V.", BrandColor: "#1F6FEB"}},
		{"long names", "landscape", ShareCardInput{Name: long, Issuer: long, Label: long}},
		{"a word longer than the column", "portrait", ShareCardInput{Name: "Donaudampfschifffahrtsgesellschaftskapitänsmützenabzeichenverleihungszeremonie", Issuer: "x"}},
		{"CJK", "landscape", ShareCardInput{Label: "証明書", Name: "第十二回 分散システム国際会議 東京 2026 参加証明書", Issuer: "一般社団法人 日本ゴーファー協会"}},
		{"Korean and Chinese without spaces", "portrait", ShareCardInput{Name: "분산시스템국제회의참가증명서분산시스템국제회의참가증명서", Issuer: "中华人民共和国软件开发者协会上海分会"}},
		{"a light brand colour", "badge", ShareCardInput{Name: "Speaker", Issuer: "Gophers e.V.", BrandColor: "#F5C518"}},
		{"no picture", "", ShareCardInput{Name: "Go Conference 2026", Issuer: "Gophers e.V."}},
		{"nothing", "", ShareCardInput{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			in := tc.in
			if tc.picture != "" {
				pic := cardPicture(t, tc.picture)
				in.Picture, in.PicturePNG = pic.Picture, pic.PicturePNG
			}
			b, err := ShareCard(in)
			if err != nil {
				t.Fatal(err)
			}
			cfg, err := png.DecodeConfig(bytes.NewReader(b))
			if err != nil {
				t.Fatal(err)
			}
			if cfg.Width != 1200 || cfg.Height != 630 {
				t.Fatalf("the card is %dx%d, want 1200x630", cfg.Width, cfg.Height)
			}
			img, _ := png.Decode(bytes.NewReader(b))
			ground := parseColor(in.BrandColor, shareCardNeutral)
			textLeft := cardMargin
			if tc.picture != "" {
				b := pictureBounds(t, in)
				box := pictureBox(float64(b.Dx()) / float64(b.Dy()))
				if !box.In(image.Rect(cardMargin, cardMargin, 1200-cardMargin, 630-cardMargin)) {
					t.Fatalf("the picture is drawn at %v, outside the margins", box)
				}
				if box.Dx() < 600 && box.Dy() < 500 {
					t.Fatalf("the %s picture is drawn at %v: too small", tc.picture, box)
				}
				textLeft = box.Max.X + cardGutter
			}
			// Text lies in its column: nothing but the ground's shading between the picture (or
			// the margin) and the column, or in the margins right, above and below.
			for _, r := range []image.Rectangle{
				image.Rect(textLeft-cardGutter+cardShadow+2, 0, textLeft-2, 630),
				image.Rect(1200-cardMargin+4, 0, 1200, 630),
				image.Rect(textLeft, 0, 1200, cardMargin-8), image.Rect(textLeft, 630-cardMargin+8, 1200, 630),
			} {
				if n := foreign(img, r, ground); n > 0 {
					t.Errorf("%d pixels drawn in %v, which should hold only the ground", n, r)
				}
			}
			if in.Name != "" && foreign(img, image.Rect(textLeft, cardMargin, 1200-cardMargin, 630-cardMargin), ground) < 2000 {
				t.Error("the text column is empty")
			}
		})
	}
}

// foreign counts the pixels of r far from the ground colour and its shading.
func foreign(img image.Image, r image.Rectangle, ground color.RGBA) int {
	far := mixRGBA(ground, color.RGBA{0, 0, 0, 255}, groundShade)
	n := 0
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			c := color.RGBAModel.Convert(img.At(x, y)).(color.RGBA)
			if !between(c.R, ground.R, far.R) || !between(c.G, ground.G, far.G) || !between(c.B, ground.B, far.B) {
				n++
			}
		}
	}
	return n
}

func between(v, a, b uint8) bool {
	lo, hi := min(a, b), max(a, b)
	return v+2 >= lo && v <= hi+2
}

// A name keeps its largest size on one line or two; shrinks rather than take more lines, as
// far as its height allows them; wraps between words; and past four lines at the least size
// is cut with an ellipsis after a whole word. A CJK name breaks between characters. No
// line is wider than the column.
func TestShareCardTextShrinksWrapsAndCuts(t *testing.T) {
	t.Parallel()
	fams, _ := loadFonts()
	long := cardText(strings.Repeat("Concurrency ", 60), maxCardName)
	for _, tc := range []struct {
		text     string
		width    float64
		size     float64 // 0: any
		lines    int
		ellipsis bool
	}{
		{"Go Conference 2026", 700, cardNameMax, 1, false},
		{"Go Conference 2026", 364, 0, 2, false},
		{"Certified Kubernetes Workshop Facilitator", 400, 0, 2, false},
		{long, 400, cardNameMin, cardNameLines, true},
		{"第十二回分散システム国際会議東京参加証明書", 400, 0, 3, false},
	} {
		fb := newFallback(fams, "modern", bold, tc.text)
		size, lines := fitCardText(fb, tc.text, tc.width, cardNameMax, cardNameMin, cardNameLead, cardNameLines)
		last := []rune(lines[len(lines)-1])
		if tc.size != 0 && size != tc.size || len(lines) != tc.lines || (last[len(last)-1] == '…') != tc.ellipsis {
			t.Errorf("%q in %g px: %q at %g px", tc.text, tc.width, lines, size)
		}
		if tc.ellipsis && strings.HasSuffix(lines[len(lines)-1], "Concurrenc…") {
			t.Errorf("%q: cut inside a word", lines[len(lines)-1])
		}
		for _, l := range lines {
			if w := fb.measure(l, size) * 72 / 25.4; w > tc.width {
				t.Errorf("%q is %.0f px wide in a column of %g", l, w, tc.width)
			}
		}
	}
}

// A picture that is not an image is an error, not a card without it; an image past the
// renderer's decoding limits is refused from its header, before it is decoded.
func TestShareCardRefusesBadPictures(t *testing.T) {
	t.Parallel()
	if _, err := ShareCard(ShareCardInput{Name: "x", PicturePNG: []byte("not an image")}); err == nil {
		t.Fatal("no error for a picture that is not an image")
	}
	var header bytes.Buffer // a PNG's signature and header, for 5000 x 5000 pixels, and no pixels
	header.WriteString("\x89PNG\r\n\x1a\n")
	writeChunk(&header, "IHDR", []byte{0, 0, 0x13, 0x88, 0, 0, 0x13, 0x88, 8, 2, 0, 0, 0})
	if _, err := ShareCard(ShareCardInput{Name: "x", PicturePNG: header.Bytes()}); err == nil || !strings.Contains(err.Error(), "5000x5000") {
		t.Fatalf("a picture of 25 megapixels: %v", err)
	}
}

// A certificate's page drawn at the card's size fills the picture box (within a pixel of
// rounding: it is then drawn into the card as it is, not scaled again).
func TestShareCardPictureHasTheBoxSize(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"landscape", "portrait"} {
		pic := cardPicture(t, name).Picture
		got := pic.Bounds().Size()
		want := pictureBox(float64(got.X) / float64(got.Y)).Size()
		if d := got.Sub(want); abs(d.X) > 1 || abs(d.Y) > 1 || max(got.X, got.Y) < 500 {
			t.Errorf("%s: the picture is %v, its box %v", name, got, want)
		}
	}
}

// UPDATE_DOCS=1 writes the sample cards of the documentation (docs/share-card-*.png).
func TestShareCardDocs(t *testing.T) {
	if os.Getenv("UPDATE_DOCS") == "" {
		t.Skip("UPDATE_DOCS=1 writes docs/share-card-*.png")
	}
	tmpl, err := systemTemplate("classic")
	if err != nil {
		t.Fatal(err)
	}
	page, err := ShareCardPicture(tmpl, GallerySample(Recipient{FirstName: "Ada", LastName: "Lovelace"}))
	if err != nil {
		t.Fatal(err)
	}
	for file, in := range map[string]ShareCardInput{
		"share-card-certificate.png": {Picture: page, Label: "Certificate", Name: "Go Conference 2026",
			Issuer: "Gophers e.V.", BrandColor: "#1F2A44"},
		"share-card-badge.png": {PicturePNG: cardPicture(t, "badge").PicturePNG, Label: "Badge", Name: "Gopher Contributor",
			Issuer: "Gophers e.V."},
	} {
		b, err := ShareCard(in)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join("..", "..", "docs", file), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// The card's cost, as a caller pays it: a certificate drawn at the card's size
// (ShareCardPicture and ShareCard), a certificate from its served preview PNG, and a badge
// from its PNG.
func BenchmarkShareCard(b *testing.B) {
	in := ShareCardInput{Label: "Certificate", Name: "Go Conference 2026: Concurrency in Practice",
		Issuer: "Gophers e.V.", BrandColor: "#1F2A44"}
	for _, name := range []string{"classic", "academic"} {
		b.Run(name+"-drawn", func(b *testing.B) {
			tmpl, err := systemTemplate(name)
			if err != nil {
				b.Fatal(err)
			}
			d := GallerySample(GalleryNames[0])
			b.ReportAllocs()
			for b.Loop() {
				in := in
				if in.Picture, err = ShareCardPicture(tmpl, d); err != nil {
					b.Fatal(err)
				}
				if _, err := ShareCard(in); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	for _, kind := range []string{"preview", "badge"} {
		b.Run(kind+"-png", func(b *testing.B) {
			in := in
			in.PicturePNG = cardPicture(b, kind).PicturePNG
			b.ReportAllocs()
			for b.Loop() {
				if _, err := ShareCard(in); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// A label of several words that fits is drawn whole ("REVOKED BADGE" had been cut to
// "REVOKED…", since the cut tried fewer words before the whole); one that does not fit is cut
// after a whole word.
func TestShareCardLabelIsCutOnlyWhenItDoesNotFit(t *testing.T) {
	t.Parallel()
	fams, _ := loadFonts()
	fb := newFallback(fams, "modern", bold, "REVOKED CERTIFICATE")
	if got := cutAtWord("REVOKED CERTIFICATE", fb, cardLabelSize, 500); got != "REVOKED CERTIFICATE" {
		t.Errorf("a label that fits: %q", got)
	}
	room := fb.measure("REVOKED…", cardLabelSize)*72/25.4 + 1
	if got := cutAtWord("REVOKED CERTIFICATE", fb, cardLabelSize, room); got != "REVOKED…" {
		t.Errorf("a label that does not fit: %q", got)
	}
}
