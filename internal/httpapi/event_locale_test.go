package httpapi_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/certhub/credentiald/internal/testkit"
)

// An event speaks the locale it names; one that names none takes the branding's
// defaultLocale, else English; a locale the service does not speak is refused, naming the field.
func TestEventLocaleDefaultsFromBrandingAndRefusesOthers(t *testing.T) {
	t.Parallel()
	env := testkit.NewServer(t)
	acct := testkit.SignUp(t, env)
	tmpl := acct.Template(t, env).String()
	type localeBody struct {
		Data struct {
			ID     string `json:"id"`
			Locale string `json:"locale"`
		} `json:"data"`
	}
	create := func(body map[string]any) (int, localeBody) {
		t.Helper()
		body["name"], body["eventDate"], body["templateId"] = "Go Conference", "2026-11-12T09:00:00Z", tmpl
		res := acct.Client.Post("/api/v1/events", body)
		var ev localeBody
		if res.StatusCode == 201 {
			res.JSON(t, &ev)
		}
		return res.StatusCode, ev
	}
	code, ev := create(map[string]any{})
	require.Equal(t, 201, code, "no branding, no locale: status")
	require.Equal(t, "en", ev.Data.Locale, "no branding, no locale: ev.Data.Locale")
	code, ev = create(map[string]any{"locale": "zh-Hans"})
	require.Equal(t, 201, code, "named locale: status")
	require.Equal(t, "zh-Hans", ev.Data.Locale, "named locale: ev.Data.Locale")

	res := acct.Client.Put("/api/v1/branding", map[string]any{"defaultLocale": "de"})
	require.Equal(t, 200, res.StatusCode, "branding: status (body %s)", res.Body)
	require.Contains(t, string(res.Body), `"defaultLocale":"de"`, "branding: body")
	code, ev = create(map[string]any{})
	require.Equal(t, 201, code, "branding default de: status")
	require.Equal(t, "de", ev.Data.Locale, "branding default de: ev.Data.Locale")
	path := "/api/v1/events/" + ev.Data.ID
	res = acct.Client.Put(path, map[string]any{"name": "Go Conference", "eventDate": "2026-11-12T09:00:00Z", "templateId": tmpl, "locale": "ja"})
	require.Equal(t, 200, res.StatusCode, "replace with ja: status (body %s)", res.Body)
	require.Contains(t, string(res.Body), `"locale":"ja"`, "replace with ja: body")
	if res := acct.Client.Get(path); !strings.Contains(string(res.Body), `"locale":"ja"`) {
		t.Fatalf("stored locale: %s", res.Body)
	}

	for _, bad := range []any{"xx", "de-DE", "zh", "", 7} {
		res := acct.Client.Post("/api/v1/events", map[string]any{"name": "E", "eventDate": "2026-11-12T09:00:00Z", "templateId": tmpl, "locale": bad})
		e := wantError(t, res, 400, res.StatusCode, "VALIDATION_ERROR")
		require.NotEmpty(t, e.Error.Details, "locale %v: e.Error.Details", bad)
		require.Equal(t, "body.locale", e.Error.Details[0].Field, "locale %v: e.Error.Details[0].Field", bad)
	}
	res = acct.Client.Put("/api/v1/branding", map[string]any{"defaultLocale": "klingon"})
	wantError(t, res, 400, res.StatusCode, "VALIDATION_ERROR")
	// An omitted defaultLocale clears it (the branding is replaced as a whole): English again.
	res = acct.Client.Put("/api/v1/branding", map[string]any{})
	require.Equal(t, 200, res.StatusCode, "cleared branding: status (body %s)", res.Body)
	require.Contains(t, string(res.Body), `"defaultLocale":null`, "cleared branding: body")
	code, ev = create(map[string]any{})
	require.Equal(t, 201, code, "cleared default: status")
	require.Equal(t, "en", ev.Data.Locale, "cleared default: ev.Data.Locale")
}
