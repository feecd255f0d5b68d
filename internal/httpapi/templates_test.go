package httpapi_test

import (
	"bytes"
	"image/png"
	"net/http"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/certhub/credentiald/internal/render"
	"github.com/certhub/credentiald/internal/testkit"
	"github.com/certhub/credentiald/internal/testkit/pdftext"
)

type templateBody struct {
	Data struct {
		ID, Name, PageSize, Orientation string
		Active, System                  bool
		Layout                          struct {
			Rows []struct{ Height float64 }
		}
	}
}

func layout(texts ...string) map[string]any {
	rows := []any{}
	for _, t := range texts {
		rows = append(rows, map[string]any{"height": 30, "cols": []any{map[string]any{"size": 12, "content": map[string]any{"type": "text", "text": t, "fontSize": 20}}}})
	}
	rows = append(rows, map[string]any{"height": 40, "cols": []any{
		map[string]any{"size": 6, "content": map[string]any{"type": "signature", "name": "Grace Hopper", "title": "Chair"}},
		map[string]any{"size": 6, "content": map[string]any{"type": "qr", "align": "right"}}}})
	return map[string]any{"background": map[string]any{"color": "#FFFFFF", "border": map[string]any{"style": "double"}}, "rows": rows}
}

func TestTemplateLifecycle(t *testing.T) {
	t.Parallel()
	env := testkit.NewServer(t)
	acct := testkit.SignUp(t, env)

	res := acct.Client.Post("/api/v1/templates", map[string]any{"name": "Workshop", "layout": layout("Certificate", "{{recipient.fullName}}")})
	var tb templateBody
	res.JSON(t, &tb)
	if res.StatusCode != 201 || tb.Data.System || !tb.Data.Active || tb.Data.PageSize != "A4" || tb.Data.Orientation != "landscape" ||
		res.Header.Get("Location") != "/api/v1/templates/"+tb.Data.ID || len(tb.Data.Layout.Rows) != 3 {
		t.Fatalf("create: %d %s", res.StatusCode, res.Body)
	}
	path := "/api/v1/templates/" + tb.Data.ID

	res = acct.Client.Put(path, map[string]any{"name": "Workshop (old)", "active": false, "pageSize": "LETTER", "orientation": "portrait",
		"layout": layout("{{event.name}}")})
	tb = templateBody{}
	res.JSON(t, &tb)
	if res.StatusCode != 200 || tb.Data.Active || tb.Data.PageSize != "LETTER" || len(tb.Data.Layout.Rows) != 2 {
		t.Fatalf("replace: %d %s", res.StatusCode, res.Body)
	}
	acct.Client.Post("/api/v1/templates", map[string]any{"name": "Current", "layout": layout("x")})

	var page struct {
		Data []struct{ Name string }
		Meta struct{ Total int }
	}
	acct.Client.Get("/api/v1/templates").JSON(t, &page)
	if page.Meta.Total != 2 || page.Data[0].Name != "Current" {
		t.Fatalf("list: %+v", page)
	}
	acct.Client.Get("/api/v1/templates?active=false").JSON(t, &page)
	if page.Meta.Total != 1 || page.Data[0].Name != "Workshop (old)" {
		t.Fatalf("inactive: %+v", page)
	}

	res = acct.Client.Post(path+"/duplicate", nil)
	var dup templateBody
	res.JSON(t, &dup)
	if res.StatusCode != 201 || dup.Data.Name != "Workshop (old) (copy)" || dup.Data.ID == tb.Data.ID || !dup.Data.Active {
		t.Fatalf("duplicate: %d %s", res.StatusCode, res.Body)
	}

	// A template in use is kept; once nothing uses it, it goes.
	res = acct.Client.Post("/api/v1/events", map[string]any{"name": "E", "eventDate": "2026-11-12T09:00:00Z", "templateId": tb.Data.ID})
	var ev eventBody
	res.JSON(t, &ev)
	res = acct.Client.Delete(path)
	wantError(t, res, 409, res.StatusCode, "CONFLICT")
	acct.Client.Delete("/api/v1/events/" + ev.Data.ID)
	if res := acct.Client.Delete(path); res.StatusCode != 204 {
		t.Fatalf("delete: %d %s", res.StatusCode, res.Body)
	}
	res = acct.Client.Get(path)
	wantError(t, res, 404, res.StatusCode, "NOT_FOUND")
}

