package render

import (
	"bytes"
	"fmt"
	"image/color"
	"time"

	"github.com/johnfercher/maroto/v2"
	"github.com/johnfercher/maroto/v2/pkg/components/code"
	"github.com/johnfercher/maroto/v2/pkg/components/col"
	"github.com/johnfercher/maroto/v2/pkg/components/image"
	"github.com/johnfercher/maroto/v2/pkg/components/line"
	"github.com/johnfercher/maroto/v2/pkg/components/row"
	"github.com/johnfercher/maroto/v2/pkg/components/text"
	"github.com/johnfercher/maroto/v2/pkg/config"
	"github.com/johnfercher/maroto/v2/pkg/consts/align"
	"github.com/johnfercher/maroto/v2/pkg/consts/extension"
	"github.com/johnfercher/maroto/v2/pkg/consts/fontstyle"
	"github.com/johnfercher/maroto/v2/pkg/consts/orientation"
	"github.com/johnfercher/maroto/v2/pkg/core"
	"github.com/johnfercher/maroto/v2/pkg/core/entity"
	"github.com/johnfercher/maroto/v2/pkg/props"
)

// backgroundDPI is the resolution of the page background (colour, image and border) in PDFs.
const backgroundDPI = 150

// PDF renders the template filled with d as a one-page PDF.
//
// Text reaches the PDF library only as runs of characters in the Basic Multilingual Plane, in
// faces it embeds (see runs); the rest is drawn as images. A panic inside the library is still
// turned into an error, so that no document can stop the process.
func PDF(t Template, d Data) (pdf []byte, err error) {
	defer func() {
		if v := recover(); v != nil {
			pdf, err = nil, fmt.Errorf("render: pdf library panicked: %v", v)
		}
	}()
	p, err := t.plan(&d)
	if err != nil {
		return nil, err
	}
	fams, _ := loadFonts()
	faces, def := pdfFaces(p.faces, fams["sans"].faces[regular])
	fonts := make([]*entity.CustomFont, 0, len(faces))
	for f := range faces {
		// Each document gets its own copy of the font's bytes: while it subsets a font, gofpdf
		// pads tables by appending to slices of the bytes it was given, which writes into the
		// shared copy under PDFs rendered at the same time (a data race the race detector found
		// between two concurrent previews).
		fonts = append(fonts, &entity.CustomFont{Family: f.family, Style: pdfStyle(f.style), Bytes: bytes.Clone(f.data)})
	}
	created := d.Certificate.IssuedAt
	if created.IsZero() {
		created = time.Now()
	}
	b := config.NewBuilder().
		WithDimensions(t.Page.Width, t.Page.Height).
		WithLeftMargin(0).WithTopMargin(0).WithRightMargin(0).WithBottomMargin(0).
		WithMaxGridSize(gridUnits).
		WithCustomFonts(fonts).
		WithDefaultFont(&props.Font{Family: def.family, Style: pdfStyle(def.style), Size: 12}).
		WithDisableAutoPageBreak(true).
		WithCreationDate(created.UTC()).
		WithCreator("credentiald", false).
		WithTitle(bmpOnly(d.Event.Name), true)
	if t.Page.Width > t.Page.Height {
		b = b.WithOrientation(orientation.Horizontal)
	}
	if p.background != nil {
		dpi := float64(backgroundDPI)
		if p.background.fineLines() {
			dpi = ornamentDPI
		}
		bg, err := backgroundPNG(p, dpi)
		if err != nil {
			return nil, err
		}
		b = b.WithBackgroundImage(bg, extension.Png)
	}
	m := maroto.New(b.Build())
	m.AddRows(row.New(Margin))
	for _, r := range p.rows {
		cols := []core.Col{col.New(p.marginUnits)}
		used := p.marginUnits
		for _, c := range r.cols {
			pc, err := pdfCol(c, r.height)
			if err != nil {
				return nil, err
			}
			cols = append(cols, pc)
			used += c.units
		}
		if rest := gridUnits - used; rest > 0 {
			cols = append(cols, col.New(rest))
		}
		m.AddRows(row.New(r.height).Add(cols...))
	}
	doc, err := m.Generate()
	if err != nil {
		return nil, fmt.Errorf("render: pdf: %w", err)
	}
	return doc.GetBytes(), nil
}

