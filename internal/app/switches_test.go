package app_test

import (
	"context"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/certhub/credentiald/gen/api"
	"github.com/certhub/credentiald/internal/app"
	"github.com/certhub/credentiald/internal/config"
	"github.com/certhub/credentiald/internal/logging"
	"github.com/certhub/credentiald/internal/testkit"
	"github.com/certhub/credentiald/internal/testkit/contract"
)

// A registration lands on SIGNUP_PLAN, and its credits are that plan's.
func TestARegistrationLandsOnTheSignupPlan(t *testing.T) {
	t.Parallel()
	env := testkit.NewServer(t, testkit.WithConfig(func(c *config.Config) { c.SignupPlan = "pro" }))
	acct := testkit.SignUp(t, env)
	var me api.UserProfileEnvelope
	acct.Client.Get("/api/v1/auth/me").JSON(t, &me)
	require.Equal(t, api.Plan("pro"), me.Data.Account.Plan, "the registered account's plan")
	var credits api.CreditsEnvelope
	acct.Client.Get("/api/v1/credits").JSON(t, &credits)
	require.NotNil(t, credits.Data.Limit, "the registered account's monthly limit")
	require.Equal(t, 1000, *credits.Data.Limit, "the registered account's monthly limit")
}

// A SIGNUP_PLAN that names no plan of the plans table stops the server before it listens,
// naming the variable and the value.
func TestAnUnknownSignupPlanRefusesToStart(t *testing.T) {
	t.Parallel()
	cfg := testConfig(t, testkit.Database(t))
	cfg.SignupPlan = "gold"
	ready := make(chan net.Addr, 1)
	err := app.Serve(t.Context(), cfg, logging.New(io.Discard, slog.LevelError), ready)
	require.ErrorContains(t, err, `SIGNUP_PLAN: "gold" is none of the plans`)
	require.Empty(t, ready, "the server listened")
}

// With OPERATOR_CONTACT set, every 402 CREDIT_LIMIT answer ends with whom to ask for a larger
// plan: a certificate's issuance, a badge's (the two messages of internal/issuance) and a bulk
// job refused before it starts (internal/bulk). Unset, none mentions a larger plan.
func TestTheCreditLimitNamesTheOperatorContact(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ name, contact, want string }{
		{"set", "billing@example.org", " For a larger plan, ask billing@example.org."},
		{"unset", "", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			env := testkit.NewServer(t, testkit.WithConfig(func(cfg *config.Config) { cfg.OperatorContact = c.contact }))
			acct := testkit.SignUp(t, env)
			event, template := acct.Event(t, env, "Credits Meetup"), acct.Template(t, env)
			ada := acct.Attendee(t, event, "Ada", "Lovelace", "ada@example.org")
			var badge struct{ Data struct{ ID uuid.UUID } }
			acct.Client.Post("/api/v1/badges", map[string]any{"name": "Speaker"}).JSON(t, &badge)
			testkit.SQL(t, env, `INSERT INTO credit_usage (account_id, period, used)
				VALUES ($1, date_trunc('month', now() AT TIME ZONE 'UTC')::date, 12)`, acct.ID) // the free plan's 12

			for _, r := range []struct {
				what, path string
				body       map[string]any
			}{
				{"a certificate", "/api/v1/certificates/generate", map[string]any{"eventId": event, "templateId": template, "attendeeId": ada}},
				{"a badge", "/api/v1/badges/" + badge.Data.ID.String() + "/issue", map[string]any{"attendeeIds": []uuid.UUID{ada}}},
				{"a bulk job", "/api/v1/events/" + event.String() + "/certificates/generate/jobs", map[string]any{}},
			} {
				res := acct.Client.Post(r.path, r.body)
				require.Equal(t, http.StatusPaymentRequired, res.StatusCode, "%s: status (body %s)", r.what, res.Body)
				var e api.Error
				res.JSON(t, &e)
				require.Equal(t, api.ErrorCode("CREDIT_LIMIT"), e.Error.Code, "%s: code", r.what)
				if c.want != "" {
					require.True(t, strings.HasSuffix(e.Error.Message, c.want), "%s: message %q ends with %q", r.what, e.Error.Message, c.want)
				} else {
					require.NotContains(t, e.Error.Message, "larger plan", "%s: message", r.what)
				}
			}
		})
	}
}

