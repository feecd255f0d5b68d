package httpapi_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"mime/multipart"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/google/uuid"
	"github.com/labstack/echo/v4"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/certhub/credentiald/gen/api"
	"github.com/certhub/credentiald/internal/spec"
	"github.com/certhub/credentiald/internal/testkit"
	"github.com/certhub/credentiald/internal/testkit/contract"
	"github.com/certhub/credentiald/openapi"
)

func TestMain(m *testing.M) { testkit.Main(m) }

type errorBody struct {
	Error struct {
		Code     string `json:"code"`
		Message  string `json:"message"`
		Required string `json:"required"`
		Details  []struct {
			Field   string `json:"field"`
			Message string `json:"message"`
		} `json:"details"`
	} `json:"error"`
}

func decodeError(t *testing.T, r *contract.Response) errorBody {
	t.Helper()
	var e errorBody
	r.JSON(t, &e)
	return e
}

func TestDocumentIsServedByteForByte(t *testing.T) {
	t.Parallel()
	env := testkit.NewServer(t)
	res := env.Client.Get("/openapi/v1.json")
	require.Equal(t, http.StatusOK, res.StatusCode, "status")
	require.True(t, bytes.Equal(res.Body, openapi.Document), "%d bytes, want the %d bytes of openapi/v1.json", len(res.Body), len(openapi.Document))
}

func TestHealthAndReadinessAnswerOnAMigratedDatabase(t *testing.T) {
	t.Parallel()
	env := testkit.NewServer(t)
	for _, path := range []string{"/healthz", "/readyz"} {
		if res := env.Client.Get(path); res.StatusCode != http.StatusOK {
			t.Errorf("%s: %d %s", path, res.StatusCode, res.Body)
		}
	}
}

// Every operation of the document is routed, validated and answered in the envelope. The
// operations not built yet answer 501 NOT_IMPLEMENTED, which the document lists for them.
func TestEveryOperationOfTheContractIsServed(t *testing.T) {
	t.Parallel()
	env := testkit.NewServer(t)
	session := testkit.SignUp(t, env)
	// The examples of these bodies are valid, but name a refresh token or a password that is
	// not this session's, or a code that is not the authenticator's: the operation refuses them,
	// after validation.
	refusedByMeaning := map[string]bool{"logout": true, "createApiKey": true, "enableTwoFactor": true, "disableTwoFactor": true,
		"changePassword":  true, // not this session's password
		"postIssuerToken": true, // a pre-authorized code that no offer issued: invalid_grant
		"putSingleSignOn": true} // a provider whose discovery document cannot be read here
	doc := spec.MustLoad()
	count := 0
	for path, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			count++
			t.Run(op.OperationID, func(t *testing.T) {
				req := sampleRequest(t, env, method, spec.FullPath(path, item), op)
				res := session.Client.Do(req)
				if res.StatusCode >= 500 && res.StatusCode != http.StatusNotImplemented {
					t.Fatalf("%d %s", res.StatusCode, res.Body)
				}
				if res.StatusCode == http.StatusBadRequest && !refusedByMeaning[op.OperationID] {
					t.Fatalf("the sample request built from the document was refused: %s", res.Body)
				}
			})
		}
	}
	if count != 135 {
		t.Fatalf("the document has %d operations, want 135 (66 of the specification, 69 extensions)", count)
	}
}

