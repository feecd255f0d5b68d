package testkit

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// Redis returns the URL of a Redis server for the test: $TEST_REDIS_URL when set (shared, so a
// test must use keys of its own), or a private redis-server started on a Unix socket in a
// temporary folder and stopped when the test ends.
func Redis(t testing.TB) string {
	t.Helper()
	if url := os.Getenv("TEST_REDIS_URL"); url != "" {
		return url
	}
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		t.Fatalf("redis-server is not installed (apt-get install redis-server) and TEST_REDIS_URL is unset")
	}
	dir, err := os.MkdirTemp("", "redis-") // short path: a Unix socket path is limited to ~100 bytes
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	sock := filepath.Join(dir, "redis.sock")
	cmd := exec.Command(bin, "--port", "0", "--unixsocket", sock, "--unixsocketperm", "700",
		"--save", "", "--appendonly", "no", "--dir", dir, "--logfile", filepath.Join(dir, "redis.log"))
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting redis-server: %v", err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	url := "unix://" + sock
	client := redis.NewClient(&redis.Options{Network: "unix", Addr: sock})
	defer client.Close()
	deadline := time.Now().Add(10 * time.Second)
	for {
		if err := client.Ping(context.Background()).Err(); err == nil {
			return url
		} else if time.Now().After(deadline) {
			log, _ := os.ReadFile(filepath.Join(dir, "redis.log"))
			t.Fatalf("redis-server did not answer: %v\n%s", err, log)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
