package loadbench

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/certhub/credentiald/cmd/devtool/loadgen"
)

// Sizes of the data: enough attendees that no issuance repeats one, the import and the job of
// the issue's table.
const (
	issueAttendees = 60_000
	importRows     = 50_000
	jobAttendees   = 10_000
)

type bench struct {
	o     Options
	pool  *pgxpool.Pool
	srv   *server
	pgPID int // the cluster's postmaster: its process tree's CPU is PostgreSQL's
	bare  string
	key   string // API key with the scopes the loads need
	tmpl  string
	event string // the event whose attendees the issuance load issues
	// attendees of the event, handed out one per issuance across all phases
	attendees []uuid.UUID
	next      atomic.Int64
	accountID uuid.UUID
	csv       []byte // importRows rows
	// the issuance load's requests and the bare rate it measured, for its latency at half that rate
	issue struct {
		service, bare loadgen.Request
		bareRate      float64
	}
}

// setup creates an account on the unlimited plan (its one hot credit row is what the issuance
// load contends on), an API key, an event with the attendees to issue for, and the CSV file.
func (b *bench) setup(ctx context.Context) error {
	const email, password = "bench@example.org", "bench password for the load"
	cmd := exec.CommandContext(ctx, b.srv.bin, "account", "create", "-email", email, "-name", "Bench",
		"-account-name", "Load Bench", "-plan", "unlimited")
	cmd.Env = append(b.srv.env(), "CREDENTIALD_PASSWORD="+password)
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("account create: %w: %s", err, out)
	}
	var login struct{ Data struct{ AccessToken string } }
	if err := b.call(ctx, "POST", "/api/v1/auth/login", "", map[string]any{"email": email, "password": password}, &login); err != nil {
		return err
	}
	var key struct{ Data struct{ Key string } }
	if err := b.call(ctx, "POST", "/api/v1/api-keys", login.Data.AccessToken, map[string]any{"name": "load", "scopes": []string{
		"events:read", "events:write", "attendees:read", "attendees:write", "templates:read", "certificates:generate", "certificates:read"}}, &key); err != nil {
		return err
	}
	b.key = key.Data.Key
	var tmpls struct{ Data []struct{ ID string } }
	if err := b.call(ctx, "GET", "/api/v1/system-templates", b.key, nil, &tmpls); err != nil || len(tmpls.Data) == 0 {
		return fmt.Errorf("system templates: %v", err)
	}
	b.tmpl = tmpls.Data[0].ID

	var csv bytes.Buffer
	csv.WriteString("firstName,lastName,email\n")
	for i := range importRows {
		fmt.Fprintf(&csv, "Ada,Lovelace %d,ada.%d@example.org\n", i, i)
	}
	b.csv = csv.Bytes()
	var err error
	if b.event, err = b.newEvent(ctx, "Issuance load"); err != nil {
		return err
	}
	for i := 0; i < issueAttendees; i += importRows {
		if _, err := b.importCSV(ctx, b.event, b.csvRows(i, min(importRows, issueAttendees-i))); err != nil {
			return err
		}
	}
	// The load's rows are read from the database: listing 60,000 through the API would take
	// longer than the load itself.
	rows, _ := b.pool.Query(ctx, "SELECT id, account_id FROM attendees WHERE event_id = $1 ORDER BY id", b.event)
	err = func() error {
		defer rows.Close()
		for rows.Next() {
			var id uuid.UUID
			if err := rows.Scan(&id, &b.accountID); err != nil {
				return err
			}
			b.attendees = append(b.attendees, id)
		}
		return rows.Err()
	}()
	if err != nil {
		return err
	}
	if len(b.attendees) != issueAttendees {
		return fmt.Errorf("the event has %d attendees, want %d", len(b.attendees), issueAttendees)
	}
	return nil
}

// csvRows is a CSV file of n attendees numbered from first.
func (b *bench) csvRows(first, n int) []byte {
	var csv bytes.Buffer
	csv.WriteString("firstName,lastName,email\n")
	for i := first; i < first+n; i++ {
		fmt.Fprintf(&csv, "Grace,Hopper %d,grace.%d@example.org\n", i, i)
	}
	return csv.Bytes()
}

