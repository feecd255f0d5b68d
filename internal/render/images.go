package render

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"strings"
	"time"

	"golang.org/x/image/draw"
	"golang.org/x/sync/semaphore"
	"golang.org/x/sync/singleflight"

	_ "image/jpeg" // a PNG data URI occasionally holds a JPEG; decoding it is harmless
)

// asset is an image as the renderer draws it: PNG bytes for the PDF, its size, and its
// pixels for PNGs. A data URI's asset holds no pixels: a PDF needs only the bytes, and the
// pixels, what weighs (a background at the limit is 64 MiB of them), are decoded from the
// bytes when a PNG is drawn and cached apart by what they weigh (pixels).
type asset struct {
	// png is the image as the PDF library embeds it: the uploaded bytes, or the pixels encoded
	// anew when the library cannot read the upload (see pdfReadable), or an SVG rasterised.
	png    []byte
	bounds image.Rectangle
	// img holds the pixels of an image drawn here (a seal); nil for a data URI's image, whose
	// pixels are cached under key.
	img image.Image
	key [32]byte
}

// bytes is what the asset holds in memory (its cache's measure).
func (a *asset) bytes() int64 {
	n := int64(len(a.png)) + 64
	if a.img != nil {
		n += imageBytes(a.img)
	}
	return n
}

// pixels returns the asset's pixels: its own, or decoded from its PNG bytes (cached).
func (a *asset) pixels() (image.Image, error) {
	if a.img != nil {
		return a.img, nil
	}
	if img, ok := decodedPixels.get(a.key); ok {
		return img, nil
	}
	v, err, _ := decodes.Do("pixels"+string(a.key[:]), func() (any, error) {
		img, err := decodePixels(a.png)
		if err != nil {
			return nil, err
		}
		decodedPixels.put(a.key, img)
		return img, nil
	})
	if err != nil {
		return nil, err
	}
	return v.(image.Image), nil
}

// Version names how this renderer draws: change it with any change that draws an existing
// certificate differently (a face, a fit, an ornament), so that the validators of what it drew
// (the preview's and the PDF's ETag) change with it and clients fetch the new drawing.
const Version = "2026-11-26.2"

// An image is judged by what decoding it costs, read from its header before it is decoded:
// its pixels (what drawing and scaling it cost) and the bytes its decoded pixels take. 4096 x
// 4096 pixels of 8 bits per channel reach both limits; an image of 16 bits per channel decodes
// to twice the bytes, so it may have half the pixels (a 130 KB PNG of 4096 x 4096 pixels of 16
// bits decoded to 128 MiB).
const (
	maxImagePixels  = 4096 * 4096
	maxDecodedBytes = 64 << 20
	svgRasterSide   = 1200 // px of the longer side an SVG is rasterised to
)

// decodeMemory is the memory the decodes running at once may hold (a decode takes what its
// header says before it starts, and waits while others hold too much): two decodes at the
// limit, or many small ones.
var decodeMemory = semaphore.NewWeighted(decodeMemoryBudget)

const decodeMemoryBudget = 192 << 20

// holdDecodeMemory takes n bytes of decodeMemory, waiting for them; the function it returns
// gives them back.
func holdDecodeMemory(n int64) (release func()) {
	n = max(1, min(n, decodeMemoryBudget))
	_ = decodeMemory.Acquire(context.Background(), n) // a background context: never fails
	return func() { decodeMemory.Release(n) }
}

var (
	// assets are the images of data URIs as the PDF needs them (templates, logos and
	// signatures repeat; an SVG is rasterised once).
	assets = newMemo[[32]byte](assetsBudget, (*asset).bytes)
	// decodedPixels are the pixels of data URI images, decoded for PNGs.
	decodedPixels = newMemo[[32]byte](pixelsBudget, imageBytes)
	// decodes makes concurrent requests for an image the caches do not hold decode it once.
	decodes singleflight.Group
	// narrowedPNGs are images narrowed by ImagePNG.
	narrowedPNGs = newMemo[narrowedKey](narrowedBudget, bytesLen)
)

type narrowedKey struct {
	uri   [32]byte
	width int
}

