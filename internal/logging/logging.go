// Package logging builds the service's slog logger: JSON lines that carry the request id of
// the context they are logged with, and its trace and span ids when it has a span (tracing on),
// so that a log line leads to its trace and back.
package logging

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"time"

	"go.opentelemetry.io/otel/trace"
	"go.uber.org/zap/zapcore"
)

type ctxKey struct{}

// WithRequestID returns a context whose log lines carry id.
func WithRequestID(ctx context.Context, id string) context.Context {
	return context.WithValue(ctx, ctxKey{}, id)
}

// RequestID returns the request id of ctx, or "".
func RequestID(ctx context.Context) string {
	id, _ := ctx.Value(ctxKey{}).(string)
	return id
}

// ParseLevel reads LOG_LEVEL: debug, info, warn or error.
func ParseLevel(s string) (slog.Level, error) {
	var l slog.Level
	if s == "" {
		return slog.LevelInfo, nil
	}
	if err := l.UnmarshalText([]byte(strings.ToUpper(s))); err != nil {
		return l, fmt.Errorf("LOG_LEVEL %q: want debug, info, warn or error", s)
	}
	return l, nil
}

// New returns a JSON logger writing to w at level, a write per line.
func New(w io.Writer, level slog.Level) *slog.Logger {
	return slog.New(contextHandler{Handler: slog.NewJSONHandler(w, &slog.HandlerOptions{Level: level})})
}

// Buffering of NewBuffered: lines are written when this much is waiting, or this long after
// the first of them, whichever comes first.
const (
	bufferSize  = 64 << 10
	bufferDelay = 100 * time.Millisecond
)

// NewBuffered is New through a buffer: the access log writes a line per request, and writing
// each one (a system call under the handler's lock) was 8 % of a lookup's CPU. A warning or an
// error is written at once, with the lines before it. stop writes what is waiting and must be
// called before the process exits; a process killed outright loses at most bufferDelay of
// lines. zapcore.BufferedWriteSyncer is the buffer: made for this (a size, an interval, a
// goroutine of its own, safe for concurrent writers), where a hand-written one would have to
// prove the same.
func NewBuffered(w io.Writer, level slog.Level) (logger *slog.Logger, stop func() error) {
	return newBuffered(w, level, bufferDelay)
}

func newBuffered(w io.Writer, level slog.Level, delay time.Duration) (*slog.Logger, func() error) {
	// struct{ io.Writer } hides w's own Sync (an *os.File's is fsync, and fails on a pipe): a
	// flush writes what waits, and that is all.
	ws := &zapcore.BufferedWriteSyncer{WS: zapcore.AddSync(struct{ io.Writer }{w}), Size: bufferSize, FlushInterval: delay}
	h := contextHandler{Handler: slog.NewJSONHandler(ws, &slog.HandlerOptions{Level: level}), flush: ws.Sync}
	return slog.New(h), ws.Stop
}

// contextHandler adds the request and trace ids of the context to each record, and flushes
// the buffer under it (when there is one) after a warning or an error.
type contextHandler struct {
	slog.Handler
	flush func() error
}

func (h contextHandler) Handle(ctx context.Context, r slog.Record) error {
	if id := RequestID(ctx); id != "" {
		r.AddAttrs(slog.String("request_id", id))
	}
	if sc := trace.SpanContextFromContext(ctx); sc.IsValid() {
		r.AddAttrs(slog.String("trace_id", sc.TraceID().String()), slog.String("span_id", sc.SpanID().String()))
	}
	err := h.Handler.Handle(ctx, r)
	if h.flush != nil && r.Level >= slog.LevelWarn {
		return cmp.Or(err, h.flush())
	}
	return err
}

func (h contextHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	return contextHandler{Handler: h.Handler.WithAttrs(attrs), flush: h.flush}
}

func (h contextHandler) WithGroup(name string) slog.Handler {
	return contextHandler{Handler: h.Handler.WithGroup(name), flush: h.flush}
}
