package render

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"math"
	"slices"
	"sort"
	"strings"

	"golang.org/x/image/font/sfnt"
	"golang.org/x/image/math/fixed"
	"golang.org/x/image/vector"
)

// Ornaments (seals, ribbons, guilloché borders and textures) are drawn from vector paths: the
// same filled shapes the generated badges use. The PDF library places images but draws no
// paths, so they reach the PDF rasterised at print resolution (ornamentDPI) and never blurry;
// the PNG draws them at its own resolution.

// ornamentDPI is the resolution of seals and of backgrounds with fine line work in PDFs.
const ornamentDPI = 300

// paint fills shapes into img, their units scaled by scale and moved by (dx, dy) pixels.
//
// A fill passes over every pixel of the rasteriser's area, and a page background at 300 dpi is
// nine million pixels of which a frame or a rosette covers a fraction. So the image is cut
// into tiles, each contour (a subpath, M to Z) goes to the tiles its bounding box meets, and
// only tiles that hold a contour are filled. This is exact, not an approximation: the
// rasteriser accumulates coverage along each row, a closed contour adds nothing to a row
// outside its bounding box, and one that reaches past a tile's edge is clipped by it.
func paint(img *image.RGBA, shapes []shape, scale, dx, dy float64) {
	// Shapes of one colour in a row are filled as one path.
	var merged []shape
	for _, s := range shapes {
		if n := len(merged); n > 0 && merged[n-1].fill == s.fill {
			merged[n-1].path = append(merged[n-1].path, s.path...)
			continue
		}
		merged = append(merged, shape{fill: s.fill, path: slices.Clip(s.path)})
	}
	b := img.Bounds()
	cols, rows := (b.Dx()+paintTile-1)/paintTile, (b.Dy()+paintTile-1)/paintTile
	var r vector.Rasterizer
	for _, s := range merged {
		pts := make([][3][2]float32, len(s.path))
		for i, sg := range s.path {
			for j := range 3 {
				// Pixels from the image's corner, as a rasteriser the image's size reads them.
				pts[i][j] = [2]float32{float32(sg.pts[j][0]*scale + dx), float32(sg.pts[j][1]*scale + dy)}
			}
		}
		// The contours of each tile, as ranges [start, end) of s.path.
		tiles := make([][][2]int, cols*rows)
		for start := 0; start < len(s.path); {
			end := start + 1
			for end < len(s.path) && s.path[end].op != 'M' {
				end++
			}
			x0, y0, x1, y1 := float32(math.Inf(1)), float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.Inf(-1))
			for i := start; i < end; i++ {
				for j := range pointsOf(s.path[i].op) {
					x0, x1 = min(x0, pts[i][j][0]), max(x1, pts[i][j][0])
					y0, y1 = min(y0, pts[i][j][1]), max(y1, pts[i][j][1])
				}
			}
			tx0, ty0 := max(0, int(x0)/paintTile), max(0, int(y0)/paintTile)
			tx1, ty1 := min(cols-1, int(x1)/paintTile), min(rows-1, int(y1)/paintTile)
			for ty := ty0; ty <= ty1 && x1 >= 0 && y1 >= 0; ty++ {
				for tx := tx0; tx <= tx1; tx++ {
					tiles[ty*cols+tx] = append(tiles[ty*cols+tx], [2]int{start, end})
				}
			}
			start = end
		}
		src := image.NewUniform(s.fill)
		for i, contours := range tiles {
			if len(contours) == 0 {
				continue
			}
			at := b.Min.Add(image.Pt(i%cols*paintTile, i/cols*paintTile))
			tile := image.Rectangle{Min: at, Max: at.Add(image.Pt(paintTile, paintTile))}.Intersect(b)
			ox, oy := float32(tile.Min.X-b.Min.X), float32(tile.Min.Y-b.Min.Y)
			r.Reset(tile.Dx(), tile.Dy())
			for _, c := range contours {
				for k := c[0]; k < c[1]; k++ {
					p := func(j int) (float32, float32) { return pts[k][j][0] - ox, pts[k][j][1] - oy }
					switch s.path[k].op {
					case 'M':
						r.MoveTo(p(0))
					case 'L':
						r.LineTo(p(0))
					case 'Q':
						x0, y0 := p(0)
						x1, y1 := p(1)
						r.QuadTo(x0, y0, x1, y1)
					case 'C':
						x0, y0 := p(0)
						x1, y1 := p(1)
						x2, y2 := p(2)
						r.CubeTo(x0, y0, x1, y1, x2, y2)
					case 'Z':
						r.ClosePath()
					}
				}
				r.ClosePath() // a contour the path left open is closed, as a whole-image fill would
			}
			r.Draw(img, tile, src, image.Point{})
		}
	}
}