func (b *bench) newEvent(ctx context.Context, name string) (string, error) {
	var ev struct{ Data struct{ ID string } }
	err := b.call(ctx, "POST", "/api/v1/events", b.key, map[string]any{"name": name, "eventDate": "2026-11-12T09:00:00Z", "templateId": b.tmpl}, &ev)
	return ev.Data.ID, err
}

// importCSV posts a CSV file to the event as the import form and returns how many were added.
func (b *bench) importCSV(ctx context.Context, event string, csv []byte) (int, error) {
	req, err := importRequest(b.srv.url+"/api/v1/attendees/import?skipDuplicates=false&eventId="+event, b.key, csv)
	if err != nil {
		return 0, err
	}
	var res struct{ Data struct{ Added int } }
	if err := do(ctx, req, &res); err != nil {
		return 0, err
	}
	return res.Data.Added, nil
}

func importRequest(url, key string, csv []byte) (*http.Request, error) {
	var body bytes.Buffer
	w := multipart.NewWriter(&body)
	part, err := w.CreateFormFile("file", "attendees.csv")
	if err != nil {
		return nil, err
	}
	_, _ = part.Write(csv)
	_ = w.Close()
	req, err := http.NewRequest(http.MethodPost, url, &body)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", w.FormDataContentType())
	req.Header.Set("Authorization", "Bearer "+key)
	return req, nil
}

// setupAddr numbers the setup's client addresses, apart from the load's.
var setupAddr atomic.Uint32

