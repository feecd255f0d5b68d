package httpapi_test

import (
	"net/http"
	"testing"

	"github.com/certhub/credentiald/internal/testkit"
)

// Requests the contract refuses in the body or the query, on operations whose other tests
// send only good ones: 400 VALIDATION_ERROR naming the field.
func TestMalformedBodiesAndQueriesAreRefusedNamingTheField(t *testing.T) {
	t.Parallel()
	env := testkit.NewServer(t)
	acct := testkit.SignUp(t, env)
	for _, tc := range []struct {
		name, method, path string
		body               any
		field              string
	}{
		{"a page size of 0", http.MethodGet, "/api/v1/badges?pageSize=0", nil, "query.pageSize"},
		{"a refresh without its token", http.MethodPost, "/api/v1/auth/refresh", map[string]any{}, "body.refreshToken"},
		{"a bulk send without its event", http.MethodPost, "/api/v1/email/send-bulk", map[string]any{"onlyUnsent": true}, "body.eventId"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := acct.Client.Do(acct.Client.Request(tc.method, tc.path, tc.body))
			e := wantError(t, res, http.StatusBadRequest, res.StatusCode, "VALIDATION_ERROR")
			named := false
			for _, d := range e.Error.Details {
				named = named || d.Field == tc.field
			}
			if !named {
				t.Fatalf("details %+v do not name %s", e.Error.Details, tc.field)
			}
		})
	}
}