// sampleRequest builds a valid request for op, served at path (the document's path after its
// server's), from the document alone: path parameters, required query parameters, and the
// request body's example.
func sampleRequest(t *testing.T, env *testkit.Env, method, path string, op *openapi3.Operation) *http.Request {
	t.Helper()
	query := []string{}
	for _, p := range op.Parameters {
		switch p.Value.In {
		case "path":
			value := uuid.NewString()
			if p.Value.Name == "code" {
				value = "7K2M9QXRT4VZ"
			} else if enum := p.Value.Schema.Value.Enum; len(enum) > 0 {
				value = fmt.Sprint(enum[0])
			} else if p.Value.Schema.Value.Type.Is("integer") {
				value = "1"
			}
			path = strings.ReplaceAll(path, "{"+p.Value.Name+"}", value)
		case "query":
			switch {
			case !p.Value.Required:
			case p.Value.Example != nil:
				query = append(query, p.Value.Name+"="+url.QueryEscape(fmt.Sprint(p.Value.Example)))
			default:
				query = append(query, p.Value.Name+"="+uuid.NewString())
			}
		}
	}
	if len(query) > 0 {
		path += "?" + strings.Join(query, "&")
	}
	var body any
	contentType := ""
	// A body the operation requires, or an optional JSON body the document gives an example of
	// (refresh and logout, whose token may come from a cookie instead).
	optionalExample := func(rb *openapi3.RequestBodyRef) bool {
		mt := rb.Value.Content.Get("application/json")
		return mt != nil && mt.Schema.Value.Example != nil
	}
	if rb := op.RequestBody; rb != nil && (rb.Value.Required || optionalExample(rb)) {
		if mt := rb.Value.Content.Get("application/json"); mt != nil {
			raw, err := json.Marshal(mt.Schema.Value.Example)
			require.NoError(t, err, "the request body of %s", op.OperationID)
			require.NotNil(t, mt.Schema.Value.Example, "the request body of %s has no example", op.OperationID)
			body = raw
		} else if mt := rb.Value.Content.Get("application/x-www-form-urlencoded"); mt != nil {
			ex, ok := mt.Schema.Value.Example.(map[string]any)
			if !ok {
				t.Fatalf("the form body of %s has no example", op.OperationID)
			}
			form := url.Values{}
			for k, v := range ex {
				form.Set(k, fmt.Sprint(v))
			}
			body, contentType = []byte(form.Encode()), "application/x-www-form-urlencoded"
		} else if rb.Value.Content.Get("multipart/form-data") != nil {
			var buf bytes.Buffer
			w := multipart.NewWriter(&buf)
			f, _ := w.CreateFormFile("file", "attendees.csv")
			_, _ = f.Write([]byte("firstName,lastName,email\nAda,Lovelace,ada@example.org\n"))
			_ = w.Close()
			body, contentType = buf.Bytes(), w.FormDataContentType()
		}
	}
	req := env.Client.Request(strings.ToUpper(method), path, body)
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	return req
}

func TestInvalidRequestsAnswer400WithDetails(t *testing.T) {
	t.Parallel()
	env := testkit.NewServer(t)
	client := testkit.SignUp(t, env).Client
	event := map[string]any{"name": "Go Conference", "eventDate": "2026-11-12T09:00:00Z", "templateId": uuid.NewString()}
	with := func(k string, v any) map[string]any {
		m := map[string]any{}
		for key, val := range event {
			m[key] = val
		}
		m[k] = v
		return m
	}
	cases := []struct {
		name       string
		method     string
		path       string
		body       any
		wantFields []string
	}{
		{"unknown field", "POST", "/api/v1/events", with("colour", "red"), []string{"body.colour"}},
		{"wrong type", "POST", "/api/v1/events", with("name", 42), []string{"body.name"}},
		{"bad timestamp", "POST", "/api/v1/events", with("eventDate", "12/11/2026"), []string{"body.eventDate"}},
		{"bad uuid in body", "POST", "/api/v1/events", with("templateId", "abc"), []string{"body.templateId"}},
		{"missing required fields", "POST", "/api/v1/attendees", map[string]any{"firstName": "Ada"}, []string{"body.eventId", "body.lastName", "body.email"}},
		{"bad uuid in path", "GET", "/api/v1/events/not-a-uuid", nil, []string{"path.id"}},
		{"page size out of range", "GET", "/api/v1/events?pageSize=101", nil, []string{"query.pageSize"}},
		{"page zero", "GET", "/api/v1/events?page=0", nil, []string{"query.page"}},
		{"malformed JSON", "POST", "/api/v1/events", []byte(`{"name":`), []string{"body"}},
		{"nested layout error", "POST", "/api/v1/templates", map[string]any{"name": "T", "layout": map[string]any{
			"rows": []any{map[string]any{"height": 10, "cols": []any{map[string]any{"size": 13, "content": map[string]any{"type": "spacer"}}}}}}},
			[]string{"body.layout.rows[0].cols[0].size"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res := client.Do(client.Request(tc.method, tc.path, tc.body))
			if res.StatusCode != http.StatusBadRequest {
				t.Fatalf("status %d, want 400: %s", res.StatusCode, res.Body)
			}
			e := decodeError(t, res)
			got := map[string]bool{}
			for _, d := range e.Error.Details {
				got[d.Field] = true
			}
			for _, f := range tc.wantFields {
				if !got[f] {
					t.Errorf("details %+v do not name %s", e.Error.Details, f)
				}
			}
		})
	}
}

