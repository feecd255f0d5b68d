package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
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
	t.Setenv("SECRETS_KEY", base64.StdEncoding.EncodeToString(testkit.SecretsKey())) // seals the account's issuer key
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
// startBinary builds credentiald and serves it on a fresh database; it returns the address and
// the JSON log lines.
func startBinary(t *testing.T, env ...string) (*exec.Cmd, string, <-chan map[string]any) {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "credentiald")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	cmd := exec.Command(bin, "serve")
	cmd.Env = append(os.Environ(), "DATABASE_URL="+testkit.Database(t), "ADDR=127.0.0.1:0", "DATA_DIR="+t.TempDir(),
		"SECRETS_KEY="+base64.StdEncoding.EncodeToString(testkit.SecretsKey()))
	cmd.Env = append(cmd.Env, env...)
	stderr, _ := cmd.StderrPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	lines := make(chan map[string]any, 1000)
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
	timeout := time.After(30 * time.Second)
	for {
		select {
		case m, ok := <-lines:
			if !ok {
				t.Fatal("the server exited before listening")
			}
			if m["msg"] == "listening" {
				addr, _ := m["addr"].(string)
				return cmd, addr, lines
			}
		case <-timeout:
			t.Fatal("the server did not start listening")
		}
	}
}

func TestBinaryServesAndShutsDownGracefully(t *testing.T) {
	t.Parallel()
	cmd, addr, lines := startBinary(t)
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

// The README's quickstart, run as written against the real binary.
func TestReadmeQuickstartWorksAsWritten(t *testing.T) {
	t.Parallel()
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, block, ok := strings.Cut(string(readme), "<!-- quickstart:begin -->\n```sh\n")
	block, _, ok2 := strings.Cut(block, "```\n<!-- quickstart:end -->")
	if !ok || !ok2 {
		t.Fatal("the README has no quickstart block between its markers")
	}
	_, addr, lines := startBinary(t)
	go func() {
		for range lines {
		}
	}()
	cmd := exec.Command("bash", "-euo", "pipefail", "-c", block)
	cmd.Env = append(os.Environ(), "BASE=http://"+addr)
	cmd.Dir = t.TempDir() // where it writes certificate.pdf
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("quickstart: %v\n%s", err, out)
	}
	for _, want := range []string{
		`"accessToken":"`, `"status":"valid"`, `"certificateNumber":"CERT-`, `"verificationCode":"`,
		`"type":"certificate"`, `"name":"Go Meetup Berlin"`,
	} {
		if !strings.Contains(string(out), want) {
			t.Errorf("the quickstart's output lacks %s:\n%s", want, out)
		}
	}
	pdf, err := os.ReadFile(filepath.Join(cmd.Dir, "certificate.pdf"))
	if err != nil || !bytes.HasPrefix(pdf, []byte("%PDF-")) {
		t.Errorf("certificate.pdf is not a PDF (%v): %.40q", err, pdf)
	}
	if strings.Contains(block, "make run") {
		t.Error("the block starts a server: the text tells the reader to start one first")
	}
	if strings.Count(string(out), "INVALID_API_KEY") > 0 {
		t.Errorf("a quickstart call was refused its credentials:\n%s", out)
	}
}
