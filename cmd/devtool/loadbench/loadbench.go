// Package loadbench is `make bench-http`: it measures the real service over HTTP against the
// limits of its own stack. It starts a fresh PostgreSQL cluster with the default, durable
// settings (fsync and synchronous commit on, unlike the test cluster), the server binary on
// it, and beside it a bare Echo + pgx server doing the minimal same work on the same
// database; it drives both in alternating phases with the same load generator (64 clients,
// each request from another client address through TRUSTED_PROXIES) and prints each figure,
// its latencies and the ratio. Everything it starts it stops, on failure and on Ctrl-C too.
package loadbench

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/certhub/credentiald/cmd/devtool/loadgen"
	"github.com/certhub/credentiald/internal/embeddedpg"
)

// Options tune a run; the zero values are the defaults of `make bench-http`.
type Options struct {
	Binary  string        // the server binary (bin/credentiald)
	Dir     string        // work folder: the cluster, the server's log, the profiles
	Clients int           // concurrent clients (64)
	Phase   time.Duration // one phase of load (3 s)
	Rounds  int           // phases of each side per work (3)
	// Profile writes a CPU profile of the server under each load into Dir (PPROF_ADDR).
	Profile bool
	// Statements loads pg_stat_statements into the cluster and prints, after each load, the
	// statements the service's requests spent the database's time on.
	Statements bool
	// Prepared is how many certificates the account is issued before the loads run (0: none).
	Prepared int
	// Works names the loads to run (issue, lookup, verify, page, import, job); empty: all.
	// lookup, verify and page read what issue made, so they bring issue along.
	Works []string
	Out   io.Writer
}

func (o *Options) defaults() {
	if o.Clients == 0 {
		o.Clients = 64
	}
	if o.Phase == 0 {
		o.Phase = 3 * time.Second
	}
	if o.Rounds == 0 {
		o.Rounds = 3
	}
	if o.Out == nil {
		o.Out = os.Stdout
	}
}

// loads are the benchmark's loads, in the order they run.
var loads = []struct {
	name string
	run  func(*bench, context.Context) (row, error)
}{{"issue", (*bench).issueLoad}, {"lookup", (*bench).lookupLoad}, {"verify", (*bench).verifyLoad},
	{"page", (*bench).pageLoad}, {"import", (*bench).importLoad}, {"job", (*bench).jobTiming},
	// Last: its 10,000 more issuances and the vacuuming they call for would fall on the import
	// and the job, measured on the database as it was before it.
	{"latency", (*bench).issueLatency}}

// chosen says which loads run when works names some (all when it names none). The reads
// read what issue made and latency offers half the rate issue measured, so they bring issue
// along; issue brings latency, for its goal pairs both.
func chosen(works []string) (map[string]bool, error) {
	run := map[string]bool{}
	for _, l := range loads {
		run[l.name] = len(works) == 0
	}
	for _, w := range works {
		if _, ok := run[w]; !ok {
			names := make([]string, len(loads))
			for i, l := range loads {
				names[i] = l.name
			}
			return nil, fmt.Errorf("bench-http: no load named %q (%s)", w, strings.Join(names, ", "))
		}
		run[w] = true
		switch w {
		case "lookup", "verify", "page":
			run["issue"] = true
		case "issue", "latency":
			run["issue"], run["latency"] = true, true
		}
	}
	return run, nil
}

