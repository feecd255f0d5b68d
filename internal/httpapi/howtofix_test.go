package httpapi_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/certhub/credentiald/internal/testkit"
)

// A value refused by a pattern is told what is expected in words, never the regular
// expression: through the JSON Schema validator, through kin-openapi's own (templates, whose
// schemas hold references), and for parameters and headers.
func TestAFailedPatternSaysWhatIsExpectedInWords(t *testing.T) {
	t.Parallel()
	env := testkit.NewServer(t)
	acct := testkit.SignUp(t, env)
	const colour, dataURI = "`#RRGGBB`", "`data:image/png;base64,...`"
	template := func(layout string) []byte {
		return []byte(`{"name":"T","pageSize":"A4","orientation":"landscape","layout":` + layout + `}`)
	}
	cases := []struct {
		name, method, path string
		body               []byte
		header             string
		field, words       string
	}{
		{"brand colour", "PUT", "/api/v1/branding", []byte(`{"primaryColor":"red"}`), "", "body.primaryColor", colour},
		{"logo of another image type", "PUT", "/api/v1/branding", []byte(`{"logo":"data:image/gif;base64,R0lGODlh"}`), "", "body.logo", dataURI},
		{"logo that is a URL", "PUT", "/api/v1/branding", []byte(`{"logo":"https://example.org/logo.png"}`), "", "body.logo", dataURI},
		{"background colour in a layout", "POST", "/api/v1/templates", template(`{"background":{"color":"#12"},"rows":[]}`), "", "body.layout.background.color", colour},
		{"text colour in a layout", "POST", "/api/v1/templates", template(`{"rows":[{"height":20,"cols":[{"size":12,"content":{"type":"text","text":"x","color":"black"}}]}]}`), "", "body.layout.rows[0].cols[0].content.color", colour},
		{"image in a layout", "POST", "/api/v1/templates", template(`{"rows":[{"height":20,"cols":[{"size":12,"content":{"type":"image","image":"data:image/jpeg;base64,/9j/"}}]}]}`), "", "body.layout.rows[0].cols[0].content.image", dataURI},
		{"two-step code", "POST", "/api/v1/auth/two-factor/enable", []byte(`{"code":"12ab56"}`), "", "body.code", "six digits"},
		{"verification code in a path", "GET", "/api/v1/verify/ab%20cd", nil, "", "path.code", "letters, digits or hyphens"},
		{"idempotency key", "POST", "/api/v1/certificates/generate", []byte(`{}`), "clé-1", "header.Idempotency-Key", "printable ASCII"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			req := acct.Client.Request(c.method, c.path, c.body)
			if c.header != "" {
				req.Header.Set("Idempotency-Key", c.header)
			}
			res := acct.Client.Do(req)
			e := wantError(t, res, 400, res.StatusCode, "VALIDATION_ERROR")
			if !hasDetail(e, c.field, c.words) {
				t.Fatalf("want a detail on %s saying %s: %s", c.field, c.words, res.Body)
			}
			require.NotContains(t, string(res.Body), "[0-9", "the answer shows the regular expression")
			require.NotContains(t, string(res.Body), "pattern", "the answer shows the regular expression")
		})
	}
}
