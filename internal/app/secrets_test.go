package app

import (
	"bytes"
	"errors"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/certhub/credentiald/internal/config"
)

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

// Without DATABASE_URL and SECRETS_KEY, the development mode makes one key under DATA_DIR,
// mode 0600, and keeps using it; processes starting at once agree on it.
func TestTheDevelopmentModeKeepsOneKeyOfItsOwn(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	cfg := config.Config{DataDir: dir}
	var (
		wg     sync.WaitGroup
		mu     sync.Mutex
		sealed [][]byte
	)
	for range 8 {
		wg.Go(func() {
			box, err := Secrets(cfg, quiet)
			if err != nil {
				t.Error(err)
				return
			}
			s, _ := box.Seal([]byte("whsec_x"), []byte("webhook:1"))
			mu.Lock()
			sealed = append(sealed, s)
			mu.Unlock()
		})
	}
	wg.Wait()
	box, err := Secrets(cfg, quiet)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range sealed {
		if p, err := box.Open(s, []byte("webhook:1")); err != nil || !bytes.Equal(p, []byte("whsec_x")) {
			t.Fatal("two development keys")
		}
	}
	info, err := os.Stat(filepath.Join(dir, "secrets.key"))
	if err != nil || info.Mode().Perm() != 0o600 {
		t.Fatalf("key file: %v %v", info, err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Fatalf("left behind: %v", entries)
	}
}

func TestWithADatabaseURLTheKeyIsRequired(t *testing.T) {
	_, err := Secrets(config.Config{DatabaseURL: "postgres://db.example.org/credentiald", DataDir: t.TempDir()}, quiet)
	if !errors.Is(err, errNoSecretsKey) {
		t.Fatalf("%v", err)
	}
	key := bytes.Repeat([]byte{7}, 32)
	if _, err := Secrets(config.Config{DatabaseURL: "postgres://db.example.org/credentiald", SecretsKey: key}, quiet); err != nil {
		t.Fatal(err)
	}
}