func TestTemplatesRefuseUnknownPlaceholdersAndPagesThatDoNotFit(t *testing.T) {
	t.Parallel()
	env := testkit.NewServer(t)
	acct := testkit.SignUp(t, env)
	before := testkit.Fingerprint(t, env)
	cases := map[string]struct {
		layout map[string]any
		field  string
		msg    string
	}{
		"unknown placeholder": {layout("Hello", "{{recipient.nickname}}"), "body.layout.rows[1].cols[0].content", "unknown placeholder {{recipient.nickname}}"},
		"unclosed":            {layout("{{recipient.fullName"), "body.layout.rows[0].cols[0].content", "not closed"},
		"too tall":            {layout("a", "b", "c", "d", "e"), "body.layout.rows", "the rows are 190.0 mm tall; the page holds 180.0 mm"},
		"bad image": {map[string]any{"rows": []any{map[string]any{"height": 30, "cols": []any{map[string]any{"size": 12,
			"content": map[string]any{"type": "image", "image": "data:image/png;base64,AAAA"}}}}}}, "body.layout.rows[0].cols[0].content.image", "not a valid PNG"},
		"13 twelfths": {map[string]any{"rows": []any{map[string]any{"height": 30, "cols": []any{
			map[string]any{"size": 7, "content": map[string]any{"type": "spacer"}}, map[string]any{"size": 6, "content": map[string]any{"type": "spacer"}}}}}},
			"body.layout.rows[0].cols", "13 twelfths"},
	}
	for name, c := range cases {
		res := acct.Client.Post("/api/v1/templates", map[string]any{"name": "T", "layout": c.layout})
		e := wantError(t, res, 400, res.StatusCode, "VALIDATION_ERROR")
		if len(e.Error.Details) == 0 || e.Error.Details[0].Field != c.field || !strings.Contains(e.Error.Details[0].Message, c.msg) {
			t.Errorf("%s: %+v", name, e.Error.Details)
		}
	}
	res := acct.Client.Post("/api/v1/templates", map[string]any{"name": "T", "layout": map[string]any{"rows": []any{map[string]any{"height": 30,
		"cols": []any{map[string]any{"size": 12, "content": map[string]any{"type": "marquee"}}}}}}})
	wantError(t, res, 400, res.StatusCode, "VALIDATION_ERROR")
	if after := testkit.Fingerprint(t, env); after != before {
		t.Fatal("a refused template changed the database")
	}
}

func TestSystemTemplatesAreReadOnlyAndCopyable(t *testing.T) {
	t.Parallel()
	env := testkit.NewServer(t)
	acct := testkit.SignUp(t, env)
	_, reader := acct.APIKey(t, "templates:read")
	var list struct {
		Data []struct {
			ID, Name string
			System   bool
		}
	}
	reader.Get("/api/v1/system-templates").JSON(t, &list)
	if len(list.Data) < 3 {
		t.Fatalf("system templates: %+v", list)
	}
	names := []string{}
	classic := ""
	for _, st := range list.Data {
		names = append(names, st.Name)
		if !st.System {
			t.Errorf("%s is not marked system", st.Name)
		}
		if st.Name == "Classic" {
			classic = "/api/v1/templates/" + st.ID
		}
	}
	if strings.Join(names, ",") != "Academic Diploma,Award of Excellence,Classic,Conference Attendance,Corporate Training,Minimal,Modern,Workshop Completion" {
		t.Fatalf("names: %v", names)
	}
	if res := reader.Get(classic); res.StatusCode != 200 || !strings.Contains(string(res.Body), `"system":true`) {
		t.Fatalf("get system template: %d %s", res.StatusCode, res.Body)
	}
	res := acct.Client.Put(classic, map[string]any{"name": "Mine now", "layout": layout("x")})
	wantError(t, res, 409, res.StatusCode, "CONFLICT")
	res = acct.Client.Delete(classic)
	wantError(t, res, 409, res.StatusCode, "CONFLICT")
	res = acct.Client.Post(classic+"/duplicate", nil)
	var dup templateBody
	res.JSON(t, &dup)
	if res.StatusCode != 201 || dup.Data.System || dup.Data.Name != "Classic (copy)" {
		t.Fatalf("duplicate: %d %s", res.StatusCode, res.Body)
	}
	// An event may use a system template directly.
	res = acct.Client.Post("/api/v1/events", map[string]any{"name": "E", "eventDate": "2026-11-12T09:00:00Z", "templateId": list.Data[0].ID})
	if res.StatusCode != 201 {
		t.Fatalf("event on a system template: %d %s", res.StatusCode, res.Body)
	}
}

