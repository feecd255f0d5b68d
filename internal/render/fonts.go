package render

import (
	"embed"
	"fmt"
	"sync"
	"unicode"

	"golang.org/x/image/font"
	"golang.org/x/image/font/sfnt"
	"golang.org/x/image/math/fixed"
)

// The fonts are embedded in the binary; their licences are beside them in fonts/.
//
//go:embed fonts/*.ttf
var fontFiles embed.FS

// style is one of the four faces of a family.
type style int

const (
	regular style = iota
	bold
	italic
	boldItalic
)

func styleOf(b, i bool) style {
	switch {
	case b && i:
		return boldItalic
	case b:
		return bold
	case i:
		return italic
	}
	return regular
}

// face is one font file.
type face struct {
	family string
	style  style
	data   []byte
	font   *sfnt.Font
}

// family is a set of faces; CJK families use one file for every style.
type family struct {
	name  string
	faces [4]*face
}

var familyFiles = []struct {
	name  string
	files [4]string
}{
	{"sans", [4]string{"DejaVuSans.ttf", "DejaVuSans-Bold.ttf", "DejaVuSans-Oblique.ttf", "DejaVuSans-BoldOblique.ttf"}},
	{"serif", [4]string{"DejaVuSerif.ttf", "DejaVuSerif-Bold.ttf", "DejaVuSerif-Italic.ttf", "DejaVuSerif-BoldItalic.ttf"}},
	// Chinese, and Korean; broad CJK coverage.
	{"cjk", [4]string{"DroidSansFallbackFull.ttf", "DroidSansFallbackFull.ttf", "DroidSansFallbackFull.ttf", "DroidSansFallbackFull.ttf"}},
	// Japanese forms, for texts that hold kana.
	{"ja", [4]string{"ipag.ttf", "ipag.ttf", "ipag.ttf", "ipag.ttf"}},
}

var (
	fontsOnce sync.Once
	families  map[string]*family
	fontsErr  error
)

func loadFonts() (map[string]*family, error) {
	fontsOnce.Do(func() {
		families = map[string]*family{}
		parsed := map[string]*sfnt.Font{}
		data := map[string][]byte{}
		for _, ff := range familyFiles {
			fam := &family{name: ff.name}
			for st, file := range ff.files {
				if parsed[file] == nil {
					b, err := fontFiles.ReadFile("fonts/" + file)
					if err != nil {
						fontsErr = err
						return
					}
					f, err := sfnt.Parse(b)
					if err != nil {
						fontsErr = fmt.Errorf("render: font %s: %w", file, err)
						return
					}
					parsed[file], data[file] = f, b
				}
				fam.faces[st] = &face{family: ff.name, style: style(st), data: data[file], font: parsed[file]}
			}
			families[ff.name] = fam
		}
	})
	return families, fontsErr
}

// covers reports how many of text's runes the face has a glyph for.
func (f *face) covers(text string, buf *sfnt.Buffer) (covered, total int) {
	for _, r := range text {
		if unicode.IsSpace(r) || unicode.IsControl(r) {
			continue
		}
		total++
		if i, err := f.font.GlyphIndex(buf, r); err == nil && i != 0 {
			covered++
		}
	}
	return covered, total
}

// chooseFamily picks the family for a text: the preferred one when it has every glyph;
// otherwise, for Japanese kana the Japanese font, then the broad CJK font; otherwise the
// family that has the most glyphs. A text always renders in one family, so every character
// of a name comes out in one consistent face.
func chooseFamily(fams map[string]*family, preferred string, st style, text string) *face {
	var buf sfnt.Buffer
	pref := fams[preferred]
	if pref == nil {
		pref = fams["sans"]
	}
	order := []*family{pref}
	if hasKana(text) {
		order = append(order, fams["ja"], fams["cjk"])
	} else {
		order = append(order, fams["cjk"], fams["ja"])
	}
	best, bestCovered := pref.faces[st], -1
	for _, fam := range order {
		c, total := fam.faces[st].covers(text, &buf)
		if c == total {
			return fam.faces[st]
		}
		if c > bestCovered {
			best, bestCovered = fam.faces[st], c
		}
	}
	return best
}

func hasKana(text string) bool {
	for _, r := range text {
		if unicode.In(r, unicode.Hiragana, unicode.Katakana) {
			return true
		}
	}
	return false
}

// measure returns the width of text set in f at size points, in millimetres, from the font's
// advance widths (no kerning, as in the PDF).
func (f *face) measure(text string, size float64, buf *sfnt.Buffer) float64 {
	upem := int(f.font.UnitsPerEm())
	ppem := fixed.I(upem) // one pixel per font unit: advances come back in font units
	var total fixed.Int26_6
	for _, r := range text {
		i, err := f.font.GlyphIndex(buf, r)
		if err != nil {
			continue
		}
		adv, err := f.font.GlyphAdvance(buf, i, ppem, font.HintingNone)
		if err != nil {
			continue
		}
		total += adv
	}
	em := float64(total) / 64 / float64(upem)
	return em * size * 25.4 / 72
}
