package httpapi_test

import (
	"crypto/sha256"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/certhub/credentiald/internal/testkit"
	"github.com/certhub/credentiald/internal/testkit/contract"
)

func (s issuing) post(key string, body map[string]any) *http.Request {
	req := s.acct.Client.Request(http.MethodPost, "/api/v1/certificates/generate", body)
	if key != "" {
		req.Header.Set("Idempotency-Key", key)
	}
	return req
}

func (s issuing) certificates(t *testing.T) (issued, used int) {
	t.Helper()
	var page struct{ Meta struct{ Total int } }
	s.acct.Client.Get("/api/v1/events/"+s.event.String()+"/certificates").JSON(t, &page)
	var credits struct{ Data struct{ Used int } }
	s.acct.Client.Get("/api/v1/credits").JSON(t, &credits)
	return page.Meta.Total, credits.Data.Used
}

func TestIdempotencyKeyReplaysTheFirstAnswer(t *testing.T) {
	t.Parallel()
	s := newIssuing(t)
	ada := s.acct.Attendee(t, s.event, "Ada", "Lovelace", "ada@example.org")
	body := s.generate(ada, nil)
	first := s.acct.Client.Do(s.post("order-42", body))
	again := s.acct.Client.Do(s.post("order-42", body))
	require.Equal(t, 200, first.StatusCode, "first: status (header %v)", first.Header)
	require.Equal(t, 200, again.StatusCode, "again: status (body %s)", again.Body)
	require.Equal(t, "true", again.Header.Get("Idempotent-Replayed"), "again: Idempotent-Replayed")
	require.Equal(t, "", first.Header.Get("Idempotent-Replayed"), "first: Idempotent-Replayed")
	require.Equal(t, string(first.Body), string(again.Body), "the replayed body")
	issued, used := s.certificates(t)
	require.Equal(t, 1, issued, "certificates issued")
	require.Equal(t, 1, used, "credits used")
	// The same key with another body is refused; another account's same key is its own.
	other := s.generate(ada, map[string]any{"sendEmail": true})
	res := s.acct.Client.Do(s.post("order-42", other))
	if e := wantError(t, res, 422, res.StatusCode, "IDEMPOTENCY_KEY_REUSED"); e.Error.Details[0].Field != "header.Idempotency-Key" {
		t.Fatalf("details: %+v", e.Error.Details)
	}
	// Keys are checked by the contract: printable, 1 to 255 characters.
	res = s.acct.Client.Do(s.post(strings.Repeat("k", 256), body))
	wantError(t, res, 400, res.StatusCode, "VALIDATION_ERROR")
}

// 10 simultaneous requests with one key: the operation runs once. Exactly one answer is the
// first (200, not replayed); every other is that answer replayed (200, Idempotent-Replayed:
// true, the same body) or a refusal while it runs (409 IDEMPOTENCY_IN_PROGRESS). Without the
// middleware the issuance's own rule would answer 409 ALREADY_ISSUED instead, which fails here.
func TestConcurrentRequestsWithOneKeyExecuteOnce(t *testing.T) {
	t.Parallel()
	s := newIssuing(t)
	ada := s.acct.Attendee(t, s.event, "Ada", "Lovelace", "ada@example.org")
	body := s.generate(ada, nil)
	responses := make([]*contract.Response, 10)
	testkit.Race(len(responses), func(i int) int {
		responses[i] = s.acct.Client.Do(s.post("same-key", body))
		return responses[i].StatusCode
	})
	var first *contract.Response
	for _, res := range responses {
		if res.StatusCode == 200 && res.Header.Get("Idempotent-Replayed") == "" {
			if first != nil {
				t.Fatalf("two requests ran: %s and %s", first.Body, res.Body)
			}
			first = res
		}
	}
	if first == nil {
		t.Fatal("no request ran")
	}
	var replayed, inProgress int
	for _, res := range responses {
		switch {
		case res == first:
		case res.StatusCode == 200 && res.Header.Get("Idempotent-Replayed") == "true" && string(res.Body) == string(first.Body):
			replayed++
		case res.StatusCode == 409:
			wantError(t, res, 409, res.StatusCode, "IDEMPOTENCY_IN_PROGRESS")
			inProgress++
		default:
			t.Fatalf("neither a replay of %s nor a refusal while it runs: %d %v %s", first.Body, res.StatusCode, res.Header, res.Body)
		}
	}
	if 1+replayed+inProgress != len(responses) {
		t.Fatalf("first 1, replayed %d, in progress %d", replayed, inProgress)
	}
	issued, used := s.certificates(t)
	require.Equal(t, 1, issued, "certificates issued")
	require.Equal(t, 1, used, "credits used")
}

