package render

import (
	"bytes"
	"fmt"
	"html"
	"image"
	"image/color"
	"image/png"
	"math"
	"strings"

	"golang.org/x/image/font"
	"golang.org/x/image/font/sfnt"
	"golang.org/x/image/math/fixed"
)

// A badge without an image of its own gets a generated one: a rosette in the issuer's colour
// with ribbon tails, a star, the badge's name set to fit and the issuer's name under it. The
// design is one list of filled paths, written as SVG and rasterised as PNG, so both show the
// same picture. Text is drawn as glyph outlines: the SVG needs no font on the viewer's side,
// and any name renders, in any script, through the same fallback as certificates.

// BadgeArt is what a generated badge image shows.
type BadgeArt struct {
	Name   string
	Issuer string
	Color  string // #RRGGBB; a navy blue when empty or malformed
}

// badgeSide is the side of the design's square, in its own units (pixels at 1x).
const badgeSide = 600

// BadgeSVG draws the badge as a self-contained SVG.
func BadgeSVG(b BadgeArt) ([]byte, error) {
	shapes, err := b.shapes()
	if err != nil {
		return nil, err
	}
	var w bytes.Buffer
	title := html.EscapeString(b.Name)
	fmt.Fprintf(&w, `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 %d %d" width="%d" height="%d" role="img" aria-label="%s">`,
		badgeSide, badgeSide, badgeSide, badgeSide, title)
	fmt.Fprintf(&w, "<title>%s</title>", title)
	for _, s := range shapes {
		fmt.Fprintf(&w, `<path fill="#%02x%02x%02x"`, s.fill.R, s.fill.G, s.fill.B)
		if s.fill.A != 255 {
			fmt.Fprintf(&w, ` fill-opacity="%.3g"`, float64(s.fill.A)/255)
		}
		w.WriteString(` d="`)
		for i, sg := range s.path {
			if i > 0 {
				w.WriteByte(' ')
			}
			w.WriteByte(sg.op)
			for _, p := range sg.pts[:pointsOf(sg.op)] {
				fmt.Fprintf(&w, " %.1f %.1f", p[0], p[1])
			}
		}
		w.WriteString(`"/>`)
	}
	w.WriteString("</svg>\n")
	return w.Bytes(), nil
}

