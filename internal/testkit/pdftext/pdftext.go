// Package pdftext extracts the text of a PDF for tests: it reads the page content streams and
// decodes every shown string through its font's ToUnicode map, with the full 16-bit arithmetic
// of bfrange entries (the reader library wraps ranges at 256, which garbles most scripts).
package pdftext

import (
	"bytes"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf16"

	"github.com/ledongthuc/pdf"
)

// Text returns the strings the PDF shows, one line per text operator, page after page.
func Text(b []byte) (string, error) {
	r, err := pdf.NewReader(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		return "", fmt.Errorf("the PDF does not parse: %w", err)
	}
	var out strings.Builder
	for i := 1; i <= r.NumPage(); i++ {
		page := r.Page(i)
		fonts := map[string]*toUnicode{}
		res := page.Resources().Key("Font")
		for _, name := range res.Keys() {
			fonts[name] = readToUnicode(res.Key(name).Key("ToUnicode"))
		}
		var current *toUnicode
		show := func(v pdf.Value) {
			out.WriteString(current.decode(v.RawString()))
			out.WriteString("\n")
		}
		contents := page.V.Key("Contents")
		streams := []pdf.Value{contents}
		if contents.Kind() == pdf.Array {
			streams = streams[:0]
			for j := 0; j < contents.Len(); j++ {
				streams = append(streams, contents.Index(j))
			}
		}
		for _, s := range streams {
			pdf.Interpret(s, func(stk *pdf.Stack, op string) {
				n := stk.Len()
				args := make([]pdf.Value, n)
				for k := n - 1; k >= 0; k-- {
					args[k] = stk.Pop()
				}
				switch op {
				case "Tf":
					if n == 2 {
						current = fonts[args[0].Name()]
					}
				case "Tj", "'":
					if n >= 1 {
						show(args[n-1])
					}
				case "TJ":
					if n == 1 {
						for k := 0; k < args[0].Len(); k++ {
							if v := args[0].Index(k); v.Kind() == pdf.String {
								show(v)
							}
						}
					}
				}
			})
		}
	}
	return out.String(), nil
}

type span struct{ lo, hi, dst int }

// toUnicode is a font's ToUnicode CMap with 2-byte codes; nil means a simple 1-byte font.
type toUnicode struct {
	ranges []span
	chars  map[int][]rune
}

var (
	rangeEntry = regexp.MustCompile(`<([0-9A-Fa-f]{4})>\s*<([0-9A-Fa-f]{4})>\s*<([0-9A-Fa-f]+)>`)
	block      = regexp.MustCompile(`(?s)begin(bfrange|bfchar)(.*?)end(bfrange|bfchar)`)
	charEntry  = regexp.MustCompile(`<([0-9A-Fa-f]{4})>\s*<([0-9A-Fa-f]+)>`)
)

func readToUnicode(v pdf.Value) *toUnicode {
	if v.Kind() != pdf.Stream {
		return nil
	}
	rc := v.Reader()
	defer rc.Close()
	data, err := io.ReadAll(rc)
	if err != nil {
		return nil
	}
	t := &toUnicode{chars: map[int][]rune{}}
	for _, b := range block.FindAllStringSubmatch(string(data), -1) {
		if b[1] == "bfrange" {
			for _, m := range rangeEntry.FindAllStringSubmatch(b[2], -1) {
				lo, _ := strconv.ParseInt(m[1], 16, 32)
				hi, _ := strconv.ParseInt(m[2], 16, 32)
				dst, _ := strconv.ParseInt(m[3], 16, 32)
				t.ranges = append(t.ranges, span{int(lo), int(hi), int(dst)})
			}
			continue
		}
		for _, m := range charEntry.FindAllStringSubmatch(b[2], -1) {
			src, _ := strconv.ParseInt(m[1], 16, 32)
			t.chars[int(src)] = utf16Hex(m[2])
		}
	}
	return t
}

func utf16Hex(h string) []rune {
	var units []uint16
	for i := 0; i+4 <= len(h); i += 4 {
		u, _ := strconv.ParseUint(h[i:i+4], 16, 16)
		units = append(units, uint16(u))
	}
	return utf16.Decode(units)
}

func (t *toUnicode) decode(raw string) string {
	if t == nil {
		return raw
	}
	var units []uint16
	for i := 0; i+1 < len(raw); i += 2 {
		code := int(raw[i])<<8 | int(raw[i+1])
		if rs, ok := t.chars[code]; ok {
			for _, r := range rs {
				units = append(units, utf16.Encode([]rune{r})...)
			}
			continue
		}
		for _, s := range t.ranges {
			if code >= s.lo && code <= s.hi {
				units = append(units, uint16(s.dst+code-s.lo))
				break
			}
		}
	}
	return string(utf16.Decode(units))
}
