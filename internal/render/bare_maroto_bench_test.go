package render

import (
	"bytes"
	"testing"

	"github.com/johnfercher/maroto/v2"
	"github.com/johnfercher/maroto/v2/pkg/components/code"
	"github.com/johnfercher/maroto/v2/pkg/components/col"
	"github.com/johnfercher/maroto/v2/pkg/components/row"
	"github.com/johnfercher/maroto/v2/pkg/components/text"
	"github.com/johnfercher/maroto/v2/pkg/config"
	"github.com/johnfercher/maroto/v2/pkg/consts/align"
	"github.com/johnfercher/maroto/v2/pkg/consts/fontstyle"
	"github.com/johnfercher/maroto/v2/pkg/consts/orientation"
	"github.com/johnfercher/maroto/v2/pkg/core"
	"github.com/johnfercher/maroto/v2/pkg/core/entity"
	"github.com/johnfercher/maroto/v2/pkg/props"
)

// BenchmarkRenderBareMaroto is the floor the BenchmarkRender* figures are read against, run
// beside them so that both see the same machine: maroto alone setting a comparable A4
// landscape page (one embedded TrueType face, DejaVu Sans, the title, the name, two lines of
// text, a QR code), with none of this package's planning, fallback or ornaments.
func BenchmarkRenderBareMaroto(b *testing.B) {
	fams, err := loadFonts()
	if err != nil {
		b.Fatal(err)
	}
	sans := fams["sans"].faces[regular]
	b.ReportAllocs()
	for b.Loop() {
		cfg := config.NewBuilder().
			WithOrientation(orientation.Horizontal).
			WithCustomFonts([]*entity.CustomFont{{Family: sans.family, Style: fontstyle.Normal, Bytes: bytes.Clone(sans.data)}}).
			WithDefaultFont(&props.Font{Family: sans.family, Style: fontstyle.Normal, Size: 12}).
			WithDisableAutoPageBreak(true).
			Build()
		m := maroto.New(cfg)
		centred := func(s string, size float64) core.Row {
			return row.New(size * 0.6).Add(col.New(12).Add(text.New(s, props.Text{Size: size, Align: align.Center})))
		}
		m.AddRows(centred("Certificate of Attendance", 30), centred("José Müller", 28),
			centred("has attended Go Conference 2026", 14), centred("12 November 2026 · Berlin", 12))
		m.AddRows(row.New(40).Add(col.New(4), col.New(4).Add(code.NewQr("https://certs.example.org/verify/7K3M9QX2PB4T", props.Rect{Center: true, Percent: 90})), col.New(4)))
		doc, err := m.Generate()
		if err != nil {
			b.Fatal(err)
		}
		_ = doc.GetBytes()
	}
}
