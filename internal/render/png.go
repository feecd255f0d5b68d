package render

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"slices"
	"unicode/utf8"

	"github.com/boombuler/barcode/qr"
	"golang.org/x/image/draw"
	"golang.org/x/image/font"
	"golang.org/x/image/font/opentype"
	"golang.org/x/image/math/fixed"
)

// PreviewDPI is the resolution of PNG previews: an A4 page is 1754 x 1240 pixels.
const PreviewDPI = 150

// PNG renders the template filled with d as a PNG of the page at dpi dots per inch.
func PNG(t Template, d Data, dpi float64) ([]byte, error) {
	img, err := Image(t, d, dpi)
	if err != nil {
		return nil, err
	}
	// A page is opaque unless its background image has transparency (drawn as it is): then
	// image/png keeps the alpha; else one filter for every row, as the share card's, costs a
	// fraction of image/png's five tried on each row of the 2 megapixels of an A4 preview.
	if img.Opaque() {
		return encodeOpaquePNG(img)
	}
	var buf bytes.Buffer
	enc := png.Encoder{CompressionLevel: png.BestSpeed}
	if err := enc.Encode(&buf, img); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// Image renders the template filled with d into pixels at dpi dots per inch.
func Image(t Template, d Data, dpi float64) (*image.RGBA, error) {
	p, err := t.plan(&d)
	if err != nil {
		return nil, err
	}
	px := func(mm float64) float64 { return mm * dpi / 25.4 }
	img := image.NewRGBA(image.Rect(0, 0, int(px(t.Page.Width)+0.5), int(px(t.Page.Height)+0.5)))
	if p.background != nil {
		bg, err := backgroundImage(p, dpi)
		if err != nil {
			return nil, err
		}
		draw.Draw(img, img.Bounds(), bg, image.Point{}, draw.Src)
	} else {
		draw.Draw(img, img.Bounds(), image.White, image.Point{}, draw.Src)
	}
	faces := newTextFaces(dpi)
	defer faces.close()
	for _, r := range p.rows {
		for _, c := range r.cols {
			for _, it := range c.items {
				switch it := it.(type) {
				case textLine:
					if err := faces.draw(img, it.runs, it.size, it.color, px(c.x+it.x(c.width)), px(r.y+it.baseline)); err != nil {
						return nil, err
					}
				case imageItem:
					dst := image.Rect(int(px(c.x+it.x)), int(px(r.y+it.y)), int(px(c.x+it.x+it.w)), int(px(r.y+it.y+it.h)))
					if it.asset.img != nil { // a seal, drawn at about this size
						draw.CatmullRom.Scale(img, dst, it.asset.img, it.asset.img.Bounds(), draw.Over, nil)
						continue
					}
					if dst.Empty() {
						continue
					}
					small, err := it.asset.scaled(dst.Dx(), dst.Dy())
					if err != nil {
						return nil, err
					}
					draw.Draw(img, dst, small, image.Point{}, draw.Over)
				case qrItem:
					if err := drawQR(img, it.value, px(c.x+it.x), px(r.y+it.y), px(it.side)); err != nil {
						return nil, err
					}
				case lineItem:
					w := c.width * it.widthPercent / 100
					x0 := c.x + (c.width-w)/2
					y := r.y + it.y
					fillRect(img, px(x0), px(y-it.thickness/2), px(x0+w), px(y+it.thickness/2), it.color)
				}
			}
		}
	}
	return img, nil
}

// drawUnkerned draws text glyph by glyph, each moved on by its own advance width and never
// kerned, as the PDF library sets text: the PNG places every glyph where the PDF does (a kerned
// "T-" pulled the hyphen under the T).
func drawUnkerned(dst draw.Image, src image.Image, f font.Face, text string, dot fixed.Point26_6) {
	d := font.Drawer{Dst: dst, Src: src, Face: f, Dot: dot}
	var buf [utf8.UTFMax]byte
	for _, r := range text {
		d.DrawBytes(buf[:utf8.EncodeRune(buf[:], r)])
	}
}

type faceKey struct {
	f    *face
	size float64
}

// textFaces are the faces one drawing sets text in, each opened once per size.
type textFaces struct {
	dpi float64
	m   map[faceKey]font.Face
}

func newTextFaces(dpi float64) *textFaces {
	return &textFaces{dpi: dpi, m: map[faceKey]font.Face{}}
}

func (t *textFaces) close() {
	for _, f := range t.m {
		_ = f.Close()
	}
}

// draw draws a line's runs, set at size points, starting x pixels from the left edge with its
// baseline y pixels from the top (the runs' offsets are in millimetres).
func (t *textFaces) draw(img draw.Image, runs []run, size float64, c color.RGBA, x, y float64) error {
	for _, r := range runs {
		k := faceKey{r.face, size}
		f := t.m[k]
		if f == nil {
			var err error
			if f, err = opentype.NewFace(r.face.font, &opentype.FaceOptions{Size: size, DPI: t.dpi, Hinting: font.HintingNone}); err != nil {
				return err
			}
			t.m[k] = f
		}
		for _, dx := range overstrike(r.face, size*25.4/72) {
			drawUnkerned(img, image.NewUniform(c), f, r.text,
				fixed.Point26_6{X: fixed.Int26_6((x + (r.offset+dx)*t.dpi/25.4) * 64), Y: fixed.Int26_6(y * 64)})
		}
	}
	return nil
}

func drawQR(img *image.RGBA, value string, x, y, side float64) error {
	code, err := qr.Encode(value, qr.M, qr.Auto)
	if err != nil {
		return fmt.Errorf("render: qr: %w", err)
	}
	// Whole pixels per module keep the modules even, so that scanners read the code.
	n := code.Bounds().Dx()
	module := max(1, int(side)/n)
	x0 := int(x + (side-float64(module*n))/2)
	y0 := int(y + (side-float64(module*n))/2)
	fillRect(img, x, y, x+side, y+side, color.RGBA{255, 255, 255, 255})
	black := image.NewUniform(color.Black)
	for j := range n {
		for i := range n {
			if r, _, _, _ := code.At(i, j).RGBA(); r == 0 {
				draw.Draw(img, image.Rect(x0+i*module, y0+j*module, x0+(i+1)*module, y0+(j+1)*module), black, image.Point{}, draw.Src)
			}
		}
	}
	return nil
}

func fillRect(img *image.RGBA, x0, y0, x1, y1 float64, c color.RGBA) {
	r := image.Rect(int(x0+0.5), int(y0+0.5), int(x1+0.5), int(y1+0.5))
	if r.Dx() == 0 && x1 > x0 {
		r.Max.X++
	}
	if r.Dy() == 0 && y1 > y0 {
		r.Max.Y++
	}
	draw.Draw(img, r, image.NewUniform(c), image.Point{}, draw.Over)
}

var (
	backgrounds    = newMemo[string](backgroundsBudget, func(img *image.RGBA) int64 { return int64(len(img.Pix)) })
	backgroundPNGs = newMemo[string](backgroundPNGsBudget, bytesLen)
)

// backgroundImage draws the page's background colour, image and border, cached: a template's
// background is the same on every certificate.
func backgroundImage(p *plan, dpi float64) (*image.RGBA, error) {
	key := fmt.Sprintf("%s|%g", p.background.key, dpi)
	if img, ok := backgrounds.get(key); ok {
		return img, nil
	}
	img, err := drawBackground(p, dpi)
	if err != nil {
		return nil, err
	}
	backgrounds.put(key, img)
	return img, nil
}

// drawBackground draws the page's background colour, image, pattern, bands and border.
func drawBackground(p *plan, dpi float64) (*image.RGBA, error) {
	px := func(mm float64) float64 { return mm * dpi / 25.4 }
	img := image.NewRGBA(image.Rect(0, 0, int(px(p.page.Width)+0.5), int(px(p.page.Height)+0.5)))
	bg := p.background
	draw.Draw(img, img.Bounds(), image.NewUniform(bg.color), image.Point{}, draw.Src)
	if bg.image != nil {
		pix, err := bg.image.pixels()
		if err != nil {
			return nil, err
		}
		draw.CatmullRom.Scale(img, img.Bounds(), pix, pix.Bounds(), draw.Over, nil)
	}
	if bg.pattern != nil {
		guillochePattern(img, p.page, dpi, bg.patternColor)
	}
	for _, b := range bg.bands {
		x0, y0, x1, y1 := 0.0, 0.0, p.page.Width, p.page.Height
		switch b.edge {
		case "top":
			y0, y1 = b.offset, b.offset+b.size
		case "bottom":
			y0, y1 = p.page.Height-b.offset-b.size, p.page.Height-b.offset
		case "left":
			x0, x1 = b.offset, b.offset+b.size
		case "right":
			x0, x1 = p.page.Width-b.offset-b.size, p.page.Width-b.offset
		}
		fillRect(img, px(x0), px(y0), px(x1), px(y1), b.color)
	}
	if b := bg.border; b != nil && b.Style == "guilloche" {
		w := b.Width
		if w <= 0 {
			w = 1.2
		}
		guillocheBorder(img, p.page, dpi, 7, 4+2*w, bg.bcolor)
	} else if b != nil {
		w := b.Width
		if w <= 0 {
			w = 1.2
		}
		frame := func(inset, width float64) {
			x0, y0, x1, y1 := px(inset), px(inset), px(p.page.Width-inset), px(p.page.Height-inset)
			t := px(width)
			fillRect(img, x0, y0, x1, y0+t, bg.bcolor)
			fillRect(img, x0, y1-t, x1, y1, bg.bcolor)
			fillRect(img, x0, y0, x0+t, y1, bg.bcolor)
			fillRect(img, x1-t, y0, x1, y1, bg.bcolor)
		}
		const outer = 7.0
		frame(outer, w)
		if b.Style == "double" || b.Style == "ornate" {
			frame(outer+w+1.5, max(0.35, w/3))
		}
		if b.Style == "ornate" {
			// A square at each corner, straddling both frames.
			s := w + 5
			for _, c := range [][2]float64{{outer - 1.5, outer - 1.5}, {p.page.Width - outer + 1.5 - s, outer - 1.5},
				{outer - 1.5, p.page.Height - outer + 1.5 - s}, {p.page.Width - outer + 1.5 - s, p.page.Height - outer + 1.5 - s}} {
				fillRect(img, px(c[0]), px(c[1]), px(c[0]+s), px(c[1]+s), bg.bcolor)
				fillRect(img, px(c[0]+1.2), px(c[1]+1.2), px(c[0]+s-1.2), px(c[1]+s-1.2), bg.color)
				fillRect(img, px(c[0]+2.2), px(c[1]+2.2), px(c[0]+s-2.2), px(c[1]+s-2.2), bg.bcolor)
			}
		}
	}
	return img, nil
}

// backgroundPNG is backgroundImage encoded for the PDF, cached likewise.
func backgroundPNG(p *plan, dpi float64) ([]byte, error) {
	key := fmt.Sprintf("%s|%g", p.background.key, dpi)
	if b, ok := backgroundPNGs.get(key); ok {
		return b, nil
	}
	// Drawn afresh rather than through backgroundImage's cache: at print resolution the
	// pixels are tens of megabytes, and only the encoded PNG is needed again.
	img, err := drawBackground(p, dpi)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	// A background is a few inks blended into the paper: as a paletted PNG it takes far fewer
	// bytes than an RGB one, in every PDF.
	enc := png.Encoder{CompressionLevel: png.DefaultCompression}
	if err := enc.Encode(&buf, paletted(img)); err != nil {
		return nil, err
	}
	backgroundPNGs.put(key, buf.Bytes())
	return buf.Bytes(), nil
}

func backgroundKey(page Page, bg *Background) string {
	border := Border{}
	if bg.Border != nil {
		border = *bg.Border
	}
	pattern := Pattern{}
	if bg.Pattern != nil {
		pattern = *bg.Pattern
	}
	return fmt.Sprintf("%gx%g|%s|%x|%+v|%+v|%+v", page.Width, page.Height, bg.Color, sha256.Sum256([]byte(bg.Image)), border, pattern, bg.Bands)
}

// Paletted returns img with at most 256 colours, for pictures kept small (the documentation's
// previews); see paletted.
func Paletted(img *image.RGBA) image.Image { return paletted(img) }

// paletted returns img with at most 256 colours: its most frequent ones, every other pixel
// taking the nearest of them. Backgrounds hold few distinct colours (flat paper and bands, and
// the shades of antialiased lines between an ink and the paper), so the nearest is close.
func paletted(img *image.RGBA) image.Image {
	// Most pixels repeat the one before (paper, bands): the run is counted before the map is
	// touched, which is most of the time this takes on a page of nine million pixels.
	counts := map[uint32]int{}
	pix := img.Pix
	rgb := func(i int) uint32 { return uint32(pix[i])<<16 | uint32(pix[i+1])<<8 | uint32(pix[i+2]) }
	for i := 0; i < len(pix); {
		c, n := rgb(i), 1
		for i += 4; i < len(pix) && rgb(i) == c; i += 4 {
			n++
		}
		counts[c] += n
	}
	colours := make([]uint32, 0, len(counts))
	for c := range counts {
		colours = append(colours, c)
	}
	slices.SortFunc(colours, func(a, b uint32) int {
		if counts[a] != counts[b] {
			return counts[b] - counts[a]
		}
		return int(a) - int(b)
	})
	pal := make(color.Palette, 0, 256)
	index := map[uint32]uint8{}
	for _, c := range colours[:min(256, len(colours))] {
		index[c] = uint8(len(pal))
		pal = append(pal, color.RGBA{uint8(c >> 16), uint8(c >> 8), uint8(c), 255})
	}
	out := image.NewPaletted(img.Bounds(), pal)
	last, lastK := uint32(1<<24), uint8(0) // no colour: the first pixel looks itself up
	for i, j := 0, 0; i < len(pix); i, j = i+4, j+1 {
		c := rgb(i)
		if c != last {
			k, ok := index[c]
			if !ok {
				k = uint8(pal.Index(color.RGBA{pix[i], pix[i+1], pix[i+2], 255}))
				index[c] = k
			}
			last, lastK = c, k
		}
		out.Pix[j] = lastK
	}
	return out
}
