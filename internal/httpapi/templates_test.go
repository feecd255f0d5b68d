package httpapi_test

import (
	"bytes"
	"image/png"
	"net/http"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

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
	require.Equal(t, 201, res.StatusCode, "create: status (body %s)", res.Body)
	require.False(t, tb.Data.System, "create: tb.Data.System")
	require.True(t, tb.Data.Active, "create: tb.Data.Active")
	require.Equal(t, "A4", tb.Data.PageSize, "create: tb.Data.PageSize")
	require.Equal(t, "landscape", tb.Data.Orientation, "create: tb.Data.Orientation")
	require.Equal(t, "/api/v1/templates/"+tb.Data.ID, res.Header.Get("Location"), "create: Location")
	require.Len(t, tb.Data.Layout.Rows, 3, "create: tb.Data.Layout.Rows")
	path := "/api/v1/templates/" + tb.Data.ID

	res = acct.Client.Put(path, map[string]any{"name": "Workshop (old)", "active": false, "pageSize": "LETTER", "orientation": "portrait",
		"layout": layout("{{event.name}}")})
	tb = templateBody{}
	res.JSON(t, &tb)
	require.Equal(t, 200, res.StatusCode, "replace: status (body %s)", res.Body)
	require.False(t, tb.Data.Active, "replace: tb.Data.Active")
	require.Equal(t, "LETTER", tb.Data.PageSize, "replace: tb.Data.PageSize")
	require.Len(t, tb.Data.Layout.Rows, 2, "replace: tb.Data.Layout.Rows")
	acct.Client.Post("/api/v1/templates", map[string]any{"name": "Current", "layout": layout("x")})

	var page struct {
		Data []struct{ Name string }
		Meta struct{ Total int }
	}
	acct.Client.Get("/api/v1/templates").JSON(t, &page)
	require.Equal(t, 2, page.Meta.Total, "list: page.Meta.Total")
	require.Equal(t, "Current", page.Data[0].Name, "list: page.Data[0].Name")
	acct.Client.Get("/api/v1/templates?active=false").JSON(t, &page)
	require.Equal(t, 1, page.Meta.Total, "inactive: page.Meta.Total")
	require.Equal(t, "Workshop (old)", page.Data[0].Name, "inactive: page.Data[0].Name")

	res = acct.Client.Post(path+"/duplicate", nil)
	var dup templateBody
	res.JSON(t, &dup)
	require.Equal(t, 201, res.StatusCode, "duplicate: status (body %s)", res.Body)
	require.Equal(t, "Workshop (old) (copy)", dup.Data.Name, "duplicate: dup.Data.Name")
	require.NotEqual(t, tb.Data.ID, dup.Data.ID, "duplicate: dup.Data.ID")
	require.True(t, dup.Data.Active, "duplicate: dup.Data.Active")

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
		if assert.NotEmpty(t, e.Error.Details, "%s: e.Error.Details", name) {
			assert.Equal(t, c.field, e.Error.Details[0].Field, "%s: e.Error.Details[0].Field", name)
			assert.Contains(t, e.Error.Details[0].Message, c.msg, "%s: e.Error.Details[0].Message", name)
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
	res := reader.Get(classic)
	require.Equal(t, 200, res.StatusCode, "get system template: status (body %s)", res.Body)
	require.Contains(t, string(res.Body), `"system":true`, "get system template: body")
	res = acct.Client.Put(classic, map[string]any{"name": "Mine now", "layout": layout("x")})
	wantError(t, res, 409, res.StatusCode, "CONFLICT")
	res = acct.Client.Delete(classic)
	wantError(t, res, 409, res.StatusCode, "CONFLICT")
	res = acct.Client.Post(classic+"/duplicate", nil)
	var dup templateBody
	res.JSON(t, &dup)
	require.Equal(t, 201, res.StatusCode, "duplicate: status (body %s)", res.Body)
	require.False(t, dup.Data.System, "duplicate: dup.Data.System")
	require.Equal(t, "Classic (copy)", dup.Data.Name, "duplicate: dup.Data.Name")
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
	require.Equal(t, 200, res.StatusCode, "default preview: status (header %v)", res.Header)
	require.Equal(t, "application/pdf", res.Header.Get("Content-Type"), "default preview: Content-Type")
	text, err := pdftext.Text(res.Body)
	require.NoError(t, err, "default preview text")
	require.Contains(t, text, "Ada Lovelace", "default preview text")
	require.Contains(t, text, "Sample Event · [company]", "default preview text")

	for _, name := range [][2]string{{"Дмитрий", "Шостакович"}, {"小龙", "李"}, {"太郎", "山田"}, {"Αλέξανδρος", "Παπαδόπουλος"}} {
		res = reader.Post(path, map[string]any{"sample": map[string]any{"recipient": map[string]any{"firstName": name[0], "lastName": name[1]},
			"event": map[string]any{"name": "Go Conference"}, "metadata": map[string]string{"company": "Acme"}}})
		text, err := pdftext.Text(res.Body)
		require.NoError(t, err, "preview of %s", name)
		require.Contains(t, text, render.FullName(name[0], name[1]), "preview of %s", name)
		require.Contains(t, text, "Go Conference · Acme", "preview of %s", name)
	}

	req := reader.Request(http.MethodPost, path, nil)
	req.Header.Set("Accept", "application/pdf;q=0.5, image/png")
	res = reader.Do(req)
	require.Equal(t, 200, res.StatusCode, "png preview: status (header %v)", res.Header)
	require.Equal(t, "image/png", res.Header.Get("Content-Type"), "png preview: Content-Type")
	img, err := png.Decode(bytes.NewReader(res.Body))
	require.NoError(t, err, "png: decoding")
	require.Equal(t, 1754, img.Bounds().Dx(), "png: width")
	require.Equal(t, 1240, img.Bounds().Dy(), "png: height")

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
