package render

import (
	"unicode"
	"unicode/utf8"

	"golang.org/x/image/font/sfnt"
)

// A text is set as runs: stretches of characters that share one face. Each character takes the
// first face of the fallback order that has it, so a name that mixes scripts ("Jürgen 鈴木")
// sets each part in the face made for it; a character no face has is drawn as the replacement
// glyph U+FFFD, visibly.

// replacement is drawn for a character that no embedded face has.
const replacement = '\uFFFD'

// run is a stretch of a line set in one face.
type run struct {
	face   *face
	text   string  // what is drawn: replacements substituted, invisible characters left out
	offset float64 // mm from the line's start
	width  float64 // mm
	// raster runs are drawn into the PDF as an image: the PDF library maps only the Basic
	// Multilingual Plane (a character above U+FFFF panics inside it), and some faces are not
	// embedded as fonts at all.
	raster bool
}

// fallback chooses the face of each character of one text.
type fallback struct {
	order  []*face
	buf    sfnt.Buffer
	chosen map[rune]choice
	ems    map[advanceKey]float64
}

type choice struct {
	face  *face
	drawn rune
}

type advanceKey struct {
	face *face
	r    rune
}

// newFallback orders the faces for text: the preferred family, serif after the display faces,
// sans after every other, the CJK
// families (Japanese first when the text holds kana), then symbols. Ideographs beyond the BMP
// reach the extended CJK face last.
func newFallback(fams map[string]*family, preferred string, st style, text string) *fallback {
	pref := fams[preferred]
	if pref == nil {
		pref = fams["sans"]
	}
	order := []*face{pref.faces[st]}
	// The display faces fall back on the DejaVu face nearest in kind, which covers far more.
	if pref.name == "classic" || pref.name == "script" {
		order = append(order, fams["serif"].faces[st])
	}
	if pref.name != "sans" {
		order = append(order, fams["sans"].faces[st])
	}
	if hasKana(text) {
		order = append(order, fams["ja"].faces[st], fams["cjk"].faces[st])
	} else {
		order = append(order, fams["cjk"].faces[st], fams["ja"].faces[st])
	}
	order = append(order, fams["symbols"].faces[st])
	return &fallback{order: order, chosen: map[rune]choice{}, ems: map[advanceKey]float64{}}
}

// choose returns the face that draws r and the character it draws: r itself, or the
// replacement glyph when no face has r.
func (fb *fallback) choose(r rune) choice {
	if c, ok := fb.chosen[r]; ok {
		return c
	}
	c := choice{drawn: replacement}
	for _, f := range fb.order {
		if f.has(r, &fb.buf) {
			c = choice{face: f, drawn: r}
			break
		}
	}
	if c.face == nil && r >= 0x20000 && r <= 0x3FFFF {
		if f := extendedCJK(); f != nil && f.has(r, &fb.buf) {
			c = choice{face: f, drawn: r}
		}
	}
	if c.face == nil {
		for _, f := range fb.order {
			if f.has(replacement, &fb.buf) {
				c.face = f
				break
			}
		}
		if c.face == nil {
			c.face = fb.order[0] // draws .notdef, still visibly
		}
	}
	fb.chosen[r] = c
	return c
}

func (fb *fallback) advance(f *face, r rune, size float64) float64 {
	k := advanceKey{f, r}
	em, ok := fb.ems[k]
	if !ok {
		em = f.advance(r, &fb.buf)
		fb.ems[k] = em
	}
	return em * size * 25.4 / 72
}

// pick chooses the face of r following characters set in cur: spaces and combining marks stay
// with the characters before them when cur has them; anything else takes its own choice.
func (fb *fallback) pick(cur *face, r rune) choice {
	if cur != nil && (unicode.IsSpace(r) || unicode.In(r, unicode.Mn, unicode.Me)) && cur.has(r, &fb.buf) {
		return choice{face: cur, drawn: r}
	}
	return fb.choose(r)
}

// invisible characters (joiners, variation selectors, emoji skin-tone modifiers, other format
// characters) are kept in the data but not drawn: no face here shapes with them, and alone
// they would show as boxes or swatches beside the character they modify.
func invisible(r rune) bool {
	return unicode.Is(unicode.Cf, r) || unicode.Is(unicode.Variation_Selector, r) || unicode.IsControl(r) ||
		r >= 0x1F3FB && r <= 0x1F3FF
}

// runs splits s into runs, measured at size points, and returns them with the line's width.
func (fb *fallback) runs(s string, size float64) ([]run, float64) {
	var (
		out  []run
		cur  *run
		text []rune
		x    float64
	)
	flush := func() {
		if cur != nil {
			cur.text = string(text)
			out = append(out, *cur)
			cur, text = nil, text[:0]
		}
	}
	for _, r := range s {
		if invisible(r) {
			continue
		}
		var curFace *face
		if cur != nil {
			curFace = cur.face
		}
		c := fb.pick(curFace, r)
		raster := !c.face.pdf || c.drawn > 0xFFFF
		if cur == nil || cur.face != c.face || cur.raster != raster {
			flush()
			cur = &run{face: c.face, offset: x, raster: raster}
		}
		w := fb.advance(c.face, c.drawn, size)
		text = append(text, c.drawn)
		cur.width += w
		x += w
	}
	flush()
	return out, x
}

// measure returns the width of s at size points in millimetres, from the advance widths of the
// faces that set it (no kerning, as in the PDF).
func (fb *fallback) measure(s string, size float64) float64 {
	var x float64
	var prev *face
	for _, r := range s {
		if invisible(r) {
			continue
		}
		c := fb.pick(prev, r)
		x += fb.advance(c.face, c.drawn, size)
		prev = c.face
	}
	return x
}

// bmpOnly replaces every character above U+FFFF, and every byte that is not UTF-8, with the
// replacement glyph: for strings handed to the PDF library, whose UTF-16 conversion reads past
// the end of a string on a malformed sequence.
func bmpOnly(s string) string {
	clean := utf8.ValidString(s)
	for _, r := range s {
		clean = clean && r <= 0xFFFF
	}
	if clean {
		return s
	}
	out := make([]rune, 0, len(s))
	for _, r := range s { // ranging turns a malformed byte into U+FFFD
		if r > 0xFFFF {
			r = replacement
		}
		out = append(out, r)
	}
	return string(out)
}
