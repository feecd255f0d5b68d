package render

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"hash/crc32"
	"image"
)

// encodeOpaquePNG encodes an opaque image as an 8-bit RGB PNG with every row filtered by Sub
// (the difference from the pixel on the left) and compressed at zlib's best speed. image/png
// tries all five filters on every row and keeps the best: on a share card that took much of
// the card's time for a few per cent of its size, and one filter costs well under half as
// much (docs/benchmarks.md, Figures behind design choices).
func encodeOpaquePNG(img *image.RGBA) ([]byte, error) {
	w, h := img.Rect.Dx(), img.Rect.Dy()
	var out bytes.Buffer
	out.WriteString("\x89PNG\r\n\x1a\n")
	var ihdr [13]byte
	binary.BigEndian.PutUint32(ihdr[0:], uint32(w))
	binary.BigEndian.PutUint32(ihdr[4:], uint32(h))
	ihdr[8], ihdr[9] = 8, 2 // 8 bits per channel, truecolour; compression, filter, interlace 0
	writeChunk(&out, "IHDR", ihdr[:])

	var idat bytes.Buffer
	zw, err := zlib.NewWriterLevel(&idat, zlib.BestSpeed)
	if err != nil {
		return nil, err
	}
	row := make([]byte, 1+3*w)
	row[0] = 1 // Sub
	for y := range h {
		p := img.Pix[img.PixOffset(img.Rect.Min.X, img.Rect.Min.Y+y):]
		var l0, l1, l2 byte
		for x := range w {
			r, g, b := p[4*x], p[4*x+1], p[4*x+2]
			row[1+3*x], row[2+3*x], row[3+3*x] = r-l0, g-l1, b-l2
			l0, l1, l2 = r, g, b
		}
		if _, err := zw.Write(row); err != nil {
			return nil, err
		}
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	writeChunk(&out, "IDAT", idat.Bytes())
	writeChunk(&out, "IEND", nil)
	return out.Bytes(), nil
}

func writeChunk(w *bytes.Buffer, kind string, data []byte) {
	var n [4]byte
	binary.BigEndian.PutUint32(n[:], uint32(len(data)))
	w.Write(n[:])
	crc := crc32.NewIEEE()
	crc.Write([]byte(kind))
	crc.Write(data)
	w.WriteString(kind)
	w.Write(data)
	binary.BigEndian.PutUint32(n[:], crc.Sum32())
	w.Write(n[:])
}
