package render

import (
	"fmt"
	"image/color"
	"strings"

	"github.com/boombuler/barcode/qr"
)

// qrQuietZone is the blank border a QR code needs around it to be read (four modules, as ISO/IEC
// 18004 requires).
const qrQuietZone = 4

// QRCodeSVG draws content as a QR code in SVG: one path of unit squares in a viewBox of the
// code's modules and its quiet zone, so it scales crisply to any size a page gives it, and a
// phone's camera reads it off a laptop's screen. Level M recovers from 15% damage, enough for
// a screen; the content is a URL of about 100 characters.
func QRCodeSVG(content, title string) (string, error) {
	code, err := qr.Encode(content, qr.M, qr.Auto)
	if err != nil {
		return "", fmt.Errorf("render: QR code: %w", err)
	}
	b := code.Bounds()
	size := b.Dx() + 2*qrQuietZone
	var path strings.Builder
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			if color.GrayModel.Convert(code.At(x, y)).(color.Gray).Y < 128 {
				fmt.Fprintf(&path, "M%d %dh1v1h-1z", x-b.Min.X+qrQuietZone, y-b.Min.Y+qrQuietZone)
			}
		}
	}
	var svg strings.Builder
	fmt.Fprintf(&svg, `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 %d %d" shape-rendering="crispEdges" role="img" aria-label="%s">`,
		size, size, htmlEscape(title))
	fmt.Fprintf(&svg, `<rect width="%d" height="%d" fill="#fff"/><path fill="#000" d="%s"/></svg>`, size, size, path.String())
	return svg.String(), nil
}

func htmlEscape(s string) string {
	r := strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;", "'", "&#39;")
	return r.Replace(s)
}
