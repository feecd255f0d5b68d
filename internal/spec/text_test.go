package spec

import "testing"

func TestSingleLineRefusesExactlyTheInvisibleAndLineBreakingCharacters(t *testing.T) {
	refused := []rune{0x00, '\t', '\n', '\r', 0x1B, 0x7F, 0x85, 0x9F, 0x2028, 0x2029,
		0x202A, 0x202B, 0x202C, 0x202D, 0x202E, 0x2066, 0x2067, 0x2068, 0x2069, 0xFEFF}
	for _, r := range refused {
		err := CheckSingleLine("Ada " + string(r) + " Lovelace")
		if se, ok := err.(*SingleLineError); !ok || se.Rune != r || se.Position != 5 {
			t.Errorf("%U: %v", r, err)
		}
	}
	kept := []string{"Ada Lovelace", "👩\u200d💻", "می\u200cخواهم", "עדה\u200f", "\u200e", "\u00a0", "\u2027", "\u202f",
		"\u2065", "\u206a", "\ufffd", "𠮷", "e\u0301"}
	for _, s := range kept {
		if err := CheckSingleLine(s); err != nil {
			t.Errorf("%q: %v", s, err)
		}
	}
}

func TestEveryPatternSaysInWordsWhatItAccepts(t *testing.T) {
	d, err := PatternDescriptions()
	if err != nil {
		t.Fatal(err)
	}
	if len(d) == 0 {
		t.Fatal("no patterns found in the contract")
	}
	if got := PatternMessage("^#[0-9A-Fa-f]{6}$"); got != "must be a colour written `#RRGGBB`: `#` and six hexadecimal digits, for example `#1F2A44`" {
		t.Fatalf("colour: %q", got)
	}
}
