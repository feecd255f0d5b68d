package render

import (
	"bytes"
	"errors"
	"image"
	"image/color"
	"math"
	"strings"

	"golang.org/x/image/draw"
)

// A share card is the picture a social network shows for a link to a credential (og:image):
// 1200 x 630 pixels, the shape every network crops to. A certificate's page is portrait or
// landscape and a badge is square, so none of them can be the card itself without being cut;
// the card sets the picture whole on the issuer's colour, beside the credential's name and the
// issuer's.

// Share card size in pixels: the 1.91:1 of Open Graph images.
const (
	ShareCardWidth  = 1200
	ShareCardHeight = 630
)

// ShareCardInput is what a share card shows.
type ShareCardInput struct {
	// Picture is the credential's picture: a certificate's page (ShareCardPicture draws it at
	// the size the card shows it, the fastest and sharpest) or a badge's image. PicturePNG is
	// the same as PNG (or JPEG) bytes, such as a served preview or a badge's image, read when
	// Picture is nil, within the renderer's limits on decoding: decoding and scaling a page
	// preview costs about as much as the rest of the card. A card without a picture shows its
	// texts alone.
	Picture    image.Image
	PicturePNG []byte
	// Label is a short line over the name, such as "Certificate" or "Badge"; optional.
	Label string
	// Name is the credential's name (the event's or the badge's).
	Name string
	// Issuer is the issuer's name.
	Issuer string
	// BrandColor is the issuer's colour, #RRGGBB, behind everything; a dark neutral when empty
	// or malformed.
	BrandColor string
}

// shareCardNeutral is the card's ground when the issuer has no colour.
var shareCardNeutral = color.RGBA{0x1F, 0x29, 0x37, 255}

// What a card's texts may hold: a longer text is cut before it is fitted (it would end in an
// ellipsis anyway), which keeps the time a card takes bounded whatever it is given.
const (
	maxCardName   = 240 // characters
	maxCardIssuer = 120
	maxCardLabel  = 40
)

// The card's layout, in pixels.
const (
	cardMargin      = 60   // around everything
	cardGutter      = 56   // between the picture and the texts
	cardMaxPicture  = 620  // the widest a picture is drawn (a landscape page)
	cardNameMax     = 64   // the name's size, shrunk down to cardNameMin to fit
	cardNameMin     = 34   //
	cardNameLines   = 4    // the most lines the name takes
	cardNameLead    = 1.16 // the name's line height, in ems
	cardIssuerMax   = 34   // the issuer's size, shrunk down to cardIssuerMin
	cardIssuerMin   = 24   //
	cardIssuerLines = 2    //
	cardIssuerLead  = 1.3  // the line height of the issuer and the label, in ems
	cardLabelSize   = 22   //
	cardRuleWidth   = 56   // the short rule between the name and the issuer
	cardRuleHeight  = 4    //
	cardShadow      = 18   // the spread of the shadow under the picture
)

// ShareCardPicture draws a certificate's page at the size a share card shows it, to pass as
// ShareCardInput.Picture.
func ShareCardPicture(t Template, d Data) (*image.RGBA, error) {
	box := pictureBox(t.Page.Width / t.Page.Height)
	return Image(t, d, float64(box.Dx())/(t.Page.Width/25.4))
}

// ShareCard draws the share card of a credential as a PNG of ShareCardWidth x
// ShareCardHeight pixels. It keeps nothing: the caller caches the card with the picture it
// was drawn from.
func ShareCard(in ShareCardInput) ([]byte, error) {
	img, err := shareCardImage(in)
	if err != nil {
		return nil, err
	}
	return encodeOpaquePNG(img)
}