// Run runs the whole benchmark and prints its table.
func Run(ctx context.Context, o Options) (err error) {
	o.defaults()
	run, err := chosen(o.Works)
	if err != nil {
		return err
	}
	if o.Dir, err = filepath.Abs(o.Dir); err != nil {
		return err
	}
	bin, err := filepath.Abs(o.Binary)
	if err != nil {
		return err
	}
	pgDir := filepath.Join(o.Dir, "postgres")
	if err := os.RemoveAll(pgDir); err != nil { // fresh every run
		return err
	}
	if err := os.MkdirAll(o.Dir, 0o755); err != nil {
		return err
	}
	fmt.Fprintf(o.Out, "bench-http: load average %s; starting a durable PostgreSQL cluster in %s\n", loadgen.LoadAverage(), pgDir)
	cluster, err := embeddedpg.Start(ctx, pgDir, embeddedpg.Options{Statements: o.Statements}) // not Ephemeral: fsync on
	if err != nil {
		return err
	}
	pgLog := filepath.Join(o.Dir, "postgres.log")
	defer func() {
		if serr := cluster.Stop(); serr != nil {
			err = errors.Join(err, fmt.Errorf("stopping the cluster: %w", serr))
		}
		// PostgreSQL's log outlives its cluster: what PGOPTIONS asked of it (auto_explain's
		// plans, lock waits, slow statements) and its checkpoints.
		_ = os.Rename(filepath.Join(pgDir, "server.log"), pgLog)
		_ = os.RemoveAll(pgDir)
	}()
	pool, err := pgxpool.New(ctx, cluster.URL())
	if err != nil {
		return err
	}
	defer pool.Close()
	if err := requireDurable(ctx, pool, o.Out); err != nil {
		return err
	}
	if o.Statements {
		if _, err := pool.Exec(ctx, "CREATE EXTENSION IF NOT EXISTS pg_stat_statements"); err != nil {
			return err
		}
	}

	srv, err := startServer(ctx, bin, cluster.URL(), o)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, srv.stop()) }()

	b := &bench{o: o, pool: pool, srv: srv, pgPID: cluster.PID()}
	if b.pgPID == 0 {
		return errors.New("bench-http: the cluster's postmaster.pid names no process")
	}
	if err := b.setup(ctx); err != nil {
		return fmt.Errorf("setting up the data: %w", err)
	}
	if err := b.prepare(ctx); err != nil {
		return fmt.Errorf("preparing the account's history: %w", err)
	}
	bare, err := startBare(ctx, pool, b.accountID, o.Out)
	if err != nil {
		return err
	}
	defer bare.Close()
	b.bare = "http://" + bare.addr

	fmt.Fprintf(o.Out, "%d clients, %d phases of %s per side, alternating; every request from another client address\n\n",
		o.Clients, o.Rounds, o.Phase)
	for _, w := range loads {
		if !run[w.name] {
			continue
		}
		r, err := w.run(b, ctx)
		if err != nil {
			return err
		}
		r.print(o.Out)
	}
	fmt.Fprintf(o.Out, "\nload average at the end: %s; the server's peak RSS %s; its log: %s; PostgreSQL's: %s\n", loadgen.LoadAverage(),
		peakRSS(srv.cmd.Process.Pid), srv.logPath, pgLog)
	return nil
}

// requireDurable refuses to measure on a cluster that trades durability for speed.
func requireDurable(ctx context.Context, pool *pgxpool.Pool, out io.Writer) error {
	var fsync, syncCommit string
	if err := pool.QueryRow(ctx, "SELECT current_setting('fsync'), current_setting('synchronous_commit')").Scan(&fsync, &syncCommit); err != nil {
		return err
	}
	fmt.Fprintf(out, "PostgreSQL: fsync=%s synchronous_commit=%s\n", fsync, syncCommit)
	if fsync != "on" || syncCommit != "on" {
		return errors.New("the benchmark cluster is not durable: remove its folder and run again")
	}
	return nil
}

// server is the service's binary, running.
type server struct {
	cmd      *exec.Cmd
	url      string
	pprofURL string
	// metricsURL serves the server's Prometheus metrics: the issuances per transaction
	metricsURL string
	logPath    string
	secretKey  string
	dbURL      string
	bin        string
	done       chan error
}

func freeAddr() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer l.Close()
	return l.Addr().String(), nil
}

