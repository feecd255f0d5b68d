// Package recovery keeps a panic in background work from stopping the process. A worker runs
// each item through Run: a panic becomes a *Panic error, logged once at level error with its
// stack, and the worker records the item as failed for good. Retrying would only panic again
// (the same input reaches the same code), so a panic is never a reason to try later.
package recovery

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"slices"
)

// Panic is a recovered panic: its value and the stack where it happened.
type Panic struct {
	Value any
	Stack string
}

func (p *Panic) Error() string { return fmt.Sprintf("panic: %v", p.Value) }

// Is reports whether err is, or wraps, a recovered panic.
func Is(err error) bool {
	var p *Panic
	return errors.As(err, &p)
}

// Run calls fn and returns its error. When fn panics, the panic is logged with msg, attrs, its
// value and its stack at level error, and returned as a *Panic.
func Run(ctx context.Context, logger *slog.Logger, msg string, fn func() error, attrs ...any) (err error) {
	defer func() {
		v := recover()
		if v == nil {
			return
		}
		p := &Panic{Value: v, Stack: string(debug.Stack())}
		if logger == nil {
			logger = slog.Default()
		}
		logger.ErrorContext(ctx, msg, slices.Concat(attrs, []any{slog.String("panic", fmt.Sprint(v)), slog.String("stack", p.Stack)})...)
		err = p
	}()
	return fn()
}
