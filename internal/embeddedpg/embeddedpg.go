// Package embeddedpg runs the service's embedded default database: a private PostgreSQL cluster
// in a folder of the project, which the service starts when DATABASE_URL is unset (`make run`)
// and `make test` uses on a machine without a configured database. It is part of the binary,
// not a development tool. It uses the server binaries on
// the PATH or under /usr/lib/postgresql/*/bin and, when running as root, runs them as the
// postgres OS user (initdb and postgres refuse root).
package embeddedpg

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/certhub/credentiald/internal/store"
)

// Database is the database the cluster serves to the application.
const Database = "credentiald"

// Options tune a cluster.
type Options struct {
	// Ephemeral trades durability for speed (fsync off): for test clusters only.
	Ephemeral bool
	// Statements loads pg_stat_statements, tracking nested statements too (those of triggers
	// and functions): for benchmarks that say where the database's time goes.
	Statements bool
}

// Cluster is a running private cluster.
type Cluster struct {
	Dir     string
	Port    int
	started bool // this process started it, so Stop stops it
	bin     string
	asUser  *user.User
}

// ErrNoServer says no PostgreSQL server binaries were found.
var ErrNoServer = errors.New("no PostgreSQL server found: install it (Debian: apt-get install postgresql) or set DATABASE_URL")

// URL returns the address of the application database.
func (c *Cluster) URL() string { return c.DatabaseURL(Database) }

// PID returns the postmaster's process id, from postmaster.pid (0 when it is not running).
func (c *Cluster) PID() int {
	b, err := os.ReadFile(filepath.Join(c.Dir, "postmaster.pid"))
	if err != nil {
		return 0
	}
	line, _, _ := strings.Cut(string(b), "\n")
	pid, _ := strconv.Atoi(strings.TrimSpace(line))
	return pid
}

// DatabaseURL returns the address of database name in the cluster.
func (c *Cluster) DatabaseURL(name string) string {
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/%s?sslmode=disable", c.Port, name)
}

// Start starts the cluster in dir, creating it first if needed, or reuses it when it is
// already running. It holds a file lock while it works, so concurrent callers are safe.
func Start(ctx context.Context, dir string, opts Options) (*Cluster, error) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	bin, err := findBinaries()
	if err != nil {
		return nil, err
	}
	c := &Cluster{Dir: dir, bin: bin}
	if os.Geteuid() == 0 {
		if c.asUser, err = user.Lookup("postgres"); err != nil {
			return nil, fmt.Errorf("running as root needs the postgres OS user (it comes with the postgresql package): %w", err)
		}
	}
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return nil, err
	}
	if c.asUser != nil {
		// The server runs as postgres: every folder above the cluster must let it through.
		if err := c.run(ctx, "pg_ctl", "--version"); err == nil {
			if exec.CommandContext(ctx, "runuser", "-u", "postgres", "--", "test", "-x", filepath.Dir(dir)).Run() != nil {
				return nil, fmt.Errorf("the postgres OS user cannot reach %s: put the checkout where other users can traverse, or set DATABASE_URL", filepath.Dir(dir))
			}
		}
	}
	unlock, err := lockFile(dir + ".lock")
	if err != nil {
		return nil, err
	}
	defer unlock()

	if _, err := os.Stat(filepath.Join(dir, "PG_VERSION")); errors.Is(err, os.ErrNotExist) {
		if err := c.initdb(ctx, opts); err != nil {
			return nil, err
		}
	}
	if c.Port, err = readPort(dir); err != nil {
		return nil, err
	}
	if !c.running(ctx) {
		if !portFree(c.Port) {
			// Another server took our port while we were stopped: move to a free one.
			if c.Port, err = freePort(); err != nil {
				return nil, err
			}
			if err := writePort(dir, c.Port); err != nil {
				return nil, err
			}
		}
		logFile := filepath.Join(dir, "server.log")
		if err := c.run(ctx, "pg_ctl", "start", "-D", dir, "-w", "-t", "60", "-l", logFile); err != nil {
			return nil, fmt.Errorf("starting PostgreSQL (log: %s): %w", logFile, err)
		}
		c.started = true
	}
	if err := c.ensureDatabase(ctx, Database); err != nil {
		return nil, err
	}
	return c, nil
}

