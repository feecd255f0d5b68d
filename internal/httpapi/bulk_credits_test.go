package httpapi_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/certhub/credentiald/internal/domain"
	"github.com/certhub/credentiald/internal/testkit"
)

// creditLimitBody is a 402 CREDIT_LIMIT answer with its figures.
type creditLimitBody struct {
	Error struct {
		Code, Message string
		Credits       struct{ Limit, Used, Remaining int }
	}
}

// spendCredits records n credits of this month as used.
func (s issuing) spendCredits(t *testing.T, n int) {
	t.Helper()
	testkit.SQL(t, s.env, `INSERT INTO credit_usage (account_id, period, used) VALUES ($1, date_trunc('month', now() AT TIME ZONE 'UTC')::date, $2)
		ON CONFLICT (account_id, period) DO UPDATE SET used = EXCLUDED.used`, s.acct.ID, n)
}

func (s issuing) attendees(t *testing.T, prefix string, n int) []uuid.UUID {
	t.Helper()
	var ids []uuid.UUID
	for i := range n {
		ids = append(ids, s.acct.Attendee(t, s.event, prefix, fmt.Sprint(i), fmt.Sprintf("%s%d@example.org", prefix, i)))
	}
	return ids
}

func (s issuing) jobsPath() string {
	return "/api/v1/events/" + s.event.String() + "/certificates/generate/jobs"
}

// jobRows counts what creating a job writes outside the database fingerprint: its items and
// its job-queue entry.
func jobRows(t *testing.T, s issuing) (jobs, items, queued int) {
	t.Helper()
	testkit.QueryRow(t, s.env, `SELECT (SELECT count(*) FROM bulk_jobs), (SELECT count(*) FROM bulk_job_items), (SELECT count(*) FROM river_job WHERE kind = 'bulk_generate_certificates')`,
		nil, &jobs, &items, &queued)
	return jobs, items, queued
}

// A job whose attendees to issue outnumber the credits left is refused with the figures before
// anything is written. Attendees who hold a valid certificate (skipped) and unknown ones
// (failed) are not charged, so they do not count.
func TestAJobBeyondTheCreditsLeftIsRefusedAndWritesNothing(t *testing.T) {
	t.Parallel()
	s := newIssuing(t) // free plan: 12 credits
	ids := s.attendees(t, "a", 4)
	s.spendCredits(t, 9)
	if res := s.acct.Client.Post("/api/v1/certificates/generate", s.generate(ids[0], nil)); res.StatusCode != 200 {
		t.Fatalf("generate: %d %s", res.StatusCode, res.Body)
	}
	// 10 used, 2 left; 3 attendees without a certificate.
	before := testkit.Fingerprint(t, s.env)
	for name, body := range map[string]map[string]any{
		"every attendee without a certificate": {},
		"three named":                          {"attendeeIds": ids[1:], "sendEmail": false},
		"allowPartial false":                   {"allowPartial": false},
	} {
		res := s.acct.Client.Post(s.jobsPath(), body)
		var e creditLimitBody
		res.JSON(t, &e)
		require.Equal(t, 402, res.StatusCode, "%s: status (body %s)", name, res.Body)
		require.Equal(t, "CREDIT_LIMIT", e.Error.Code, "%s: e.Error.Code", name)
		require.Equal(t, 12, e.Error.Credits.Limit, "%s: e.Error.Credits.Limit", name)
		require.Equal(t, 10, e.Error.Credits.Used, "%s: e.Error.Credits.Used", name)
		require.Equal(t, 2, e.Error.Credits.Remaining, "%s: e.Error.Credits.Remaining", name)
	}
	if after := testkit.Fingerprint(t, s.env); after != before {
		t.Fatal("a refused job changed the database")
	}
	if jobs, items, queued := jobRows(t, s); jobs+items+queued != 0 {
		t.Fatalf("a refused job wrote %d jobs, %d items, %d queue entries", jobs, items, queued)
	}

	// Two to issue, one skipped, one unknown: within the 2 credits left.
	res := s.acct.Client.Post(s.jobsPath(), map[string]any{"attendeeIds": []uuid.UUID{ids[0], ids[1], ids[2], uuid.New()}})
	if res.StatusCode != 202 {
		t.Fatalf("job within the credits: %d %s", res.StatusCode, res.Body)
	}
	jobs, items, queued := jobRows(t, s)
	require.Equal(t, 1, jobs, "job: jobs")
	require.Equal(t, 4, items, "job: items")
	require.Equal(t, 1, queued, "job: queued")
}

