package render

import (
	"fmt"
	"image/color"
	"slices"
	"strconv"
	"strings"
)

// The plan places everything in millimetres, relative to its cell; the PDF and the PNG
// backends draw the same plan.

const (
	padding        = 2.0  // mm between a cell's edge and its content
	lineSpacing    = 1.25 // line height as a multiple of the font size
	maxQRSide      = 40.0 // mm
	signatureBlock = 12.0 // mm under a signature: line, name and title
)

type plan struct {
	page        Page
	locale      string
	marginUnits int
	background  *plannedBackground
	rows        []plannedRow
	faces       map[*face]bool // every face a text uses
}

type plannedBackground struct {
	key          string
	color        color.RGBA
	image        *asset
	pattern      *Pattern
	patternColor color.RGBA
	bands        []plannedBand
	border       *Border
	bcolor       color.RGBA
}

type plannedBand struct {
	edge         string
	size, offset float64
	color        color.RGBA
}

// fineLines says whether the background has line work that needs print resolution.
func (b *plannedBackground) fineLines() bool {
	return b.pattern != nil || (b.border != nil && b.border.Style == "guilloche")
}

type plannedRow struct {
	y, height float64 // mm from the page's top edge
	cols      []plannedCol
}

type plannedCol struct {
	x, width float64 // mm from the page's left edge
	units    int     // grid units
	items    []any   // textLine, imageItem, qrItem, lineItem
}

type textLine struct {
	runs     []run
	size     float64 // pt
	color    color.RGBA
	align    string
	baseline float64 // mm below the cell's top
	width    float64 // mm, measured
}

// x returns where the line starts, in mm from the left edge of a cell cellWidth wide.
func (l textLine) x(cellWidth float64) float64 {
	switch l.align {
	case "center":
		return (cellWidth - l.width) / 2
	case "right":
		return cellWidth - padding - l.width
	}
	return padding
}

type imageItem struct {
	asset      *asset
	x, y, w, h float64
}

type qrItem struct {
	value      string
	x, y, side float64
}

type lineItem struct {
	y, widthPercent, thickness float64
	color                      color.RGBA
}

func (t Template) plan(d *Data) (*plan, error) {
	fams, err := loadFonts()
	if err != nil {
		return nil, err
	}
	layout := t.Layout.withAccent(d.BrandColor)
	p := &plan{page: t.Page, locale: layout.Locale, faces: map[*face]bool{}}
	if bg := layout.Background; bg != nil {
		pb := &plannedBackground{key: backgroundKey(t.Page, bg), color: parseColor(bg.Color, color.RGBA{255, 255, 255, 255}), border: bg.Border}
		if bg.Image != "" {
			if pb.image, err = decodeDataURI(bg.Image); err != nil {
				return nil, fmt.Errorf("background image: %w", err)
			}
		}
		if bg.Border != nil {
			pb.bcolor = parseColor(bg.Border.Color, color.RGBA{0x1f, 0x2a, 0x44, 255})
		}
		if bg.Pattern != nil && bg.Pattern.Style != "" {
			pb.pattern = bg.Pattern
			pb.patternColor = parseColor(bg.Pattern.Color, pb.bcolor)
			if bg.Pattern.Color == "" && bg.Border == nil {
				pb.patternColor = color.RGBA{0x1f, 0x2a, 0x44, 255}
			}
		}
		for _, b := range bg.Bands {
			pb.bands = append(pb.bands, plannedBand{edge: b.Edge, size: b.Size, offset: b.Offset,
				color: parseColor(b.Color, color.RGBA{0x1f, 0x2a, 0x44, 255})})
		}
		p.background = pb
	}
	// Columns sit on a grid of gridUnits across the whole page (maroto's model), the side
	// margins included, so that the PDF and the PNG place them identically.
	unit := t.Page.Width / gridUnits
	p.marginUnits = int(Margin/unit + 0.5)
	content := gridUnits - 2*p.marginUnits
	y := Margin
	for _, row := range layout.Rows {
		pr := plannedRow{y: y, height: row.Height}
		twelfths, prev := 0, 0
		for _, col := range row.Cols {
			twelfths += col.Size
			cum := (content*twelfths + 6) / 12
			pc := plannedCol{x: float64(p.marginUnits+prev) * unit, width: float64(cum-prev) * unit, units: cum - prev}
			prev = cum
			if err := p.place(&pc, row.Height, col.Content, d, fams); err != nil {
				return nil, err
			}
			pr.cols = append(pr.cols, pc)
		}
		p.rows = append(p.rows, pr)
		y += row.Height
	}
	return p, nil
}

