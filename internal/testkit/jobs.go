package testkit

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/rivertest"
	"github.com/riverqueue/river/rivertype"

	"github.com/certhub/credentiald/internal/jobqueue"
	"github.com/certhub/credentiald/internal/jobs"
	"github.com/certhub/credentiald/internal/webhooks"
)

// Jobs works River jobs in a test, deterministically and on the test's clock, instead of a
// running client: WorkDue takes the jobs of a kind that are due when it is called and works each
// through River's own executor (rivertest), in a transaction of its own, so that retries are
// scheduled, cancellations and completions recorded as a client would. A job is due when it was
// never attempted (River takes a new job at once, whatever the test's clock says), when its
// retry time has come on the clock, or when it has been running for longer than RescueAfter
// and its worker's Timeout (River's rescuer takes up the job of a process that died, and waits
// for a worker's longer timeout as it does for an email's).
type Jobs struct {
	t      testing.TB
	pool   *pgxpool.Pool
	client *river.Client[pgx.Tx]
	config *river.Config
	now    func() time.Time
	kinds  map[string]jobKind
	// RescueAfter is how long a job runs before River's rescuer takes it up again
	// (jobqueue.DefaultRescueAfter).
	RescueAfter time.Duration
}

// NewJobs returns a Jobs over the database at dbURL, on the clock now (nil: the system's).
func NewJobs(t testing.TB, dbURL string, now func() time.Time) *Jobs {
	t.Helper()
	if now == nil {
		now = time.Now
	}
	pool, err := pgxpool.New(context.Background(), dbURL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	config := &river.Config{Test: river.TestConfig{Time: clockTime{now}}}
	client, err := river.NewClient(riverpgxv5.New(pool), config)
	if err != nil {
		t.Fatal(err)
	}
	return &Jobs{t: t, pool: pool, client: client, config: config, now: now, RescueAfter: jobqueue.DefaultRescueAfter,
		kinds: map[string]jobKind{}}
}

// jobKind is how Jobs works the jobs of one kind, and its worker's timeout for one.
type jobKind struct {
	work    func(ctx context.Context, tx pgx.Tx, job *rivertype.JobRow) (*rivertest.WorkResult, error)
	timeout func(job *rivertype.JobRow) time.Duration
}

// AddJobWorker lets j work the jobs of w's kind.
func AddJobWorker[T river.JobArgs](j *Jobs, w river.Worker[T]) {
	var args T
	tw := rivertest.NewWorker(j.t, riverpgxv5.New(j.pool), j.config, w)
	j.kinds[args.Kind()] = jobKind{
		work: func(ctx context.Context, tx pgx.Tx, job *rivertype.JobRow) (*rivertest.WorkResult, error) {
			return tw.WorkJob(ctx, j.t, tx, job)
		},
		timeout: func(job *rivertype.JobRow) time.Duration { return w.Timeout(&river.Job[T]{JobRow: job}) },
	}
}

// ServiceJobs returns a Jobs that works env's email and webhook jobs on the service's clock.
func ServiceJobs(t testing.TB, env *Env) *Jobs {
	t.Helper()
	j := NewJobs(t, env.Config.DatabaseURL, env.Service.Now)
	AddJobWorker(j, river.Worker[jobs.SendEmail](env.Service.Email))
	AddJobWorker(j, env.Service.Auth.PasswordResetWorker())
	AddJobWorker(j, env.Service.Dispatcher.FanOutWorker())
	AddJobWorker(j, env.Service.Dispatcher.DeliveryWorker())
	return j
}

// RunEmail works env's due password reset requests (which queue emails), then its due email
// jobs once, as the email worker's RunOnce did, and returns how many emails it worked.
func RunEmail(t testing.TB, env *Env) (int, error) {
	t.Helper()
	j := ServiceJobs(t, env)
	j.WorkDue(jobs.PasswordReset{}.Kind())
	return len(j.WorkDue(jobs.SendEmail{}.Kind())), nil
}

// RunWebhooks fans env's due outbox events out, then works the due deliveries once, as the
// dispatcher's RunOnce did, and returns how many attempts it made.
func RunWebhooks(t testing.TB, env *Env) (int, error) {
	t.Helper()
	return ServiceJobs(t, env).RunWebhooks(), nil
}

// RunWebhooks fans the due outbox events out, then works the due deliveries once, and returns
// how many attempts were made (a delivery closed before its job ran sends nothing).
func (j *Jobs) RunWebhooks() int {
	j.t.Helper()
	j.WorkDue(jobs.FanOutEvents{}.Kind())
	n := 0
	for _, job := range j.WorkDue(jobs.DeliverWebhook{}.Kind()) {
		if !NotSent(job) {
			n++
		}
	}
	return n
}

// NotSent reports whether a worked delivery job sent nothing (its output says why).
func NotSent(job *rivertype.JobRow) bool {
	var out webhooks.NotSent
	return json.Unmarshal(job.Output(), &out) == nil && out.Reason != ""
}

// scheduledLater reports whether a job was inserted to run later than its insertion (a job
// whose work must wait, such as an erasure's second files job): such a job is due by the
// clock, where one never attempted is due at once (the database's clock that stamped it may
// be ahead of a test's clock).
func scheduledLater(job *rivertype.JobRow) bool {
	return job.ScheduledAt.Sub(job.CreatedAt) > time.Second
}

// due lists the jobs of kind due now, oldest first.
func (j *Jobs) due(ctx context.Context, kind string) []int64 {
	j.t.Helper()
	now := j.now()
	res, err := j.client.JobList(ctx, river.NewJobListParams().Kinds(kind).First(10_000).
		States(rivertype.JobStateAvailable, rivertype.JobStateScheduled, rivertype.JobStateRetryable, rivertype.JobStateRunning).
		OrderBy(river.JobListOrderByScheduledAt, river.SortOrderAsc))
	if err != nil {
		j.t.Fatal(err)
	}
	var ids []int64
	for _, job := range res.Jobs {
		if job.State == rivertype.JobStateRunning {
			rescueAfter := j.RescueAfter
			if k, ok := j.kinds[kind]; ok {
				rescueAfter = max(rescueAfter, k.timeout(job))
			}
			if job.AttemptedAt != nil && !job.AttemptedAt.After(now.Add(-rescueAfter)) {
				ids = append(ids, job.ID)
			}
		} else if (job.Attempt == 0 && !scheduledLater(job)) || !job.ScheduledAt.After(now) {
			ids = append(ids, job.ID)
		}
	}
	return ids
}

// WorkDue works, one by one, the jobs of kind due when it is called, and returns them as they
// are after their work. A job's own failure is River's business (a retry, a cancellation);
// only a failure to work it fails the test.
func (j *Jobs) WorkDue(kind string) []*rivertype.JobRow {
	j.t.Helper()
	ctx := context.Background()
	k, ok := j.kinds[kind]
	if !ok {
		j.t.Fatalf("no worker for jobs of kind %s", kind)
	}
	var worked []*rivertype.JobRow
	for _, id := range j.due(ctx, kind) {
		tx, err := j.pool.Begin(ctx)
		if err != nil {
			j.t.Fatal(err)
		}
		job, err := j.client.JobGetTx(ctx, tx, id)
		if err != nil {
			_ = tx.Rollback(ctx)
			j.t.Fatal(err)
		}
		res, err := k.work(ctx, tx, job)
		if res == nil {
			_ = tx.Rollback(ctx)
			j.t.Fatalf("working job %d (%s): %v", id, kind, err)
		}
		if err != nil {
			j.t.Logf("job %d (%s), attempt %d: %v", id, kind, res.Job.Attempt, err)
		}
		if err := tx.Commit(ctx); err != nil {
			j.t.Fatal(err)
		}
		worked = append(worked, res.Job)
	}
	return worked
}

// Abandon takes the due jobs of kind as a worker does (attempt counted, running since now) and
// leaves them so: the worker's process died. It returns them.
func (j *Jobs) Abandon(kind string) []*rivertype.JobRow {
	j.t.Helper()
	ctx := context.Background()
	var taken []*rivertype.JobRow
	for _, id := range j.due(ctx, kind) {
		rows, err := j.pool.Query(ctx, `UPDATE river_job SET state = 'running', attempt = attempt + 1, attempted_at = $2,
			attempted_by = array_append(attempted_by, 'dead-process') WHERE id = $1 RETURNING id`, id, j.now())
		if err != nil {
			j.t.Fatal(err)
		}
		rows.Close()
		job, err := j.client.JobGet(ctx, id)
		if err != nil {
			j.t.Fatal(err)
		}
		taken = append(taken, job)
	}
	return taken
}

// clockTime is a test clock as River's time generator.
type clockTime struct{ now func() time.Time }

func (c clockTime) Now() time.Time { return c.now() }

func (c clockTime) NowOrNil() *time.Time {
	t := c.now()
	return &t
}