// Stop stops the cluster if this process started it.
func (c *Cluster) Stop() error {
	if !c.started {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	return c.run(ctx, "pg_ctl", "stop", "-D", c.Dir, "-m", "fast", "-w")
}

// StopDir stops a cluster left running in dir (by `devtool pg-start`), if any.
func StopDir(ctx context.Context, dir string) error {
	c, err := Start(ctx, dir, Options{})
	if err != nil {
		return err
	}
	c.started = true
	return c.Stop()
}

func (c *Cluster) initdb(ctx context.Context, opts Options) error {
	tmp := c.Dir + ".init"
	_ = os.RemoveAll(tmp)
	if err := os.MkdirAll(tmp, 0o700); err != nil {
		return err
	}
	if err := c.chown(tmp); err != nil {
		return err
	}
	if err := c.run(ctx, "initdb", "-D", tmp, "-U", "postgres", "-A", "trust", "-E", "UTF8", "--locale=C", "--no-instructions"); err != nil {
		return fmt.Errorf("initdb: %w", err)
	}
	port, err := freePort()
	if err != nil {
		return err
	}
	conf := "listen_addresses = '127.0.0.1'\nunix_socket_directories = ''\nmax_connections = 200\nshared_buffers = 128MB\n"
	if opts.Ephemeral {
		conf += "fsync = off\nsynchronous_commit = off\nfull_page_writes = off\n"
	}
	if opts.Statements {
		conf += "shared_preload_libraries = 'pg_stat_statements'\npg_stat_statements.track = all\npg_stat_statements.track_planning = on\n"
	}
	if err := appendFile(filepath.Join(tmp, "postgresql.conf"), conf); err != nil {
		return err
	}
	if err := writePort(tmp, port); err != nil {
		return err
	}
	// Only a completely initialised cluster gets the real name.
	return os.Rename(tmp, c.Dir)
}

func (c *Cluster) running(ctx context.Context) bool {
	return c.run(ctx, "pg_ctl", "status", "-D", c.Dir) == nil
}

func (c *Cluster) ensureDatabase(ctx context.Context, name string) error {
	if err := store.EnsureDatabase(ctx, c.DatabaseURL("postgres"), name); err != nil {
		return fmt.Errorf("the private cluster's database: %w", err)
	}
	return nil
}

// run runs a server binary, as the postgres user when this process is root.
func (c *Cluster) run(ctx context.Context, name string, args ...string) error {
	path := filepath.Join(c.bin, name)
	var cmd *exec.Cmd
	if c.asUser != nil {
		cmd = exec.CommandContext(ctx, "runuser", append([]string{"-u", "postgres", "--", path}, args...)...)
	} else {
		cmd = exec.CommandContext(ctx, path, args...)
	}
	cmd.Dir = "/"
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	// pg_ctl start leaves the server running with our stdout otherwise.
	cmd.WaitDelay = 5 * time.Second
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%s %s: %w: %s", name, strings.Join(args, " "), err, strings.TrimSpace(out.String()))
	}
	return nil
}

func (c *Cluster) chown(path string) error {
	if c.asUser == nil {
		return nil
	}
	uid, _ := strconv.Atoi(c.asUser.Uid)
	gid, _ := strconv.Atoi(c.asUser.Gid)
	return os.Chown(path, uid, gid)
}

var versionDir = regexp.MustCompile(`/usr/lib/postgresql/([0-9]+)/bin$`)

// findBinaries prefers the newest /usr/lib/postgresql/N/bin, then the PATH.
func findBinaries() (string, error) {
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	sort.Slice(dirs, func(i, j int) bool { return versionOf(dirs[i]) > versionOf(dirs[j]) })
	for _, d := range dirs {
		if isExecutable(filepath.Join(d, "pg_ctl")) && isExecutable(filepath.Join(d, "initdb")) {
			return d, nil
		}
	}
	if p, err := exec.LookPath("pg_ctl"); err == nil {
		d := filepath.Dir(p)
		if isExecutable(filepath.Join(d, "initdb")) {
			return d, nil
		}
	}
	return "", ErrNoServer
}

func versionOf(dir string) int {
	m := versionDir.FindStringSubmatch(dir)
	if m == nil {
		return 0
	}
	n, _ := strconv.Atoi(m[1])
	return n
}

func isExecutable(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode()&0o111 != 0
}

// The port lives in its own include file so it can be changed without touching postgresql.conf.
func writePort(dir string, port int) error {
	if err := os.WriteFile(filepath.Join(dir, "port.conf"), []byte(fmt.Sprintf("port = %d\n", port)), 0o644); err != nil {
		return err
	}
	conf := filepath.Join(dir, "postgresql.conf")
	b, err := os.ReadFile(conf)
	if err != nil {
		return err
	}
	if !bytes.Contains(b, []byte("include_if_exists = 'port.conf'")) {
		return appendFile(conf, "include_if_exists = 'port.conf'\n")
	}
	return nil
}

func readPort(dir string) (int, error) {
	b, err := os.ReadFile(filepath.Join(dir, "port.conf"))
	if err != nil {
		return 0, fmt.Errorf("private cluster in %s has no port.conf: remove the folder to start afresh: %w", dir, err)
	}
	var port int
	if _, err := fmt.Sscanf(string(b), "port = %d", &port); err != nil {
		return 0, fmt.Errorf("reading %s/port.conf: %w", dir, err)
	}
	return port, nil
}

func appendFile(path, text string) error {
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	if _, err := f.WriteString(text); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

func portFree(port int) bool {
	l, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", port))
	if err != nil {
		return false
	}
	l.Close()
	return true
}

func lockFile(path string) (func(), error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		f.Close()
		return nil, err
	}
	return func() { _ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN); f.Close() }, nil
}