// With allowPartial the job starts, issues while credits last, and records the rest as failed
// with CREDIT_LIMIT. An unlimited plan is never refused.
func TestAPartialJobIssuesWhileCreditsLast(t *testing.T) {
	t.Parallel()
	s := newIssuing(t)
	ids := s.attendees(t, "a", 3)
	s.spendCredits(t, 10)
	res := s.acct.Client.Post(s.jobsPath(), map[string]any{"allowPartial": true, "sendEmail": false})
	if res.StatusCode != 202 {
		t.Fatalf("create job: %d %s", res.StatusCode, res.Body)
	}
	if err := s.env.Service.Jobs.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.env.Service.Jobs.Stop(context.Background()) })
	j := waitForJob(t, s, res.Header.Get("Location"), func(j domain.BulkJob) bool { return j.Status == "completed" })
	require.Equal(t, 3, j.Data.Total, "job: j.Data.Total")
	require.Equal(t, 2, j.Data.Issued, "job: j.Data.Issued")
	require.Equal(t, 1, j.Data.Failed, "job: j.Data.Failed")
	require.Len(t, j.Data.Errors, 1, "job: j.Data.Errors")
	require.Equal(t, "CREDIT_LIMIT", j.Data.Errors[0].Code, "job: j.Data.Errors[0].Code")
	require.Equal(t, ids[2].String(), j.Data.Errors[0].AttendeeID, "job: j.Data.Errors[0].AttendeeID")
	issued, used := s.certificates(t)
	require.Equal(t, 2, issued, "certificates issued")
	require.Equal(t, 12, used, "credits used")

	// No credit left at all, on the unlimited plan: the job is not refused.
	testkit.SQL(t, s.env, `UPDATE accounts SET plan = 'unlimited' WHERE id = $1`, s.acct.ID)
	s.attendees(t, "b", 2)
	if res := s.acct.Client.Post(s.jobsPath(), map[string]any{}); res.StatusCode != 202 {
		t.Fatalf("unlimited plan: %d %s", res.StatusCode, res.Body)
	}
}

// Drafts use no credit: a draft job is never refused for credits. Issuing the attendees who
// hold the drafts does use credits, and is counted.
func TestADraftJobIsNotCountedAgainstCredits(t *testing.T) {
	t.Parallel()
	s := newIssuing(t)
	s.attendees(t, "a", 3)
	s.spendCredits(t, 10)
	res := s.acct.Client.Post(s.jobsPath(), map[string]any{"draft": true})
	if res.StatusCode != 202 {
		t.Fatalf("draft job: %d %s", res.StatusCode, res.Body)
	}
	if err := s.env.Service.Jobs.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.env.Service.Jobs.Stop(context.Background()) })
	j := waitForJob(t, s, res.Header.Get("Location"), func(j domain.BulkJob) bool { return j.Status == "completed" })
	require.Equal(t, 3, j.Data.Issued, "draft job: j.Data.Issued")
	require.Equal(t, 0, j.Data.Failed, "draft job: j.Data.Failed")
	if _, used := s.certificates(t); used != 10 {
		t.Fatalf("drafts used %d credits", used-10)
	}
	res = s.acct.Client.Post(s.jobsPath(), map[string]any{})
	var e creditLimitBody
	res.JSON(t, &e)
	require.Equal(t, 402, res.StatusCode, "issuing three drafts with two credits: status (body %s)", res.Body)
	require.Equal(t, 2, e.Error.Credits.Remaining, "issuing three drafts with two credits: e.Error.Credits.Remaining")
}
