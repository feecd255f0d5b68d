package render

import (
	"bytes"
	"compress/gzip"
	"embed"
	"fmt"
	"io"
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
	// pdf says whether the PDF library may set text in this face. Faces it cannot take (too
	// large to embed per document, or holding glyphs beyond the Basic Multilingual Plane only)
	// are drawn into the PDF as images at print resolution.
	pdf bool
	// synthBold marks the bold styles of a family that has no bold file (the CJK faces): its
	// text is overstruck to look bold beside a bold Latin text (see emboldenEm).
	synthBold bool
}

// family is a set of faces; CJK and symbol families use one file for every style.
type family struct {
	name  string
	faces [4]*face
}

var familyFiles = []struct {
	name      string
	files     [4]string
	pdf       bool
	synthBold bool
}{
	{"sans", [4]string{"DejaVuSans.ttf", "DejaVuSans-Bold.ttf", "DejaVuSans-Oblique.ttf", "DejaVuSans-BoldOblique.ttf"}, true, false},
	{"serif", [4]string{"DejaVuSerif.ttf", "DejaVuSerif-Bold.ttf", "DejaVuSerif-Italic.ttf", "DejaVuSerif-BoldItalic.ttf"}, true, false},
	// Display serif: Old Standard TT, a 19th-century book face (Latin, Greek, Cyrillic); it
	// has no bold italic, so bold stands in for it.
	{"classic", [4]string{"OldStandard-Regular.ttf", "OldStandard-Bold.ttf", "OldStandard-Italic.ttf", "OldStandard-Bold.ttf"}, true, false},
	// Modern sans: Lato (Latin, Greek, Cyrillic).
	{"modern", [4]string{"Lato-Regular.ttf", "Lato-Bold.ttf", "Lato-Italic.ttf", "Lato-BoldItalic.ttf"}, true, false},
	// Script: Cert Script (Lobster Two converted to TrueType), italic by nature.
	{"script", [4]string{"CertScript-Italic.ttf", "CertScript-BoldItalic.ttf", "CertScript-Italic.ttf", "CertScript-BoldItalic.ttf"}, true, false},
	// Chinese, and Korean; broad CJK coverage.
	{"cjk", [4]string{"DroidSansFallbackFull.ttf", "DroidSansFallbackFull.ttf", "DroidSansFallbackFull.ttf", "DroidSansFallbackFull.ttf"}, true, true},
	// Japanese forms, for texts that hold kana.
	{"ja", [4]string{"ipag.ttf", "ipag.ttf", "ipag.ttf", "ipag.ttf"}, true, true},
	// Emoji (monochrome outlines), mathematical alphanumerics and other symbols.
	{"symbols", [4]string{"Symbola.ttf", "Symbola.ttf", "Symbola.ttf", "Symbola.ttf"}, false, false},
}

// Fonts lists the typefaces a text may name, the first the default.
var Fonts = []string{"sans", "serif", "classic", "modern", "script"}

// emboldenEm is how far, in ems, the text of a synthetic bold face is overstruck to the
// right: drawn three times, at 0, half and the whole of it, its strokes thicken by about as
// much as a bold face's do over its regular one. Text extractors (poppler's pdftotext among
// them) recognise the overstrike and read the text once.
const emboldenEm = 0.04

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
				fam.faces[st] = &face{family: ff.name, style: style(st), data: data[file], font: parsed[file], pdf: ff.pdf,
					synthBold: ff.synthBold && (style(st) == bold || style(st) == boldItalic)}
			}
			families[ff.name] = fam
		}
	})
	return families, fontsErr
}

// CJK ideographs beyond the Basic Multilingual Plane (Extensions B to F) come from Hanazono
// Mincho B: 30 MB, kept compressed in the binary and opened the first time a text needs it.
//
//go:embed fonts/HanaMinB.ttf.gz
var hanaMinB []byte

var (
	extendedOnce sync.Once
	extendedFace *face
)

// extendedCJK returns the face for ideographs beyond the BMP, or nil when it cannot be read
// (the characters then render as a replacement glyph).
func extendedCJK() *face {
	extendedOnce.Do(func() {
		zr, err := gzip.NewReader(bytes.NewReader(hanaMinB))
		if err != nil {
			return
		}
		b, err := io.ReadAll(zr)
		if err != nil {
			return
		}
		f, err := sfnt.Parse(b)
		if err != nil {
			return
		}
		extendedFace = &face{family: "cjk-ext", data: b, font: f}
	})
	return extendedFace
}

// has reports whether the face has a real glyph (not .notdef) for r.
func (f *face) has(r rune, buf *sfnt.Buffer) bool {
	i, err := f.font.GlyphIndex(buf, r)
	return err == nil && i != 0
}

// advance returns r's advance width in ems.
func (f *face) advance(r rune, buf *sfnt.Buffer) float64 {
	i, err := f.font.GlyphIndex(buf, r)
	if err != nil {
		return 0
	}
	upem := int(f.font.UnitsPerEm())
	// One pixel per font unit: the advance comes back in font units.
	adv, err := f.font.GlyphAdvance(buf, i, fixed.I(upem), font.HintingNone)
	if err != nil {
		return 0
	}
	return float64(adv) / 64 / float64(upem)
}

func hasKana(text string) bool {
	for _, r := range text {
		if unicode.In(r, unicode.Hiragana, unicode.Katakana) {
			return true
		}
	}
	return false
}

var drawnOnce = []float64{0}

// overstrike returns the offsets, in millimetres, at which a run in f at sizeMM is drawn: once,
// or three times over for a synthetic bold face.
func overstrike(f *face, sizeMM float64) []float64 {
	if !f.synthBold {
		return drawnOnce
	}
	e := emboldenEm * sizeMM
	return []float64{0, e / 2, e}
}
