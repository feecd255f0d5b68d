package render

import (
	"encoding/binary"
	"image"
	"image/draw"
)

// The PDF library (gofpdf, under maroto) embeds a PNG by copying its compressed pixels, and
// reads only part of what PNG allows; an image it cannot read becomes the red text "could not
// add image to document" where the picture should be, and one it misreads is drawn wrong.
// Every PNG the decoder accepts is therefore handed to it either as uploaded, when it reads
// it (pdfReadable), or encoded anew by image/png, which writes only what it reads
// (pdfCompatible). Images already stored are converted the same way when they are drawn.

const pngSignature = "\x89PNG\r\n\x1a\n"

// pdfReadable reports whether gofpdf embeds the PNG raw as it is, by its own reading
// (parsepngstream in gofpdf's png.go): at most 8 bits per sample, not interlaced, one of the
// five colour types; of a palette's transparency (tRNS) it keeps only the first fully
// transparent entry, as a colour key, so a palette with partial transparency or several
// transparent entries is drawn wrong; it stops reading at the first empty chunk and reads a
// pHYs chunk as 9 bytes whatever its length.
func pdfReadable(raw []byte) bool {
	if len(raw) < len(pngSignature) || string(raw[:len(pngSignature)]) != pngSignature {
		return false
	}
	rest := raw[len(pngSignature):]
	var colourType byte
	for first := true; len(rest) >= 12; first = false {
		n := binary.BigEndian.Uint32(rest)
		kind := string(rest[4:8])
		if uint64(n) > uint64(len(rest)-12) {
			return false
		}
		data := rest[8 : 8+n]
		rest = rest[12+n:]
		switch {
		case first:
			if kind != "IHDR" || n != 13 {
				return false
			}
			depth, interlace := data[8], data[12]
			colourType = data[9]
			if depth > 8 || interlace != 0 || (colourType != 0 && colourType != 2 && colourType != 3 && colourType != 4 && colourType != 6) {
				return false
			}
		case kind == "IEND":
			return true
		case n == 0:
			return false
		case kind == "pHYs" && n != 9:
			return false
		case kind == "tRNS":
			switch colourType {
			case 0:
				if n != 2 {
					return false
				}
			case 2:
				if n != 6 {
					return false
				}
			case 3:
				transparent := 0
				for _, a := range data {
					if a == 0 {
						transparent++
					} else if a != 255 {
						return false
					}
				}
				if transparent > 1 {
					return false
				}
			default:
				return false
			}
		}
	}
	return false
}

// pdfCompatible returns img in a form that image/png encodes as gofpdf reads it: image/png
// writes 8 bits per sample at most and never interlaces, but keeps a palette's partial
// transparency, which gofpdf would drop, so such a palette becomes RGBA.
func pdfCompatible(img image.Image) image.Image {
	p, ok := img.(*image.Paletted)
	if !ok {
		return img
	}
	transparent := 0
	for _, c := range p.Palette {
		switch _, _, _, a := c.RGBA(); a {
		case 0:
			transparent++
		case 0xffff:
		default:
			transparent = 2
		}
	}
	if transparent <= 1 {
		return img
	}
	out := image.NewNRGBA(p.Bounds())
	draw.Draw(out, out.Bounds(), p, p.Bounds().Min, draw.Src)
	return out
}
