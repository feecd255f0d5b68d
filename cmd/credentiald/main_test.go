package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/certhub/credentiald/internal/testkit"
	"github.com/certhub/credentiald/internal/testkit/contract"
)

func TestMain(m *testing.M) { testkit.Main(m) }

// The operator commands work end to end on a real database (t.Setenv: not parallel).
func TestAccountCommandsCreateAndChangePlan(t *testing.T) {
	t.Setenv("DATABASE_URL", testkit.Database(t))
	t.Setenv("LOG_LEVEL", "error")
	ctx := context.Background()
	var out bytes.Buffer
	err := run(ctx, []string{"account", "create", "-email", "ada@example.org", "-name", "Ada", "-account-name", "Society", "-plan", "pro"},
		strings.NewReader("correct horse battery\n"), &out)
	if err != nil {
		t.Fatal(err)
	}
	id := regexp.MustCompile(`account ([0-9a-f-]{36})`).FindStringSubmatch(out.String())
	if id == nil || !strings.Contains(out.String(), "plan pro") {
		t.Fatalf("output %q", out.String())
	}
	out.Reset()
	if err := run(ctx, []string{"account", "set-plan", "-account", id[1], "-plan", "business"}, nil, &out); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "plan business") {
		t.Fatalf("output %q", out.String())
	}
	err = run(ctx, []string{"account", "create", "-email", "ada@example.org", "-name", "Ada", "-account-name", "Again"},
		strings.NewReader("correct horse battery\n"), &out)
	if err == nil || !strings.Contains(describe(err), "already exists") {
		t.Fatalf("a second account with the same email: %v", err)
	}
	if err := run(ctx, []string{"migrate"}, nil, &out); err != nil {
		t.Fatalf("migrate on a migrated database: %v", err)
	}
}

// The real binary serves on :0, answers, and stops cleanly on SIGTERM.
func TestBinaryServesAndShutsDownGracefully(t *testing.T) {
	t.Parallel()
	bin := filepath.Join(t.TempDir(), "credentiald")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	cmd := exec.Command(bin, "serve")
	cmd.Env = append(os.Environ(), "DATABASE_URL="+testkit.Database(t), "ADDR=127.0.0.1:0")
	stderr, _ := cmd.StderrPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	lines := make(chan map[string]any, 100)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			var m map[string]any
			if json.Unmarshal(sc.Bytes(), &m) == nil {
				lines <- m
			}
		}
		close(lines)
	}()
	addr := ""
	timeout := time.After(30 * time.Second)
	for addr == "" {
		select {
		case m, ok := <-lines:
			if !ok {
				t.Fatal("the server exited before listening")
			}
			if m["msg"] == "listening" {
				addr, _ = m["addr"].(string)
			}
		case <-timeout:
			t.Fatal("the server did not start listening")
		}
	}
	client := contract.NewClient(t, "http://"+addr)
	if res := client.Get("/readyz"); res.StatusCode != 200 {
		t.Fatalf("readyz: %d", res.StatusCode)
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	stopped := false
	for m := range lines {
		if m["msg"] == "request" && m["request_id"] == nil {
			t.Errorf("an access log line without request_id: %v", m)
		}
		stopped = stopped || m["msg"] == "stopped"
	}
	if err := cmd.Wait(); err != nil || !stopped {
		t.Fatalf("exit: %v, logged stopped: %v", err, stopped)
	}
}
