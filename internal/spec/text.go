package spec

import (
	"fmt"
	"unicode"
)

// SingleLineFormat is the contract's string format for names, titles and other text that
// stands on one line: on a certificate, in an email header, in a list.
const SingleLineFormat = "single-line"

// SingleLineError names the first character that single-line text may not hold.
type SingleLineError struct {
	Rune     rune
	Position int // 1-based, in characters
}

func (e *SingleLineError) Error() string {
	return fmt.Sprintf("must be one line of text: character %d is %U (%s), which is not allowed; remove it",
		e.Position, e.Rune, refusedKind(e.Rune))
}

// CheckSingleLine enforces the `single-line` format: no control characters (line breaks and
// tabs included), no line or paragraph separator (U+2028, U+2029), no bidirectional override
// or isolate (U+202A..U+202E, U+2066..U+2069) and no U+FEFF. Every other character is kept,
// the joiners U+200C and U+200D and emoji included. The JSON validator and the CSV importer
// both call it, so the rule has one definition.
func CheckSingleLine(v string) error {
	pos := 0
	for _, r := range v {
		pos++
		if refusedKind(r) != "" {
			return &SingleLineError{Rune: r, Position: pos}
		}
	}
	return nil
}

// refusedKind describes a character single-line text may not hold, or is empty when it may.
func refusedKind(r rune) string {
	switch {
	case r == '\n' || r == '\r':
		return "a line break"
	case r == '\t':
		return "a tab"
	case unicode.IsControl(r):
		return "a control character"
	case r == '\u2028' || r == '\u2029':
		return "a line or paragraph separator"
	case r >= '\u202A' && r <= '\u202E':
		return "a bidirectional embedding or override"
	case r >= '\u2066' && r <= '\u2069':
		return "a bidirectional isolate"
	case r == '\uFEFF':
		return "a zero-width no-break space or byte order mark"
	}
	return ""
}

type singleLineFormat struct{}

func (singleLineFormat) Validate(v string) error { return CheckSingleLine(v) }
