package etag_test

import (
	"testing"

	"github.com/certhub/credentiald/internal/etag"
)

func TestMatches(t *testing.T) {
	const tag = `"a1b2"`
	for _, c := range []struct {
		header string
		want   bool
	}{
		{``, false},
		{` `, false},
		{tag, true},
		{`W/` + tag, true},
		{`"other", ` + tag, true},
		{`"other" ,W/` + tag + ` `, true},
		{`*`, true},
		{`"other"`, false},
		{`a1b2`, false}, // unquoted: not the tag
		{`,`, false},
	} {
		if got := etag.Matches(c.header, tag); got != c.want {
			t.Errorf("Matches(%q, %s) = %v, want %v", c.header, tag, got, c.want)
		}
	}
}