// BadgePNG draws the badge as a PNG side pixels square, with a transparent background.
func BadgePNG(b BadgeArt, side int) ([]byte, error) {
	shapes, err := b.shapes()
	if err != nil {
		return nil, err
	}
	// Drawn as seals and ornaments are (paint), premultiplied; converted to NRGBA for the
	// encoder.
	img := image.NewRGBA(image.Rect(0, 0, side, side))
	paint(img, shapes, float64(side)/badgeSide, 0, 0)
	out := toNRGBA(img)
	var buf bytes.Buffer
	if err := png.Encode(&buf, out); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

type seg struct {
	op  byte // M, L, Q, C, Z
	pts [3][2]float64
}

type shape struct {
	path []seg
	fill color.NRGBA
}

func (b BadgeArt) shapes() ([]shape, error) {
	fams, err := loadFonts()
	if err != nil {
		return nil, err
	}
	base := parseColor(b.Color, color.RGBA{0x1f, 0x2a, 0x44, 255})
	c := color.NRGBA{base.R, base.G, base.B, 255}
	dark, light := mix(c, color.NRGBA{0, 0, 0, 255}, 0.35), mix(c, color.NRGBA{255, 255, 255, 255}, 0.85)
	white := color.NRGBA{255, 255, 255, 255}
	const cx, cy = 300.0, 265.0

	var out []shape
	// Ribbon tails behind the rosette, each cut with a notch.
	for _, side := range []float64{-1, 1} {
		x := cx + side*70
		out = append(out, shape{fill: dark, path: []seg{
			moveTo(x-side*50, cy+120), lineTo(x+side*55, cy+140), lineTo(x+side*95, 565), lineTo(x+side*45, 535),
			lineTo(x+side*12, 575), closePath(),
		}})
	}
	// The rosette: a scalloped disc, a darker disc and a fine white ring inside it.
	out = append(out,
		shape{fill: c, path: scallops(cx, cy, 236, 246, 40)},
		shape{fill: dark, path: circle(cx, cy, 205, false)},
		shape{fill: color.NRGBA{255, 255, 255, 200}, path: append(circle(cx, cy, 193, false), circle(cx, cy, 189, true)...)},
		shape{fill: light, path: star(cx, cy-140, 22, 9)},
	)

	// The name, fitted: the largest size (60 down to 22) at which it fits in four lines
	// inside the ring; the issuer's name below it, smaller.
	name := strings.TrimSpace(b.Name)
	words := strings.Join(strings.Fields(name), " ")
	var lines []string
	var size float64
	for size = 60; size >= 22; size -= 2 {
		fb := newFallback(fams, "sans", bold, name)
		lines = wrap(name, 330, func(t string) float64 { return fb.measure(t, size) * 72 / 25.4 })
		// The largest size whose lines break only between words, in four lines at most;
		// text without spaces (CJK) may break anywhere.
		if len(lines) <= 4 && (strings.Join(lines, " ") == words || !strings.Contains(words, " ")) {
			break
		}
	}
	if len(lines) > 4 {
		lines = append(lines[:3], lines[3]+"…")
	}
	lh := size * 1.15
	top := cy - 10 - lh*float64(len(lines))/2 + size*0.8
	for i, l := range lines {
		out = append(out, shape{fill: white, path: textPath(fams, l, bold, size, cx, top+float64(i)*lh)})
	}
	if issuer := strings.TrimSpace(b.Issuer); issuer != "" {
		isize := 22.0
		fb := newFallback(fams, "sans", regular, issuer)
		for isize > 15 && fb.measure(issuer, isize)*72/25.4 > 250 {
			isize--
		}
		out = append(out, shape{fill: light, path: textPath(fams, ellipsize(issuer, fb, isize, 250), regular, isize, cx, cy+125)})
	}
	return out, nil
}

// ellipsize cuts s to fit width units at size, ending it with an ellipsis when cut.
func ellipsize(s string, fb *fallback, size, width float64) string {
	if fb.measure(s, size)*72/25.4 <= width {
		return s
	}
	r := []rune(s)
	for len(r) > 1 && fb.measure(string(r)+"…", size)*72/25.4 > width {
		r = r[:len(r)-1]
	}
	return string(r) + "…"
}

// textPath returns the outlines of a line of text centred on x with its baseline at y, at size
// units per em.
func textPath(fams map[string]*family, text string, st style, size, x, y float64) []seg {
	fb := newFallback(fams, "sans", st, text)
	runs, width := fb.runs(text, size)
	width = width * 72 / 25.4 // runs measure in mm at size pt; here units are points
	var out []seg
	var buf sfnt.Buffer
	ppem := fixed.Int26_6(size * 64)
	pen := x - width/2
	for _, r := range runs {
		px := pen + r.offset*72/25.4
		var prev sfnt.GlyphIndex
		for i, ch := range r.text {
			gi, err := r.face.font.GlyphIndex(&buf, ch)
			if err != nil {
				continue
			}
			if i > 0 {
				if k, err := r.face.font.Kern(&buf, prev, gi, ppem, font.HintingNone); err == nil {
					px += float64(k) / 64
				}
			}
			prev = gi
			segs, err := r.face.font.LoadGlyph(&buf, gi, ppem, nil)
			if err == nil {
				out = appendGlyph(out, segs, func(p fixed.Point26_6) [2]float64 {
					return [2]float64{px + float64(p.X)/64, y + float64(p.Y)/64}
				})
			}
			if adv, err := r.face.font.GlyphAdvance(&buf, gi, ppem, font.HintingNone); err == nil {
				px += float64(adv) / 64
			}
		}
	}
	return out
}

func moveTo(x, y float64) seg { return seg{op: 'M', pts: [3][2]float64{{x, y}}} }
func lineTo(x, y float64) seg { return seg{op: 'L', pts: [3][2]float64{{x, y}}} }
func closePath() seg          { return seg{op: 'Z'} }

// circle is a circle of four cubic arcs; reverse winds it the other way, to cut a hole.
func circle(cx, cy, r float64, reverse bool) []seg {
	const k = 0.5522847498
	dir := 1.0
	if reverse {
		dir = -1
	}
	out := []seg{moveTo(cx+r, cy)}
	for q := range 4 {
		a0 := float64(q) * math.Pi / 2 * dir
		a1 := float64(q+1) * math.Pi / 2 * dir
		p0 := [2]float64{cx + r*math.Cos(a0), cy + r*math.Sin(a0)}
		p3 := [2]float64{cx + r*math.Cos(a1), cy + r*math.Sin(a1)}
		t0 := [2]float64{-math.Sin(a0) * dir, math.Cos(a0) * dir}
		t1 := [2]float64{-math.Sin(a1) * dir, math.Cos(a1) * dir}
		out = append(out, seg{op: 'C', pts: [3][2]float64{
			{p0[0] + k*r*t0[0], p0[1] + k*r*t0[1]}, {p3[0] - k*r*t1[0], p3[1] - k*r*t1[1]}, p3}})
	}
	return append(out, closePath())
}

// scallops is a disc whose edge is n rounded bumps between radii inner and outer.
func scallops(cx, cy, inner, outer float64, n int) []seg {
	at := func(a, r float64) [2]float64 { return [2]float64{cx + r*math.Cos(a), cy + r*math.Sin(a)} }
	step := 2 * math.Pi / float64(n)
	p := at(0, inner)
	out := []seg{moveTo(p[0], p[1])}
	for i := range n {
		a := float64(i) * step
		ctrl, end := at(a+step/2, outer+(outer-inner)), at(a+step, inner)
		out = append(out, seg{op: 'Q', pts: [3][2]float64{ctrl, end}})
	}
	return append(out, closePath())
}

// star is a five-pointed star centred on (cx, cy).
func star(cx, cy, outer, inner float64) []seg {
	var out []seg
	for i := range 10 {
		r := outer
		if i%2 == 1 {
			r = inner
		}
		a := -math.Pi/2 + float64(i)*math.Pi/5
		s := lineTo(cx+r*math.Cos(a), cy+r*math.Sin(a))
		if i == 0 {
			s.op = 'M'
		}
		out = append(out, s)
	}
	return append(out, closePath())
}

func mix(a, b color.NRGBA, t float64) color.NRGBA {
	m := func(x, y uint8) uint8 { return uint8(float64(x)*(1-t) + float64(y)*t + 0.5) }
	return color.NRGBA{m(a.R, b.R), m(a.G, b.G), m(a.B, b.B), 255}
}

// appendGlyph appends a glyph's outline to a path, each point placed by place (from the font's
// 26.6 units to the page), every contour closed.
func appendGlyph(path []seg, segs sfnt.Segments, place func(fixed.Point26_6) [2]float64) []seg {
	for _, s := range segs {
		sg := seg{}
		n := 1
		switch s.Op {
		case sfnt.SegmentOpMoveTo:
			if len(path) > 0 && path[len(path)-1].op != 'Z' {
				path = append(path, closePath())
			}
			sg.op = 'M'
		case sfnt.SegmentOpLineTo:
			sg.op = 'L'
		case sfnt.SegmentOpQuadTo:
			sg.op, n = 'Q', 2
		case sfnt.SegmentOpCubeTo:
			sg.op, n = 'C', 3
		}
		for j := range n {
			sg.pts[j] = place(s.Args[j])
		}
		path = append(path, sg)
	}
	if len(path) > 0 && path[len(path)-1].op != 'Z' {
		path = append(path, closePath())
	}
	return path
}
