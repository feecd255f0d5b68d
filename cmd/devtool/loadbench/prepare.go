package loadbench

import (
	"context"
	"fmt"
	"time"

	"github.com/certhub/credentiald/cmd/devtool/loadgen"
)

// prepare gives the account o.Prepared certificates before any load runs, issued by the
// service itself (imports and background jobs of jobAttendees attendees, a few at a time), so
// that every figure is measured on a database that holds a busy account's history: the job's
// first measure (7.1 s on a fresh database) took 16.7-18.4 s when it ran after the other loads.
// Writing the rows by SQL would be faster, but would be a second, unchecked copy of what
// issuing writes (certificates, codes, status entries, counters, outbox).
func (b *bench) prepare(ctx context.Context) error {
	if b.o.Prepared <= 0 {
		fmt.Fprintf(b.o.Out, "bench-http: on an empty database (-prepare 0)\n")
		return nil
	}
	t0 := time.Now()
	const together = 2 // jobs running at once: the queue's workers, without starving the imports
	var events []string
	for done := 0; done < b.o.Prepared; done += jobAttendees {
		ev, err := b.newEvent(ctx, fmt.Sprintf("History %d", len(events)+1))
		if err != nil {
			return err
		}
		if _, err := b.importCSV(ctx, ev, b.csvRows(0, min(jobAttendees, b.o.Prepared-done))); err != nil {
			return err
		}
		events = append(events, ev)
	}
	for i := 0; i < len(events); i += together {
		var jobs [][2]string
		for _, ev := range events[i:min(i+together, len(events))] {
			id, err := b.startJob(ctx, ev)
			if err != nil {
				return err
			}
			jobs = append(jobs, [2]string{ev, id})
		}
		for _, j := range jobs {
			if _, err := b.waitJob(ctx, j[0], j[1]); err != nil {
				return err
			}
		}
	}
	var certificates, entries int
	if err := b.pool.QueryRow(ctx, `SELECT (SELECT count(*) FROM certificates), (SELECT count(*) FROM verifiable_credentials)`).
		Scan(&certificates, &entries); err != nil {
		return err
	}
	if _, err := b.pool.Exec(ctx, "VACUUM ANALYZE"); err != nil {
		return err
	}
	fmt.Fprintf(b.o.Out, "bench-http: prepared the account's history first: %d certificates and %d status entries, issued by %d jobs in %.0f s (load average %s)\n",
		certificates, entries, len(events), time.Since(t0).Seconds(), loadgen.LoadAverage())
	return nil
}
