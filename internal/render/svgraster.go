package render

import (
	"bytes"
	"errors"
	"fmt"
	"image"
	"image/color"
	"time"

	"github.com/srwiley/oksvg"
	"github.com/srwiley/rasterx"
	"golang.org/x/image/math/fixed"
	"golang.org/x/image/vector"
)

// Rasterising an SVG costs what its drawn outlines cost, not what its file weighs: a tiny file
// of one dashed line with a very short dash, or one of a few hundred small squares, kept
// rasterx drawing for many seconds (rasterx's scanner paints the whole image for every
// shape). Neither oksvg nor rasterx can be told to stop, so the work is counted where every
// outline ends up, in the scanner (svgScanner), in steps of roughly equal time, sized so that
// svgWorkBudget is about a second of one core (the calibration is in docs/benchmarks.md):
//
//   - every point of an outline (dashes, stroke joins and flattened curves included) costs
//     svgPointSteps, and every line svgLineSteps a pixel it crosses, across and down;
//   - every shape drawn costs svgPixelSteps a pixel of the rectangle it covers, or
//     svgGradientSteps when its paint is a gradient (rasterx computes it pixel by pixel).
//
// Drawing stops, and the SVG is refused, when the steps pass svgWorkBudget (about a second),
// when one shape has more than svgMaxPoints points (they are held until the shape is drawn), or
// when svgDeadline passes (the steps are a model; the clock is the backstop). The count does
// not depend on the machine's load, so an SVG refused at upload is refused at every render, and
// one accepted draws within the budget at every render. A full-page gradient costs about half
// the budget; a logo of a few hundred shapes, a few per cent.
const (
	svgWorkBudget     = 1_000_000_000
	svgPointSteps     = 64
	svgLineSteps      = 4
	svgPixelSteps     = 20
	svgGradientSteps  = 400
	svgMaxPoints      = 1 << 20
	svgDeadline       = 3 * time.Second
	maxSVGShapes      = 10_000
	svgScannerMaxHeld = svgMaxPoints * 12 // bytes of the points held
)

// svgAbort stops a drawing from inside the scanner; rasterizeSVG recovers it.
type svgAbort struct{ err error }

var (
	errSVGWork = errors.New("the SVG takes more work to draw than is allowed (its dashes, points and painted area): " +
		"simplify it (fewer or longer dashes, fewer points and shapes, smaller gradients) or upload it as a PNG")
	errSVGPoints = fmt.Errorf("a shape of the SVG has more than %d points once drawn (its dashes, curves and stroke outlines): "+
		"simplify it or upload the image as a PNG", svgMaxPoints)
	errSVGDeadline = fmt.Errorf("the SVG took longer than %s to draw: simplify it or upload it as a PNG", svgDeadline)
)

// readSVG parses an SVG with oksvg, turning a panic of the library into an error.
func readSVG(raw []byte) (icon *oksvg.SvgIcon, err error) {
	defer func() {
		if v := recover(); v != nil {
			icon, err = nil, errors.New("the image is not a valid SVG")
		}
	}()
	icon, err = oksvg.ReadIconStream(bytes.NewReader(raw), oksvg.IgnoreErrorMode)
	if err != nil {
		return nil, errors.New("the image is not a valid SVG")
	}
	return icon, nil
}

// rasterizeSVG draws icon into an image w x h pixels, in at most budget steps (see
// svgWorkBudget) and before deadline.
func rasterizeSVG(icon *oksvg.SvgIcon, w, h int, budget int64, deadline time.Time) (img *image.RGBA, err error) {
	img = image.NewRGBA(image.Rect(0, 0, w, h))
	s := &svgScanner{dst: img, src: image.NewUniform(color.RGBA{255, 0, 0, 255}), // ScannerGV's colour before any is set
		budget: budget, deadline: deadline}
	defer func() {
		if v := recover(); v != nil {
			img = nil
			if a, ok := v.(svgAbort); ok {
				err = a.err
			} else {
				err = errors.New("the SVG cannot be drawn: simplify it or upload it as a PNG")
			}
		}
	}()
	icon.SetTarget(0, 0, float64(w), float64(h))
	icon.Draw(rasterx.NewDasher(w, h, s), 1)
	return img, nil
}

// svgScanner is rasterx's Scanner over golang.org/x/image/vector, as rasterx's ScannerGV is, with
// two differences. It draws a shape over the rectangle the shape covers, where ScannerGV
// accumulates and composites every pixel of the image for every shape (a logo of a few hundred
// shapes took seconds). And it counts the work (see svgWorkBudget), panicking with svgAbort when
// the work or the time is up.
type svgScanner struct {
	z        vector.Rasterizer
	dst      *image.RGBA
	src      image.Image
	clip     image.Rectangle
	pts      []svgPoint
	pen      fixed.Point26_6
	extent   fixed.Rectangle26_6
	work     int64
	budget   int64
	deadline time.Time
	calls    int // of spend
}

type svgPoint struct {
	p     fixed.Point26_6
	start bool
}

// spend counts steps of work, and looks at the clock every 1024 points and before every
// shape is drawn (always, when now is set).
func (s *svgScanner) spend(steps int64, now bool) {
	s.work += steps
	if s.work > s.budget {
		panic(svgAbort{errSVGWork})
	}
	if s.calls++; (now || s.calls%1024 == 0) && time.Now().After(s.deadline) {
		panic(svgAbort{errSVGDeadline})
	}
}

