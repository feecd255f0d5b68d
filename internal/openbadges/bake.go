// Package openbadges holds what the Open Badges specifications fix and no library here
// provides: baking a credential into a badge image (PNG iTXt chunk, SVG element), and the
// hosted Open Badges 2.0 documents with their hashed recipient identity.
package openbadges

import (
	"bytes"
	"encoding/binary"
	"encoding/xml"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"strings"
)

// The iTXt keywords and SVG elements of the two versions: Open Badges 2.0 bakes the hosted
// assertion, 3.0 the signed credential.
const (
	PNGKeywordAssertion  = "openbadges"
	PNGKeywordCredential = "openbadgecredential"
	SVGElementAssertion  = "assertion"
	SVGElementCredential = "credential"
	// SVGNamespace is the namespace of the openbadges: prefix.
	SVGNamespace = "http://openbadges.org"
)

var pngSignature = []byte("\x89PNG\r\n\x1a\n")

// ErrNotPNG and ErrNotSVG say that an image cannot be baked as the format it claims.
var (
	ErrNotPNG = errors.New("openbadges: not a PNG image")
	ErrNotSVG = errors.New("openbadges: not an SVG image")
)

// BakePNG returns the image with one uncompressed iTXt chunk, keyword keyword, holding text,
// placed before IEND. Text chunks the image already had under either Open Badges keyword are
// left out, so that the image carries exactly one credential. The Go image encoder cannot write
// iTXt, so the chunk is written here: length, type, data and a CRC-32 over type and data.
func BakePNG(img []byte, keyword string, text []byte) ([]byte, error) {
	chunks, err := pngChunks(img)
	if err != nil {
		return nil, err
	}
	out := bytes.NewBuffer(make([]byte, 0, len(img)+len(text)+64))
	out.Write(pngSignature)
	for _, c := range chunks {
		if isBadgeText(c) {
			continue
		}
		if c.typ == "IEND" {
			data := make([]byte, 0, len(keyword)+5+len(text))
			data = append(data, keyword...)
			data = append(data, 0, 0, 0, 0, 0) // keyword end, not compressed, method 0, no language, no translated keyword
			data = append(data, text...)
			writeChunk(out, "iTXt", data)
		}
		writeChunk(out, c.typ, c.data)
	}
	return out.Bytes(), nil
}

// UnbakePNG returns the texts of the image's iTXt chunks under keyword, in order.
func UnbakePNG(img []byte, keyword string) ([][]byte, error) {
	chunks, err := pngChunks(img)
	if err != nil {
		return nil, err
	}
	var out [][]byte
	for _, c := range chunks {
		if c.typ != "iTXt" {
			continue
		}
		k, rest, ok := bytes.Cut(c.data, []byte{0})
		if !ok || string(k) != keyword || len(rest) < 2 || rest[0] != 0 {
			continue // another keyword, or compressed
		}
		// Skip compression method, then the language tag and the translated keyword.
		rest = rest[2:]
		if _, rest, ok = bytes.Cut(rest, []byte{0}); !ok {
			continue
		}
		if _, rest, ok = bytes.Cut(rest, []byte{0}); !ok {
			continue
		}
		out = append(out, rest)
	}
	return out, nil
}

type chunk struct {
	typ  string
	data []byte
}

func pngChunks(img []byte) ([]chunk, error) {
	if !bytes.HasPrefix(img, pngSignature) {
		return nil, ErrNotPNG
	}
	var out []chunk
	rest := img[len(pngSignature):]
	for len(rest) >= 12 {
		n := binary.BigEndian.Uint32(rest)
		if uint64(n) > uint64(len(rest)-12) {
			return nil, fmt.Errorf("%w: a chunk runs past the end", ErrNotPNG)
		}
		c := chunk{typ: string(rest[4:8]), data: rest[8 : 8+n]}
		if crc32.ChecksumIEEE(rest[4:8+n]) != binary.BigEndian.Uint32(rest[8+n:]) {
			return nil, fmt.Errorf("%w: chunk %q fails its CRC", ErrNotPNG, c.typ)
		}
		out = append(out, c)
		rest = rest[12+n:]
		if c.typ == "IEND" {
			return out, nil
		}
	}
	return nil, fmt.Errorf("%w: no IEND chunk", ErrNotPNG)
}

