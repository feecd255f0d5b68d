package store

import (
	"time"

	"context"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/rivertype"
)

// JobQueue is the job queue (River) in the store's database, as a client that works jobs: the
// process builds one, with every worker registered (see app). Jobs are inserted in the
// transaction of their cause (Tx.InsertJob), so a job exists exactly when its cause was
// committed.
type JobQueue struct{ client *river.Client[pgx.Tx] }

// NewJobQueue returns a job-queue client over the store's pool; Start begins working jobs.
func (s *Store) NewJobQueue(cfg *river.Config) (*JobQueue, error) {
	c, err := river.NewClient(riverpgxv5.New(s.pool), cfg)
	if err != nil {
		return nil, err
	}
	return &JobQueue{client: c}, nil
}

// Start works queued jobs until Stop (or until ctx is cancelled, which stops at once).
func (j *JobQueue) Start(ctx context.Context) error { return j.client.Start(ctx) }

// Stop lets running jobs finish and stops.
func (j *JobQueue) Stop(ctx context.Context) error { return j.client.Stop(ctx) }

// StopAndCancel stops at once, cancelling the context of running jobs.
func (j *JobQueue) StopAndCancel(ctx context.Context) error { return j.client.StopAndCancel(ctx) }

// newJobInserter returns the client the store inserts jobs with: River's insert-only client
// (no workers, never started), so that domain code queues a job in its transaction without
// holding the process's working client.
func newJobInserter(s *Store, plugins []rivertype.Plugin) (*river.Client[pgx.Tx], error) {
	return river.NewClient(riverpgxv5.New(s.pool), &river.Config{Plugins: plugins})
}

// InsertJob queues a job in the transaction; its options are its arguments' (InsertOpts).
func (t *Tx) InsertJob(ctx context.Context, args river.JobArgs) error {
	_, err := t.jobs.InsertTx(ctx, t.tx, args, nil)
	return mapError(err)
}

// InsertJobAt queues a job in the transaction, to run at at (or later).
func (t *Tx) InsertJobAt(ctx context.Context, args river.JobArgs, at time.Time) error {
	_, err := t.jobs.InsertTx(ctx, t.tx, args, &river.InsertOpts{ScheduledAt: at})
	return mapError(err)
}

// InsertJobs queues jobs in the transaction, in one statement.
func (t *Tx) InsertJobs(ctx context.Context, args []river.JobArgs) error {
	if len(args) == 0 {
		return nil
	}
	params := make([]river.InsertManyParams, len(args))
	for i, a := range args {
		params[i] = river.InsertManyParams{Args: a}
	}
	_, err := t.jobs.InsertManyTx(ctx, t.tx, params)
	return mapError(err)
}

// JobCount is how many of River's jobs are in one queue in one state.
type JobCount struct {
	Queue, State string
	Jobs         int
}

// CountJobs counts River's jobs by queue and state, in one statement (for the operator's
// metrics, at each scrape).
func (s *Store) CountJobs(ctx context.Context) ([]JobCount, error) {
	rows, err := s.q.CountJobsByQueueAndState(ctx)
	if err != nil {
		return nil, mapError(err)
	}
	out := make([]JobCount, len(rows))
	for i, r := range rows {
		out[i] = JobCount{Queue: r.Queue, State: r.State, Jobs: int(r.Jobs)}
	}
	return out, nil
}