func shareCardImage(in ShareCardInput) (*image.RGBA, error) {
	fams, err := loadFonts()
	if err != nil {
		return nil, err
	}
	pic := in.Picture
	if pic == nil && len(in.PicturePNG) > 0 {
		if pic, err = decodeCardPicture(in.PicturePNG); err != nil {
			return nil, err
		}
	}
	ground := parseColor(in.BrandColor, shareCardNeutral)
	ink, soft := cardInks(ground)
	img := image.NewRGBA(image.Rect(0, 0, ShareCardWidth, ShareCardHeight))
	paintGround(img, ground)

	textLeft := float64(cardMargin)
	if pic != nil && !pic.Bounds().Empty() {
		b := pic.Bounds()
		box := pictureBox(float64(b.Dx()) / float64(b.Dy()))
		if abs(b.Dx()-box.Dx()) <= 1 && abs(b.Dy()-box.Dy()) <= 1 {
			box.Max = box.Min.Add(b.Size()) // drawn for the card (ShareCardPicture): as it is
		}
		// A page is a sheet: it lies on the colour with a soft shadow under it. A badge is a
		// shape on a transparent ground, most often in the issuer's colour (a generated one
		// always is): the shadow follows its outline, which keeps its edge from melting into
		// a ground of the same colour.
		if cutOut(pic) {
			shape := image.NewRGBA(image.Rectangle{Max: box.Size()})
			scaleInto(shape, shape.Rect, pic)
			shapeShadow(img, shape, box.Min.Add(image.Pt(0, 6)), cardShadow, 0.5)
			draw.Draw(img, box, shape, image.Point{}, draw.Over)
		} else {
			dropShadow(img, box.Add(image.Pt(0, 6)), cardShadow, 0.45)
			scaleInto(img, box, pic)
		}
		textLeft = float64(box.Max.X + cardGutter)
	}
	width := ShareCardWidth - cardMargin - textLeft

	// The texts, fitted to the column, then set as one block centred in the height.
	type block struct {
		fb         *fallback // nil for the rule
		lines      []string
		size, lead float64 // px; lead is the line height
		before     float64 // px of space above
		color      color.RGBA
	}
	var blocks []block
	if label := strings.ToUpper(cardText(in.Label, maxCardLabel)); label != "" {
		fb := newFallback(fams, "modern", bold, label)
		blocks = append(blocks, block{fb: fb, lines: []string{cutAtWord(label, fb, cardLabelSize, width)}, size: cardLabelSize,
			lead: cardLabelSize * cardIssuerLead, color: soft})
	}
	if name := cardText(in.Name, maxCardName); name != "" {
		fb := newFallback(fams, "modern", bold, name)
		size, lines := fitCardText(fb, name, width, cardNameMax, cardNameMin, cardNameLead, cardNameLines)
		blocks = append(blocks, block{fb: fb, lines: lines, size: size, lead: size * cardNameLead, before: 14, color: ink})
	}
	if issuer := cardText(in.Issuer, maxCardIssuer); issuer != "" {
		blocks = append(blocks, block{size: cardRuleHeight, lead: cardRuleHeight, before: 30, color: soft})
		fb := newFallback(fams, "modern", regular, issuer)
		size, lines := fitCardText(fb, issuer, width, cardIssuerMax, cardIssuerMin, cardIssuerLead, cardIssuerLines)
		blocks = append(blocks, block{fb: fb, lines: lines, size: size, lead: size * cardIssuerLead, before: 26, color: soft})
	}
	if len(blocks) > 0 {
		blocks[0].before = 0
	}
	height := 0.0
	for _, b := range blocks {
		height += b.before + b.lead*float64(max(1, len(b.lines)))
	}
	faces := newTextFaces(72) // sizes are in pixels: a point is a pixel at 72 dpi
	defer faces.close()
	y := (ShareCardHeight - height) / 2
	for _, b := range blocks {
		y += b.before
		if b.fb == nil {
			fillRect(img, textLeft, y, textLeft+cardRuleWidth, y+b.size, b.color)
			y += b.lead
			continue
		}
		for _, line := range b.lines {
			runs, _ := b.fb.runs(line, b.size)
			// The baseline sits where the line box puts an em box's bottom, less the descent.
			baseline := y + (b.lead-b.size)/2 + b.size*0.8
			if err := faces.draw(img, runs, b.size, b.color, textLeft, baseline); err != nil {
				return nil, err
			}
			y += b.lead
		}
	}
	return img, nil
}

// cardText is s on one line (each run of white space, line breaks included, made one space),
// cut to at most n characters.
func cardText(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		s = strings.TrimSpace(string(r[:n])) + "…"
	}
	return s
}

