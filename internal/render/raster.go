package render

import (
	"bytes"
	"image"
	"image/color"
	"image/png"

	"golang.org/x/image/font"
	"golang.org/x/image/font/opentype"
	"golang.org/x/image/math/fixed"
)

// rasterDPI is the resolution of text runs drawn into PDFs as images: print resolution twice
// over, so that a name stays sharp when the certificate is printed or zoomed.
const rasterDPI = 600

// rasterRun draws a run as a transparent PNG for the PDF. It returns the image and where it
// sits relative to the run's start on the baseline: left and top offsets (negative: before and
// above) and its size, in millimetres. The image reaches a fifth of an em beyond the run on
// every side, so that glyphs that overhang their advance are not cut.
func rasterRun(r run, size float64, c color.RGBA) (b []byte, dx, dy, w, h float64, err error) {
	f, err := opentype.NewFace(r.face.font, &opentype.FaceOptions{Size: size, DPI: rasterDPI, Hinting: font.HintingNone})
	if err != nil {
		return nil, 0, 0, 0, 0, err
	}
	defer f.Close()
	px := func(mm float64) int { return int(mm*rasterDPI/25.4 + 0.5) }
	m := f.Metrics()
	ascent, descent := float64(m.Ascent)/64, float64(m.Descent)/64 // pixels
	margin := size * 25.4 / 72 / 5                                 // mm
	toMM := func(pixels float64) float64 { return pixels * 25.4 / rasterDPI }
	w, h = r.width+2*margin, toMM(ascent+descent)+2*margin
	img := image.NewNRGBA(image.Rect(0, 0, px(w), px(h)))
	for _, dx := range overstrike(r.face, size*25.4/72) {
		drawUnkerned(img, image.NewUniform(c), f, r.text, fixed.Point26_6{X: fixed.Int26_6((float64(px(margin + dx))) * 64), Y: fixed.Int26_6((float64(px(margin)) + ascent) * 64)})
	}
	var buf bytes.Buffer
	if err := (&png.Encoder{CompressionLevel: png.BestSpeed}).Encode(&buf, img); err != nil {
		return nil, 0, 0, 0, 0, err
	}
	return buf.Bytes(), -margin, -(toMM(ascent) + margin), w, h, nil
}
