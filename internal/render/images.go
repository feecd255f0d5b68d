package render

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/xml"
	"errors"
	"fmt"
	"image"
	"image/png"
	"strings"
	"sync"

	"golang.org/x/image/draw"

	"github.com/srwiley/oksvg"
	"github.com/srwiley/rasterx"

	_ "image/jpeg" // a PNG data URI occasionally holds a JPEG; decoding it is harmless
)

// asset is a decoded image: the pixels for the PNG and PNG bytes for the PDF.
type asset struct {
	img image.Image
	png []byte
	// narrowed holds the image as a PNG at most so many pixels wide (ImagePNG).
	narrowedMu sync.Mutex
	narrowed   map[int][]byte
}

// Version names how this renderer draws: change it with any change that draws an existing
// certificate differently (a face, a fit, an ornament), so that the validators of what it drew
// (the preview's and the PDF's ETag) change with it and clients fetch the new drawing.
const Version = "2026-11-23"

const (
	maxImagePixels = 16 << 20 // refuses decompression bombs
	svgRasterSide  = 1200     // px of the longer side an SVG is rasterised to
)

// assets are the decoded images of data URIs (templates, logos and signatures repeat).
var assets = newMemo[[32]byte, *asset](256)

// decodeDataURI decodes a PNG or SVG data URI, caching the result: templates and logos repeat.
func decodeDataURI(uri string) (*asset, error) {
	key := sha256.Sum256([]byte(uri))
	if a, ok := assets.get(key); ok {
		return a, nil
	}
	var a *asset
	meta, payload, ok := strings.Cut(uri, ",")
	if !ok || !strings.HasSuffix(meta, ";base64") {
		return nil, errors.New("not a base64 data URI")
	}
	raw, err := base64.StdEncoding.DecodeString(payload)
	if err != nil {
		return nil, errors.New("the data URI's base64 is not valid")
	}
	switch strings.TrimSuffix(strings.TrimPrefix(meta, "data:"), ";base64") {
	case "image/png":
		a, err = decodePNG(raw)
	case "image/svg+xml":
		a, err = decodeSVG(raw)
	default:
		err = errors.New("only PNG and SVG images are supported")
	}
	if err != nil {
		return nil, err
	}
	assets.put(key, a)
	return a, nil
}

func decodePNG(raw []byte) (*asset, error) {
	cfg, err := png.DecodeConfig(bytes.NewReader(raw))
	if err != nil {
		return nil, errors.New("the image is not a valid PNG")
	}
	if cfg.Width*cfg.Height > maxImagePixels || cfg.Width == 0 || cfg.Height == 0 {
		return nil, fmt.Errorf("the image is %dx%d pixels; at most %d pixels are accepted", cfg.Width, cfg.Height, maxImagePixels)
	}
	img, err := png.Decode(bytes.NewReader(raw))
	if err != nil {
		return nil, errors.New("the image is not a valid PNG")
	}
	return &asset{img: img, png: raw}, nil
}

func decodeSVG(raw []byte) (*asset, error) {
	if hasUseElement(raw) {
		// oksvg expands <use> by drawing what it names, with no guard: an element that uses
		// its own ancestor recurses until the stack overflows, which kills the process
		// (recover cannot catch it), and nested uses multiply the drawing exponentially.
		return nil, errors.New("the SVG has <use> elements, which are not accepted: write their shapes out in place")
	}
	icon, err := oksvg.ReadIconStream(bytes.NewReader(raw), oksvg.IgnoreErrorMode)
	if err != nil {
		return nil, errors.New("the image is not a valid SVG")
	}
	w, h := icon.ViewBox.W, icon.ViewBox.H
	if w <= 0 || h <= 0 {
		return nil, errors.New("the SVG has no viewBox size")
	}
	scale := svgRasterSide / max(w, h)
	pw, ph := max(1, int(w*scale)), max(1, int(h*scale))
	icon.SetTarget(0, 0, float64(pw), float64(ph))
	rgba := image.NewRGBA(image.Rect(0, 0, pw, ph))
	icon.Draw(rasterx.NewDasher(pw, ph, rasterx.NewScannerGV(pw, ph, rgba, rgba.Bounds())), 1)
	var buf bytes.Buffer
	if err := png.Encode(&buf, rgba); err != nil {
		return nil, err
	}
	return &asset{img: rgba, png: buf.Bytes()}, nil
}

// hasUseElement reports whether the SVG document has a <use> element (in any namespace). A
// document that is not well-formed XML is left to the SVG decoder to refuse.
func hasUseElement(raw []byte) bool {
	d := xml.NewDecoder(bytes.NewReader(raw))
	d.Strict = false
	for {
		tok, err := d.RawToken()
		if err != nil {
			return false
		}
		if el, ok := tok.(xml.StartElement); ok && strings.EqualFold(el.Name.Local, "use") {
			return true
		}
	}
}

// ImagePNG returns a PNG or SVG data URI's image as a PNG at most maxWidth pixels wide
// (scaled down when wider), decoded as the renderer decodes it: within its pixel limit,
// cached, an SVG rasterised (an email's logo is made this way, once per logo).
func ImagePNG(uri string, maxWidth int) ([]byte, error) {
	a, err := decodeDataURI(uri)
	if err != nil {
		return nil, err
	}
	b := a.img.Bounds()
	if b.Dx() <= maxWidth {
		return a.png, nil
	}
	a.narrowedMu.Lock()
	out := a.narrowed[maxWidth]
	a.narrowedMu.Unlock()
	if out != nil {
		return out, nil
	}
	small := image.NewNRGBA(image.Rect(0, 0, maxWidth, max(1, b.Dy()*maxWidth/b.Dx())))
	draw.CatmullRom.Scale(small, small.Bounds(), a.img, b, draw.Src, nil)
	var buf bytes.Buffer
	if err := png.Encode(&buf, small); err != nil {
		return nil, err
	}
	a.narrowedMu.Lock()
	if a.narrowed == nil {
		a.narrowed = map[int][]byte{}
	}
	a.narrowed[maxWidth] = buf.Bytes()
	a.narrowedMu.Unlock()
	return buf.Bytes(), nil
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

// CheckImage decodes a PNG or SVG data URI as the renderer would and says why it cannot be
// drawn, or returns nil: an image stored for later use (a signature) is refused when given,
// not when a certificate is rendered.
func CheckImage(uri string) error {
	_, err := decodeDataURI(uri)
	return err
}
