package testkit

import (
	"bytes"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/certhub/credentiald/internal/testkit/contract"
)

// WithEveryAnswerChecked has the server check every call to /api/v1 it answers, whoever made
// it (a browser running the application, most of all): the call must be an operation of
// openapi/v1.json, and its answer must match the contract, as the test client's are. The test
// fails at its end naming each call that did not.
func WithEveryAnswerChecked() Option { return func(s *settings) { s.checkAll = true } }

// checked wraps h so that every call to /api/v1 is checked against the contract.
func checked(t testing.TB, h http.Handler) http.Handler {
	var mu sync.Mutex
	var faults []string
	t.Cleanup(func() {
		mu.Lock()
		defer mu.Unlock()
		for _, f := range faults {
			t.Errorf("a call the server answered: %s", f)
		}
	})
	fault := func(format string, args ...any) {
		mu.Lock()
		defer mu.Unlock()
		faults = append(faults, fmt.Sprintf(format, args...))
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !strings.HasPrefix(r.URL.Path, "/api/v1/") {
			h.ServeHTTP(w, r)
			return
		}
		// The contract's router matches absolute addresses, as a client sends them.
		req := r.Clone(r.Context())
		u := *r.URL
		u.Scheme, u.Host = "http", r.Host
		req.URL = &u
		if _, err := contract.Operation(req); err != nil {
			fault("%v", err)
		}
		rec := &recording{ResponseWriter: w, status: http.StatusOK}
		h.ServeHTTP(rec, r)
		res := &http.Response{StatusCode: rec.status, Header: w.Header().Clone(), Request: req}
		if err := contract.Validate(req, res, rec.body.Bytes()); err != nil {
			fault("%s %s: %v", r.Method, r.URL.RequestURI(), err)
		}
	})
}

// recording passes an answer on and keeps a copy of its status and body.
type recording struct {
	http.ResponseWriter
	status      int
	wroteHeader bool
	body        bytes.Buffer
}

func (r *recording) WriteHeader(status int) {
	if !r.wroteHeader {
		r.status, r.wroteHeader = status, true
	}
	r.ResponseWriter.WriteHeader(status)
}

func (r *recording) Write(p []byte) (int, error) {
	if !r.wroteHeader {
		r.wroteHeader = true
	}
	r.body.Write(p)
	return r.ResponseWriter.Write(p)
}

// Flush passes a flush on, for answers that stream.
func (r *recording) Flush() {
	if f, ok := r.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}
