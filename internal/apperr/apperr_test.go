package apperr_test

import (
	"testing"

	"github.com/certhub/credentiald/internal/apperr"
)

func TestCountAgreesWithItsNumber(t *testing.T) {
	for n, want := range map[int]string{0: "0 seconds", 1: "1 second", 2: "2 seconds", 61: "61 seconds"} {
		if got := apperr.Count(n, "second", "seconds"); got != want {
			t.Errorf("Count(%d) = %q, want %q", n, got, want)
		}
	}
}
