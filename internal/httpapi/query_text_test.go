package httpapi_test

import (
	"net/url"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/certhub/credentiald/internal/testkit"
)

// unreadableText is text no parameter may carry, as no body's string may (the contract's
// "Venue limits, secrets in telemetry, text in queries"), with what the refusal says of it.
var unreadableText = []struct{ name, value, says string }{
	{"NUL", "abc\x00def", "U+0000"},
	{"NotUTF8", "abc\xffdef", "not valid UTF-8 (byte 0xFF)"},
	{"ControlCharacter", "abc\x01def", "U+0001 (a control character)"},
}

// stringParameters lists op's parameters in `in` whose schema is a string, of any format.
func stringParameters(op contractOperation, in string) []*openapi3.Parameter {
	var params []*openapi3.Parameter
	for _, p := range op.Parameters {
		if v := p.Value; v.In == in && v.Schema != nil && v.Schema.Value.Type.Is("string") {
			params = append(params, v)
		}
	}
	return params
}

// pagesOutsideTheValidator are the site's HTML pages: served by hand-written handlers in parts
// of the server mounted without the request validator, and answering a refused input with the
// "not found" page.
var pagesOutsideTheValidator = map[string]string{
	"getHomePage":          "an HTML page of internal/site, which no part of the validator runs before",
	"getVerificationPage":  "an HTML page of internal/site, which no part of the validator runs before; it documents no 400",
	"getWalletInteraction": "an HTML page of internal/site, which no part of the validator runs before; it documents no 400",
}

// Every declared string query parameter of every operation, its search `q` and the public
// routes' `t` and `lang` included, refuses a NUL, a byte that is not UTF-8 and a control
// character with 400 naming it, as a body's string does: never 500 (PostgreSQL cannot take
// U+0000 in a search), never taken as sent.
func TestEveryStringQueryParameterRefusesTextNoBodyMayHold(t *testing.T) {
	t.Parallel()
	env := testkit.NewServer(t, trustLoopback())
	who := signUpWithEveryScope(t, env)
	takesText := func(op contractOperation) bool { return len(stringParameters(op, "query")) > 0 }
	forEachOperation(t, takesText, pagesOutsideTheValidator, func(t *testing.T, op contractOperation) {
		for _, p := range stringParameters(op, "query") {
			field := "query." + p.Name
			for _, bad := range unreadableText {
				t.Run(p.Name+"/"+bad.name, func(t *testing.T) {
					req := op.request(t, env, op.Path)
					q := req.URL.Query()
					q.Set(p.Name, bad.value)
					req.URL.RawQuery = q.Encode()
					res := clientFor(t, env, who.bearerFor(op)).Do(req)
					wantRefusal(t, res, 400, "VALIDATION_ERROR")
					if e := decodeError(t, res); !hasDetail(e, field, bad.says) {
						t.Fatalf("details %+v do not say that %s holds %s", e.Error.Details, field, bad.says)
					}
				})
			}
		}
	})
}

// A path parameter of free text (no format, pattern or values of its own: a wallet offer's
// token) refuses the same text, in every operation that documents 400; the others, UUIDs and
// verification codes, refuse it by their own shapes (every_operation_test.go).
func TestEveryFreeTextPathParameterRefusesTextNoBodyMayHold(t *testing.T) {
	t.Parallel()
	env := testkit.NewServer(t, trustLoopback())
	freeText := func(op contractOperation) []*openapi3.Parameter {
		var params []*openapi3.Parameter
		for _, p := range stringParameters(op, "path") {
			if s := p.Schema.Value; s.Format == "" && s.Pattern == "" && len(s.Enum) == 0 {
				params = append(params, p)
			}
		}
		return params
	}
	takesFreeText := func(op contractOperation) bool {
		return op.documents(400) && len(freeText(op)) > 0
	}
	forEachOperation(t, takesFreeText, nil, func(t *testing.T, op contractOperation) {
		for _, p := range freeText(op) {
			for _, bad := range unreadableText {
				t.Run(p.Name+"/"+bad.name, func(t *testing.T) {
					path := strings.ReplaceAll(op.Path, "{"+p.Name+"}", url.PathEscape(bad.value))
					res := clientFor(t, env, "").Do(op.request(t, env, path))
					wantRefusal(t, res, 400, "VALIDATION_ERROR")
					if e := decodeError(t, res); !hasDetail(e, "path."+p.Name, bad.says) {
						t.Fatalf("details %+v do not say that path.%s holds %s", e.Error.Details, p.Name, bad.says)
					}
				})
			}
		}
	})
}