// With RUN_WORKERS=false the server serves reads and commits writes, but starts no River
// client: the email an issuance queues stays queued while it runs, and the start says so at
// warn. A server with workers on the same database then sends it.
func TestWithoutWorkersAQueuedEmailWaitsForAServerWithWorkers(t *testing.T) {
	t.Parallel()
	smtp := testkit.SMTPServer(t)
	st, dbURL := testkit.Store(t)
	cfg := testConfig(t, dbURL)
	cfg.SMTPURL = smtp.URL()
	cfg.RunWorkers = false
	off := startServing(t, cfg)
	env := &testkit.Env{URL: off.api, Store: st, Client: contract.NewClient(t, off.api)}
	require.Contains(t, off.logs.String(), `"level":"WARN","msg":"RUN_WORKERS is off`, "the start's log")

	acct := testkit.SignUp(t, env)
	event, template := acct.Event(t, env, "Restored Meetup"), acct.Template(t, env)
	ada := acct.Attendee(t, event, "Ada", "Lovelace", "ada@example.org")
	res := acct.Client.Post("/api/v1/certificates/generate", map[string]any{"eventId": event, "templateId": template,
		"attendeeId": ada, "sendEmail": true})
	require.Equal(t, http.StatusOK, res.StatusCode, "generate (body %s)", res.Body)
	var cert api.CertificateEnvelope
	res.JSON(t, &cert)
	require.Equal(t, http.StatusOK, acct.Client.Get("/api/v1/certificates/"+cert.Data.Id.String()).StatusCode, "reading the certificate")

	// A working client takes a new job within a second of its insert (River is told of it);
	// this one is still waiting after two, and no client ever took the leadership.
	time.Sleep(2 * time.Second)
	require.Zero(t, len(smtp.Messages()), "messages sent without workers")
	var queued, taken, leaders int
	testkit.QueryRowAt(t, dbURL, `SELECT count(*) FILTER (WHERE state = 'available')::integer,
		count(*) FILTER (WHERE state <> 'available')::integer, (SELECT count(*) FROM river_leader)::integer
		FROM river_job WHERE kind = 'email_send'`, nil, &queued, &taken, &leaders)
	require.NotZero(t, queued, "emails queued")
	require.Zero(t, taken, "emails taken up without workers")
	require.Zero(t, leaders, "River leaders elected")
	off.stop(t)

	cfg.RunWorkers = true
	on := startServing(t, cfg)
	defer on.stop(t)
	require.NotContains(t, on.logs.String(), "RUN_WORKERS is off", "the start's log with workers")
	deadline := time.Now().Add(30 * time.Second)
	for !sentTo(smtp.Messages(), "ada@example.org") {
		require.True(t, time.Now().Before(deadline), "the queued email was not sent within 30 s by a server with workers")
		time.Sleep(100 * time.Millisecond)
	}
}

func sentTo(messages []testkit.Mail, address string) bool {
	for _, m := range messages {
		for _, to := range m.To {
			if to == address {
				return true
			}
		}
	}
	return false
}

// serving is app.Serve running in this process, until stop.
type serving struct {
	api  string
	logs *lockedBuffer
	stop func(t *testing.T)
}

// startServing runs app.Serve with cfg until its stop (or the test's end), once it listens.
func startServing(t *testing.T, cfg config.Config) serving {
	t.Helper()
	logs := &lockedBuffer{}
	ctx, cancel := context.WithCancel(context.Background())
	ready := make(chan net.Addr, 1)
	done := make(chan error, 1)
	go func() { done <- app.Serve(ctx, cfg, logging.New(logs, slog.LevelInfo), ready) }()
	stopped := false
	stop := func(t *testing.T) {
		if stopped {
			return
		}
		stopped = true
		cancel()
		if err := <-done; err != nil {
			t.Errorf("serve: %v", err)
		}
	}
	t.Cleanup(func() { stop(t) })
	select {
	case addr := <-ready:
		return serving{api: "http://" + addr.String(), logs: logs, stop: stop}
	case err := <-done:
		stopped = true
		t.Fatalf("serve: %v\n%s", err, logs)
	case <-time.After(time.Minute):
		t.Fatalf("the service did not start\n%s", logs)
	}
	return serving{}
}