func TestOversizeBodiesAnswer413(t *testing.T) {
	t.Parallel()
	env := testkit.NewServer(t)
	client := testkit.SignUp(t, env).Client
	big := []byte(`{"name":"` + strings.Repeat("a", 1<<20) + `"}`)

	declared := client.Request("POST", "/api/v1/events", big)
	if res := client.Do(declared); res.StatusCode != http.StatusRequestEntityTooLarge {
		t.Fatalf("declared length: status %d, want 413", res.StatusCode)
	}
	chunked := client.Request("POST", "/api/v1/events", nil)
	chunked.Body, chunked.ContentLength = readCloser{bytes.NewReader(big)}, -1
	chunked.Header.Set("Content-Type", "application/json")
	res := client.Do(chunked)
	if res.StatusCode != http.StatusRequestEntityTooLarge {
		t.Fatalf("unknown length: status %d, want 413: %s", res.StatusCode, res.Body)
	}
	if e := decodeError(t, res); e.Error.Code != "PAYLOAD_TOO_LARGE" {
		t.Fatalf("code %s", e.Error.Code)
	}
}

type readCloser struct{ *bytes.Reader }

func (readCloser) Close() error { return nil }

func TestUnknownRoutesAndMethodsAnswerInTheEnvelope(t *testing.T) {
	t.Parallel()
	env := testkit.NewServer(t)
	cases := []struct {
		method, path string
		status       int
		code         string
	}{
		{"GET", "/api/v1/nothing-here", 404, "NOT_FOUND"},
		{"GET", "/not-api", 404, "NOT_FOUND"},
		{"PATCH", "/api/v1/events", 405, "METHOD_NOT_ALLOWED"},
	}
	for _, tc := range cases {
		res := env.Client.Do(env.Client.Request(tc.method, tc.path, nil))
		e := decodeError(t, res)
		assert.Equal(t, tc.status, res.StatusCode, "%s %s: status", tc.method, tc.path)
		assert.Equal(t, tc.code, e.Error.Code, "%s %s: e.Error.Code", tc.method, tc.path)
	}
}

// A path whose parameter is empty, or runs over a slash, names no operation of the contract
// (its templates take one segment per parameter), though Echo's router matches it: 404.
func TestPathsWithEmptyOrSlashedParametersAreNotFound(t *testing.T) {
	t.Parallel()
	env := testkit.NewServer(t)
	client := testkit.SignUp(t, env).Client
	id := uuid.NewString()
	for _, tc := range []struct{ method, path string }{
		{"DELETE", "/api/v1/api-keys/" + id + "/more"},
		{"GET", "/api/v1/attendees/" + id + "/"},
		{"GET", "/api/v1/events//attendees"},
		{"GET", "/api/v1/events/" + id + "/certificates/generate/jobs/" + id + "/x"},
	} {
		res := client.Do(client.Request(tc.method, tc.path, nil))
		e := decodeError(t, res)
		assert.Equal(t, 404, res.StatusCode, "%s %s: status (body %s)", tc.method, tc.path, res.Body)
		assert.Equal(t, "NOT_FOUND", e.Error.Code, "%s %s: e.Error.Code", tc.method, tc.path)
	}
}

func TestPanicAnswers500InternalAndLogsTheCauseOnly(t *testing.T) {
	t.Parallel()
	const secret = "connection string postgres://admin:hunter2@db"
	env := testkit.NewServer(t, testkit.WithStrictMiddleware(func(f api.StrictHandlerFunc, operationID string) api.StrictHandlerFunc {
		return func(ctx echo.Context, request interface{}) (interface{}, error) {
			if operationID == "ListEvents" {
				panic(secret)
			}
			return f(ctx, request)
		}
	}))
	client := testkit.SignUp(t, env).Client
	req := client.Request("GET", "/api/v1/events", nil)
	req.Header.Set("X-Request-Id", "req-panic-1")
	res := client.Do(req)
	e := decodeError(t, res)
	require.Equal(t, 500, res.StatusCode, "status (body %s)", res.Body)
	require.Equal(t, "INTERNAL", e.Error.Code, "e.Error.Code")
	if strings.Contains(string(res.Body), "hunter2") {
		t.Fatalf("the answer leaks the cause: %s", res.Body)
	}
	if res.Header.Get("X-Request-Id") != "req-panic-1" {
		t.Fatalf("X-Request-Id %q", res.Header.Get("X-Request-Id"))
	}
	logs := env.Logs()
	require.Contains(t, logs, "hunter2", "the cause is not logged")
	require.Contains(t, logs, `"request_id":"req-panic-1"`, "the request id is not logged")
}

func TestReadinessFailsWhenTheDatabaseIsGone(t *testing.T) {
	t.Parallel()
	env := testkit.NewServer(t)
	env.Store.Close()
	res := env.Client.Get("/readyz")
	if res.StatusCode != http.StatusServiceUnavailable {
		t.Fatalf("status %d, want 503", res.StatusCode)
	}
}
