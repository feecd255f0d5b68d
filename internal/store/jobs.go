package store

import (
	"context"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
)

// JobQueue is the job queue (River) in the store's database: a job is enqueued in the
// transaction of its cause (Tx.InsertJob), so it exists exactly when its cause was committed.
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

// InsertJob enqueues a job in the transaction.
func (t *Tx) InsertJob(ctx context.Context, jobs *JobQueue, args river.JobArgs) error {
	_, err := jobs.client.InsertTx(ctx, t.tx, args, nil)
	return mapError(err)
}
