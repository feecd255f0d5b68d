package testkit

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// faultsOf is a test that keeps what checked reports, for checked's own test.
type faultsOf struct {
	testing.TB
	cleanups []func()
	errors   []string
}

func (f *faultsOf) Cleanup(fn func())                 { f.cleanups = append(f.cleanups, fn) }
func (f *faultsOf) Errorf(format string, args ...any) { f.errors = append(f.errors, format) }

// The check of every answer refuses a call the contract does not document and an answer that
// does not match it, and lets a documented call with its documented answer through.
func TestEveryAnswerCheckedRefusesWhatTheContractDoesNotSay(t *testing.T) {
	answer := func(status int, body string) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(status)
			_, _ = w.Write([]byte(body))
		})
	}
	for _, c := range []struct {
		name, method, path string
		h                  http.Handler
		faults             int
	}{
		{"documented, as documented", "GET", "/api/v1/credits", answer(401, `{"error":{"code":"INVALID_API_KEY","message":"No credential."}}`), 0},
		{"undocumented path", "GET", "/api/v1/no-such-thing", answer(404, `{"error":{"code":"NOT_FOUND","message":"No such thing."}}`), 1},
		{"documented, answer not", "GET", "/api/v1/credits", answer(200, `{"data":{"credits":"many"}}`), 1},
		{"not the API", "GET", "/app/", answer(200, `<!doctype html>`), 0},
	} {
		f := &faultsOf{TB: t}
		srv := httptest.NewServer(checked(f, c.h))
		res, err := http.Get(srv.URL + c.path)
		if err != nil {
			t.Fatal(err)
		}
		_ = res.Body.Close()
		srv.Close()
		for _, fn := range f.cleanups {
			fn()
		}
		if len(f.errors) != c.faults {
			t.Errorf("%s: %d faults (%s), want %d", c.name, len(f.errors), strings.Join(f.errors, "; "), c.faults)
		}
	}
}