// fitCardText returns the size (pixels, from hi down to lo) and the lines of s, set with lines
// lead times their size apart, in a column width wide: the largest size at which it takes at
// most maxLines lines and no more height than about two lines at hi (a short name reads better
// a little smaller in two lines than large in three). Lines break between words; text without
// spaces (CJK) breaks between any characters. At lo, what does not fit is cut with an ellipsis.
func fitCardText(fb *fallback, s string, width, hi, lo, lead float64, maxLines int) (float64, []string) {
	spaced := strings.Contains(s, " ")
	height := 2.3 * hi * lead
	for size := hi; size >= lo; size -= 2 {
		m := func(t string) float64 { return fb.measure(t, size) * 72 / 25.4 }
		lines := balanced(s, width, m)
		fits := len(lines) <= maxLines && float64(len(lines))*size*lead <= height
		if fits && (!spaced || strings.Join(lines, " ") == s) {
			return size, lines
		}
	}
	m := func(t string) float64 { return fb.measure(t, lo) * 72 / 25.4 }
	lines := wrap(s, width, m)
	if len(lines) > maxLines {
		rest := strings.Join(lines[maxLines-1:], " ")
		lines = append(lines[:maxLines-1], cutAtWord(rest, fb, lo, width))
	}
	return lo, lines
}

// cutAtWord cuts s to fit width pixels at size with an ellipsis after its last whole word that
// fits, or, for a single word (or text without spaces), after its last character that fits.
func cutAtWord(s string, fb *fallback, size, width float64) string {
	if fb.measure(s, size)*72/25.4 <= width {
		return s
	}
	words := strings.Fields(s)
	for n := len(words) - 1; n >= 1; n-- {
		cut := strings.TrimRight(strings.Join(words[:n], " "), ",;:·-–—") + "…"
		if fb.measure(cut, size)*72/25.4 <= width {
			return cut
		}
	}
	return ellipsize(s, fb, size, width)
}

// pictureBox is where a picture aspect times as wide as it is tall is drawn: as tall as the
// card allows (a portrait page, a badge) or as wide (a landscape page), centred in the height.
func pictureBox(aspect float64) image.Rectangle {
	h := float64(ShareCardHeight - 2*cardMargin)
	w := min(h*aspect, cardMaxPicture)
	h = w / aspect
	x0, y0 := cardMargin, int(math.Round((ShareCardHeight-h)/2))
	return image.Rect(x0, y0, x0+int(math.Round(w)), y0+int(math.Round(h)))
}

func abs(v int) int { return max(v, -v) }

// decodeCardPicture decodes a picture within the renderer's limits on decoding (its pixels, the
// memory decodes hold at once).
func decodeCardPicture(raw []byte) (image.Image, error) {
	cfg, _, err := image.DecodeConfig(bytes.NewReader(raw))
	if err != nil {
		return nil, errors.New("render: share card: the picture is not a PNG or JPEG image")
	}
	need, err := decodeCost(cfg)
	if err != nil {
		return nil, err
	}
	defer holdDecodeMemory(need)()
	img, _, err := image.Decode(bytes.NewReader(raw))
	if err != nil {
		return nil, errors.New("render: share card: the picture is not a PNG or JPEG image")
	}
	return img, nil
}

// cutOut says whether a picture is a shape on a transparent ground (a badge): any of its
// corners is transparent.
func cutOut(img image.Image) bool {
	b := img.Bounds()
	for _, p := range []image.Point{b.Min, {b.Max.X - 1, b.Min.Y}, {b.Min.X, b.Max.Y - 1}, {b.Max.X - 1, b.Max.Y - 1}} {
		if _, _, _, a := img.At(p.X, p.Y).RGBA(); a < 0xF000 {
			return true
		}
	}
	return false
}

// scaleInto draws src scaled into box: as it is when it has the box's size (ShareCardPicture);
// else halved by averaging while it is twice the box's size or more (cheap, and what a good
// filter would do there), then interpolated bilinearly from the four nearest pixels, which
// within a factor of two misses no pixel. Over a page preview at 150 dpi, a Catmull-Rom
// filter and a true bilinear one cost more, for no difference seen at this size.
func scaleInto(dst *image.RGBA, box image.Rectangle, src image.Image) {
	b := src.Bounds()
	if b.Size() == box.Size() {
		draw.Draw(dst, box, src, b.Min, draw.Over)
		return
	}
	for src.Bounds().Dx() >= 2*box.Dx() && src.Bounds().Dy() >= 2*box.Dy() {
		src = halve(src)
	}
	draw.ApproxBiLinear.Scale(dst, box, src, src.Bounds(), draw.Over, nil)
}

