package rdfc

import (
	"strconv"
	"unicode/utf8"
)

// appendQuad appends q in canonical N-Quads form (RDFC-1.0, Appendix A) and its line feed;
// label gives each blank node's label.
func appendQuad(b []byte, q Quad, label func(id string) string) []byte {
	b = appendTerm(b, q.Subject, label)
	b = append(b, ' ')
	b = appendTerm(b, q.Predicate, label)
	b = append(b, ' ')
	b = appendTerm(b, q.Object, label)
	if q.Graph.Kind != 0 {
		b = append(b, ' ')
		b = appendTerm(b, q.Graph, label)
	}
	return append(b, " .\n"...)
}

func appendTerm(b []byte, t Term, label func(id string) string) []byte {
	switch t.Kind {
	case KindIRI:
		// IRIs are written as they are: Appendix A escapes only within literals (jsonld.js's
		// rdf-canonize and json-gold do the same).
		b = append(b, '<')
		b = append(b, t.Value...)
		return append(b, '>')
	case KindBlankNode:
		b = append(b, "_:"...)
		return append(b, label(t.Value)...)
	}
	b = append(b, '"')
	b = appendLiteralText(b, t.Value)
	b = append(b, '"')
	switch {
	case t.Language != "":
		b = append(b, '@')
		b = append(b, t.Language...)
	case t.Datatype != "" && t.Datatype != xsdString:
		b = append(b, "^^<"...)
		b = append(b, t.Datatype...)
		b = append(b, '>')
	}
	return b
}

// appendLiteralText escapes a literal's lexical form as Appendix A asks: BS, HT, LF, FF, CR,
// '"' and '\' as ECHAR; U+0000 to U+0007, VT, U+000E to U+001F, DEL and the code points that
// are not XML 1.1 Chars (U+FFFE, U+FFFF; surrogates cannot occur in valid UTF-8, which
// Canonicalize checks) as \u and four uppercase hex digits; everything else as it is. This is
// the one difference between RDFC-1.0 and URDNA2015 as json-gold wrote it (json-gold escaped
// only \ " LF CR HT).
func appendLiteralText(b []byte, s string) []byte {
	for _, r := range s {
		switch r {
		case '\b':
			b = append(b, `\b`...)
		case '\t':
			b = append(b, `\t`...)
		case '\n':
			b = append(b, `\n`...)
		case '\f':
			b = append(b, `\f`...)
		case '\r':
			b = append(b, `\r`...)
		case '"':
			b = append(b, `\"`...)
		case '\\':
			b = append(b, `\\`...)
		default:
			if r <= 0x1f || r == 0x7f || r == 0xfffe || r == 0xffff {
				hex := strconv.FormatInt(int64(r), 16)
				b = append(b, `\u`...)
				for range 4 - len(hex) {
					b = append(b, '0')
				}
				for _, c := range []byte(hex) {
					if c >= 'a' {
						c -= 'a' - 'A'
					}
					b = append(b, c)
				}
				continue
			}
			b = utf8.AppendRune(b, r)
		}
	}
	return b
}