// pointsOf is the number of points a segment of op holds.
func pointsOf(op byte) int {
	switch op {
	case 'M', 'L':
		return 1
	case 'Q':
		return 2
	case 'C':
		return 3
	}
	return 0
}

// paintTile is the side, in pixels, of the tiles paint fills.
const paintTile = 128

// stroke is a polyline drawn width wide: one quadrilateral per segment, all wound the same
// way, so that overlaps at the joints add up instead of cancelling.
func stroke(pts [][2]float64, width float64) []seg {
	out := make([]seg, 0, len(pts)*5)
	h := width / 2
	for i := 1; i < len(pts); i++ {
		a, b := pts[i-1], pts[i]
		dx, dy := b[0]-a[0], b[1]-a[1]
		l := math.Hypot(dx, dy)
		if l == 0 {
			continue
		}
		// Each piece reaches a little past its end, so that joints show no notch.
		ex, ey := dx/l*h*0.5, dy/l*h*0.5
		nx, ny := -dy/l*h, dx/l*h
		out = append(out, moveTo(a[0]+nx-ex, a[1]+ny-ey), lineTo(b[0]+nx+ex, b[1]+ny+ey),
			lineTo(b[0]-nx+ex, b[1]-ny+ey), lineTo(a[0]-nx-ex, a[1]-ny-ey), closePath())
	}
	return out
}

// rosette is a closed hypotrochoid (the curve of a spirograph, the figure of guilloché
// engraving) centred on (cx, cy), reaching radius: a wheel of radius rr rolling inside one of
// radius 1, its pen at d from the wheel's centre.
func rosette(cx, cy, radius, rr, d float64, turns int) [][2]float64 {
	n := 2000 * turns
	scale := radius / (1 - rr + d)
	pts := make([][2]float64, 0, n+1)
	for i := 0; i <= n; i++ {
		t := float64(i) / float64(n) * 2 * math.Pi * float64(turns)
		x := (1-rr)*math.Cos(t) + d*math.Cos((1-rr)/rr*t)
		y := (1-rr)*math.Sin(t) - d*math.Sin((1-rr)/rr*t)
		pts = append(pts, [2]float64{cx + x*scale, cy + y*scale})
	}
	return pts
}

// --- Seals ---

// sealSide is the width of a seal's design in its own units; with ribbons it is taller.
const (
	sealSide       = 600.0
	sealRibbonDrop = 170.0
)

type sealKey struct {
	text, color string
	ribbons     bool
	px          int
}

// seals are drawn seals (they repeat from certificate to certificate).
var seals = newMemo[sealKey](sealsBudget, (*asset).bytes)

// sealAsset draws a seal widthMM wide at dpi as an image: an embossed-looking starburst in
// col with text around its ring, a guilloché rosette and a star at its centre, and ribbon
// tails under it when ribbons is set. Seals repeat from certificate to certificate: cached.
func sealAsset(text string, col color.RGBA, ribbons bool, widthMM, dpi float64) (*asset, error) {
	k := sealKey{text, fmt.Sprintf("%02x%02x%02x", col.R, col.G, col.B), ribbons, int(widthMM*dpi/25.4 + 0.5)}
	if a, ok := seals.get(k); ok {
		return a, nil
	}
	shapes, err := sealShapes(text, col, ribbons)
	if err != nil {
		return nil, err
	}
	h := sealSide
	if ribbons {
		h += sealRibbonDrop
	}
	scale := float64(k.px) / sealSide
	img := image.NewRGBA(image.Rect(0, 0, k.px, int(h*scale+0.5)))
	paint(img, shapes, scale, 0, 0)
	nrgba := toNRGBA(img)
	var buf bytes.Buffer
	if err := (&png.Encoder{CompressionLevel: png.BestSpeed}).Encode(&buf, nrgba); err != nil {
		return nil, err
	}
	a := &asset{img: nrgba, png: buf.Bytes(), bounds: nrgba.Bounds()}
	seals.put(k, a)
	return a, nil
}