func isBadgeText(c chunk) bool {
	if c.typ != "iTXt" && c.typ != "tEXt" && c.typ != "zTXt" {
		return false
	}
	k, _, _ := bytes.Cut(c.data, []byte{0})
	return string(k) == PNGKeywordAssertion || string(k) == PNGKeywordCredential
}

func writeChunk(w *bytes.Buffer, typ string, data []byte) {
	var n [4]byte
	binary.BigEndian.PutUint32(n[:], uint32(len(data)))
	w.Write(n[:])
	crc := crc32.NewIEEE()
	crc.Write([]byte(typ))
	crc.Write(data)
	w.WriteString(typ)
	w.Write(data)
	binary.BigEndian.PutUint32(n[:], crc.Sum32())
	w.Write(n[:])
}

// BakeSVG returns the image with <openbadges:ELEMENT> as the first child of its root holding
// text in CDATA, and the openbadges namespace declared on the root. verify, when not empty,
// becomes the element's verify attribute (the hosted assertion's URL, for Open Badges 2.0).
func BakeSVG(svg []byte, element, verify string, text []byte) ([]byte, error) {
	dec := xml.NewDecoder(bytes.NewReader(svg))
	dec.Strict = true
	var root xml.StartElement
	for {
		tok, err := dec.RawToken()
		if err == io.EOF {
			return nil, ErrNotSVG
		}
		if err != nil {
			return nil, fmt.Errorf("%w: %v", ErrNotSVG, err)
		}
		if se, ok := tok.(xml.StartElement); ok {
			root = se
			break
		}
	}
	if root.Name.Local != "svg" {
		return nil, ErrNotSVG
	}
	end := int(dec.InputOffset()) // just after the root start tag's '>'
	if end < 2 || svg[end-1] != '>' || svg[end-2] == '/' {
		return nil, fmt.Errorf("%w: the root element is empty", ErrNotSVG)
	}
	declared := false
	for _, a := range root.Attr {
		if a.Name.Space == "xmlns" && a.Name.Local == "openbadges" {
			declared = true
		}
	}
	var b bytes.Buffer
	b.Write(svg[:end-1])
	if !declared {
		b.WriteString(` xmlns:openbadges="` + SVGNamespace + `"`)
	}
	b.WriteString(">")
	b.WriteString("<openbadges:" + element)
	if verify != "" {
		b.WriteString(` verify="`)
		_ = xml.EscapeText(&b, []byte(verify))
		b.WriteString(`"`)
	}
	b.WriteString("><![CDATA[")
	b.WriteString(strings.ReplaceAll(string(text), "]]>", "]]]]><![CDATA[>"))
	b.WriteString("]]></openbadges:" + element + ">")
	b.Write(svg[end:])
	return b.Bytes(), nil
}

// UnbakeSVG returns the verify attribute and text of each <openbadges:ELEMENT> in the image.
func UnbakeSVG(svg []byte, element string) (verify []string, texts [][]byte, err error) {
	dec := xml.NewDecoder(bytes.NewReader(svg))
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			return verify, texts, nil
		}
		if err != nil {
			return nil, nil, fmt.Errorf("%w: %v", ErrNotSVG, err)
		}
		se, ok := tok.(xml.StartElement)
		if !ok || se.Name.Space != SVGNamespace || se.Name.Local != element {
			continue
		}
		var el struct {
			Verify string `xml:"verify,attr"`
			Text   []byte `xml:",chardata"`
		}
		if err := dec.DecodeElement(&el, &se); err != nil {
			return nil, nil, fmt.Errorf("%w: %v", ErrNotSVG, err)
		}
		verify, texts = append(verify, el.Verify), append(texts, el.Text)
	}
}
