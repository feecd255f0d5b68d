package attendees

import (
	"fmt"
	"testing"
)

// Every character the contract names, ASCII or fullwidth, is neutralised where it leads a
// cell, and only there.
func TestNeutraliseGuardsEachFormulaCharacterAndItsFullwidthForm(t *testing.T) {
	t.Parallel()
	for _, lead := range []string{"=", "+", "-", "@", "\t", "\r", "＝", "＋", "－", "＠"} {
		t.Run(fmt.Sprintf("%U", []rune(lead)[0]), func(t *testing.T) {
			t.Parallel()
			cell := lead + "HYPERLINK(\"https://example.org\")"
			if got, want := neutralise(cell), "'"+cell; got != want {
				t.Errorf("neutralise(%q) = %q, want %q", cell, got, want)
			}
			if inside := "a" + cell; neutralise(inside) != inside {
				t.Errorf("neutralise(%q) = %q, want it unchanged", inside, neutralise(inside))
			}
		})
	}
	for _, cell := range []string{"", "Ada", "'=already", "ｆｕｌｌ", "\u3000=spaced"} {
		if got := neutralise(cell); got != cell {
			t.Errorf("neutralise(%q) = %q, want it unchanged", cell, got)
		}
	}
}