func startServer(ctx context.Context, bin, dbURL string, o Options) (*server, error) {
	addr, err := freeAddr()
	if err != nil {
		return nil, err
	}
	key := make([]byte, 32)
	_, _ = rand.Read(key)
	s := &server{url: "http://" + addr, logPath: filepath.Join(o.Dir, "server.log"), secretKey: base64.StdEncoding.EncodeToString(key),
		dbURL: dbURL, bin: bin, done: make(chan error, 1)}
	logFile, err := os.Create(s.logPath)
	if err != nil {
		return nil, err
	}
	s.cmd = exec.Command(bin, "serve")
	maddr, err := freeAddr()
	if err != nil {
		return nil, err
	}
	s.metricsURL = "http://" + maddr + "/metrics"
	s.cmd.Env = append(s.env(), "ADDR="+addr, "SITE_URL=http://"+addr, "TRUSTED_PROXIES=127.0.0.0/8", "LOG_LEVEL=info",
		"METRICS_ADDR="+maddr)
	if o.Profile {
		paddr, err := freeAddr()
		if err != nil {
			return nil, err
		}
		s.pprofURL = "http://" + paddr
		s.cmd.Env = append(s.cmd.Env, "PPROF_ADDR="+paddr)
	}
	s.cmd.Stdout, s.cmd.Stderr = logFile, logFile
	// Its own process group: a Ctrl-C reaches this program, which stops the server in order
	// (the server first, then the cluster it uses).
	s.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := s.cmd.Start(); err != nil {
		logFile.Close()
		return nil, err
	}
	go func() { s.done <- s.cmd.Wait(); logFile.Close() }()
	deadline := time.Now().Add(60 * time.Second)
	for {
		res, err := http.Get(s.url + "/readyz")
		if err == nil {
			res.Body.Close()
			if res.StatusCode == http.StatusOK {
				return s, nil
			}
		}
		select {
		case err := <-s.done:
			return nil, fmt.Errorf("the server stopped at start (%v): see %s", err, s.logPath)
		case <-ctx.Done():
			return nil, errors.Join(ctx.Err(), s.stop())
		case <-time.After(100 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			return nil, errors.Join(fmt.Errorf("the server was not ready in 60 s: see %s", s.logPath), s.stop())
		}
	}
}

// env is what the server and its operator commands share.
func (s *server) env() []string {
	return append(os.Environ(), "DATABASE_URL="+s.dbURL, "SECRETS_KEY="+s.secretKey, "DATA_DIR="+filepath.Dir(s.logPath))
}

// stop asks the server to drain and stop, and kills it if it takes more than 30 s.
func (s *server) stop() error {
	if s.cmd.Process == nil {
		return nil
	}
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	// The exit status of a server told to stop says nothing: only whether it stopped in time.
	select {
	case <-s.done: //nolint:errcheck // see above
		return nil
	case <-time.After(30 * time.Second):
		_ = syscall.Kill(-s.cmd.Process.Pid, syscall.SIGKILL)
		<-s.done //nolint:errcheck // killed: its status is SIGKILL's
		return errors.New("the server did not stop within 30 s and was killed")
	}
}

// row is one line of the table.
type row struct {
	work, unit    string
	service, bare float64 // rates; bare 0: no yardstick
	sp50, sp99    time.Duration
	bp50, bp99    time.Duration
	serverCPU     float64 // µs of the server process per request (or per unit)
	// µs of PostgreSQL (all of the cluster's processes) per request, under each side's load
	pgCPU, barePGCPU float64
	genCPU           float64 // µs of the load generator per request of the service's load
	// openLoop: both sides were offered one rate, so the rates' ratio says nothing; the p99s
	// are compared instead
	openLoop bool
	// phaseP99 is each phase's p99, the service's and the bare server's
	phaseP99 [2][]time.Duration
	note     string
	// more are lines printed after this one: the same work against another yardstick
	more []row
}

func (r row) print(out io.Writer) {
	ms := func(d time.Duration) string { return strconv.FormatFloat(d.Seconds()*1000, 'f', 1, 64) + " ms" }
	if r.bare == 0 {
		fmt.Fprintf(out, "%-44s %.1f %s\n", r.work, r.service, r.note)
		return
	}
	fmt.Fprintf(out, "%-44s service %8.0f %s (p50 %s, p99 %s)   bare %8.0f %s (p50 %s, p99 %s)",
		r.work, r.service, r.unit, ms(r.sp50), ms(r.sp99), r.bare, r.unit, ms(r.bp50), ms(r.bp99))
	if r.openLoop {
		fmt.Fprintf(out, "   p99 %+.1f ms beside bare", (r.sp99-r.bp99).Seconds()*1000)
	} else {
		fmt.Fprintf(out, "   ratio %.2f", r.service/r.bare)
	}
	if r.serverCPU > 0 {
		fmt.Fprintf(out, "   server CPU %.0f µs/req", r.serverCPU)
	}
	if r.pgCPU > 0 {
		fmt.Fprintf(out, "   PostgreSQL CPU %.0f µs/req (bare %.0f)", r.pgCPU, r.barePGCPU)
	}
	if r.genCPU > 0 {
		// the cores the service's load kept busy: server, PostgreSQL and the load generator
		busy := (r.serverCPU + r.pgCPU + r.genCPU) * r.service / 1e6
		fmt.Fprintf(out, "   load generator %.0f µs/req; %.2f cores busy", r.genCPU, busy)
	}
	if r.note != "" {
		fmt.Fprintf(out, "   %s", r.note)
	}
	fmt.Fprintln(out)
	for _, m := range r.more {
		m.print(out)
	}
}

// peakRSS is the process's peak resident memory (VmHWM) from /proc, or "unknown".
func peakRSS(pid int) string {
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "status"))
	if err != nil {
		return "unknown"
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			return strings.TrimSpace(v)
		}
	}
	return "unknown"
}