func TestPreviewRendersPDFOrPNGByAccept(t *testing.T) {
	t.Parallel()
	env := testkit.NewServer(t)
	acct := testkit.SignUp(t, env)
	var tb templateBody
	acct.Client.Post("/api/v1/templates", map[string]any{"name": "T", "layout": layout("{{recipient.fullName}}", "{{event.name}} · {{attendee.metadata.company}}")}).JSON(t, &tb)
	path := "/api/v1/templates/" + tb.Data.ID + "/preview"
	_, reader := acct.APIKey(t, "templates:read")

	res := reader.Post(path, nil)
	if res.StatusCode != 200 || res.Header.Get("Content-Type") != "application/pdf" {
		t.Fatalf("default preview: %d %v", res.StatusCode, res.Header)
	}
	text, err := pdftext.Text(res.Body)
	if err != nil || !strings.Contains(text, "Ada Lovelace") || !strings.Contains(text, "Sample Event · [company]") {
		t.Fatalf("default preview text (%v):\n%s", err, text)
	}

	for _, name := range [][2]string{{"Дмитрий", "Шостакович"}, {"小龙", "李"}, {"太郎", "山田"}, {"Αλέξανδρος", "Παπαδόπουλος"}} {
		res = reader.Post(path, map[string]any{"sample": map[string]any{"recipient": map[string]any{"firstName": name[0], "lastName": name[1]},
			"event": map[string]any{"name": "Go Conference"}, "metadata": map[string]string{"company": "Acme"}}})
		text, err := pdftext.Text(res.Body)
		if err != nil || !strings.Contains(text, render.FullName(name[0], name[1])) || !strings.Contains(text, "Go Conference · Acme") {
			t.Fatalf("preview of %s (%v):\n%s", name, err, text)
		}
	}

	req := reader.Request(http.MethodPost, path, nil)
	req.Header.Set("Accept", "application/pdf;q=0.5, image/png")
	res = reader.Do(req)
	if res.StatusCode != 200 || res.Header.Get("Content-Type") != "image/png" {
		t.Fatalf("png preview: %d %v", res.StatusCode, res.Header)
	}
	img, err := png.Decode(bytes.NewReader(res.Body))
	if err != nil || img.Bounds().Dx() != 1754 || img.Bounds().Dy() != 1240 {
		t.Fatalf("png: %v %v", err, img.Bounds())
	}

	res = reader.Post("/api/v1/templates/"+uuid.NewString()+"/preview", nil)
	wantError(t, res, 404, res.StatusCode, "NOT_FOUND")
}

func TestTemplatesOfAnotherAccountAreNotFound(t *testing.T) {
	t.Parallel()
	env := testkit.NewServer(t)
	alice, bob := testkit.SignUp(t, env), testkit.SignUp(t, env)
	path := "/api/v1/templates/" + bob.Template(t, env).String()
	before := testkit.Fingerprint(t, env)
	for _, res := range []interface {
		JSON(testing.TB, any)
	}{
		alice.Client.Get(path),
		alice.Client.Put(path, map[string]any{"name": "Mine", "layout": layout("x")}),
		alice.Client.Delete(path),
		alice.Client.Post(path+"/duplicate", nil),
		alice.Client.Post(path+"/preview", nil),
	} {
		var e errorBody
		res.JSON(t, &e)
		if e.Error.Code != "NOT_FOUND" {
			t.Errorf("want NOT_FOUND, got %+v", e)
		}
	}
	var page struct{ Meta struct{ Total int } }
	alice.Client.Get("/api/v1/templates").JSON(t, &page)
	if page.Meta.Total != 0 {
		t.Fatalf("alice lists bob's templates: %+v", page)
	}
	if after := testkit.Fingerprint(t, env); after != before {
		t.Fatal("another account's request changed the database")
	}
}
