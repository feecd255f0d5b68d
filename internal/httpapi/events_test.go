package httpapi_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/certhub/credentiald/internal/testkit"
)

type eventBody struct {
	Data struct {
		ID                      string    `json:"id"`
		Name                    string    `json:"name"`
		Description             *string   `json:"description"`
		Location                *string   `json:"location"`
		EventDate               time.Time `json:"eventDate"`
		TemplateID              string    `json:"templateId"`
		CertificateValidityDays *int      `json:"certificateValidityDays"`
	} `json:"data"`
}

func TestEventLifecycle(t *testing.T) {
	t.Parallel()
	env := testkit.NewServer(t)
	acct := testkit.SignUp(t, env)
	tmpl := acct.Template(t, env).String()

	res := acct.Client.Post("/api/v1/events", map[string]any{"name": "  Go Conference  ", "description": "Two days",
		"eventDate": "2026-11-12T09:00:00+01:00", "location": "Berlin", "templateId": tmpl, "certificateValidityDays": 730})
	var ev eventBody
	res.JSON(t, &ev)
	require.Equal(t, 201, res.StatusCode, "create: status (body %s)", res.Body)
	require.Equal(t, "Go Conference", ev.Data.Name, "create: ev.Data.Name")
	require.Equal(t, "/api/v1/events/"+ev.Data.ID, res.Header.Get("Location"), `create: res.Header.Get("Location")`)
	if !strings.Contains(string(res.Body), `"eventDate":"2026-11-12T08:00:00Z"`) {
		t.Fatalf("eventDate is not UTC with Z: %s", res.Body)
	}
	path := "/api/v1/events/" + ev.Data.ID
	res = acct.Client.Get(path)
	require.Equal(t, 200, res.StatusCode, "get: status (body %s)", res.Body)
	require.Contains(t, string(res.Body), `"certificateValidityDays":730`, "get: body")

	// PUT replaces: the omitted optional fields are cleared.
	res = acct.Client.Put(path, map[string]any{"name": "Go Conference 2026", "eventDate": "2026-11-13T09:00:00Z", "templateId": tmpl})
	res.JSON(t, &ev)
	require.Equal(t, 200, res.StatusCode, "replace: status (body %s)", res.Body)
	require.Nil(t, ev.Data.Description, "replace: ev.Data.Description")
	require.Nil(t, ev.Data.Location, "replace: ev.Data.Location")
	require.Nil(t, ev.Data.CertificateValidityDays, "replace: ev.Data.CertificateValidityDays")

	res = acct.Client.Get(path + "/registration")
	if string(res.Body) != `{"data":{"capacity":null,"closesAt":null,"enabled":false,"message":null,"opensAt":null}}`+"\n" {
		t.Fatalf("default registration: %s", res.Body)
	}
	res = acct.Client.Put(path+"/registration", map[string]any{"enabled": true, "opensAt": "2026-10-01T00:00:00Z",
		"closesAt": "2026-11-10T23:59:59Z", "capacity": 300, "message": "See you in Berlin"})
	require.Equal(t, 200, res.StatusCode, "registration: status (body %s)", res.Body)
	require.Contains(t, string(res.Body), `"capacity":300`, "registration: body")
	res = acct.Client.Put(path+"/registration", map[string]any{"enabled": true, "capacity": 3_000_000_000})
	wantError(t, res, 400, res.StatusCode, "VALIDATION_ERROR")
	res = acct.Client.Put(path+"/registration", map[string]any{"enabled": true, "opensAt": "2026-11-10T00:00:00Z", "closesAt": "2026-10-01T00:00:00Z"})
	if e := wantError(t, res, 400, res.StatusCode, "VALIDATION_ERROR"); e.Error.Details[0].Field != "body.closesAt" {
		t.Fatalf("details %+v", e.Error.Details)
	}

	if res := acct.Client.Delete(path); res.StatusCode != 204 {
		t.Fatalf("delete: %d %s", res.StatusCode, res.Body)
	}
	for _, p := range []string{path, path + "/registration"} {
		res := acct.Client.Get(p)
		wantError(t, res, 404, res.StatusCode, "NOT_FOUND")
	}
}

