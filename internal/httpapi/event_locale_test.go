package httpapi_test

import (
	"strings"
	"testing"

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
	if code, ev := create(map[string]any{}); code != 201 || ev.Data.Locale != "en" {
		t.Fatalf("no branding, no locale: %d %+v; want en", code, ev)
	}
	if code, ev := create(map[string]any{"locale": "zh-Hans"}); code != 201 || ev.Data.Locale != "zh-Hans" {
		t.Fatalf("named locale: %d %+v", code, ev)
	}

	res := acct.Client.Put("/api/v1/branding", map[string]any{"defaultLocale": "de"})
	if res.StatusCode != 200 || !strings.Contains(string(res.Body), `"defaultLocale":"de"`) {
		t.Fatalf("branding: %d %s", res.StatusCode, res.Body)
	}
	code, ev := create(map[string]any{})
	if code != 201 || ev.Data.Locale != "de" {
		t.Fatalf("branding default de: %d %+v", code, ev)
	}
	path := "/api/v1/events/" + ev.Data.ID
	res = acct.Client.Put(path, map[string]any{"name": "Go Conference", "eventDate": "2026-11-12T09:00:00Z", "templateId": tmpl, "locale": "ja"})
	if res.StatusCode != 200 || !strings.Contains(string(res.Body), `"locale":"ja"`) {
		t.Fatalf("replace with ja: %d %s", res.StatusCode, res.Body)
	}
	if res := acct.Client.Get(path); !strings.Contains(string(res.Body), `"locale":"ja"`) {
		t.Fatalf("stored locale: %s", res.Body)
	}

	for _, bad := range []any{"xx", "de-DE", "zh", "", 7} {
		res := acct.Client.Post("/api/v1/events", map[string]any{"name": "E", "eventDate": "2026-11-12T09:00:00Z", "templateId": tmpl, "locale": bad})
		if e := wantError(t, res, 400, res.StatusCode, "VALIDATION_ERROR"); len(e.Error.Details) == 0 || e.Error.Details[0].Field != "body.locale" {
			t.Fatalf("locale %v: %+v", bad, e.Error.Details)
		}
	}
	res = acct.Client.Put("/api/v1/branding", map[string]any{"defaultLocale": "klingon"})
	wantError(t, res, 400, res.StatusCode, "VALIDATION_ERROR")
	// An omitted defaultLocale clears it (the branding is replaced as a whole): English again.
	if res := acct.Client.Put("/api/v1/branding", map[string]any{}); res.StatusCode != 200 || !strings.Contains(string(res.Body), `"defaultLocale":null`) {
		t.Fatalf("cleared branding: %d %s", res.StatusCode, res.Body)
	}
	if code, ev := create(map[string]any{}); code != 201 || ev.Data.Locale != "en" {
		t.Fatalf("cleared default: %d %+v", code, ev)
	}
}
