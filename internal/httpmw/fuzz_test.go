package httpmw

import (
	"bytes"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/labstack/echo/v4"

	"github.com/certhub/credentiald/internal/httperr"
	"github.com/certhub/credentiald/internal/spec"
)

// Any bytes sent as the JSON body of an operation go through the text checks and the contract
// validator to one of two ends: refused with a 400 or 413 in the envelope, or handed on as one
// well-formed UTF-8 JSON value. Never a 500, never a panic.
func FuzzRequestBodies(f *testing.F) {
	doc := spec.MustLoad()
	ops, err := IndexOperations(doc)
	if err != nil {
		f.Fatal(err)
	}
	routes := []struct{ method, path string }{
		{http.MethodPost, "/attendees"}, {http.MethodPost, "/events"}, {http.MethodPost, "/templates"},
		{http.MethodPut, "/branding"}, {http.MethodPost, "/certificates/generate"},
	}
	e := echo.New()
	e.HTTPErrorHandler = httperr.Handler(slog.New(slog.DiscardHandler))
	e.Use(RecoverPanics, LimitBody, CheckJSONText(ops), NewRequestValidator(doc).Middleware)
	var handed []byte
	for _, r := range routes {
		e.Add(r.method, EchoRoute(apiPrefix+r.path), func(c echo.Context) error {
			handed, _ = io.ReadAll(c.Request().Body)
			return c.NoContent(http.StatusNoContent)
		})
	}

	for i, body := range []string{
		`{"eventId":"0193b3a0-0000-7000-8000-000000000001","firstName":"Ana 😀","lastName":"Lima","email":"ana@example.org"}`,
		`{"name":"Go Conference","eventDate":"2026-11-12T09:00:00Z","templateId":"00000000-0000-7000-8000-00000000c001"}`,
		`{"name":"T","layout":{"rows":[{"height":20,"cols":[{"size":12,"content":{"type":"text","text":"{{recipient.fullName}}\nline"}}]}]}}`,
		`{"issuerName":"Gophers","primaryColor":"#1F2A44","logo":"data:image/png;base64,iVBORw0KGgo="}`,
		`{"eventId":"0193b3a0-0000-7000-8000-000000000001","templateId":"00000000-0000-7000-8000-00000000c001","attendeeId":"0193b3a0-0000-7000-8000-000000000002"}`,
		`{"firstName":"\ud800","lastName":"\u202eevil","email":"a@b.c"} {"again":1}`,
		"{\"firstName\":\"\xff\xfe\"}",
		`{"name":"a\u0000b"}`,
		`[1,2,{"a":[[[[[[[]]]]]]]}]`,
		`{"name":1e999999}`,
		``,
	} {
		f.Add(uint8(i), []byte(body))
	}
	f.Fuzz(func(t *testing.T, op uint8, body []byte) {
		r := routes[int(op)%len(routes)]
		handed = nil
		req := httptest.NewRequest(r.method, apiPrefix+strings.ReplaceAll(r.path, "{id}", "x"), bytes.NewReader(body))
		req.Header.Set(echo.HeaderContentType, echo.MIMEApplicationJSON)
		rec := httptest.NewRecorder()
		e.ServeHTTP(rec, req)
		switch rec.Code {
		case http.StatusNoContent:
			dec := json.NewDecoder(bytes.NewReader(handed))
			var v any
			if !utf8.Valid(handed) || dec.Decode(&v) != nil || dec.More() || bytes.Contains(handed, []byte(`\u0000`)) {
				t.Fatalf("handed on a body that is not one clean JSON value: %q", handed)
			}
		case http.StatusBadRequest, http.StatusRequestEntityTooLarge:
			var env struct {
				Error struct{ Code, Message string }
			}
			if err := json.Unmarshal(rec.Body.Bytes(), &env); err != nil || env.Error.Code == "" || env.Error.Message == "" {
				t.Fatalf("%d without the envelope: %s", rec.Code, rec.Body)
			}
		default:
			t.Fatalf("%s %s answered %d: %s", r.method, r.path, rec.Code, rec.Body)
		}
	})
}
