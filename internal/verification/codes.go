package verification

import "strings"

// MaxCodeLength is the longest code the contract accepts (codes issued here have 13 characters).
const MaxCodeLength = 64

// NormalizeCode reads a verification code as people type it: case-insensitively, as Crockford
// base32 (I and L are 1, O is 0; hyphens and spaces are separators). ok is false when the input
// is not the shape the contract gives a code (letters, digits and hyphens, 1 to 64 of them).
// A well-shaped code may still hold a letter Crockford's alphabet lacks (U): no stored code
// has one, so it is simply not found.
func NormalizeCode(raw string) (code string, ok bool) {
	if raw == "" || len(raw) > MaxCodeLength {
		return "", false
	}
	var b strings.Builder
	b.Grow(len(raw))
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		switch {
		case c >= '0' && c <= '9':
		case c >= 'a' && c <= 'z':
			c -= 'a' - 'A'
		case c >= 'A' && c <= 'Z':
		case c == '-':
			continue
		default:
			return "", false
		}
		switch c {
		case 'I', 'L':
			c = '1'
		case 'O':
			c = '0'
		}
		b.WriteByte(c)
	}
	if b.Len() == 0 {
		return "", false
	}
	return b.String(), true
}

// NormalizeTypedCode is NormalizeCode for a code typed into a form, where spaces around and
// inside it are common.
func NormalizeTypedCode(raw string) (string, bool) {
	return NormalizeCode(strings.Join(strings.Fields(raw), "-"))
}
