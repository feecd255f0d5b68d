// Package idempotency holds the rules of Idempotency-Key: a key is claimed under a lease by
// the first request that carries it; that request's successful answer is kept and replayed to
// the same request; another request under the key is refused; a failed request is forgotten.
// The HTTP edge reads the key and the answer; this package decides.
package idempotency

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/google/uuid"
	"github.com/riverqueue/river"

	"github.com/certhub/credentiald/internal/apperr"
	"github.com/certhub/credentiald/internal/domain"
	"github.com/certhub/credentiald/internal/jobs"
	"github.com/certhub/credentiald/internal/store"
)

// Keep is how long a successful answer is replayed.
const Keep = 24 * time.Hour

// Service claims keys and keeps answers.
type Service struct {
	store *store.Store
	now   func() time.Time
}

// New returns the service; now is its clock (nil: the system's).
func New(st *store.Store, now func() time.Time) *Service {
	if now == nil {
		now = time.Now
	}
	return &Service{store: st, now: now}
}

// Claim takes key for a request with fingerprint for lease. It returns nil when the request
// may run; the kept answer when the same request already succeeded; 422
// IDEMPOTENCY_KEY_REUSED for another request's key; 409 IDEMPOTENCY_IN_PROGRESS while the
// first request still runs (its lease has not lapsed). A failure of the database is its own
// error (500), never a 409: no other request is known to hold the key then.
func (s *Service) Claim(ctx context.Context, accountID uuid.UUID, key string, fingerprint []byte, lease time.Duration) (*domain.StoredResponse, error) {
	ok, err := s.store.ClaimIdempotencyKey(ctx, store.IdempotencyClaim{AccountID: accountID, Key: key,
		Fingerprint: fingerprint, Now: s.now(), Lease: lease, Keep: Keep})
	if err != nil {
		return nil, fmt.Errorf("claiming an idempotency key: %w", err)
	}
	if ok {
		return nil, nil
	}
	held, err := s.store.FindIdempotencyKey(ctx, accountID, key)
	if errors.Is(err, store.ErrNotFound) {
		// Released between the two statements: the caller may try again.
		return nil, apperr.New(apperr.IdempotencyInProgress, "A request with this Idempotency-Key is being processed; retry shortly.")
	} else if err != nil {
		return nil, fmt.Errorf("reading a held idempotency key: %w", err)
	}
	if !bytes.Equal(held.Fingerprint, fingerprint) {
		return nil, apperr.New(apperr.IdempotencyKeyReused, "This Idempotency-Key was used with another request within the last 24 hours; use a new key.").
			At("header.Idempotency-Key", "was used with another method, path or body")
	}
	if held.Response == nil {
		return nil, apperr.New(apperr.IdempotencyInProgress, "A request with this Idempotency-Key is still being processed; retry shortly.")
	}
	return held.Response, nil
}

// Complete keeps a request's successful answer under its key.
func (s *Service) Complete(ctx context.Context, accountID uuid.UUID, key string, fingerprint []byte, r domain.StoredResponse) error {
	return s.store.CompleteIdempotencyKey(ctx, accountID, key, fingerprint, r)
}

// Release forgets a request that did not succeed, so that it can be retried with its key.
func (s *Service) Release(ctx context.Context, accountID uuid.UUID, key string, fingerprint []byte) error {
	return s.store.ReleaseIdempotencyKey(ctx, accountID, key, fingerprint)
}

// PurgeEvery is how often the periodic purge job deletes the keys whose answers are no longer
// replayed.
const PurgeEvery = time.Hour

// Purge deletes the keys whose time is over (a claim takes such a key afresh anyway) and
// returns how many it deleted: without it the table would keep every key ever sent.
func (s *Service) Purge(ctx context.Context) (int, error) {
	return s.store.DeleteExpiredIdempotencyKeys(ctx, s.now())
}

// PurgeJob is the periodic job that purges, every PurgeEvery and once when the process starts
// (River's leader inserts it; see jobqueue).
func (s *Service) PurgeJob() *river.PeriodicJob {
	return river.NewPeriodicJob(river.PeriodicInterval(PurgeEvery), func() (river.JobArgs, *river.InsertOpts) {
		return jobs.PurgeIdempotencyKeys{}, nil
	}, &river.PeriodicJobOpts{RunOnStart: true})
}

// PurgeWorker is the River worker of the purge job; a failure is logged by River and the next
// hour's purge tries again.
func (s *Service) PurgeWorker(logger *slog.Logger) river.Worker[jobs.PurgeIdempotencyKeys] {
	return &purgeWorker{s: s, logger: logger}
}

type purgeWorker struct {
	river.WorkerDefaults[jobs.PurgeIdempotencyKeys]
	s      *Service
	logger *slog.Logger
}

func (w *purgeWorker) Work(ctx context.Context, _ *river.Job[jobs.PurgeIdempotencyKeys]) error {
	n, err := w.s.Purge(ctx)
	if err != nil {
		return fmt.Errorf("purging expired idempotency keys: %w", err)
	}
	if n > 0 {
		w.logger.InfoContext(ctx, "purged expired idempotency keys", "count", n)
	}
	return nil
}