// A failed request is not remembered: once the cause is fixed, the same key runs.
func TestAFailedRequestIsNotRemembered(t *testing.T) {
	t.Parallel()
	s := newIssuing(t)
	testkit.SQL(t, s.env, `INSERT INTO credit_usage (account_id, period, used) VALUES ($1, date_trunc('month', now() AT TIME ZONE 'UTC')::date, 12)`, s.acct.ID)
	ada := s.acct.Attendee(t, s.event, "Ada", "Lovelace", "ada@example.org")
	body := s.generate(ada, nil)
	res := s.acct.Client.Do(s.post("retry-me", body))
	wantError(t, res, 402, res.StatusCode, "CREDIT_LIMIT")
	testkit.SQL(t, s.env, `UPDATE accounts SET plan = 'pro' WHERE id = $1`, s.acct.ID)
	res = s.acct.Client.Do(s.post("retry-me", body))
	require.Equal(t, 200, res.StatusCode, "retry: status (body %s)", res.Body)
	require.Equal(t, "", res.Header.Get("Idempotent-Replayed"), "retry: Idempotent-Replayed")
}

// A request that holds its key answers 409 to a second one; a process that died mid-request
// leaves a lease that lapses, and the retry then runs.
func TestAKeyHeldByADeadProcessLapses(t *testing.T) {
	t.Parallel()
	s := newIssuing(t)
	ada := s.acct.Attendee(t, s.event, "Ada", "Lovelace", "ada@example.org")
	body := s.generate(ada, nil)
	raw, _ := json.Marshal(body)
	fp := sha256.Sum256(append([]byte("POST\n/api/v1/certificates/generate\n"), raw...))

	// Another instance is running this request right now.
	if _, err := s.env.Service.Idempotency.Claim(t.Context(), s.acct.ID, "held", fp[:], time.Minute); err != nil {
		t.Fatal(err)
	}
	res := s.acct.Client.Do(s.post("held", body))
	wantError(t, res, 409, res.StatusCode, "IDEMPOTENCY_IN_PROGRESS")

	// That instance died: its lease has run out.
	testkit.SQL(t, s.env, `UPDATE idempotency_keys SET locked_until = now() - interval '1 second' WHERE key = 'held'`)
	res = s.acct.Client.Do(s.post("held", body))
	if res.StatusCode != 200 {
		t.Fatalf("after the lease lapsed: %d %s", res.StatusCode, res.Body)
	}
	issued, used := s.certificates(t)
	require.Equal(t, 1, issued, "certificates issued")
	require.Equal(t, 1, used, "credits used")
}

// When the database fails while a key is claimed, the answer is 500 INTERNAL, logged with its
// cause, never 409 IDEMPOTENCY_IN_PROGRESS: no other request holds the key. The failures are
// real ones of the test's own database: the table is gone, or the held key's row no longer
// reads.
func TestADatabaseFailureWhileClaimingAKeyIsAnInternalError(t *testing.T) {
	t.Parallel()
	for name, c := range map[string]struct {
		held bool // another instance holds the key, so the claim reads its row
		sql  string
	}{
		"the keys' table is gone":     {sql: `DROP TABLE idempotency_keys`},
		"the held key cannot be read": {held: true, sql: `ALTER TABLE idempotency_keys ALTER COLUMN created_at TYPE text`},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s := newIssuing(t)
			ada := s.acct.Attendee(t, s.event, "Ada", "Lovelace", "ada@example.org")
			body := s.generate(ada, nil)
			if c.held {
				raw, _ := json.Marshal(body)
				fp := sha256.Sum256(append([]byte("POST\n/api/v1/certificates/generate\n"), raw...))
				if _, err := s.env.Service.Idempotency.Claim(t.Context(), s.acct.ID, "k-1", fp[:], time.Minute); err != nil {
					t.Fatal(err)
				}
			}
			testkit.SQL(t, s.env, c.sql)
			res := s.acct.Client.Do(s.post("k-1", body))
			e := wantError(t, res, 500, res.StatusCode, "INTERNAL")
			if e.Error.Message != "Internal error." {
				t.Fatalf("the answer shows the cause: %s", res.Body)
			}
			logs := s.env.Logs()
			require.Contains(t, logs, `"msg":"request failed"`, "the failure is not logged")
			require.Contains(t, logs, "idempotency key", "the failure is not logged with its cause")
		})
	}
}
