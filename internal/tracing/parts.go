package tracing

import (
	"context"
	"strings"

	"github.com/exaring/otelpgx"
	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river/rivertype"
	"github.com/riverqueue/rivercontrib/otelriver"
	"go.opentelemetry.io/otel/trace"
)

// QueryTracer is pgx's tracer of tp (exaring/otelpgx): a client span per statement, batch and
// connection acquisition, child of the span of its context (a request's, a job's). A statement
// is named by its sqlc query name (sqlc's "-- name: CountJobs :many" comment leads each
// generated statement), else by its SQL verb; the statement's text goes in db.query.text,
// never its arguments (they hold personal data and secrets).
func QueryTracer(tp trace.TracerProvider) pgx.QueryTracer {
	return otelpgx.NewTracer(otelpgx.WithTracerProvider(tp), otelpgx.WithSpanNameCtxFunc(statementName))
}

// statementName is the sqlc query name of a generated statement, or otelpgx's own name.
func statementName(ctx context.Context, sql string) string {
	if rest, ok := strings.CutPrefix(sql, "-- name: "); ok {
		if name, _, ok := strings.Cut(rest, " "); ok && name != "" {
			return name
		}
	}
	return otelpgx.SQLOperationName(ctx, sql)
}

// JobPlugin is River's OpenTelemetry middleware on tp: a span per job worked
// (river.work/<kind>), a span per insert through River's client, and the inserting span's trace
// context kept in the job's metadata, which the job's work span links to.
func JobPlugin(tp trace.TracerProvider) rivertype.Plugin {
	return otelriver.NewMiddleware(&otelriver.MiddlewareConfig{TracerProvider: tp,
		EnableTracePropagation: true, EnableWorkSpanJobKindSuffix: true})
}