// gridUnits is the number of grid columns across the page.
const gridUnits = 1200

func (p *plan) place(pc *plannedCol, height float64, c Content, d *Data, fams map[string]*family) error {
	switch c.Type {
	case "text":
		size := c.FontSize
		if size == 0 {
			size = 12
		}
		p.text(pc, 0, height, fill(c.Text, d, p.locale), c.Font, styleOf(c.Bold, c.Italic), size,
			parseColor(c.Color, color.RGBA{0, 0, 0, 255}), alignOr(c.Align), fams)
	case "image", "logo":
		uri := c.Image
		if c.Type == "logo" {
			uri = d.IssuerLogo
		}
		if uri == "" {
			return nil
		}
		a, err := decodeDataURI(uri)
		if err != nil {
			return fmt.Errorf("%s: %w", c.Type, err)
		}
		pc.items = append(pc.items, fitImage(a, padding, padding, pc.width-2*padding, height-2*padding, alignOr(c.Align)))
	case "qr":
		side := min(pc.width, height) - 2*padding
		side = min(side, maxQRSide)
		if side <= 0 || d.VerificationURL == "" {
			return nil
		}
		x := alignX(alignOr(c.Align), pc.width, side)
		pc.items = append(pc.items, qrItem{value: d.VerificationURL, x: x, y: (height - side) / 2, side: side})
	case "signature":
		img, name, title := c.Image, fill(c.Name, d, p.locale), fill(c.Title, d, p.locale)
		if n := c.Signatory; n >= 1 && n <= len(d.Signatories) && d.Signatories[n-1].Name != "" {
			s := d.Signatories[n-1]
			img, name, title = s.Image, s.Name, s.Title
		}
		if strings.TrimSpace(name) == "" && strings.TrimSpace(title) == "" && img == "" {
			return nil // an optional signature nobody fills
		}
		imageRoom := height - signatureBlock - padding
		if img != "" && imageRoom > 2 {
			a, err := decodeDataURI(img)
			if err != nil {
				return fmt.Errorf("signature: %w", err)
			}
			pc.items = append(pc.items, fitImage(a, padding, padding, pc.width-2*padding, imageRoom, "center"))
		}
		font := c.Font
		ink := parseColor(c.Color, color.RGBA{0x22, 0x22, 0x22, 255})
		top := max(0, height-signatureBlock)
		pc.items = append(pc.items, lineItem{y: top + 1, widthPercent: 70, thickness: 0.3, color: ink})
		p.text(pc, top+1.5, 6, name, font, bold, 10.5, ink, "center", fams)
		p.text(pc, top+6.5, 5, title, font, regular, 8.5, mixRGBA(ink, color.RGBA{255, 255, 255, 255}, 0.3), "center", fams)
	case "seal":
		side := min(pc.width, height) - 2*padding
		w := side
		if c.Ribbons {
			w = side * sealSide / (sealSide + sealRibbonDrop)
		}
		if w*ornamentDPI/25.4 < 2 {
			return nil // no room to draw it (a row a little over the padding): nothing, as for a QR code
		}
		a, err := sealAsset(fill(c.Text, d, p.locale), parseColor(c.Color, color.RGBA{0xB0, 0x8D, 0x2E, 255}), c.Ribbons, w, ornamentDPI)
		if err != nil {
			return fmt.Errorf("seal: %w", err)
		}
		pc.items = append(pc.items, fitImage(a, padding, padding, pc.width-2*padding, height-2*padding, alignOr(c.Align)))
	case "spacer", "":
	default:
		return fmt.Errorf("unknown content type %q", c.Type)
	}
	return nil
}