func sealShapes(text string, base color.RGBA, ribbons bool) ([]shape, error) {
	fams, err := loadFonts()
	if err != nil {
		return nil, err
	}
	c := color.NRGBA{base.R, base.G, base.B, 255}
	dark := mix(c, color.NRGBA{0, 0, 0, 255}, 0.3)
	deep := mix(c, color.NRGBA{0, 0, 0, 255}, 0.5)
	light := mix(c, color.NRGBA{255, 255, 255, 255}, 0.6)
	shine := mix(c, color.NRGBA{255, 255, 255, 255}, 0.82)
	const cx, cy = sealSide / 2, sealSide / 2
	var out []shape
	if ribbons {
		for _, side := range []float64{-1, 1} {
			x := cx + side*60
			top, bottom := cy+150, sealSide+sealRibbonDrop-8
			tail := []seg{moveTo(x-side*55, top), lineTo(x+side*50, top-10), lineTo(x+side*105, bottom),
				lineTo(x+side*55, bottom-42), lineTo(x+side*10, bottom-8), closePath()}
			out = append(out, shape{fill: deep, path: tail})
			// A lighter fold down the middle of each tail.
			out = append(out, shape{fill: dark, path: []seg{moveTo(x-side*5, top), lineTo(x+side*50, top-10),
				lineTo(x+side*105, bottom), lineTo(x+side*55, bottom-42), closePath()}})
		}
	}
	burst := func(dx, dy float64) []seg {
		var p []seg
		const n = 72
		for i := range 2 * n {
			r := 286.0
			if i%2 == 1 {
				r = 268
			}
			a := float64(i) * math.Pi / n
			s := lineTo(cx+dx+r*math.Cos(a), cy+dy+r*math.Sin(a))
			if i == 0 {
				s.op = 'M'
			}
			p = append(p, s)
		}
		return append(p, closePath())
	}
	out = append(out,
		shape{fill: color.NRGBA{0, 0, 0, 55}, path: burst(5, 8)},
		shape{fill: c, path: burst(0, 0)},
		// The rim: a dark ring, lit from the top left.
		shape{fill: deep, path: circle(cx+2, cy+3, 254, false)},
		shape{fill: shine, path: circle(cx-2, cy-2, 252, false)},
		shape{fill: c, path: circle(cx, cy, 250, false)},
		shape{fill: light, path: append(circle(cx, cy, 236, false), circle(cx, cy, 232, true)...)},
		shape{fill: light, path: append(circle(cx, cy, 152, false), circle(cx, cy, 148, true)...)},
		shape{fill: dark, path: circle(cx, cy, 146, false)},
		shape{fill: mix(c, dark, 0.4), path: stroke(rosette(cx, cy, 138, 0.3, 0.42, 3), 1.6)},
		shape{fill: shine, path: star(cx, cy, 62, 25)},
	)
	out = append(out, ringText(fams, strings.ToUpper(strings.TrimSpace(text)), cx, cy, 192, shine)...)
	return out, nil
}