func (s *svgScanner) add(p fixed.Point26_6, start bool) {
	if len(s.pts) >= svgMaxPoints {
		panic(svgAbort{errSVGPoints})
	}
	steps := int64(svgPointSteps)
	if !start {
		steps += svgLineSteps * (abs64(int64(p.X)-int64(s.pen.X)) + abs64(int64(p.Y)-int64(s.pen.Y))) >> 6
	}
	s.spend(steps, false)
	if len(s.pts) == 0 {
		s.extent = fixed.Rectangle26_6{Min: p, Max: p}
	} else {
		s.extent.Min.X, s.extent.Min.Y = min(s.extent.Min.X, p.X), min(s.extent.Min.Y, p.Y)
		s.extent.Max.X, s.extent.Max.Y = max(s.extent.Max.X, p.X), max(s.extent.Max.Y, p.Y)
	}
	s.pts = append(s.pts, svgPoint{p, start})
	s.pen = p
}

func abs64(v int64) int64 {
	if v < 0 {
		return -v
	}
	return v
}

// Start starts a new path at a.
func (s *svgScanner) Start(a fixed.Point26_6) { s.add(a, true) }

// Line adds a line to b.
func (s *svgScanner) Line(b fixed.Point26_6) { s.add(b, false) }

// Draw fills the path since the last Clear in the current colour.
func (s *svgScanner) Draw() {
	if len(s.pts) == 0 {
		return
	}
	// The rectangle of the pixels the rasteriser writes: one more column right of the
	// rightmost point, one more row below the lowest, within the image.
	b := s.dst.Bounds()
	r := image.Rect(s.extent.Min.X.Floor(), s.extent.Min.Y.Floor(), s.extent.Max.X.Floor()+2, s.extent.Max.Y.Floor()+2).Intersect(b)
	if r.Empty() {
		return
	}
	// vector computes in fixed point up to 512 pixels a side and in floating point above;
	// ScannerGV's raster, the whole image, is above (its longer side is svgRasterSide): a
	// rectangle at least 513 pixels long that way keeps its arithmetic, and its pixels but for
	// a rounding step (coverage is summed from another first pixel). Fixed point would also
	// wrap coordinates beyond 4 million pixels, which the work count does not foresee.
	const floatSide = 513
	if b.Dx() >= b.Dy() && r.Dx() < floatSide && b.Dx() >= floatSide {
		r.Min.X = max(0, min(r.Min.X, b.Max.X-floatSide))
		r.Max.X = r.Min.X + floatSide
	} else if b.Dy() > b.Dx() && r.Dy() < floatSide && b.Dy() >= floatSide {
		r.Min.Y = max(0, min(r.Min.Y, b.Max.Y-floatSide))
		r.Max.Y = r.Min.Y + floatSide
	}
	perPixel := int64(svgPixelSteps)
	if _, ok := s.src.(*image.Uniform); !ok {
		perPixel = svgGradientSteps
	}
	s.spend(int64(r.Dx())*int64(r.Dy())*perPixel, true)
	s.z.Reset(r.Dx(), r.Dy())
	ox, oy := fixed.I(r.Min.X), fixed.I(r.Min.Y)
	for _, p := range s.pts {
		x, y := float32(int64(p.p.X)-int64(ox))/64, float32(int64(p.p.Y)-int64(oy))/64
		if p.start {
			s.z.MoveTo(x, y)
		} else {
			s.z.LineTo(x, y)
		}
	}
	src := s.src
	if s.clip != (image.Rectangle{}) {
		src = &clippedImage{src, s.clip}
	}
	s.z.Draw(s.dst, r, src, r.Min)
}

// GetPathExtent returns the extent of the path since the last Clear.
func (s *svgScanner) GetPathExtent() fixed.Rectangle26_6 { return s.extent }

// SetBounds is the image's size, which the scanner takes from the image.
func (s *svgScanner) SetBounds(w, h int) {}

// SetColor sets the colour of the next Draw: a color.Color or a rasterx.ColorFunc.
func (s *svgScanner) SetColor(c interface{}) {
	switch c := c.(type) {
	case color.Color:
		s.src = image.NewUniform(c)
	case rasterx.ColorFunc:
		s.src = colorFuncImage(c)
	}
}

// SetWinding is ignored, as ScannerGV ignores it: x/image/vector fills by the non-zero rule.
func (s *svgScanner) SetWinding(useNonZeroWinding bool) {}

// Clear forgets the path.
func (s *svgScanner) Clear() {
	s.pts = s.pts[:0]
	s.extent = fixed.Rectangle26_6{}
}

// SetClip restricts drawing to rect (image.ZR: no restriction).
func (s *svgScanner) SetClip(rect image.Rectangle) { s.clip = rect }

// colorFuncImage is a rasterx.ColorFunc (a gradient) as an image.
type colorFuncImage rasterx.ColorFunc

func (f colorFuncImage) ColorModel() color.Model { return color.RGBA64Model }
func (f colorFuncImage) Bounds() image.Rectangle {
	return image.Rect(-1e9, -1e9, 1e9, 1e9)
}
func (f colorFuncImage) At(x, y int) color.Color { return f(x, y) }

// clippedImage is an image transparent outside clip.
type clippedImage struct {
	image.Image
	clip image.Rectangle
}

func (c *clippedImage) At(x, y int) color.Color {
	if !image.Pt(x, y).In(c.clip) {
		return color.Transparent
	}
	return c.Image.At(x, y)
}
