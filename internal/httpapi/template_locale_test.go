package httpapi_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/certhub/credentiald/internal/testkit"
	"github.com/certhub/credentiald/internal/testkit/pdftext"
)

// A template's locale writes its dates; an unknown locale is refused when the template is saved.
func TestTemplateLocaleWritesTheDates(t *testing.T) {
	t.Parallel()
	env := testkit.NewServer(t)
	acct := testkit.SignUp(t, env)
	for locale, want := range map[string]string{"pl": "12 listopada 2026", "de": "12. November 2026", "ja": "2026年11月12日"} {
		l := layout("{{event.date}}")
		l["locale"] = locale
		var tb templateBody
		res := acct.Client.Post("/api/v1/templates", map[string]any{"name": "T " + locale, "layout": l})
		if res.StatusCode != 201 {
			t.Fatalf("%s: %d %s", locale, res.StatusCode, res.Body)
		}
		res.JSON(t, &tb)
		res = acct.Client.Post("/api/v1/templates/"+tb.Data.ID+"/preview", map[string]any{"sample": map[string]any{
			"event": map[string]any{"date": "2026-11-12T09:00:00Z"}}})
		text, err := pdftext.Text(res.Body)
		// Latin digits and CJK characters are set in different faces, so they come back out
		// of the PDF as separate pieces.
		require.NoError(t, err, "%s: the preview's text", locale)
		require.Contains(t, strings.Join(strings.Fields(text), ""), strings.ReplaceAll(want, " ", ""), "%s: the preview, spaces removed", locale)
	}
	l := layout("x")
	l["locale"] = "xx"
	res := acct.Client.Post("/api/v1/templates", map[string]any{"name": "T", "layout": l})
	wantError(t, res, 400, res.StatusCode, "VALIDATION_ERROR")
	if !strings.Contains(string(res.Body), "body.layout.locale") {
		t.Fatalf("the refusal does not name the field: %s", res.Body)
	}
}
