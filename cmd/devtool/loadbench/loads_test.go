package loadbench

import (
	"slices"
	"testing"
)

// The loads named run with those they need: the reads and latency bring issue, issue brings
// latency; none named runs all; a name that is no load is refused with the names there are.
func TestChosenLoadsBringWhatTheyNeed(t *testing.T) {
	for _, c := range []struct {
		works []string
		want  []string
	}{
		{nil, []string{"import", "issue", "job", "latency", "lookup", "page", "verify"}},
		{[]string{"job"}, []string{"job"}},
		{[]string{"page"}, []string{"issue", "page"}},
		{[]string{"latency"}, []string{"issue", "latency"}},
		{[]string{"issue", "import"}, []string{"import", "issue", "latency"}},
	} {
		run, err := chosen(c.works)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for name, on := range run {
			if on {
				got = append(got, name)
			}
		}
		if slices.Sort(got); !slices.Equal(got, c.want) {
			t.Errorf("%v: runs %v, want %v", c.works, got, c.want)
		}
	}
	if _, err := chosen([]string{"pages"}); err == nil {
		t.Error("a load named pages ran")
	}
}
