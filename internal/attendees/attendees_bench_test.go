package attendees_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"runtime"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/certhub/credentiald/internal/accounts"
	"github.com/certhub/credentiald/internal/attendees"
	"github.com/certhub/credentiald/internal/domain"
	"github.com/certhub/credentiald/internal/store"
	"github.com/certhub/credentiald/internal/testkit"
)

func csvOf(rows, offset int) []byte {
	var b bytes.Buffer
	b.WriteString("firstName,lastName,email,company\n")
	for i := range rows {
		fmt.Fprintf(&b, "Ada%d,Lovelace,ada%d@example.org,Analytical Engines Ltd\n", i, offset+i)
	}
	return b.Bytes()
}

func newEvent(b *testing.B, st *store.Store) (uuid.UUID, uuid.UUID) {
	ctx := context.Background()
	acct, _, err := accounts.New(st, nil).Create(ctx, accounts.CreateParams{Email: fmt.Sprintf("b%d@example.org", time.Now().UnixNano()),
		Password: testkit.Password, Name: "Ada", AccountName: "Society"})
	if err != nil {
		b.Fatal(err)
	}
	tmpl, err := st.InsertTemplate(ctx, store.NewTemplate{AccountID: &acct.ID, Name: "T", PageSize: "A4", Orientation: "landscape",
		Layout: json.RawMessage(`{"rows":[{"height":40,"cols":[{"size":12,"content":{"type":"text","text":"x"}}]}]}`)}, time.Now())
	if err != nil {
		b.Fatal(err)
	}
	ev, err := st.CreateEvent(ctx, acct.ID, domain.EventFields{Name: "E", EventDate: time.Now(), TemplateID: tmpl.ID}, time.Now())
	if err != nil {
		b.Fatal(err)
	}
	return acct.ID, ev.ID
}

// One import of 50,000 rows (the file limit) per iteration, into a fresh event.
func BenchmarkImport50000Rows(b *testing.B) {
	st, _ := testkit.Store(b)
	svc := attendees.New(st, nil)
	file := csvOf(50_000, 0)
	b.SetBytes(int64(len(file)))
	b.ReportAllocs()
	for b.Loop() {
		b.StopTimer()
		acct, ev := newEvent(b, st)
		b.StartTimer()
		res, err := svc.Import(context.Background(), acct, ev, bytes.NewReader(file), true)
		if err != nil || res.Added != 50_000 {
			b.Fatalf("%+v %v", res, err)
		}
	}
}

// One export of 100,000 attendees per iteration; peak-heap-MiB shows the memory stays bounded
// (the export reads 1,000 rows at a time), whatever the number of attendees.
func BenchmarkExport100000Rows(b *testing.B) {
	st, _ := testkit.Store(b)
	svc := attendees.New(st, nil)
	acct, ev := newEvent(b, st)
	for i := range 2 {
		if _, err := svc.Import(context.Background(), acct, ev, bytes.NewReader(csvOf(50_000, i*50_000)), false); err != nil {
			b.Fatal(err)
		}
	}
	runtime.GC()
	var peak uint64
	w := &sampler{peak: &peak}
	b.ReportAllocs()
	for b.Loop() {
		if err := svc.Export(context.Background(), ev, w); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MiB")
}

// sampler discards the CSV and samples the live heap every 4 MiB written.
type sampler struct {
	n    int
	peak *uint64
}

func (s *sampler) Write(p []byte) (int, error) {
	s.n += len(p)
	if s.n > 4<<20 {
		s.n = 0
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		*s.peak = max(*s.peak, m.HeapInuse)
	}
	return io.Discard.Write(p)
}