func TestEventsArePaginatedNewestFirst(t *testing.T) {
	t.Parallel()
	env := testkit.NewServer(t)
	acct := testkit.SignUp(t, env)
	tmpl := acct.Template(t, env).String()
	for i := 1; i <= 5; i++ {
		acct.Client.Post("/api/v1/events", map[string]any{"name": fmt.Sprintf("Event %d", i), "eventDate": "2026-11-12T09:00:00Z", "templateId": tmpl})
	}
	var page struct {
		Data []struct{ Name string }
		Meta struct{ Page, PageSize, Total int }
	}
	acct.Client.Get("/api/v1/events?pageSize=2&page=1").JSON(t, &page)
	require.Equal(t, 5, page.Meta.Total, "page 1: page.Meta.Total")
	require.Equal(t, 2, page.Meta.PageSize, "page 1: page.Meta.PageSize")
	require.Len(t, page.Data, 2, "page 1: page.Data")
	require.Equal(t, "Event 5", page.Data[0].Name, "page 1: page.Data[0].Name")
	require.Equal(t, "Event 4", page.Data[1].Name, "page 1: page.Data[1].Name")
	acct.Client.Get("/api/v1/events?pageSize=2&page=3").JSON(t, &page)
	require.Equal(t, 3, page.Meta.Page, "page 3: page.Meta.Page")
	require.Len(t, page.Data, 1, "page 3: page.Data")
	require.Equal(t, "Event 1", page.Data[0].Name, "page 3: page.Data[0].Name")
	acct.Client.Get("/api/v1/events?page=9").JSON(t, &page)
	require.Empty(t, page.Data, "past the end: page.Data")
	require.Equal(t, 5, page.Meta.Total, "past the end: page.Meta.Total")
	require.Equal(t, 20, page.Meta.PageSize, "past the end: page.Meta.PageSize")
}

func TestEventsRefuseAnotherAccountsTemplateAndBlankNames(t *testing.T) {
	t.Parallel()
	env := testkit.NewServer(t)
	alice, bob := testkit.SignUp(t, env), testkit.SignUp(t, env)
	bobs := bob.Template(t, env).String()
	before := testkit.Fingerprint(t, env)
	res := alice.Client.Post("/api/v1/events", map[string]any{"name": "E", "eventDate": "2026-11-12T09:00:00Z", "templateId": bobs})
	e := wantError(t, res, 404, res.StatusCode, "NOT_FOUND")
	require.Len(t, e.Error.Details, 1, "details")
	require.Equal(t, "body.templateId", e.Error.Details[0].Field, "details")
	if after := testkit.Fingerprint(t, env); after != before {
		t.Fatal("the refused create changed the database")
	}
	res = alice.Client.Post("/api/v1/events", map[string]any{"name": "   ", "eventDate": "2026-11-12T09:00:00Z", "templateId": alice.Template(t, env).String()})
	wantError(t, res, 400, res.StatusCode, "VALIDATION_ERROR")
}

func TestAnotherAccountsEventIsNotFoundAndUnchanged(t *testing.T) {
	t.Parallel()
	env := testkit.NewServer(t)
	alice, bob := testkit.SignUp(t, env), testkit.SignUp(t, env)
	tmpl := bob.Template(t, env).String()
	var ev eventBody
	bob.Client.Post("/api/v1/events", map[string]any{"name": "Bob's", "eventDate": "2026-11-12T09:00:00Z", "templateId": tmpl}).JSON(t, &ev)
	path := "/api/v1/events/" + ev.Data.ID
	aliceTmpl := alice.Template(t, env).String()
	before := testkit.Fingerprint(t, env)
	for name, res := range map[string]func() (int, []byte){
		"get": func() (int, []byte) { r := alice.Client.Get(path); return r.StatusCode, r.Body },
		"put": func() (int, []byte) {
			r := alice.Client.Put(path, map[string]any{"name": "Mine", "eventDate": "2026-11-12T09:00:00Z", "templateId": aliceTmpl})
			return r.StatusCode, r.Body
		},
		"delete":           func() (int, []byte) { r := alice.Client.Delete(path); return r.StatusCode, r.Body },
		"get registration": func() (int, []byte) { r := alice.Client.Get(path + "/registration"); return r.StatusCode, r.Body },
		"put registration": func() (int, []byte) {
			r := alice.Client.Put(path+"/registration", map[string]any{"enabled": true})
			return r.StatusCode, r.Body
		},
	} {
		status, body := res()
		assert.Equal(t, 404, status, "%s: status (body %s)", name, body)
		assert.Contains(t, string(body), "NOT_FOUND", "%s: body", name)
	}
	if after := testkit.Fingerprint(t, env); after != before {
		t.Fatal("alice's refused requests changed the database")
	}
	if res := alice.Client.Get("/api/v1/events"); strings.Contains(string(res.Body), ev.Data.ID) {
		t.Fatalf("alice lists bob's event: %s", res.Body)
	}
}
