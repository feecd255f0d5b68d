package httpmw

import (
	"testing"

	"github.com/certhub/credentiald/internal/spec"
)

// The hot operations are validated without compiling a JSON Schema 2020-12 validator per
// request, and an operation whose input uses a newer keyword keeps that validator.
func TestPlainOperationsSkipTheCompiledValidatorOnlyWhereItChecksNothingMore(t *testing.T) {
	doc, err := spec.Load()
	if err != nil {
		t.Fatal(err)
	}
	plain := plainOperations(spec.WithFullPaths(doc))
	for _, route := range []string{"GET /api/v1/certificates/:id", "POST /api/v1/certificates/generate", "POST /api/v1/attendees/import"} {
		if !plain[route] {
			t.Errorf("%s is not plain", route)
		}
	}
	n := 0
	for route, ok := range plain {
		if ok {
			n++
		} else {
			t.Logf("keeps the 2020-12 validator: %s", route)
		}
	}
	if n == len(plain) {
		t.Error("every operation is plain: the check finds no newer keyword anywhere, is it looking?")
	}
	t.Logf("%d of %d operations plain", n, len(plain))
}
