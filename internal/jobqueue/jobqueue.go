// Package jobqueue builds the process's one River client: every worker registered, one queue
// per kind of work, the periodic jobs. Everything that leaves the process later (email,
// webhooks, bulk issuance, purges) is a River job inserted in its cause's transaction (see
// store.Tx.InsertJob), so retries, backoff, rescue of a dead process's jobs and periodic work
// are River's.
package jobqueue

import (
	"cmp"
	"log/slog"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"

	"github.com/certhub/credentiald/internal/bulk"
	"github.com/certhub/credentiald/internal/credentials"
	"github.com/certhub/credentiald/internal/email"
	"github.com/certhub/credentiald/internal/idempotency"
	"github.com/certhub/credentiald/internal/jobs"
	"github.com/certhub/credentiald/internal/retention"
	"github.com/certhub/credentiald/internal/store"
	"github.com/certhub/credentiald/internal/svgrecheck"
	"github.com/certhub/credentiald/internal/webhooks"
)

// Workers are what the client works; a nil one is left out with its queue (tests start a
// client for one kind of work).
type Workers struct {
	Bulk        *bulk.Service
	Email       *email.Worker
	Webhooks    *webhooks.Dispatcher
	Idempotency *idempotency.Service
	// SVGRecheck checks the stored SVGs again after the upload check became stricter.
	SVGRecheck *svgrecheck.Service
	// Credentials gives keyless accounts their issuer key, periodically.
	Credentials *credentials.Service
	// ErasedFiles deletes the email files of erased people, and of emails purged past their
	// retention (privacy.FilesWorker).
	ErasedFiles river.Worker[jobs.EraseEmailFiles]
	// Retention purges what is past each account's retention, periodically.
	Retention *retention.Service
	// PasswordResets emails the links of password reset requests (auth.Service).
	PasswordResets river.Worker[jobs.PasswordReset]
}

// DefaultRescueAfter is when the job of a process that died mid-run is taken up again, unless
// its worker's timeout is longer (an email's attempt may run 3 minutes): the lease of one
// minute the contract promises for a webhook attempt (WebhookDelivery.attempts in
// openapi/v1.json; the attempt's own bound, 10 s and 30 s to record it, fits in it). River's
// rescuer looks every 30 seconds, so a lapsed attempt is taken up 1 to 1.5 minutes after it
// began.
const DefaultRescueAfter = time.Minute

// New returns the client over the store's database; Start begins working jobs, Stop lets the
// running ones finish. rescueAfter (0: DefaultRescueAfter) is when River's rescuer takes up the
// job of a process that died; workers with a longer timeout declare it (Timeout), and River
// waits for it before rescuing their jobs. plugins are installed on the client (River's
// OpenTelemetry middleware, when tracing is on).
func New(st *store.Store, w Workers, logger *slog.Logger, rescueAfter time.Duration, plugins ...rivertype.Plugin) (*store.JobQueue, error) {
	// The machine has 2 cores: bulk issuance renders (CPU), so 2 at a time; email and webhooks
	// wait on the network, so more; the maintenance jobs are rare and short.
	queues := map[string]river.QueueConfig{}
	workers := river.NewWorkers()
	var periodic []*river.PeriodicJob
	if w.Bulk != nil {
		river.AddWorker(workers, w.Bulk.Worker())
		queues[jobs.QueueBulk] = river.QueueConfig{MaxWorkers: 2}
	}
	if w.Email != nil {
		river.AddWorker[jobs.SendEmail](workers, w.Email)
		queues[jobs.QueueEmail] = river.QueueConfig{MaxWorkers: 4}
	}
	if w.PasswordResets != nil {
		river.AddWorker(workers, w.PasswordResets)
		queues[jobs.QueueEmail] = river.QueueConfig{MaxWorkers: 4}
	}
	if w.Webhooks != nil {
		river.AddWorker(workers, w.Webhooks.FanOutWorker())
		river.AddWorker(workers, w.Webhooks.DeliveryWorker())
		// River fetches a queue's jobs at most once per FetchCooldown (100 ms by default): with
		// 8 workers, about 80 jobs a second, fan-outs and deliveries together, some 40
		// deliveries. A burst of events (a bulk job's thousands of certificate.issued) should
		// go out at the receivers' pace, not the fetcher's: 10 ms lets the 8 workers stay busy
		// (BenchmarkDispatch: about 40 deliveries/s at 100 ms, about 360/s at 10 ms), at the
		// cost of a fetch query every 10 ms only while jobs keep coming.
		queues[jobs.QueueWebhooks] = river.QueueConfig{MaxWorkers: webhooks.Concurrency, FetchCooldown: 10 * time.Millisecond}
	}
	if w.Idempotency != nil {
		river.AddWorker(workers, w.Idempotency.PurgeWorker(logger))
		queues[jobs.QueueMaintenance] = river.QueueConfig{MaxWorkers: 1}
		periodic = append(periodic, w.Idempotency.PurgeJob())
	}
	if w.Credentials != nil {
		river.AddWorker(workers, w.Credentials.BackfillWorker(logger))
		queues[jobs.QueueMaintenance] = river.QueueConfig{MaxWorkers: 1}
		periodic = append(periodic, w.Credentials.BackfillJob())
	}
	if w.ErasedFiles != nil {
		river.AddWorker(workers, w.ErasedFiles)
		queues[jobs.QueueMaintenance] = river.QueueConfig{MaxWorkers: 1}
	}
	if w.Retention != nil {
		river.AddWorker(workers, w.Retention.PurgeWorker(logger))
		queues[jobs.QueueMaintenance] = river.QueueConfig{MaxWorkers: 1}
		periodic = append(periodic, w.Retention.PurgeJob())
	}
	if w.SVGRecheck != nil {
		river.AddWorker(workers, w.SVGRecheck.Worker())
		queues[jobs.QueueMaintenance] = river.QueueConfig{MaxWorkers: 1}
	}
	rescueAfter = cmp.Or(rescueAfter, DefaultRescueAfter)
	return st.NewJobQueue(&river.Config{
		Queues:       queues,
		Workers:      workers,
		PeriodicJobs: periodic,
		Plugins:      plugins,
		Logger:       logger,
		// River's default job timeout (1 minute), unless the rescue comes sooner (tests); workers
		// that need longer say so (Timeout).
		JobTimeout:           min(time.Minute, rescueAfter),
		RescueStuckJobsAfter: rescueAfter,
	})
}
