package bulk_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/certhub/credentiald/internal/accounts"
	"github.com/certhub/credentiald/internal/attendees"
	"github.com/certhub/credentiald/internal/bulk"
	"github.com/certhub/credentiald/internal/certificates"
	"github.com/certhub/credentiald/internal/domain"
	"github.com/certhub/credentiald/internal/jobqueue"
	"github.com/certhub/credentiald/internal/store"
	"github.com/certhub/credentiald/internal/testkit"
)

type fixture struct {
	st      *store.Store
	certs   *certificates.Service
	bulk    *bulk.Service
	account uuid.UUID
	tmpl    uuid.UUID
}

func setup(b *testing.B) fixture {
	ctx := context.Background()
	st, _ := testkit.Store(b)
	accts := accounts.New(st, nil)
	a, _, err := accts.Create(ctx, accounts.CreateParams{Email: "bench@example.org", Password: testkit.Password, Name: "B", AccountName: "Bench"})
	if err != nil {
		b.Fatal(err)
	}
	if _, err := accts.SetPlan(ctx, a.ID, "unlimited"); err != nil {
		b.Fatal(err)
	}
	tmpl, err := st.InsertTemplate(ctx, store.NewTemplate{AccountID: &a.ID, Name: "T", PageSize: "A4", Orientation: "landscape",
		Layout: json.RawMessage(`{"rows":[{"height":40,"cols":[{"size":12,"content":{"type":"text","text":"{{recipient.fullName}}"}}]}]}`)}, time.Now())
	if err != nil {
		b.Fatal(err)
	}
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	certs := certificates.New(st, "https://certs.example.org", nil)
	bs, err := bulk.New(st, certs, logger, bulk.Timing{})
	if err != nil {
		b.Fatal(err)
	}
	return fixture{st: st, certs: certs, bulk: bs, account: a.ID, tmpl: tmpl.ID}
}

// event creates an event with n attendees and returns it with their ids.
func (f fixture) event(b *testing.B, n int) (uuid.UUID, []uuid.UUID) {
	ctx := context.Background()
	ev, err := f.st.CreateEvent(ctx, f.account, domain.EventFields{Name: "E", EventDate: time.Now(), TemplateID: f.tmpl}, time.Now())
	if err != nil {
		b.Fatal(err)
	}
	var csv bytes.Buffer
	csv.WriteString("firstName,lastName,email\n")
	for i := range n {
		fmt.Fprintf(&csv, "Ada,%d,ada%d@example.org\n", i, i)
	}
	if _, err := attendees.New(f.st, nil).Import(ctx, f.account, ev.ID, &csv, false); err != nil {
		b.Fatal(err)
	}
	ids, err := f.st.AttendeesWithoutValid(ctx, f.account, ev.ID, f.tmpl, time.Now())
	if err != nil {
		b.Fatal(err)
	}
	return ev.ID, ids
}

// One certificate per iteration, as POST /certificates/generate issues it (credit, number,
// code, snapshot, outbox event, in one transaction).
func BenchmarkIssueSingle(b *testing.B) {
	f := setup(b)
	ev, ids := f.event(b, 20_000)
	i := 0
	start := time.Now()
	for b.Loop() {
		if _, err := f.certs.Generate(context.Background(), certificates.GenerateParams{AccountID: f.account, EventID: ev,
			AttendeeID: ids[i%len(ids)], TemplateID: f.tmpl}); err != nil {
			b.Fatal(err)
		}
		i++
	}
	b.ReportMetric(float64(i)/time.Since(start).Seconds(), "certs/s")
}

// One synchronous bulk request of 100 attendees per iteration.
func BenchmarkIssueBulk100(b *testing.B) {
	f := setup(b)
	n := 0
	var elapsed time.Duration
	for b.Loop() {
		b.StopTimer()
		ev, ids := f.event(b, 100)
		b.StartTimer()
		start := time.Now()
		res, err := f.bulk.Generate(context.Background(), bulk.Request{AccountID: f.account, EventID: ev, AttendeeIDs: ids})
		if err != nil || len(res.Issued) != 100 {
			b.Fatalf("%d issued, %v", len(res.Issued), err)
		}
		elapsed += time.Since(start)
		n += 100
	}
	b.ReportMetric(float64(n)/elapsed.Seconds(), "certs/s")
}

// One background job for an event of 10,000 attendees per iteration, from queueing to completion.
func BenchmarkJob10000(b *testing.B) {
	f := setup(b)
	queue, err := jobqueue.New(f.st, jobqueue.Workers{Bulk: f.bulk}, slog.New(slog.NewTextHandler(io.Discard, nil)), 0)
	if err != nil {
		b.Fatal(err)
	}
	if err := queue.Start(context.Background()); err != nil {
		b.Fatal(err)
	}
	defer func() { _ = queue.Stop(context.Background()) }()
	for b.Loop() {
		b.StopTimer()
		ev, _ := f.event(b, 10_000)
		b.StartTimer()
		job, err := f.bulk.CreateJob(context.Background(), bulk.Request{AccountID: f.account, EventID: ev})
		if err != nil {
			b.Fatal(err)
		}
		for {
			j, err := f.st.FindBulkJob(context.Background(), f.account, ev, job.ID)
			if err != nil {
				b.Fatal(err)
			}
			if j.Status == "completed" {
				if j.Issued != 10_000 {
					b.Fatalf("%+v", j)
				}
				break
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
}