// text sets s in the column, fitted to the box [top, top+height) and centred in it vertically.
func (p *plan) text(pc *plannedCol, top, height float64, s, preferred string, st style, size float64, col color.RGBA, align string, fams map[string]*family) {
	s = strings.TrimSpace(s)
	if s == "" {
		return
	}
	if !slices.Contains(Fonts, preferred) {
		preferred = "sans"
	}
	fb := newFallback(fams, preferred, st, s)
	size, lines := fit(s, pc.width-2*padding, height, size, fb.measure)
	sizeMM := size * 25.4 / 72
	lh := sizeMM * lineSpacing
	if len(lines) > 1 {
		lh = sizeMM * multiLineSpacing
	}
	blockTop := top + (height-float64(len(lines))*lh)/2
	for i, line := range lines {
		runs, w := fb.runs(line, size)
		for _, r := range runs {
			if !r.raster {
				p.faces[r.face] = true
			}
		}
		baseline := blockTop + float64(i)*lh + (lh-sizeMM)/2 + sizeMM*0.8
		pc.items = append(pc.items, textLine{runs: runs, size: size, color: col, align: align, baseline: baseline, width: w})
	}
}

// multiLineSpacing is the leading of text set in several lines, a little more open than one
// line's box so that large lines (a two-line name) do not crowd each other.
const multiLineSpacing = 1.32

// minFitScale is how far a text may shrink below its size to fit.
const minFitScale = 0.72

// fit chooses the size and the lines of a text in a box width wide and height tall: its own
// size on one line when it fits; else the largest smaller size, down to minFitScale of it, at
// which it fits on one line; else lines balanced in width (no last line of one short word
// where a better break exists) at the largest size, down to the same minimum, at which they
// fit in the height.
func fit(s string, width, height, size float64, measure func(string, float64) float64) (float64, []string) {
	minSize := max(size*minFitScale, 6)
	// Each paragraph on one line, at the largest size that allows it and fits the height.
	paras := strings.Split(s, "\n")
	for sz := size; sz >= minSize-1e-9; sz -= max(size/40, 0.25) {
		fits := float64(len(paras))*sz*25.4/72*lineSpacing <= height || len(paras) == 1
		for _, para := range paras {
			fits = fits && measure(para, sz) <= width
		}
		if fits {
			return sz, paras
		}
	}
	for sz := size; ; sz -= max(size/40, 0.25) {
		sz = max(sz, minSize)
		m := func(t string) float64 { return measure(t, sz) }
		lines := balanced(s, width, m)
		if float64(len(lines))*sz*25.4/72*multiLineSpacing <= height || sz <= minSize {
			return sz, lines
		}
	}
}

// balanced wraps s into as few lines as greedy wrapping needs, made as even in width as they
// can be: the narrowest width that still needs no more lines.
func balanced(s string, width float64, measure func(string) float64) []string {
	lines := wrap(s, width, measure)
	if len(lines) < 2 {
		return lines
	}
	lo := 0.0
	for _, w := range strings.Fields(s) {
		lo = max(lo, min(measure(w), width))
	}
	hi := width
	for range 16 {
		mid := (lo + hi) / 2
		if len(wrap(s, mid, measure)) <= len(lines) {
			hi = mid
		} else {
			lo = mid
		}
	}
	return wrap(s, hi, measure)
}