// halve returns img at half its size, each pixel the average of four, premultiplied. Pictures
// come decoded as RGBA (an opaque PNG: a page preview) or NRGBA (a PNG with transparency: a
// badge), read in place; any other kind is converted first.
func halve(img image.Image) *image.RGBA {
	b := img.Bounds()
	var pix []uint8
	var stride int
	premultiply := false
	switch src := img.(type) {
	case *image.RGBA:
		pix, stride = src.Pix[src.PixOffset(b.Min.X, b.Min.Y):], src.Stride
	case *image.NRGBA:
		pix, stride, premultiply = src.Pix[src.PixOffset(b.Min.X, b.Min.Y):], src.Stride, true
	default:
		rgba := image.NewRGBA(image.Rect(0, 0, b.Dx(), b.Dy()))
		draw.Draw(rgba, rgba.Bounds(), img, b.Min, draw.Src)
		pix, stride = rgba.Pix, rgba.Stride
	}
	w, h := b.Dx()/2, b.Dy()/2
	out := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		r0, r1 := pix[2*y*stride:], pix[(2*y+1)*stride:]
		o := out.Pix[y*out.Stride:]
		for x := range w {
			var sum [4]uint32
			for _, p := range [4][]uint8{r0[8*x:], r0[8*x+4:], r1[8*x:], r1[8*x+4:]} {
				a := uint32(p[3])
				if premultiply {
					sum[0] += (uint32(p[0])*a + 127) / 255
					sum[1] += (uint32(p[1])*a + 127) / 255
					sum[2] += (uint32(p[2])*a + 127) / 255
				} else {
					sum[0], sum[1], sum[2] = sum[0]+uint32(p[0]), sum[1]+uint32(p[1]), sum[2]+uint32(p[2])
				}
				sum[3] += a
			}
			for c := range 4 {
				o[4*x+c] = uint8((sum[c] + 2) / 4)
			}
		}
	}
	return out
}

// groundShade is how much darker the card's ground grows towards its far corner.
const groundShade = 0.28

// paintGround fills the card with c, shading to a little darker towards the bottom right, so
// that a flat colour looks like a surface and not a gap. The shade is the sum of a part that
// grows across and one that grows down, added in 8.8 fixed point.
func paintGround(img *image.RGBA, c color.RGBA) {
	far := mixRGBA(c, color.RGBA{0, 0, 0, 255}, groundShade)
	w, h := img.Rect.Dx(), img.Rect.Dy()
	base := [3]int32{int32(c.R) << 8, int32(c.G) << 8, int32(c.B) << 8}
	span := [3]int32{int32(far.R) - int32(c.R), int32(far.G) - int32(c.G), int32(far.B) - int32(c.B)}
	across := make([]int32, 3*w)
	for x := range w {
		for k := range 3 {
			across[3*x+k] = int32(float64(span[k]) * 256 * 0.6 * float64(x) / float64(w))
		}
	}
	for y := range h {
		var start [3]int32
		for k := range 3 {
			start[k] = base[k] + int32(float64(span[k])*256*0.4*float64(y)/float64(h)) + 128
		}
		row := img.Pix[y*img.Stride : y*img.Stride+4*w]
		for x := range w {
			p := row[4*x : 4*x+4]
			p[0] = uint8((start[0] + across[3*x]) >> 8)
			p[1] = uint8((start[1] + across[3*x+1]) >> 8)
			p[2] = uint8((start[2] + across[3*x+2]) >> 8)
			p[3] = 255
		}
	}
}