// decodeDataURI reads a PNG or SVG data URI as the renderer draws it, cached: templates and
// logos repeat. A PNG is judged by its header (its pixels are decoded only when it must be
// converted for the PDF, or drawn into a PNG: pixels); an SVG is rasterised.
func decodeDataURI(uri string) (*asset, error) {
	key := sha256.Sum256([]byte(uri))
	if a, ok := assets.get(key); ok {
		return a, nil
	}
	v, err, _ := decodes.Do(string(key[:]), func() (any, error) {
		a, pix, err := decodeUncached(uri)
		if err != nil {
			return nil, err
		}
		a.key = key
		assets.put(key, a)
		if pix != nil {
			decodedPixels.put(key, pix)
		}
		return a, nil
	})
	if err != nil {
		return nil, err
	}
	return v.(*asset), nil
}

// splitDataURI returns a base64 data URI's media type and decoded bytes.
func splitDataURI(uri string) (mediaType string, raw []byte, err error) {
	meta, payload, ok := strings.Cut(uri, ",")
	if !ok || !strings.HasSuffix(meta, ";base64") {
		return "", nil, errors.New("not a base64 data URI")
	}
	raw, err = base64.StdEncoding.DecodeString(payload)
	if err != nil {
		return "", nil, errors.New("the data URI's base64 is not valid")
	}
	return strings.TrimSuffix(strings.TrimPrefix(meta, "data:"), ";base64"), raw, nil
}

// decodeUncached reads a data URI's image, and returns its pixels too when reading it decoded
// them.
func decodeUncached(uri string) (*asset, image.Image, error) {
	mediaType, raw, err := splitDataURI(uri)
	if err != nil {
		return nil, nil, err
	}
	switch mediaType {
	case "image/png":
		return decodePNG(raw)
	case "image/svg+xml":
		a, err := decodeSVG(raw)
		return a, nil, err
	}
	return nil, nil, errors.New("only PNG and SVG images are supported")
}

// decodePNG reads a PNG's header and keeps its bytes, unless the PDF library cannot read them:
// then it decodes the pixels and encodes them anew, and returns them too (they are the pixels
// of the new bytes, so that whatever is drawn from them is the same as from the bytes).
func decodePNG(raw []byte) (*asset, image.Image, error) {
	cfg, err := png.DecodeConfig(bytes.NewReader(raw))
	if err != nil {
		return nil, nil, errors.New("the image is not a valid PNG")
	}
	if _, err := decodeCost(cfg); err != nil {
		return nil, nil, err
	}
	a := &asset{png: raw, bounds: image.Rect(0, 0, cfg.Width, cfg.Height)}
	if pdfReadable(raw) {
		return a, nil, nil
	}
	img, err := decodePixels(raw)
	if err != nil {
		return nil, nil, err
	}
	img = pdfCompatible(img)
	if a.png, err = encodePNG(img); err != nil {
		return nil, nil, err
	}
	return a, img, nil
}

// decodePixels decodes a PNG within the limits and the decode memory, with 8 bits per
// channel.
func decodePixels(raw []byte) (image.Image, error) {
	cfg, err := png.DecodeConfig(bytes.NewReader(raw))
	if err != nil {
		return nil, errors.New("the image is not a valid PNG")
	}
	need, err := decodeCost(cfg)
	if err != nil {
		return nil, err
	}
	defer holdDecodeMemory(need)()
	img, err := png.Decode(bytes.NewReader(raw))
	if err != nil {
		return nil, errors.New("the image is not a valid PNG")
	}
	return eightBitsPerChannel(img), nil
}

// decodeCost refuses an image whose decoding would cost more than the limits allow, from its
// header, and returns the memory decoding it takes (its pixels, and their 8-bit copy when they
// have 16 bits per channel).
func decodeCost(cfg image.Config) (int64, error) {
	w, h := int64(cfg.Width), int64(cfg.Height)
	if w <= 0 || h <= 0 {
		return 0, errors.New("the image has no pixels")
	}
	if w*h > maxImagePixels {
		return 0, fmt.Errorf("the image is %dx%d pixels; at most %d pixels (e.g. 4096x4096) are allowed: scale it down", w, h, maxImagePixels)
	}
	per := bytesPerPixel(cfg.ColorModel)
	if w*h*per > maxDecodedBytes {
		return 0, fmt.Errorf("the image is %dx%d pixels of 16 bits per channel, which decode to %d MiB; at most %d MiB are allowed "+
			"(e.g. 4096x4096 pixels of 8 bits per channel, or 4096x2048 of 16): save it with 8 bits per channel or scale it down",
			w, h, (w*h*per+(1<<20)-1)>>20, maxDecodedBytes>>20)
	}
	need := w * h * per
	if per == 8 || per == 2 {
		need += w * h * per / 2
	}
	return need, nil
}