// wrap breaks s into lines no wider than width: at spaces, and inside words (CJK text has no
// spaces) only when a word alone is too wide. Widths add up (no kerning), so each word is
// measured once and a long word is cut in one pass: the time is linear in the text's length,
// whatever the text.
func wrap(s string, width float64, measure func(string) float64) []string {
	var lines []string
	space := measure(" ")
	for _, para := range strings.Split(s, "\n") {
		line, lineWidth := "", 0.0
		for _, word := range strings.Fields(para) {
			w := measure(word)
			if line != "" && lineWidth+space+w <= width {
				line, lineWidth = line+" "+word, lineWidth+space+w
				continue
			}
			if line != "" {
				lines = append(lines, line)
			}
			if w > width {
				pieces := breakWord(word, width, measure)
				lines = append(lines, pieces[:len(pieces)-1]...)
				word = pieces[len(pieces)-1]
				w = measure(word)
			}
			line, lineWidth = word, w
		}
		if line != "" {
			lines = append(lines, line)
		}
	}
	return lines
}

// breakWord cuts a word too wide for width into pieces that fit, each holding at least one
// character.
func breakWord(word string, width float64, measure func(string) float64) []string {
	var pieces []string
	start, used := 0, 0.0
	for i, r := range word {
		w := measure(string(r))
		if used+w > width && i > start {
			pieces = append(pieces, word[start:i])
			start, used = i, 0
		}
		used += w
	}
	return append(pieces, word[start:])
}

// fitImage scales an image into a box keeping its proportions, aligned horizontally and
// centred vertically.
func fitImage(a *asset, x, y, w, h float64, align string) imageItem {
	b := a.bounds
	ratio := float64(b.Dy()) / float64(b.Dx())
	iw, ih := w, w*ratio
	if ih > h {
		ih, iw = h, h/ratio
	}
	ix := x + (w-iw)/2
	switch align {
	case "left":
		ix = x
	case "right":
		ix = x + w - iw
	}
	return imageItem{asset: a, x: ix, y: y + (h-ih)/2, w: iw, h: ih}
}

func alignX(align string, width, inner float64) float64 {
	switch align {
	case "left":
		return padding
	case "right":
		return width - padding - inner
	}
	return (width - inner) / 2
}

func alignOr(a string) string {
	if a == "" {
		return "center"
	}
	return a
}

func parseColor(hex string, def color.RGBA) color.RGBA {
	if len(hex) != 7 || hex[0] != '#' {
		return def
	}
	v, err := strconv.ParseUint(hex[1:], 16, 32)
	if err != nil {
		return def
	}
	return color.RGBA{uint8(v >> 16), uint8(v >> 8), uint8(v), 255}
}

func mixRGBA(a, b color.RGBA, t float64) color.RGBA {
	m := mix(color.NRGBA{a.R, a.G, a.B, 255}, color.NRGBA{b.R, b.G, b.B, 255}, t)
	return color.RGBA{m.R, m.G, m.B, 255}
}

// withAccent returns the layout with its accent colour replaced by brand wherever the layout
// uses it, when brand is a colour.
func (l Layout) withAccent(brand string) Layout {
	if l.AccentColor == "" || len(brand) != 7 || brand[0] != '#' || strings.EqualFold(l.AccentColor, brand) {
		return l
	}
	sub := func(c string) string {
		if strings.EqualFold(c, l.AccentColor) {
			return brand
		}
		return c
	}
	out := l
	if l.Background != nil {
		bg := *l.Background
		bg.Color = sub(bg.Color)
		if bg.Pattern != nil {
			pt := *bg.Pattern
			pt.Color = sub(pt.Color)
			bg.Pattern = &pt
		}
		if bg.Border != nil {
			b := *bg.Border
			b.Color = sub(b.Color)
			bg.Border = &b
		}
		bg.Bands = slices.Clone(bg.Bands)
		for i := range bg.Bands {
			bg.Bands[i].Color = sub(bg.Bands[i].Color)
		}
		out.Background = &bg
	}
	out.Rows = slices.Clone(l.Rows)
	for i := range out.Rows {
		out.Rows[i].Cols = slices.Clone(out.Rows[i].Cols)
		for j := range out.Rows[i].Cols {
			out.Rows[i].Cols[j].Content.Color = sub(out.Rows[i].Cols[j].Content.Color)
		}
	}
	return out
}
