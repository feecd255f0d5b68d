package render

import (
	"bytes"
	"testing"
	"time"

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

// The yardsticks of the renderer's speed: maroto alone, with none of this package's
// planning, fallback or ornaments. Two of them: the same page in the same faces, and a floor
// of one face (each embedded face costs maroto some milliseconds per document).

// bareMaroto is the least maroto does for an A4 landscape page of rows in fonts (the first
// font's family is the default).
func bareMaroto(fonts []*entity.CustomFont, rows ...core.Row) ([]byte, error) {
	cfg := config.NewBuilder().WithOrientation(orientation.Horizontal).WithCustomFonts(fonts).
		WithDefaultFont(&props.Font{Family: fonts[0].Family, Style: fontstyle.Normal, Size: 12}).
		WithDisableAutoPageBreak(true).Build()
	m := maroto.New(cfg)
	m.AddRows(rows...)
	doc, err := m.Generate()
	if err != nil {
		return nil, err
	}
	return doc.GetBytes(), nil
}

// BenchmarkPDFBesideBareMaroto renders one A4 landscape certificate for a Latin name through
// the renderer (the plain template: background and border, title, name, event line,
// signature, QR code, number) and, alternating in the same run, the least maroto needs for
// the same page: the same four DejaVu faces embedded, the same texts in them and the QR code
// of the verification link, without the background (colour and double border). It reports both times per page and their
// ratio (`make bench-http` runs it; GOGC changes both sides alike).
func BenchmarkPDFBesideBareMaroto(b *testing.B) {
	tmpl, d := plainTemplate(), sample(names[0])
	fams, err := loadFonts()
	if err != nil {
		b.Fatal(err)
	}
	sans, serif := fams["sans"].faces, fams["serif"].faces
	bare := func() ([]byte, error) {
		return bareMaroto([]*entity.CustomFont{
			{Family: "sans", Style: fontstyle.Normal, Bytes: bytes.Clone(sans[regular].data)},
			{Family: "sans", Style: fontstyle.Bold, Bytes: bytes.Clone(sans[bold].data)},
			{Family: "sans", Style: fontstyle.Italic, Bytes: bytes.Clone(sans[italic].data)},
			{Family: "serif", Style: fontstyle.Bold, Bytes: bytes.Clone(serif[bold].data)},
		},
			row.New(30).Add(col.New(12).Add(text.New("Certificate of Attendance", props.Text{Family: "serif", Style: fontstyle.Bold, Size: 30, Align: align.Center}))),
			row.New(30).Add(col.New(12).Add(text.New(d.Recipient.FirstName+" "+d.Recipient.LastName, props.Text{Size: 28, Align: align.Center}))),
			row.New(20).Add(col.New(12).Add(text.New("attended "+d.Event.Name+" on 12 November 2026 (Concurrency)", props.Text{Size: 14, Style: fontstyle.Italic, Align: align.Center}))),
			row.New(40).Add(
				col.New(4).Add(text.New("Grace Hopper", props.Text{Size: 12, Style: fontstyle.Bold, Align: align.Center}),
					text.New("Programme chair", props.Text{Top: 6, Size: 10, Align: align.Center})),
				col.New(4).Add(code.NewQr(d.VerificationURL)),
				col.New(4).Add(text.New(d.Certificate.Number, props.Text{Size: 9, Align: align.Right}))),
		)
	}
	var service, yardstick time.Duration
	for b.Loop() {
		t0 := time.Now()
		if _, err := PDF(tmpl, d); err != nil {
			b.Fatal(err)
		}
		t1 := time.Now()
		if _, err := bare(); err != nil {
			b.Fatal(err)
		}
		service, yardstick = service+t1.Sub(t0), yardstick+time.Since(t1)
	}
	b.ReportMetric(float64(service.Microseconds())/1000/float64(b.N), "service-ms/pdf")
	b.ReportMetric(float64(yardstick.Microseconds())/1000/float64(b.N), "bare-ms/pdf")
	b.ReportMetric(float64(service)/float64(yardstick), "ratio")
	b.ReportMetric(0, "ns/op")
}

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
	centred := func(s string, size float64) core.Row {
		return row.New(size * 0.6).Add(col.New(12).Add(text.New(s, props.Text{Size: size, Align: align.Center})))
	}
	for b.Loop() {
		_, err := bareMaroto([]*entity.CustomFont{{Family: "sans", Style: fontstyle.Normal, Bytes: bytes.Clone(sans.data)}},
			centred("Certificate of Attendance", 30), centred("José Müller", 28),
			centred("has attended Go Conference 2026", 14), centred("12 November 2026 · Berlin", 12),
			row.New(40).Add(col.New(4), col.New(4).Add(code.NewQr("https://certs.example.org/verify/7K3M9QX2PB4T", props.Rect{Center: true, Percent: 90})), col.New(4)))
		if err != nil {
			b.Fatal(err)
		}
	}
}