// ringText sets text clockwise around a circle of radius ring (the middle of its capitals),
// centred at the top, letter-spaced; it shrinks to fit three quarters of the circle, and is
// cut with an ellipsis beyond that. Small diamonds fill the rest of the ring.
func ringText(fams map[string]*family, text string, cx, cy, ring float64, fill color.NRGBA) []shape {
	fb := newFallback(fams, "modern", bold, text)
	const tracking = 0.14 // em
	width := func(s string, size float64) float64 {
		n := float64(len([]rune(s)))
		return fb.measure(s, size)*72/25.4 + n*tracking*size
	}
	size := 44.0
	room := 2 * math.Pi * ring * 0.75
	for size > 28 && width(text, size) > room {
		size -= 1
	}
	if width(text, size) > room {
		// The longest prefix that fits with the ellipsis, found by halving: text made long by
		// metadata would cost a measurement per rune dropped.
		r := []rune(text)
		n := sort.Search(len(r), func(n int) bool { return n > 1 && width(string(r[:n])+"…", size) > room }) - 1
		text = strings.TrimSpace(string(r[:max(1, n)])) + "…"
	}
	var out []shape
	var buf sfnt.Buffer
	ppem := fixed.Int26_6(size * 64)
	capHeight := size * 0.72
	radius := ring - capHeight/2 // the baseline
	w := width(text, size)
	// Angles run clockwise from the top; the text is centred there.
	angle := -w / 2 / radius
	var path []seg
	for _, ch := range text {
		if invisible(ch) {
			continue
		}
		choice := fb.choose(ch)
		f := choice.face
		gi, err := f.font.GlyphIndex(&buf, choice.drawn)
		if err != nil {
			continue
		}
		adv := fb.advance(f, choice.drawn, size) * 72 / 25.4
		segs, err := f.font.LoadGlyph(&buf, gi, ppem, nil)
		mid := angle + adv/2/radius
		sin, cos := math.Sin(mid), math.Cos(mid)
		if err == nil {
			place := func(p fixed.Point26_6) [2]float64 {
				u, h := float64(p.X)/64-adv/2, -float64(p.Y)/64
				rr := radius + h
				return [2]float64{cx + rr*sin + u*cos, cy - rr*cos + u*sin}
			}
			path = appendGlyph(path, segs, place)
		}
		angle += (adv + tracking*size) / radius
	}
	out = append(out, shape{fill: fill, path: path})
	// Diamonds along the free part of the ring, evenly spaced.
	start, end := w/2/radius+0.12, 2*math.Pi-w/2/radius-0.12
	if end > start {
		n := max(1, int((end-start)*radius/38))
		for i := range n + 1 {
			a := start + (end-start)*float64(i)/float64(max(n, 1))
			if text == "" && i == n {
				break
			}
			x, y := cx+ring*math.Sin(a), cy-ring*math.Cos(a)
			out = append(out, shape{fill: fill, path: []seg{moveTo(x, y-7), lineTo(x+5, y), lineTo(x, y+7), lineTo(x-5, y), closePath()}})
		}
	}
	return out
}

// --- Backgrounds ---

