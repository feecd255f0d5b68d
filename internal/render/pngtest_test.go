package render

import (
	"bytes"
	"compress/zlib"
	"encoding/base64"
	"encoding/binary"
	"hash/crc32"
	"image"
	"image/color"
)

// Test images written byte by byte, for the PNG variants image/png does not write
// (interlaced, grey with alpha, 16-bit grey, bit depths under 8, any tRNS chunk) and for
// images whose header promises more than their data holds.

// pngSpec is how writePNG encodes an image.
type pngSpec struct {
	colourType, depth byte // as in the PNG header: 0 grey, 2 RGB, 3 palette, 4 grey and alpha, 6 RGBA
	interlace         bool // Adam7
	palette           color.Palette
	trns              []byte // the tRNS chunk's data, when set
}

// adam7 are the interlacing passes: first column and row, column and row steps.
var adam7 = [7][4]int{{0, 0, 8, 8}, {4, 0, 8, 8}, {0, 4, 4, 8}, {2, 0, 4, 4}, {0, 2, 2, 4}, {1, 0, 2, 2}, {0, 1, 1, 2}}

// writePNG encodes img as spec says: each pixel's samples are taken from its 16-bit
// non-premultiplied colour (grey from its red channel; a palette's index is its nearest colour).
func writePNG(img image.Image, spec pngSpec) []byte {
	b := img.Bounds()
	var raw bytes.Buffer
	row := func(y, x0, dx int) {
		raw.WriteByte(0) // filter: none
		var acc, bits uint32
		put := func(v uint32) {
			acc, bits = acc<<spec.depth|v>>(16-spec.depth), bits+uint32(spec.depth)
			for bits >= 8 {
				raw.WriteByte(byte(acc >> (bits - 8)))
				bits -= 8
			}
		}
		for x := x0; x < b.Dx(); x += dx {
			c := color.NRGBA64Model.Convert(img.At(b.Min.X+x, b.Min.Y+y)).(color.NRGBA64)
			switch spec.colourType {
			case 0:
				put(uint32(c.R))
			case 2:
				put(uint32(c.R))
				put(uint32(c.G))
				put(uint32(c.B))
			case 3:
				put(uint32(spec.palette.Index(c)) << (16 - spec.depth))
			case 4:
				put(uint32(c.R))
				put(uint32(c.A))
			case 6:
				put(uint32(c.R))
				put(uint32(c.G))
				put(uint32(c.B))
				put(uint32(c.A))
			}
		}
		if bits > 0 {
			raw.WriteByte(byte(acc << (8 - bits)))
		}
	}
	interlace := byte(0)
	if spec.interlace {
		interlace = 1
		for _, p := range adam7 {
			if p[0] >= b.Dx() || p[1] >= b.Dy() {
				continue // an empty pass has no rows
			}
			for y := p[1]; y < b.Dy(); y += p[3] {
				row(y, p[0], p[2])
			}
		}
	} else {
		for y := range b.Dy() {
			row(y, 0, 1)
		}
	}
	var out bytes.Buffer
	out.WriteString(pngSignature)
	appendChunk(&out, "IHDR", pngHeader(b.Dx(), b.Dy(), spec.depth, spec.colourType, interlace))
	if spec.colourType == 3 {
		var plte []byte
		for _, c := range spec.palette {
			n := color.NRGBAModel.Convert(c).(color.NRGBA)
			plte = append(plte, n.R, n.G, n.B)
		}
		appendChunk(&out, "PLTE", plte)
	}
	if spec.trns != nil {
		appendChunk(&out, "tRNS", spec.trns)
	}
	appendChunk(&out, "IDAT", deflate(raw.Bytes()))
	appendChunk(&out, "IEND", nil)
	return out.Bytes()
}

// bombPNG is a PNG whose header promises w x h pixels of RGBA at depth bits per channel and
// whose data holds nothing: all that judging an image may read is its header (a decoder that
// trusted it would take the pixels' memory before finding the data short).
func bombPNG(w, h int, depth byte) []byte {
	var out bytes.Buffer
	out.WriteString(pngSignature)
	appendChunk(&out, "IHDR", pngHeader(w, h, depth, 6, 0))
	appendChunk(&out, "IDAT", deflate(nil))
	appendChunk(&out, "IEND", nil)
	return out.Bytes()
}

// flatPNG16 is a PNG of w x h transparent pixels of 16 bits per channel (RGBA), which
// decodes to 8 bytes a pixel from a file of a few hundred bytes a megapixel; a comment
// different for each text makes otherwise equal images distinct.
func flatPNG16(w, h int, text string) []byte {
	rows := make([]byte, h*(1+8*w))
	var out bytes.Buffer
	out.WriteString(pngSignature)
	appendChunk(&out, "IHDR", pngHeader(w, h, 16, 6, 0))
	appendChunk(&out, "tEXt", []byte("Comment\x00"+text))
	appendChunk(&out, "IDAT", deflate(rows))
	appendChunk(&out, "IEND", nil)
	return out.Bytes()
}

func pngHeader(w, h int, depth, colourType, interlace byte) []byte {
	b := binary.BigEndian.AppendUint32(binary.BigEndian.AppendUint32(nil, uint32(w)), uint32(h))
	return append(b, depth, colourType, 0, 0, interlace)
}

func appendChunk(out *bytes.Buffer, kind string, data []byte) {
	out.Write(binary.BigEndian.AppendUint32(nil, uint32(len(data))))
	out.WriteString(kind)
	out.Write(data)
	out.Write(binary.BigEndian.AppendUint32(nil, crc32.ChecksumIEEE(append([]byte(kind), data...))))
}

func deflate(b []byte) []byte {
	var out bytes.Buffer
	zw, _ := zlib.NewWriterLevel(&out, zlib.BestSpeed)
	zw.Write(b)
	zw.Close()
	return out.Bytes()
}

func pngURI(b []byte) string { return "data:image/png;base64," + base64.StdEncoding.EncodeToString(b) }

func svgURI(svg string) string {
	return "data:image/svg+xml;base64," + base64.StdEncoding.EncodeToString([]byte(svg))
}