// dropShadow darkens the ground around r, strongest at its edge (opacity) and fading out over
// spread pixels. Only the ring around r is touched: the picture covers the rest.
func dropShadow(img *image.RGBA, r image.Rectangle, spread int, opacity float64) {
	outer := r.Inset(-spread).Intersect(img.Rect)
	for y := outer.Min.Y; y < outer.Max.Y; y++ {
		for x := outer.Min.X; x < outer.Max.X; x++ {
			dx := max(r.Min.X-x, 0, x-(r.Max.X-1))
			dy := max(r.Min.Y-y, 0, y-(r.Max.Y-1))
			if dx == 0 && dy == 0 {
				x = max(x, r.Max.X-1) // inside: skip to the right edge
				continue
			}
			d := math.Hypot(float64(dx), float64(dy)) / float64(spread)
			if d >= 1 {
				continue
			}
			k := 1 - opacity*(1-d)*(1-d)
			p := img.Pix[img.PixOffset(x, y):]
			p[0], p[1], p[2] = uint8(float64(p[0])*k), uint8(float64(p[1])*k), uint8(float64(p[2])*k)
		}
	}
}

// shapeShadow darkens the ground under shape, placed at at, by its blurred outline: opacity
// where the shape is opaque and far from its edge, fading out over about spread pixels
// around it. The outline is blurred by three box blurs across and down, a close and cheap
// stand-in for a Gaussian.
func shapeShadow(img *image.RGBA, shape *image.RGBA, at image.Point, spread int, opacity float64) {
	w, h := shape.Rect.Dx()+2*spread, shape.Rect.Dy()+2*spread
	mask := make([]int32, w*h)
	for y := range shape.Rect.Dy() {
		for x := range shape.Rect.Dx() {
			mask[(y+spread)*w+x+spread] = int32(shape.Pix[shape.PixOffset(x, y)+3])
		}
	}
	line := make([]int32, max(w, h))
	radius := max(1, spread/3)
	for range 3 {
		for y := range h {
			boxBlur(mask[y*w:(y+1)*w], 1, line[:w], radius)
		}
		for x := range w {
			boxBlur(mask[x:], w, line[:h], radius)
		}
	}
	origin := at.Sub(image.Pt(spread, spread))
	for y := range h {
		for x := range w {
			a := mask[y*w+x]
			p := image.Pt(origin.X+x, origin.Y+y)
			if a <= 0 || !p.In(img.Rect) {
				continue
			}
			k := 1 - opacity*float64(a)/255
			px := img.Pix[img.PixOffset(p.X, p.Y):]
			px[0], px[1], px[2] = uint8(float64(px[0])*k), uint8(float64(px[1])*k), uint8(float64(px[2])*k)
		}
	}
}

// boxBlur replaces each of the len(tmp) values of v, stride apart, by the mean of the values
// within radius of it (the values past the ends count as zero), with a running sum.
func boxBlur(v []int32, stride int, tmp []int32, radius int) {
	n := len(tmp)
	for i := range n {
		tmp[i] = v[i*stride]
	}
	var sum int32
	for i := range min(radius, n) {
		sum += tmp[i]
	}
	span := int32(2*radius + 1)
	for i := range n {
		if j := i + radius; j < n {
			sum += tmp[j]
		}
		if j := i - radius - 1; j >= 0 {
			sum -= tmp[j]
		}
		v[i*stride] = sum / span
	}
}

// cardInks returns the colours of text on ground: the name's (white or near black, whichever
// stands out more) and a softer one for the label and the issuer.
func cardInks(ground color.RGBA) (ink, soft color.RGBA) {
	white, black := color.RGBA{255, 255, 255, 255}, color.RGBA{0x11, 0x18, 0x27, 255}
	ink = white
	if contrast(ground, black) > contrast(ground, white) {
		ink = black
	}
	// The rest is a little quieter, as far as it keeps a contrast of 4.5 (WCAG's for body text).
	for t := 0.22; t > 0; t -= 0.02 {
		if soft = mixRGBA(ink, ground, t); contrast(ground, soft) >= 4.5 {
			return ink, soft
		}
	}
	return ink, ink
}

// contrast is the WCAG contrast ratio of two colours.
func contrast(a, b color.RGBA) float64 {
	la, lb := luminance(a), luminance(b)
	return (max(la, lb) + 0.05) / (min(la, lb) + 0.05)
}

func luminance(c color.RGBA) float64 {
	ch := func(v uint8) float64 {
		s := float64(v) / 255
		if s <= 0.04045 {
			return s / 12.92
		}
		return math.Pow((s+0.055)/1.055, 2.4)
	}
	return 0.2126*ch(c.R) + 0.7152*ch(c.G) + 0.0722*ch(c.B)
}
