package contract

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

const eventJSON = `{"data":{"id":"0192f5a0-7c1e-7d3a-9b2e-4f5a6b7c8d91","name":"Go Conference","description":null,
"eventDate":"2026-11-12T09:00:00Z","location":"Berlin","templateId":"0192f5a0-7c1e-7d3a-9b2e-4f5a6b7c8d90",
"certificateValidityDays":null,"locale":"en","createdAt":"2026-11-01T10:00:00Z","updatedAt":"2026-11-01T10:00:00Z"%s}}`

func exchange(method, path string, status int, contentType, body string) (*http.Request, *http.Response, []byte) {
	req := httptest.NewRequest(method, "http://service"+path, nil)
	res := &http.Response{StatusCode: status, Header: http.Header{}}
	if contentType != "" {
		res.Header.Set("Content-Type", contentType)
	}
	return req, res, []byte(body)
}

// The validating client is only worth something if it catches a wrong answer: each case here
// is an answer a handler could plausibly give that the document does not allow.
func TestValidateRejectsAnswersTheContractDoesNotDescribe(t *testing.T) {
	const eventPath = "/api/v1/events/0192f5a0-7c1e-7d3a-9b2e-4f5a6b7c8d91"
	cases := []struct {
		name        string
		method      string
		path        string
		status      int
		contentType string
		body        string
		wantErr     string // "" means the answer is valid
	}{
		{"documented answer passes", "GET", eventPath, 200, "application/json", strings.ReplaceAll(eventJSON, "%s", ""), ""},
		{"field the document does not have", "GET", eventPath, 200, "application/json", strings.ReplaceAll(eventJSON, "%s", `,"secretField":1`), "secretField"},
		{"missing required field", "GET", eventPath, 200, "application/json", `{"data":{"id":"0192f5a0-7c1e-7d3a-9b2e-4f5a6b7c8d91"}}`, "does not match"},
		{"undocumented status", "GET", eventPath, 418, "application/json", `{"error":{"code":"INTERNAL","message":"x"}}`, "does not document"},
		{"error code the response does not list", "GET", eventPath, 404, "application/json", `{"error":{"code":"CONFLICT","message":"x"}}`, "CONFLICT"},
		{"error outside the envelope", "GET", eventPath, 404, "application/json", `{"message":"not found"}`, "does not match"},
		{"204 with a body", "DELETE", eventPath, 204, "application/json", `{"data":null}`, "204"},
		{"wrong media type", "GET", eventPath, 200, "text/plain", "hello", "does not match"},
		{"unrouted path answering 200", "GET", "/api/v1/nowhere", 200, "application/json", `{}`, "no operation"},
		{"unrouted path answering the 404 envelope", "GET", "/api/v1/nowhere", 404, "application/json", `{"error":{"code":"NOT_FOUND","message":"x"}}`, ""},
		{"unknown infrastructure path", "GET", "/debug/vars", 200, "application/json", `{}`, "neither"},
		{"document served altered", "GET", "/openapi/v1.json", 200, "application/json", `{"openapi":"3.1.0"}`, "byte for byte"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			req, res, body := exchange(tc.method, tc.path, tc.status, tc.contentType, tc.body)
			err := Validate(req, res, body)
			switch {
			case tc.wantErr == "" && err != nil:
				t.Fatalf("valid answer rejected: %v", err)
			case tc.wantErr != "" && err == nil:
				t.Fatalf("invalid answer accepted; want an error mentioning %q", tc.wantErr)
			case tc.wantErr != "" && !strings.Contains(err.Error(), tc.wantErr):
				t.Fatalf("error %q does not mention %q", err, tc.wantErr)
			}
		})
	}
}
