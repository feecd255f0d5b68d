package httpapi_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/certhub/credentiald/internal/apperr"
	"github.com/certhub/credentiald/internal/bulk"
	"github.com/certhub/credentiald/internal/certificates"
	"github.com/certhub/credentiald/internal/domain"
	"github.com/certhub/credentiald/internal/store"
	"github.com/certhub/credentiald/internal/testkit"
)

// panicking issues as the service does, except that issuing the attendees in on panics inside
// the issuing transaction, once the credit is spent and the certificate written.
type panicking struct {
	*certificates.Service
	on map[uuid.UUID]bool
}

func (p panicking) Issue(ctx context.Context, tx *store.Tx, g certificates.GenerateParams) (domain.Certificate, error) {
	c, err := p.Service.Issue(ctx, tx, g)
	if err == nil && p.on[g.AttendeeID] {
		panic("glyph index out of range")
	}
	return c, err
}

// IssueAll panics as Issue does, once the certificates are written, when one of them is for an
// attendee in on.
func (p panicking) IssueAll(ctx context.Context, tx *store.Tx, gs []certificates.GenerateParams) ([]domain.Certificate, error) {
	cs, err := p.Service.IssueAll(ctx, tx, gs)
	for _, g := range gs {
		if err == nil && p.on[g.AttendeeID] {
			panic("glyph index out of range")
		}
	}
	return cs, err
}

// startJobs starts a job queue that issues through issuer, as a restarted service would.
func startJobs(t *testing.T, s issuing, issuer bulk.Issuer) *store.JobQueue {
	t.Helper()
	jobs, err := bulkQueue(s.env.Store, s.env.Service.Logger, bulk.Timing{}, issuer)
	if err != nil {
		t.Fatal(err)
	}
	if err := jobs.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = jobs.Stop(context.Background()) })
	return jobs
}

// panicLog finds the log line of a recovered panic: level error, with its value and stack.
func panicLog(t *testing.T, logs, msg string) (line struct{ Level, Msg, Panic, Stack string }) {
	t.Helper()
	for l := range strings.SplitSeq(logs, "\n") {
		if strings.Contains(l, `"msg":"`+msg+`"`) {
			if err := json.Unmarshal([]byte(l), &line); err != nil {
				t.Fatal(err)
			}
			return line
		}
	}
	t.Fatalf("no %q in the log:\n%s", msg, logs)
	return line
}

// A panic while one attendee is issued fails that attendee's item for good (its transaction
// rolled back: no certificate, no credit), is logged with its stack, and the job goes on with
// the next attendee.
func TestAPanicWhileIssuingFailsThatAttendeeAndTheJobGoesOn(t *testing.T) {
	t.Parallel()
	s := newIssuing(t)
	ids := someAttendees(t, s, "A", 3)
	res := s.acct.Client.Post("/api/v1/events/"+s.event.String()+"/certificates/generate/jobs", map[string]any{"sendEmail": false})
	if res.StatusCode != 202 {
		t.Fatalf("create job: %d %s", res.StatusCode, res.Body)
	}
	// Items are worked in attendee order (UUIDv7, made in order): the panic comes in the middle.
	startJobs(t, s, panicking{Service: s.env.Service.Certificates, on: map[uuid.UUID]bool{ids[1]: true}})
	j := waitForJob(t, s, res.Header.Get("Location"), func(j domain.BulkJob) bool { return j.Status == "completed" })
	require.Equal(t, 3, j.Data.Processed, "job: j.Data.Processed")
	require.Equal(t, 2, j.Data.Issued, "job: j.Data.Issued")
	require.Equal(t, 1, j.Data.Failed, "job: j.Data.Failed")
	require.Len(t, j.Data.Errors, 1, "job: j.Data.Errors")
	require.Equal(t, ids[1].String(), j.Data.Errors[0].AttendeeID, "job: j.Data.Errors[0].AttendeeID")
	require.Equal(t, "INTERNAL", j.Data.Errors[0].Code, "job: j.Data.Errors[0].Code")
	issued, used := s.certificates(t)
	require.Equal(t, 2, issued, "certificates issued")
	require.Equal(t, 2, used, "credits used")
	var held int
	testkit.QueryRow(t, s.env, `SELECT count(*) FROM certificates WHERE attendee_id = $1`, []any{ids[1]}, &held)
	if held != 0 {
		t.Fatal("the panicking issuance was committed")
	}
	line := panicLog(t, s.env.Logs(), "bulk job panicked while issuing")
	require.Equal(t, "ERROR", line.Level, "panic log: line.Level")
	require.Equal(t, "glyph index out of range", line.Panic, "panic log: line.Panic")
	require.Contains(t, line.Stack, "httpapi_test.panicking.Issue", "panic log: line.Stack")
}

// brokenIssuer answers ALREADY_ISSUED without naming the certificate: recording the skip then
// panics in the job's own code, outside any one issuance.
type brokenIssuer struct{ *certificates.Service }

func (brokenIssuer) Issue(context.Context, *store.Tx, certificates.GenerateParams) (domain.Certificate, error) {
	return domain.Certificate{}, apperr.New(apperr.AlreadyIssued, "issued, somewhere")
}

func (b brokenIssuer) IssueAll(ctx context.Context, tx *store.Tx, _ []certificates.GenerateParams) ([]domain.Certificate, error) {
	_, err := b.Issue(ctx, tx, certificates.GenerateParams{})
	return nil, err
}

// A panic in the job itself fails the job for good: River does not try it again.
func TestAPanicInAJobFailsItWithoutRetries(t *testing.T) {
	t.Parallel()
	s := newIssuing(t)
	s.acct.Attendee(t, s.event, "Ada", "Lovelace", "ada@example.org")
	res := s.acct.Client.Post("/api/v1/events/"+s.event.String()+"/certificates/generate/jobs", map[string]any{"sendEmail": false})
	jobs := startJobs(t, s, brokenIssuer{s.env.Service.Certificates})
	j := waitForJob(t, s, res.Header.Get("Location"), func(j domain.BulkJob) bool { return j.Status != "queued" && j.Status != "running" })
	if j.Data.Status != "failed" {
		t.Fatalf("job: %+v", j.Data)
	}
	if err := jobs.Stop(context.Background()); err != nil { // lets River record the job's end
		t.Fatal(err)
	}
	var state string
	var attempt int
	testkit.QueryRow(t, s.env, `SELECT state, attempt FROM river_job WHERE args->>'jobId' = $1`, []any{j.Data.ID}, &state, &attempt)
	require.Equal(t, "cancelled", state, "river job: state")
	require.Equal(t, 1, attempt, "river job: attempt")
	line := panicLog(t, s.env.Logs(), "bulk job panicked")
	require.Equal(t, "ERROR", line.Level, "panic log: line.Level")
	require.NotEmpty(t, line.Stack, "panic log: line.Stack")
	// The event is free for a new job.
	if res := s.acct.Client.Post("/api/v1/events/"+s.event.String()+"/certificates/generate/jobs", map[string]any{}); res.StatusCode != 202 {
		t.Fatalf("new job: %d %s", res.StatusCode, res.Body)
	}
}