// call sends one request to the service and decodes its 2xx answer into out.
func (b *bench) call(ctx context.Context, method, path, bearer string, body any, out any) error {
	var rd io.Reader
	if body != nil {
		raw, _ := json.Marshal(body)
		rd = bytes.NewReader(raw)
	}
	req, err := http.NewRequest(method, b.srv.url+path, rd)
	if err != nil {
		return err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if bearer != "" {
		req.Header.Set("Authorization", "Bearer "+bearer)
	}
	return do(ctx, req, out)
}

func do(ctx context.Context, req *http.Request, out any) error {
	req.Header.Set("X-Forwarded-For", fmt.Sprintf("192.168.%d.%d", byte(setupAddr.Add(1)>>8), byte(setupAddr.Load())))
	res, err := http.DefaultClient.Do(req.WithContext(ctx))
	if err != nil {
		return err
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(res.Body)
	if err != nil {
		return err
	}
	if res.StatusCode/100 != 2 {
		return fmt.Errorf("%s %s: %d %s", req.Method, req.URL.Path, res.StatusCode, raw)
	}
	if out != nil {
		return json.Unmarshal(raw, out)
	}
	return nil
}

// compare runs the service's and the bare server's loads in alternating phases, after a
// warm-up of each, and profiles the server during its first phase when asked. rate, when
// positive, offers each side that many requests a second (an open loop, with four times the
// clients so that requests wait for the server, not for a client); otherwise each client sends
// its next request on its last answer.
func (b *bench) compare(ctx context.Context, work, profile string, service, bare loadgen.Request, rate float64) (row, error) {
	opts := loadgen.Options{Clients: b.o.Clients, Duration: time.Second, Rate: rate}
	if rate > 0 {
		opts.Clients *= 4
	}
	loadgen.Run(ctx, bare, opts)
	loadgen.Run(ctx, service, opts)
	opts.Duration = b.o.Phase
	var sres, bres loadgen.Result
	var ticks, pgService, pgBare, genTicks int64
	var servicePhases, barePhases []time.Duration
	if b.o.Statements {
		if _, err := b.pool.Exec(ctx, "SELECT pg_stat_statements_reset()"); err != nil {
			return row{}, err
		}
	}
	for round := range b.o.Rounds {
		p0 := loadgen.TreeCPUTicks(b.pgPID)
		phase := loadgen.Run(ctx, bare, opts)
		barePhases = append(barePhases, phase.P99())
		bres.Add(phase)
		pgBare += loadgen.TreeCPUTicks(b.pgPID) - p0
		var prof chan error
		if b.o.Profile && round == 0 {
			prof = make(chan error, 1)
			go func() { prof <- b.cpuProfile(ctx, profile, b.o.Phase-time.Second/2) }()
		}
		t0, p0, g0 := loadgen.CPUTicks(b.srv.cmd.Process.Pid), loadgen.TreeCPUTicks(b.pgPID), loadgen.CPUTicks(0)
		phase = loadgen.Run(ctx, service, opts)
		servicePhases = append(servicePhases, phase.P99())
		sres.Add(phase)
		ticks += loadgen.CPUTicks(b.srv.cmd.Process.Pid) - t0
		pgService += loadgen.TreeCPUTicks(b.pgPID) - p0
		genTicks += loadgen.CPUTicks(0) - g0 // this process: the load generator (the bare server idles)
		if prof != nil {
			if err := <-prof; err != nil {
				return row{}, err
			}
		}
		if err := ctx.Err(); err != nil {
			return row{}, err
		}
	}
	for name, r := range map[string]*loadgen.Result{"service": &sres, "bare": &bres} {
		if r.Failed > 0 {
			return row{}, fmt.Errorf("%s, %s: %d of %d requests failed (first: %v)", work, name, r.Failed, r.Requests, r.FirstErr)
		}
	}
	if b.o.Statements {
		if err := b.printStatements(ctx, work, sres.Requests); err != nil {
			return row{}, err
		}
	}
	return row{work: work, unit: "req/s", service: sres.Rate(), bare: bres.Rate(), sp50: sres.P50(), sp99: sres.P99(),
		bp50: bres.P50(), bp99: bres.P99(), serverCPU: loadgen.TicksPerRequest(ticks, sres.Requests),
		pgCPU: loadgen.TicksPerRequest(pgService, sres.Requests), barePGCPU: loadgen.TicksPerRequest(pgBare, bres.Requests),
		genCPU: loadgen.TicksPerRequest(genTicks, sres.Requests), phaseP99: [2][]time.Duration{servicePhases, barePhases}}, nil
}

// cpuProfile writes a CPU profile of the server over d into Dir/cpu-NAME.pprof.
func (b *bench) cpuProfile(ctx context.Context, name string, d time.Duration) error {
	url := fmt.Sprintf("%s/debug/pprof/profile?seconds=%d", b.srv.pprofURL, max(1, int(d.Seconds())))
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	path := filepath.Join(b.o.Dir, "cpu-"+name+".pprof")
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if _, err := io.Copy(f, res.Body); err != nil {
		f.Close()
		return err
	}
	fmt.Fprintf(b.o.Out, "  (profile of the server under %s: go tool pprof -top %s %s)\n", name, b.srv.bin, path)
	return f.Close()
}

// issueLoad: POST /certificates/generate, each request for another attendee of one account.
func (b *bench) issueLoad(ctx context.Context) (row, error) {
	service := func(uint32) (*http.Request, error) {
		i := b.next.Add(1) - 1
		if int(i) >= len(b.attendees) {
			return nil, fmt.Errorf("out of attendees after %d issuances: raise issueAttendees", i)
		}
		body, _ := json.Marshal(map[string]any{"eventId": b.event, "templateId": b.tmpl, "attendeeId": b.attendees[i], "sendEmail": false})
		req, err := http.NewRequest(http.MethodPost, b.srv.url+"/api/v1/certificates/generate", bytes.NewReader(body))
		if err == nil {
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Authorization", "Bearer "+b.key)
		}
		return req, err
	}
	bare := func(n uint32) (*http.Request, error) {
		body, _ := json.Marshal(map[string]any{"attendeeId": uuid.New()})
		req, err := http.NewRequest(http.MethodPost, b.bare+"/issue", bytes.NewReader(body))
		if err == nil {
			req.Header.Set("Content-Type", "application/json")
		}
		return req, err
	}
	r, together, err := b.grouped(ctx, func() (row, error) {
		return b.compare(ctx, "POST /certificates/generate, one account", "issue", service, bare, 0)
	})
	if err != nil {
		return r, err
	}
	r.note = fmt.Sprintf("bare: credit + insert in one transaction; %.1f issuances a transaction", together)
	b.issue.service, b.issue.bare = service, bare
	b.issue.bareRate = r.bare
	return r, nil
}

// issueLatency: the issuance's latency at half the bare server's rate, offered to each side in
// an open loop. The closed loop's p99 above is its clients' queue (Little's law: the mean
// wait is the number of clients over the rate, whatever the server does with them);
// the goal pairs the p99 with half the bare rate, so both sides are offered that rate here and
// timed from when each request was due.
func (b *bench) issueLatency(ctx context.Context) (row, error) {
	if b.issue.service == nil || b.issue.bareRate == 0 {
		return row{}, errors.New("the issuance latency needs the issuance load first")
	}
	rate := b.issue.bareRate / 2
	r, together, err := b.grouped(ctx, func() (row, error) {
		return b.compare(ctx, "POST /certificates/generate, half bare rate", "latency", b.issue.service, b.issue.bare, rate)
	})
	if err != nil {
		return r, err
	}
	r.openLoop = true
	r.note = fmt.Sprintf("open loop: %.0f req/s offered to each side (half the bare rate above), up to %d in flight, "+
		"latency from when each was due; %.1f issuances a transaction; p99 of each phase: service %s, bare %s "+
		"(one stall of the machine, a checkpoint's writes say, sets a phase's p99 alone)", rate, 4*b.o.Clients, together,
		millis(r.phaseP99[0]), millis(r.phaseP99[1]))
	return r, nil
}

// millis writes durations as "12 / 30 / 9 ms".
func millis(ds []time.Duration) string {
	parts := make([]string, len(ds))
	for i, d := range ds {
		parts[i] = strconv.FormatFloat(d.Seconds()*1000, 'f', 0, 64)
	}
	return strings.Join(parts, " / ") + " ms"
}

// grouped runs f, a load of issuances, and says how many issuances the server's transactions
// held on average meanwhile (the bare side's phases issue none of the service's).
func (b *bench) grouped(ctx context.Context, f func() (row, error)) (row, float64, error) {
	before, err := b.srv.transactions(ctx)
	if err != nil {
		return row{}, 0, err
	}
	r, err := f()
	if err != nil {
		return r, 0, err
	}
	after, err := b.srv.transactions(ctx)
	if err != nil {
		return r, 0, err
	}
	return r, (after.issuances - before.issuances) / max(after.count-before.count, 1), nil
}

// lookupLoad: GET /certificates/{id} with an API key, over the certificates the issuance load made.
func (b *bench) lookupLoad(ctx context.Context) (row, error) {
	rows, _ := b.pool.Query(ctx, "SELECT id FROM certificates WHERE account_id = $1 LIMIT 10000", b.accountID)
	ids, err := pgx.CollectRows(rows, pgx.RowTo[uuid.UUID])
	if err != nil || len(ids) == 0 {
		return row{}, fmt.Errorf("no certificates to look up (%v)", err)
	}
	auth := http.Header{"Authorization": {"Bearer " + b.key}}
	service := func(n uint32) (*http.Request, error) {
		return loadgen.Get(b.srv.url+"/api/v1/certificates/"+ids[int(n)%len(ids)].String(), auth)(n)
	}
	bare := func(n uint32) (*http.Request, error) {
		return loadgen.Get(b.bare+"/certificates/"+ids[int(n)%len(ids)].String(), nil)(n)
	}
	r, err := b.compare(ctx, "GET /certificates/{id} with an API key", "lookup", service, bare, 0)
	r.note = "bare: one indexed lookup"
	return r, err
}

// codes are verification codes of the certificates the issuance load made.
func (b *bench) codes(ctx context.Context) ([]string, error) {
	rows, _ := b.pool.Query(ctx, "SELECT verification_code FROM certificates WHERE account_id = $1 AND status = 'issued' LIMIT 10000", b.accountID)
	codes, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err == nil && len(codes) == 0 {
		err = errors.New("no certificates to verify")
	}
	return codes, err
}

// verifyLoad: GET /api/v1/verify/{code}, the public JSON lookup, against the bare lookup by
// code.
func (b *bench) verifyLoad(ctx context.Context) (row, error) {
	codes, err := b.codes(ctx)
	if err != nil {
		return row{}, err
	}
	service := func(n uint32) (*http.Request, error) {
		return loadgen.Get(b.srv.url+"/api/v1/verify/"+codes[int(n)%len(codes)], nil)(n)
	}
	bare := func(n uint32) (*http.Request, error) {
		return loadgen.Get(b.bare+"/verify/"+codes[int(n)%len(codes)], nil)(n)
	}
	r, err := b.compare(ctx, "GET /api/v1/verify/{code}", "verify", service, bare, 0)
	r.note = "bare: one indexed lookup by code"
	return r, err
}

// pageLoad: GET /verify/{code}, the verification page (HTML), against the service's own JSON
// lookup of the same code: what the page costs beyond the lookup.
func (b *bench) pageLoad(ctx context.Context) (row, error) {
	codes, err := b.codes(ctx)
	if err != nil {
		return row{}, err
	}
	// A browser's request: it takes the page compressed, and inflates it on its own machine. The
	// load generator reads the body as it comes (naming the encoding itself, it keeps Go's
	// client from inflating it here, on the cores the server shares).
	browser := http.Header{"Accept": {"text/html"}, "Accept-Encoding": {"gzip, deflate, br"}}
	page := func(n uint32) (*http.Request, error) {
		return loadgen.Get(b.srv.url+"/verify/"+codes[int(n)%len(codes)], browser)(n)
	}
	lookup := func(n uint32) (*http.Request, error) {
		return loadgen.Get(b.srv.url+"/api/v1/verify/"+codes[int(n)%len(codes)], nil)(n)
	}
	// One pass over the codes on each side first. The service keeps both what the JSON lookup
	// reads and the page it sends; the verify load before this one kept the lookups, while the
	// pages were made for the first time within this load's measured phases, a large part of
	// the page's CPU in its profile (gzip most of it; see docs/benchmarks.md). After a pass
	// both sides are measured as they are kept.
	pass := loadgen.Options{Clients: b.o.Clients, Duration: time.Minute, Requests: len(codes)}
	loadgen.Run(ctx, page, pass)
	loadgen.Run(ctx, lookup, pass)
	r, err := b.compare(ctx, "GET /verify/{code} (HTML page)", "page", page, lookup, 0)
	r.note = "yardstick (bare): the service's own JSON lookup, GET /api/v1/verify/{code}"
	return r, err
}

// importLoad: POST /attendees/import of 50,000 rows into a new event, against the same file
// uploaded to the bare server, parsed with encoding/csv and copied with CopyFrom, into a table
// shaped like the service's (its indexes; no key, no trigger) and into a plain one (a primary
// key and an (event, email) index: the import's goal is measured against this one); one
// request at a time, alternating. After each of the service's imports it waits until the
// search indexer has written the file's search rows, so that their writing falls in no
// measured phase, and notes how long after the answer that was and what it cost PostgreSQL.
func (b *bench) importLoad(ctx context.Context) (row, error) {
	type side struct {
		name    string
		elapsed time.Duration
		pgTicks int64
	}
	shaped, plain, service := &side{name: "/import"}, &side{name: "/import-plain"}, &side{}
	var srvTicks, indexTicks int64
	var trailing time.Duration
	if b.o.Statements {
		if _, err := b.pool.Exec(ctx, "SELECT pg_stat_statements_reset()"); err != nil {
			return row{}, err
		}
	}
	for round := range b.o.Rounds {
		for _, bare := range []*side{shaped, plain} {
			req, err := importRequest(b.bare+bare.name, "", b.csv)
			if err != nil {
				return row{}, err
			}
			t0, p0 := time.Now(), loadgen.TreeCPUTicks(b.pgPID)
			if err := do(ctx, req, nil); err != nil {
				return row{}, err
			}
			bare.elapsed += time.Since(t0)
			bare.pgTicks += loadgen.TreeCPUTicks(b.pgPID) - p0
		}
		ev, err := b.newEvent(ctx, "Import load")
		if err != nil {
			return row{}, err
		}
		var prof chan error
		if b.o.Profile && round == 0 {
			prof = make(chan error, 1)
			go func() { prof <- b.cpuProfile(ctx, "import", time.Second) }()
		}
		t0, p0, s0 := time.Now(), loadgen.TreeCPUTicks(b.pgPID), loadgen.CPUTicks(b.srv.cmd.Process.Pid)
		n, err := b.importCSV(ctx, ev, b.csv)
		if err != nil {
			return row{}, err
		}
		service.elapsed += time.Since(t0)
		service.pgTicks += loadgen.TreeCPUTicks(b.pgPID) - p0
		srvTicks += loadgen.CPUTicks(b.srv.cmd.Process.Pid) - s0
		if prof != nil {
			if err := <-prof; err != nil {
				return row{}, err
			}
		}
		if n != importRows {
			return row{}, fmt.Errorf("import added %d rows, want %d", n, importRows)
		}
		p1 := loadgen.TreeCPUTicks(b.pgPID)
		caughtUp, err := b.searchCaughtUp(ctx, ev, importRows)
		if err != nil {
			return row{}, err
		}
		trailing += caughtUp
		indexTicks += loadgen.TreeCPUTicks(b.pgPID) - p1
	}
	if b.o.Statements {
		if err := b.printStatements(ctx, "POST /attendees/import, per file", b.o.Rounds); err != nil {
			return row{}, err
		}
		if err := b.printBareStatements(ctx, "POST /attendees/import, per file (both bare tables)", b.o.Rounds); err != nil {
			return row{}, err
		}
	}
	rounds := time.Duration(b.o.Rounds)
	rows := float64(importRows * b.o.Rounds)
	allRows := importRows * b.o.Rounds
	against := func(work string, bare *side, note string) row {
		return row{work: work, unit: "rows/s", service: rows / service.elapsed.Seconds(), bare: rows / bare.elapsed.Seconds(),
			sp50: service.elapsed / rounds, sp99: service.elapsed / rounds, bp50: bare.elapsed / rounds, bp99: bare.elapsed / rounds,
			serverCPU: loadgen.TicksPerRequest(srvTicks, allRows), pgCPU: loadgen.TicksPerRequest(service.pgTicks, allRows),
			barePGCPU: loadgen.TicksPerRequest(bare.pgTicks, allRows), note: note}
	}
	r := against("POST /attendees/import, 50,000 rows", plain,
		fmt.Sprintf("p50/p99: mean time of one file; CPU per row; bare: the upload, encoding/csv + CopyFrom into a table with a primary key "+
			"and an (event, email) index; the search rows written %.2f s after the answer (mean), their writing and merge %.0f µs of PostgreSQL CPU a row",
			(trailing/rounds).Seconds(), loadgen.TicksPerRequest(indexTicks, allRows)))
	r.more = []row{against("  the same, bare with the service's indexes", shaped, "bare: the same into a table with every index of the service's (no key, no trigger)")}
	return r, nil
}

// searchCaughtUp waits until the search indexer has taken the whole queue (the search rows of
// the event's n attendees are written then) and answers how long that took; then it merges the
// index's pending list itself, as the cleaner would within the second, so that no phase after
// it meets that work. Its statements carry the mark that printStatements leaves out.
func (b *bench) searchCaughtUp(ctx context.Context, event string, n int) (time.Duration, error) {
	t0 := time.Now()
	deadline := t0.Add(time.Minute)
	var hasQueue bool // a schema before migration 00037 writes the search rows in the import
	if err := b.pool.QueryRow(ctx, "/* bench-http */ SELECT to_regclass('attendee_search_queue') IS NOT NULL").Scan(&hasQueue); err != nil {
		return 0, err
	}
	for hasQueue {
		var queued bool
		if err := b.pool.QueryRow(ctx, "/* bench-http */ SELECT EXISTS (SELECT 1 FROM attendee_search_queue)").Scan(&queued); err != nil {
			return 0, err
		}
		if !queued {
			break
		}
		if time.Now().After(deadline) {
			return 0, errors.New("the import's search rows: still queued a minute after the import")
		}
		select {
		case <-ctx.Done():
			return 0, ctx.Err()
		case <-time.After(10 * time.Millisecond):
		}
	}
	caughtUp := time.Since(t0)
	var have int
	if err := b.pool.QueryRow(ctx, "/* bench-http */ SELECT count(*) FROM attendee_search WHERE event_id = $1", event).Scan(&have); err != nil {
		return 0, err
	}
	if have != n {
		return 0, fmt.Errorf("the import's search rows: %d of %d once the queue was empty", have, n)
	}
	_, err := b.pool.Exec(ctx, "/* bench-http */ SELECT gin_clean_pending_list('attendee_search_trgm_idx'::regclass)")
	return caughtUp, err
}

// jobTiming: a background job for 10,000 attendees, from POST to completed.
func (b *bench) jobTiming(ctx context.Context) (row, error) {
	ev, err := b.newEvent(ctx, "Job load")
	if err != nil {
		return row{}, err
	}
	if _, err := b.importCSV(ctx, ev, b.csvRows(0, jobAttendees)); err != nil {
		return row{}, err
	}
	var prof chan error
	if b.o.Profile {
		prof = make(chan error, 1)
		go func() { prof <- b.cpuProfile(ctx, "job", 5*time.Second) }()
	}
	if b.o.Statements {
		if _, err := b.pool.Exec(ctx, "SELECT pg_stat_statements_reset()"); err != nil {
			return row{}, err
		}
	}
	t0, p0 := time.Now(), loadgen.TreeCPUTicks(b.pgPID)
	s0 := loadgen.CPUTicks(b.srv.cmd.Process.Pid)
	id, err := b.startJob(ctx, ev)
	if err != nil {
		return row{}, err
	}
	job, err := b.waitJob(ctx, ev, id)
	if err != nil {
		return row{}, err
	}
	d := time.Since(t0)
	pg, srv := loadgen.TreeCPUTicks(b.pgPID)-p0, loadgen.CPUTicks(b.srv.cmd.Process.Pid)-s0
	if prof != nil {
		if err := <-prof; err != nil {
			return row{}, err
		}
	}
	if job.Issued != jobAttendees {
		return row{}, fmt.Errorf("the job issued %d of %d", job.Issued, jobAttendees)
	}
	if b.o.Statements {
		if err := b.printStatements(ctx, "Background job, per certificate", jobAttendees); err != nil {
			return row{}, err
		}
	}
	return row{work: "Background job, 10,000 attendees", unit: "s", service: d.Seconds(),
		note: fmt.Sprintf("s, queued to completed (%.0f certificates/s; per certificate: server CPU %.0f µs, PostgreSQL CPU %.0f µs)",
			jobAttendees/d.Seconds(), loadgen.TicksPerRequest(srv, jobAttendees), loadgen.TicksPerRequest(pg, jobAttendees))}, nil
}

// jobState is what the loads read of a background job.
type jobState struct {
	ID, Status              string
	Issued, Failed, Skipped int
}

// startJob queues the job that issues a certificate to every attendee of the event.
func (b *bench) startJob(ctx context.Context, event string) (string, error) {
	var job struct{ Data jobState }
	err := b.call(ctx, "POST", "/api/v1/events/"+event+"/certificates/generate/jobs", b.key, map[string]any{"sendEmail": false}, &job)
	return job.Data.ID, err
}

// waitJob polls a job until it ends; one that ends failed, or with an attendee failed, is an error.
func (b *bench) waitJob(ctx context.Context, event, id string) (jobState, error) {
	for {
		var job struct{ Data jobState }
		if err := b.call(ctx, "GET", "/api/v1/events/"+event+"/certificates/generate/jobs/"+id, b.key, nil, &job); err != nil {
			return jobState{}, err
		}
		switch {
		case job.Data.Status == "failed" || job.Data.Failed > 0:
			return job.Data, fmt.Errorf("job %s ended %s: %d issued, %d failed, %d skipped", id, job.Data.Status, job.Data.Issued, job.Data.Failed, job.Data.Skipped)
		case job.Data.Status == "completed":
			return job.Data, nil
		}
		select {
		case <-ctx.Done():
			return jobState{}, ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// printStatements prints the statements the service's requests of a load spent PostgreSQL's
// time on, most first, per request: calls, execution time (the waits for locks within) and
// planning time, with the share of calls planned (a prepared statement PostgreSQL plans for its
// parameters each time, rather than once, plans on each call) and the WAL written with its
// full-page images, nested statements (triggers, functions) on lines of their own and counted
// within their caller's too. The bare server's statements (on the bare schema) are left out.
func (b *bench) printStatements(ctx context.Context, work string, requests int) error {
	return b.statements(ctx, work, "the service", false, requests)
}

// printBareStatements is printStatements for the bare server's statements (those naming the bare
// schema), per request of the bare server.
func (b *bench) printBareStatements(ctx context.Context, work string, requests int) error {
	return b.statements(ctx, work, "the bare server", true, requests)
}

// statements prints one side's statements, the bare server's (those naming the bare schema)
// or the service's.
func (b *bench) statements(ctx context.Context, work, side string, bare bool, requests int) error {
	// Each row also carries the sums over every top-level statement the side sent (BEGIN,
	// SAVEPOINT and COMMIT included, not only the fifteen shown), to set against its PostgreSQL
	// CPU a request: what is left is outside the statements' execution.
	rows, err := b.pool.Query(ctx, `SELECT toplevel, calls, total_exec_time, plans, total_plan_time, wal_bytes, wal_fpi,
		       regexp_replace(left(query, 100), '\s+', ' ', 'g'),
		       (sum(calls) FILTER (WHERE toplevel) OVER ())::bigint,
		       (sum(total_exec_time + total_plan_time) FILTER (WHERE toplevel) OVER ())::float8
		FROM pg_stat_statements WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())
		  AND (query ILIKE '%bare.%' OR query ILIKE '%"bare".%') = $1 AND query NOT ILIKE '%pg_stat_statements%'
		  AND query NOT LIKE '/* bench-http */%'
		ORDER BY total_exec_time + total_plan_time DESC LIMIT 15`, bare)
	if err != nil {
		return err
	}
	defer rows.Close()
	fmt.Fprintf(b.o.Out, "\n%s: where PostgreSQL's time went, per request of %s (pg_stat_statements; * nested; WAL written, full-page images)\n", work, side)
	per := float64(max(requests, 1))
	var allCalls int64
	var allTime float64
	for rows.Next() {
		var top bool
		var calls, plans, fpi int64
		var total, planning, wal float64
		var query string
		if err := rows.Scan(&top, &calls, &total, &plans, &planning, &wal, &fpi, &query, &allCalls, &allTime); err != nil {
			return err
		}
		mark := " "
		if !top {
			mark = "*"
		}
		fmt.Fprintf(b.o.Out, "  %s %5.2f calls %7.1f µs  planned %3.0f%% %6.1f µs  WAL %s %6.0f FPI  %s\n", mark, float64(calls)/per,
			total*1000/per, 100*float64(plans)/float64(max(calls, 1)), planning*1000/per, bytesSize(wal/per), float64(fpi)/per, query)
	}
	if err := rows.Err(); err != nil {
		return err
	}
	fmt.Fprintf(b.o.Out, "    %5.2f statements a request in all, %.1f µs planned and run (lock waits included)\n",
		float64(allCalls)/per, allTime*1000/per)
	return nil
}

// transactions is what the server's issuance transactions histogram counted: the issuances
// and the transactions they shared.
type transactions struct{ issuances, count float64 }

// transactions reads the server's metrics for its issuance transactions so far.
func (s *server) transactions(ctx context.Context) (transactions, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.metricsURL, nil)
	if err != nil {
		return transactions{}, err
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return transactions{}, err
	}
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	if err != nil {
		return transactions{}, err
	}
	if res.StatusCode != http.StatusOK {
		return transactions{}, fmt.Errorf("the server's metrics: status %d", res.StatusCode)
	}
	var t transactions
	found := 0
	for line := range strings.Lines(string(body)) {
		name, value, _ := strings.Cut(strings.TrimSpace(line), " ")
		v, err := strconv.ParseFloat(value, 64)
		switch {
		case err != nil:
		case name == "credentiald_issuance_transaction_requests_sum":
			t.issuances, found = v, found+1
		case name == "credentiald_issuance_transaction_requests_count":
			t.count, found = v, found+1
		}
	}
	if found != 2 {
		return transactions{}, errors.New("the server's metrics hold no credentiald_issuance_transaction_requests histogram")
	}
	return t, nil
}

// bytesSize writes a byte count in B, kB or MB.
func bytesSize(n float64) string {
	switch {
	case n >= 1e6:
		return fmt.Sprintf("%6.1f MB", n/1e6)
	case n >= 1e3:
		return fmt.Sprintf("%6.1f kB", n/1e3)
	}
	return fmt.Sprintf("%6.0f B ", n)
}
