package app

import (
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"

	"github.com/certhub/credentiald/internal/config"
	"github.com/certhub/credentiald/internal/secretbox"
)

// errNoSecretsKey is the start-up error of an installation with its own database and no key.
var errNoSecretsKey = errors.New("SECRETS_KEY is required when DATABASE_URL is set: it seals the webhook signing secrets " +
	"and TOTP secrets kept in the database (AES-256-GCM). Set it to the base64 of 32 random bytes, for example the " +
	"output of `openssl rand -base64 32`, give every instance the same one and keep it safe: what it sealed cannot be " +
	"read without it. To change it later, see \"Secrets at rest\" in docs/operations.md")

// Secrets returns the box that seals the secrets kept at rest: under SECRETS_KEY, opening also
// what the keys of SECRETS_KEY_PREVIOUS sealed. Without SECRETS_KEY, the development mode (no
// DATABASE_URL: the private cluster) keeps a key of its own in DATA_DIR/secrets.key, made on
// first use with mode 0600; with DATABASE_URL set it is an error.
func Secrets(cfg config.Config, logger *slog.Logger) (*secretbox.Box, error) {
	key := cfg.SecretsKey
	if key == nil {
		if cfg.DatabaseURL != "" {
			return nil, errNoSecretsKey
		}
		path := filepath.Join(cfg.DataDir, "secrets.key")
		var err error
		if key, err = developmentKey(path); err != nil {
			return nil, fmt.Errorf("SECRETS_KEY is unset and the development key %s: %w", path, err)
		}
		logger.Info("SECRETS_KEY is unset: secrets at rest are sealed with the development key", "file", path)
	}
	return secretbox.New(key, cfg.SecretsKeyPrevious...)
}

// developmentKey reads the key file at path, or makes it: written whole to a temporary file
// and linked into place, so that processes starting at once agree on one key and none reads a
// half-written file.
func developmentKey(path string) ([]byte, error) {
	if b, err := os.ReadFile(path); err == nil {
		return config.ParseSecretsKey(string(b))
	} else if !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, err
	}
	key := make([]byte, secretbox.KeySize)
	if _, err := rand.Read(key); err != nil {
		return nil, err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".secrets.key-*")
	if err != nil {
		return nil, err
	}
	defer os.Remove(tmp.Name())
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close()
		return nil, err
	}
	if _, err := tmp.WriteString(base64.StdEncoding.EncodeToString(key) + "\n"); err != nil {
		tmp.Close()
		return nil, err
	}
	if err := tmp.Close(); err != nil {
		return nil, err
	}
	if err := os.Link(tmp.Name(), path); errors.Is(err, os.ErrExist) {
		b, err := os.ReadFile(path) // another process made it first
		if err != nil {
			return nil, err
		}
		return config.ParseSecretsKey(string(b))
	} else if err != nil {
		return nil, err
	}
	return key, nil
}
