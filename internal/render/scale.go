package render

import (
	"fmt"
	"image"
	"math"

	"golang.org/x/image/draw"
)

// An image is drawn at most at the resolution its box needs: in a PDF at print resolution,
// in a PNG at the page's. Without this, what a page costs grew with the image's pixels, not
// with its box: the PDF library unpacks and packs again every pixel of a PNG with
// transparency for every document (a small upload of many pixels could cost a certificate
// more time and memory than all the rest of it), and scaling into a preview reads every
// source pixel. The scaled image is made once per image and box size, and cached.

// pdfImageDPI is the most resolution an image is embedded at in a PDF.
const pdfImageDPI = ornamentDPI

type scaledKey struct {
	uri  [32]byte
	w, h int
}

var (
	scaledPNGs   = newMemo[scaledKey](scaledPNGsBudget, bytesLen)
	scaledPixels = newMemo[scaledKey](scaledPixelsBudget, imageBytes)
)

// pdfPNG returns the PNG a PDF embeds for a box of wMM x hMM millimetres: the asset's own,
// or, when it has more pixels than the box needs at pdfImageDPI, the asset scaled down to
// them (its proportions kept).
func (a *asset) pdfPNG(wMM, hMM float64) ([]byte, error) {
	b := a.bounds
	need := max(wMM*pdfImageDPI/25.4/float64(b.Dx()), hMM*pdfImageDPI/25.4/float64(b.Dy()))
	if a.img != nil || !(need < 1) {
		return a.png, nil // a drawn image (a seal) is drawn at the box's size already
	}
	w, h := max(1, int(math.Ceil(float64(b.Dx())*need))), max(1, int(math.Ceil(float64(b.Dy())*need)))
	key := scaledKey{a.key, w, h}
	if out, ok := scaledPNGs.get(key); ok {
		return out, nil
	}
	v, err, _ := decodes.Do(fmt.Sprintf("pdf%x%dx%d", a.key, w, h), func() (any, error) {
		small, err := a.scaledUncached(w, h)
		if err != nil {
			return nil, err
		}
		out, err := encodePNG(small)
		if err != nil {
			return nil, err
		}
		scaledPNGs.put(key, out)
		return out, nil
	})
	if err != nil {
		return nil, err
	}
	return v.([]byte), nil
}

// scaled returns the asset's pixels scaled to w x h, cached (a preview draws the same image
// into the same box again and again).
func (a *asset) scaled(w, h int) (image.Image, error) {
	key := scaledKey{a.key, w, h}
	if img, ok := scaledPixels.get(key); ok {
		return img, nil
	}
	img, err := a.scaledUncached(w, h)
	if err != nil {
		return nil, err
	}
	scaledPixels.put(key, img)
	return img, nil
}

func (a *asset) scaledUncached(w, h int) (*image.NRGBA, error) {
	pix, err := a.pixels()
	if err != nil {
		return nil, err
	}
	small := image.NewNRGBA(image.Rect(0, 0, w, h))
	draw.CatmullRom.Scale(small, small.Bounds(), pix, pix.Bounds(), draw.Src, nil)
	return small, nil
}
