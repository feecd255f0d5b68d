package httpapi_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/certhub/credentiald/internal/testkit"
	"github.com/certhub/credentiald/internal/testkit/contract"
)

// A request whose body stops arriving is cut when the server's read deadline passes and
// answered 408 REQUEST_TIMEOUT in the envelope, with the rate-limit headers, whoever was
// reading the body (the JSON text check, the multipart parser of an import); the refusal is
// logged as a warning, and nothing is written.
func TestStalledBodyAnswers408AndWritesNothing(t *testing.T) {
	t.Parallel()
	const readTimeout = time.Second
	env := testkit.NewServer(t, testkit.WithReadTimeout(readTimeout))
	acct := testkit.SignUp(t, env)
	event := acct.Event(t, env, "Go Conference")
	cases := []struct {
		name, target, contentType, sent string
		// written counts what the request would have created, through the API.
		written func(t *testing.T) int
	}{
		{"JSON", "/api/v1/events", "application/json", `{"name":"S`, func(t *testing.T) int {
			var list struct{ Meta struct{ Total int } }
			acct.Client.Get("/api/v1/events").JSON(t, &list)
			return list.Meta.Total - 1 // the event the test made
		}},
		{"Multipart", "/api/v1/attendees/import?eventId=" + event.String(), "multipart/form-data; boundary=b",
			"--b\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a.csv\"\r\n\r\nfirstName,lastName,email\r\nAda,Lovelace,ada@example.org\r\n",
			func(t *testing.T) int {
				var list struct{ Meta struct{ Total int } }
				acct.Client.Get("/api/v1/events/"+event.String()+"/attendees").JSON(t, &list)
				return list.Meta.Total
			}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			requestID := "stalled-body-" + strings.ToLower(tc.name)
			req, err := http.NewRequest(http.MethodPost, env.URL+tc.target, strings.NewReader(tc.sent))
			if err != nil {
				t.Fatal(err)
			}
			req.Header.Set("Authorization", "Bearer "+acct.AccessToken)
			req.Header.Set("Content-Type", tc.contentType)
			req.Header.Set("X-Request-Id", requestID)
			req.ContentLength = int64(len(tc.sent)) + 1000 // announced, never sent

			start := time.Now()
			res, body := sendAndStall(t, req, tc.sent)
			if err := contract.Validate(req, res, body); err != nil {
				t.Fatalf("contract violation: %d %s\n%v", res.StatusCode, body, err)
			}
			var e struct {
				Error struct{ Code, Message string }
			}
			err = json.Unmarshal(body, &e)
			require.NoError(t, err, "answer %d %s", res.StatusCode, body)
			require.Equal(t, http.StatusRequestTimeout, res.StatusCode, "status (body %s)", body)
			require.Equal(t, "REQUEST_TIMEOUT", e.Error.Code, "error code")
			if waited := time.Since(start); waited < readTimeout-100*time.Millisecond {
				t.Fatalf("answered after %s, before the read timeout of %s", waited, readTimeout)
			}
			for _, h := range []string{"RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset"} {
				if res.Header.Get(h) == "" {
					t.Errorf("no %s header", h)
				}
			}
			if n := tc.written(t); n != 0 {
				t.Fatalf("the stalled request wrote %d rows", n)
			}
			levels := logLevelsOf(t, env.Logs(), requestID)
			require.Contains(t, levels, "WARN request refused", "the stalled request's log levels")
			require.NotContains(t, levels, "ERROR", "the stalled request's log levels")
		})
	}
}

// sendAndStall writes req's headers and the first bytes of its body on a connection of its
// own, then sends nothing more, and reads the answer.
func sendAndStall(t *testing.T, req *http.Request, sent string) (*http.Response, []byte) {
	t.Helper()
	u, _ := url.Parse(req.URL.String())
	conn, err := net.Dial("tcp", u.Host)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	var head bytes.Buffer
	fmt.Fprintf(&head, "%s %s HTTP/1.1\r\nHost: %s\r\nContent-Length: %d\r\n", req.Method, u.RequestURI(), u.Host, req.ContentLength)
	_ = req.Header.Write(&head)
	head.WriteString("\r\n" + sent)
	if _, err := conn.Write(head.Bytes()); err != nil {
		t.Fatal(err)
	}
	_ = conn.SetReadDeadline(time.Now().Add(30 * time.Second))
	res, err := http.ReadResponse(bufio.NewReader(conn), req)
	if err != nil {
		t.Fatalf("no answer to a stalled body: %v", err)
	}
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return res, body
}

// logLevelsOf returns "LEVEL message" for each line the service logged for the request id,
// one a line.
func logLevelsOf(t *testing.T, logs, requestID string) string {
	t.Helper()
	var out []string
	for line := range strings.Lines(logs) {
		var l struct {
			Level     string `json:"level"`
			Msg       string `json:"msg"`
			RequestID string `json:"request_id"`
		}
		if json.Unmarshal([]byte(line), &l) == nil && l.RequestID == requestID {
			out = append(out, l.Level+" "+l.Msg)
		}
	}
	return strings.Join(out, "\n")
}
