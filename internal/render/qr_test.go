package render

import (
	"image"
	"image/color"
	"image/draw"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/makiuchi-d/gozxing"
	gozxingqr "github.com/makiuchi-d/gozxing/qrcode"
)

// TestAQRCodeReadsBackAsItsContent draws the SVG's squares into an image and has an
// independent decoder read it.
func TestAQRCodeReadsBackAsItsContent(t *testing.T) {
	t.Parallel()
	want := "https://certs.example.org/interactions/" + strings.Repeat("Ab9_-", 9) + "?iuv=1"
	svg, err := QRCodeSVG(want, `Scan "to" claim`)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(svg, `aria-label="Scan &quot;to&quot; claim"`) {
		t.Fatalf("the title is not escaped into the label: %s", svg[:200])
	}
	m := regexp.MustCompile(`viewBox="0 0 (\d+) \d+"`).FindStringSubmatch(svg)
	size, _ := strconv.Atoi(m[1])
	const scale = 8
	img := image.NewGray(image.Rect(0, 0, size*scale, size*scale))
	draw.Draw(img, img.Bounds(), image.White, image.Point{}, draw.Src)
	for _, sq := range regexp.MustCompile(`M(\d+) (\d+)h1v1h-1z`).FindAllStringSubmatch(svg, -1) {
		x, _ := strconv.Atoi(sq[1])
		y, _ := strconv.Atoi(sq[2])
		draw.Draw(img, image.Rect(x*scale, y*scale, (x+1)*scale, (y+1)*scale), &image.Uniform{C: color.Black}, image.Point{}, draw.Src)
	}
	bmp, err := gozxing.NewBinaryBitmapFromImage(img)
	if err != nil {
		t.Fatal(err)
	}
	got, err := gozxingqr.NewQRCodeReader().Decode(bmp, nil)
	if err != nil {
		t.Fatalf("an independent reader cannot read the code: %v", err)
	}
	if got.GetText() != want {
		t.Fatalf("read %q, want %q", got.GetText(), want)
	}
}