// bytesPerPixel is what a pixel of the PNG decoder's image for m takes.
func bytesPerPixel(m color.Model) int64 {
	if _, ok := m.(color.Palette); ok {
		return 1
	}
	switch m {
	case color.GrayModel:
		return 1
	case color.Gray16Model:
		return 2
	case color.RGBAModel, color.NRGBAModel:
		return 4
	}
	return 8 // RGBA64, NRGBA64
}

// eightBitsPerChannel returns an image of 16 bits per channel with 8 (what is drawn and
// printed has 8, and the cache holds half the bytes), and any other image as it is.
func eightBitsPerChannel(img image.Image) image.Image {
	highBytes := func(dst, src []uint8, dstStride, srcStride, rows int) {
		for y := range rows {
			d, s := dst[y*dstStride:(y+1)*dstStride], src[y*srcStride:]
			for i := range d {
				d[i] = s[2*i]
			}
		}
	}
	switch src := img.(type) {
	case *image.NRGBA64:
		dst := image.NewNRGBA(src.Rect)
		highBytes(dst.Pix, src.Pix, dst.Stride, src.Stride, src.Rect.Dy())
		return dst
	case *image.RGBA64:
		dst := image.NewRGBA(src.Rect)
		highBytes(dst.Pix, src.Pix, dst.Stride, src.Stride, src.Rect.Dy())
		return dst
	case *image.Gray16:
		dst := image.NewGray(src.Rect)
		highBytes(dst.Pix, src.Pix, dst.Stride, src.Stride, src.Rect.Dy())
		return dst
	}
	return img
}

