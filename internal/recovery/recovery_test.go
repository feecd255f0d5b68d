package recovery_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"strings"
	"testing"

	"github.com/certhub/credentiald/internal/recovery"
)

func explode() error { panic("the renderer fell over") }

func TestAPanicIsLoggedWithItsStackAndReturned(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	logger := slog.New(slog.NewJSONHandler(&buf, nil))
	err := recovery.Run(context.Background(), logger, "item panicked", explode, "item_id", "42")
	var p *recovery.Panic
	if !errors.As(err, &p) || p.Value != "the renderer fell over" || !recovery.Is(err) {
		t.Fatalf("error: %#v", err)
	}
	var line struct {
		Level, Msg, Panic, Stack string
		ItemID                   string `json:"item_id"`
	}
	if err := json.Unmarshal(buf.Bytes(), &line); err != nil {
		t.Fatalf("log: %v %s", err, buf.String())
	}
	if line.Level != "ERROR" || line.Msg != "item panicked" || line.ItemID != "42" || line.Panic != "the renderer fell over" ||
		!strings.Contains(line.Stack, "recovery_test.explode") {
		t.Fatalf("log line: %+v", line)
	}
}

func TestAnErrorPassesThroughUnlogged(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	want := errors.New("temporary")
	err := recovery.Run(context.Background(), slog.New(slog.NewJSONHandler(&buf, nil)), "x", func() error { return want })
	if err != want || recovery.Is(err) || buf.Len() != 0 {
		t.Fatalf("error %v, log %q", err, buf.String())
	}
	if err := recovery.Run(context.Background(), nil, "x", func() error { return nil }); err != nil {
		t.Fatal(err)
	}
}