// guillocheBorder draws a frame of interlaced waves (the engraved border of banknotes and
// diplomas) into img, between inset and inset+band millimetres from the page's edges, with a
// fine rule on each side.
func guillocheBorder(img *image.RGBA, page Page, dpi, inset, band float64, ink color.RGBA) {
	px := dpi / 25.4
	c := color.NRGBA{ink.R, ink.G, ink.B, 255}
	soft := color.NRGBA{ink.R, ink.G, ink.B, 150}
	mid := inset + band/2
	radius := band * 0.9
	// The centre line is a rectangle with rounded corners, walked by arc length.
	x0, y0, x1, y1 := mid, mid, page.Width-mid, page.Height-mid
	straightW, straightH := x1-x0-2*radius, y1-y0-2*radius
	arc := math.Pi / 2 * radius
	perimeter := 2*straightW + 2*straightH + 4*arc
	at := func(s float64) (p, n [2]float64) {
		s = math.Mod(s, perimeter)
		corner := func(cx, cy, a0, t float64) ([2]float64, [2]float64) {
			a := a0 + t/radius
			return [2]float64{cx + radius*math.Cos(a), cy + radius*math.Sin(a)}, [2]float64{math.Cos(a), math.Sin(a)}
		}
		legs := []float64{straightW, arc, straightH, arc, straightW, arc, straightH, arc}
		for i, l := range legs {
			if s <= l || i == len(legs)-1 {
				switch i {
				case 0:
					return [2]float64{x0 + radius + s, y0}, [2]float64{0, -1}
				case 1:
					return corner(x1-radius, y0+radius, -math.Pi/2, s)
				case 2:
					return [2]float64{x1, y0 + radius + s}, [2]float64{1, 0}
				case 3:
					return corner(x1-radius, y1-radius, 0, s)
				case 4:
					return [2]float64{x1 - radius - s, y1}, [2]float64{0, 1}
				case 5:
					return corner(x0+radius, y1-radius, math.Pi/2, s)
				case 6:
					return [2]float64{x0, y1 - radius - s}, [2]float64{-1, 0}
				default:
					return corner(x0+radius, y0+radius, math.Pi, s)
				}
			}
			s -= l
		}
		return
	}
	// Whole waves around the frame, so that the pattern closes on itself.
	waves := math.Round(perimeter / 5.5)
	lambda := perimeter / waves
	amp := band/2 - 0.6
	var shapes []shape
	line := func(phase, a, wl, width float64, fill color.NRGBA) {
		steps := int(perimeter / 0.25)
		pts := make([][2]float64, 0, steps+1)
		for i := 0; i <= steps; i++ {
			s := perimeter * float64(i) / float64(steps)
			p, n := at(s)
			o := a * math.Sin(2*math.Pi*s/wl+phase)
			pts = append(pts, [2]float64{(p[0] + n[0]*o) * px, (p[1] + n[1]*o) * px})
		}
		shapes = append(shapes, shape{fill: fill, path: stroke(pts, width*px)})
	}
	for k := range 3 {
		line(float64(k)*2*math.Pi/3, amp, lambda, 0.16, c)
	}
	for k := range 2 {
		line(float64(k)*math.Pi, amp*0.45, lambda/2, 0.1, soft)
	}
	rule := func(off, width float64) {
		steps := int(perimeter / 0.5)
		pts := make([][2]float64, 0, steps+1)
		for i := 0; i <= steps; i++ {
			p, n := at(perimeter * float64(i) / float64(steps))
			pts = append(pts, [2]float64{(p[0] + n[0]*off) * px, (p[1] + n[1]*off) * px})
		}
		shapes = append(shapes, shape{fill: c, path: stroke(pts, width*px)})
	}
	rule(band/2+0.4, 0.5)
	rule(-band/2-0.4, 0.25)
	paint(img, shapes, 1, 0, 0)
}

// guillochePattern prints a large rosette and concentric rings of it at the page's centre, in
// a pale tint of ink: the security texture of certificates and banknotes.
func guillochePattern(img *image.RGBA, page Page, dpi float64, ink color.RGBA) {
	px := dpi / 25.4
	tint := color.NRGBA{ink.R, ink.G, ink.B, 40}
	cx, cy := page.Width/2*px, page.Height/2*px
	r := min(page.Width, page.Height) * 0.36 * px
	w := 0.14 * px
	shapes := []shape{
		{fill: tint, path: stroke(rosette(cx, cy, r, 0.28, 0.5, 7), w)},
		{fill: tint, path: stroke(rosette(cx, cy, r*0.62, 0.36, 0.62, 9), w)},
	}
	paint(img, shapes, 1, 0, 0)
}

// toNRGBA converts what paint drew (premultiplied, the rasteriser's fast path for one colour
// over RGBA; the generic path through NRGBA costs several times as much) to the straight
// alpha the PNG encoder writes without another conversion.
func toNRGBA(img *image.RGBA) *image.NRGBA {
	out := image.NewNRGBA(img.Bounds())
	for i := 0; i < len(img.Pix); i += 4 {
		c := color.NRGBAModel.Convert(color.RGBA{img.Pix[i], img.Pix[i+1], img.Pix[i+2], img.Pix[i+3]}).(color.NRGBA)
		out.Pix[i], out.Pix[i+1], out.Pix[i+2], out.Pix[i+3] = c.R, c.G, c.B, c.A
	}
	return out
}