func encodePNG(img image.Image) ([]byte, error) {
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func decodeSVG(raw []byte) (*asset, error) {
	if hasUseElement(raw) {
		// oksvg expands <use> by drawing what it names, with no guard: an element that uses
		// its own ancestor recurses until the stack overflows, which kills the process
		// (recover cannot catch it), and nested uses multiply the drawing exponentially.
		return nil, errors.New("the SVG has <use> elements, which are not accepted: write their shapes out in place")
	}
	icon, err := readSVG(raw)
	if err != nil {
		return nil, err
	}
	w, h := icon.ViewBox.W, icon.ViewBox.H
	if !(w > 0 && h > 0 && w < 1e12 && h < 1e12) {
		return nil, errors.New("the SVG has no viewBox size: give its <svg> element a viewBox, e.g. viewBox=\"0 0 100 100\"")
	}
	if n := len(icon.SVGPaths); n > maxSVGShapes {
		return nil, fmt.Errorf("the SVG has %d shapes; at most %d are allowed: merge or simplify them, or upload the image as a PNG", n, maxSVGShapes)
	}
	scale := svgRasterSide / max(w, h)
	pw, ph := max(1, int(w*scale)), max(1, int(h*scale))
	defer holdDecodeMemory(int64(pw)*int64(ph)*4*3 + svgScannerMaxHeld)() // the image, the rasteriser's buffer and points, the PNG
	rgba, err := rasterizeSVG(icon, pw, ph, svgWorkBudget, time.Now().Add(svgDeadline))
	if err != nil {
		return nil, err
	}
	buf, err := encodePNG(rgba)
	if err != nil {
		return nil, err
	}
	// The raster is not kept: what is drawn from it is decoded from the PNG (pixels), so that
	// it is the same whether or not the raster is still in memory.
	return &asset{png: buf, bounds: rgba.Bounds()}, nil
}

// ImagePNG returns a PNG or SVG data URI's image as a PNG at most maxWidth pixels wide
// (scaled down when wider), decoded as the renderer decodes it: within its pixel limit,
// cached, an SVG rasterised (an email's logo is made this way, once per logo).
func ImagePNG(uri string, maxWidth int) ([]byte, error) {
	a, err := decodeDataURI(uri)
	if err != nil {
		return nil, err
	}
	b := a.bounds
	if b.Dx() <= maxWidth {
		return a.png, nil
	}
	key := narrowedKey{a.key, maxWidth}
	if out, ok := narrowedPNGs.get(key); ok {
		return out, nil
	}
	img, err := a.pixels()
	if err != nil {
		return nil, err
	}
	small := image.NewNRGBA(image.Rect(0, 0, maxWidth, max(1, b.Dy()*maxWidth/b.Dx())))
	draw.CatmullRom.Scale(small, small.Bounds(), img, b, draw.Src, nil)
	out, err := encodePNG(small)
	if err != nil {
		return nil, err
	}
	narrowedPNGs.put(key, out)
	return out, nil
}

// SVGToPNG rasterises an SVG image as a PNG, its longer side 1200 pixels, as templates draw
// their SVG images (a badge whose own image is an SVG gets its PNG this way).
func SVGToPNG(svg []byte) ([]byte, error) {
	a, err := decodeSVG(svg)
	if err != nil {
		return nil, err
	}
	return a.png, nil
}

// CheckImage reads a PNG or SVG data URI as the renderer would, decodes its pixels, and says
// why it cannot be drawn, or returns nil: an image stored for later use (a signature) is refused when given,
// not when a certificate is rendered. Beyond what the renderer refuses, an SVG is refused
// when it holds active content (scripts, event handlers, external references; see
// checkSVGContent), which a browser shown the stored image would run or fetch.
func CheckImage(uri string) error {
	mediaType, raw, err := splitDataURI(uri)
	if err == nil && mediaType == "image/svg+xml" {
		if err := checkSVGContent(raw); err != nil {
			return err
		}
	}
	if _, err := decodeDataURI(uri); err != nil {
		return err
	}
	if mediaType == "image/png" {
		// Rendering reads a PNG's header only; its pixels are decoded here once, so that a
		// PNG whose data is broken is refused now rather than drawn broken.
		if _, err := decodePixels(raw); err != nil {
			return err
		}
	}
	return nil
}

// RecheckSVG judges a stored image by today's upload check of SVGs (SVGs stored before a
// stricter check are checked again; see SVGCheckVersion). replace is false when the image
// stays as it is: it is not a base64 SVG data URI (a PNG; anything else is neither served as
// an SVG nor drawn), or its SVG passes. Otherwise png is the PNG data URI that replaces it:
// the SVG rasterised as the renderer draws it (the rasteriser fetches and runs nothing), at
// most maxBytes decoded (scaled down until it fits), or, when the SVG cannot be drawn at all,
// a transparent pixel: what the renderer showed of it already. err is set only when drawing
// ran out of time on a busy machine, which another try may not: try again later; on the
// last try (lastTry), an SVG that runs out of time is one that cannot be drawn.
func RecheckSVG(uri string, maxBytes int, lastTry bool) (png string, replace bool, err error) {
	mediaType, raw, err := splitDataURI(uri)
	if err != nil || mediaType != "image/svg+xml" || checkSVGContent(raw) == nil {
		return "", false, nil
	}
	out, err := svgAsPNGWithin(raw, maxBytes)
	switch {
	case errors.Is(err, errSVGDeadline) && !lastTry:
		return "", false, err
	case err != nil:
		out = transparentPixel
	}
	return "data:image/png;base64," + base64.StdEncoding.EncodeToString(out), true, nil
}

// svgAsPNGWithin rasterises an SVG as SVGToPNG does, then halves its size until its PNG has
// at most maxBytes.
func svgAsPNGWithin(svg []byte, maxBytes int) ([]byte, error) {
	a, err := decodeSVG(svg)
	if err != nil {
		return nil, err
	}
	if len(a.png) <= maxBytes {
		return a.png, nil
	}
	img, err := decodePixels(a.png)
	if err != nil {
		return nil, err
	}
	b := img.Bounds()
	for w := b.Dx() / 2; w >= 16; w /= 2 {
		small := image.NewNRGBA(image.Rect(0, 0, w, max(1, b.Dy()*w/b.Dx())))
		draw.CatmullRom.Scale(small, small.Bounds(), img, b, draw.Src, nil)
		out, err := encodePNG(small)
		if err != nil {
			return nil, err
		}
		if len(out) <= maxBytes {
			return out, nil
		}
	}
	return nil, fmt.Errorf("the SVG's rasterisation does not fit in %d bytes", maxBytes)
}

// transparentPixel is a PNG of one transparent pixel.
var transparentPixel = func() []byte {
	out, err := encodePNG(image.NewNRGBA(image.Rect(0, 0, 1, 1)))
	if err != nil {
		panic(err)
	}
	return out
}()