// pdfFaces returns the faces to embed and the document's default face. Only the faces the page
// uses are embedded (maroto parses every font it is given), so the default is one of them.
//
// The default must be a regular face whenever the page sets any regular text: maroto's
// fontstyle.Normal is the empty string, and maroto gives a text with an empty style the
// default font's style, so a bold default sets every regular text in its family's bold face.
// (The default used to be the first face used in alphabetical order: beside a bold CJK name,
// "cjk" bold, which turned "This is to certify that" and the footer bold.)
func pdfFaces(used map[*face]bool, sans *face) (map[*face]bool, *face) {
	if len(used) == 0 {
		return map[*face]bool{sans: true}, sans
	}
	if used[sans] {
		return used, sans
	}
	var def *face
	for f := range used {
		if def == nil || f.style < def.style || f.style == def.style && f.family < def.family {
			def = f
		}
	}
	return used, def
}

func pdfCol(c plannedCol, height float64) (core.Col, error) {
	out := col.New(c.units)
	for _, it := range c.items {
		switch it := it.(type) {
		case textLine:
			sizeMM := it.size * 25.4 / 72
			x := it.x(c.width)
			for _, r := range it.runs {
				if r.raster {
					img, dx, dy, w, h, err := rasterRun(r, it.size, it.color)
					if err != nil {
						return nil, fmt.Errorf("render: text image: %w", err)
					}
					out.Add(image.NewFromBytes(img, extension.Png, rectFor(x+r.offset+dx, it.baseline+dy, w, h, c.width, height)))
					continue
				}
				// Left-aligned at the run's own position: the line's alignment is already in x.
				for _, dx := range overstrike(r.face, sizeMM) {
					out.Add(text.New(bmpOnly(r.text), props.Text{Family: r.face.family, Style: pdfStyle(r.face.style), Size: it.size,
						Top: it.baseline - sizeMM, Left: x + r.offset + dx, Align: align.Left, Color: pdfColor(it.color)}))
				}
			}
		case imageItem:
			b, err := it.asset.pdfPNG(it.w, it.h)
			if err != nil {
				return nil, fmt.Errorf("render: image: %w", err)
			}
			out.Add(image.NewFromBytes(b, extension.Png, rectFor(it.x, it.y, it.w, it.h, c.width, height)))
		case qrItem:
			out.Add(code.NewQr(it.value, rectFor(it.x, it.y, it.side, it.side, c.width, height)))
		case lineItem:
			out.Add(line.New(props.Line{Color: pdfColor(it.color), Thickness: it.thickness,
				OffsetPercent: it.y / height * 100, SizePercent: it.widthPercent}))
		}
	}
	return out, nil
}

// rectFor expresses a box as maroto's Rect: maroto scales an image to Percent of its cell
// (by width, or by height for a taller image), so the percent is derived from the size wanted.
func rectFor(x, y, w, h, cellW, cellH float64) props.Rect {
	percent := w / cellW * 100
	if h/w > cellH/cellW {
		percent = h / cellH * 100
	}
	return props.Rect{Left: x, Top: y, Percent: percent}
}

func pdfStyle(s style) fontstyle.Type {
	switch s {
	case bold:
		return fontstyle.Bold
	case italic:
		return fontstyle.Italic
	case boldItalic:
		return fontstyle.BoldItalic
	}
	return fontstyle.Normal
}

func pdfColor(c color.RGBA) *props.Color {
	return &props.Color{Red: int(c.R), Green: int(c.G), Blue: int(c.B)}
}
