package httpapi_test

import (
	"log/slog"
	"testing"

	"github.com/certhub/credentiald/internal/bulk"
	"github.com/certhub/credentiald/internal/jobqueue"
	"github.com/certhub/credentiald/internal/store"
	"github.com/certhub/credentiald/internal/testkit"
)

// bulkQueue returns a River client that works bulk jobs only, issuing through issuer, as a
// restarted service (or another instance) would run them with timing.
func bulkQueue(st *store.Store, logger *slog.Logger, timing bulk.Timing, issuer bulk.Issuer) (*store.JobQueue, error) {
	b, err := bulk.New(st, issuer, logger, timing)
	if err != nil {
		return nil, err
	}
	return jobqueue.New(st, jobqueue.Workers{Bulk: b}, logger, b.Timing().RescueAfter)
}

// runEmail works the service's due email jobs once (see testkit.RunEmail).
func runEmail(t testing.TB, env *testkit.Env) (int, error) { return testkit.RunEmail(t, env) }

// runWebhooks fans the service's due outbox events out and works the due deliveries once (see
// testkit.RunWebhooks).
func runWebhooks(t testing.TB, env *testkit.Env) (int, error) { return testkit.RunWebhooks(t, env) }
