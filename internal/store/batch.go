package store

import (
	"context"
	"errors"
	"fmt"
	"reflect"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/certhub/credentiald/gen/db"
)

// batch is one round trip of sqlc's statements: each queued as its SQL (the exported constant
// of gen/db, emit_exported_queries) with its generated parameters, and read, once the batch is
// sent, by the function given with it. Only the executor (executor.go) sends batches: every
// other data method runs its generated query on its own.
type batch struct {
	b pgx.Batch
	// err is the first mistake made while queuing (a parameter of a kind sqlc never makes):
	// send answers it and sends nothing.
	err error
}

// exec queues a statement whose result is only its success.
func (b *batch) exec(sql string, params ...any) {
	b.queue(sql, params).Exec(func(pgconn.CommandTag) error { return nil })
}

// queryRow queues a statement of one row, scanned into dst (a *T of the statement's row type,
// or the single column's type): no row is pgx.ErrNoRows for read to decide on. read runs once
// the batch is sent, with the scan's error.
func (b *batch) queryRow(sql string, dst any, read func(error) error, params ...any) {
	b.queue(sql, params).QueryRow(func(row pgx.Row) error {
		return read(row.Scan(scanTargets(dst)...))
	})
}

// query queues a statement of rows, each scanned as T (sqlc's row type, or a single column)
// and handed to each, in order.
func query[T any](b *batch, sql string, each func(T) error, params ...any) {
	b.queue(sql, params).Query(func(rows pgx.Rows) error {
		defer rows.Close()
		for rows.Next() {
			var v T
			if err := rows.Scan(scanTargets(&v)...); err != nil {
				return err
			}
			if err := each(v); err != nil {
				return err
			}
		}
		return rows.Err()
	})
}

// queue adds sql with its arguments: one params value that is a sqlc Params struct gives its
// fields, in order (sqlc declares them in the order of the statement's $n), any other value is
// one argument.
func (b *batch) queue(sql string, params []any) *pgx.QueuedQuery {
	var args []any
	for _, p := range params {
		v := reflect.ValueOf(p)
		if v.Kind() == reflect.Struct && v.Type().PkgPath() == dbPkgPath {
			for i := range v.NumField() {
				args = append(args, v.Field(i).Interface())
			}
			continue
		}
		args = append(args, p)
	}
	return b.b.Queue(sql, args...)
}

// send sends the queued statements in one round trip and runs their reads in order; the first
// error is returned (a failed statement aborts the transaction: those after it fail too).
func (b *batch) send(ctx context.Context, tx pgx.Tx) error {
	if b.err != nil {
		return b.err
	}
	if b.b.Len() == 0 {
		return nil
	}
	err := tx.SendBatch(ctx, &b.b).Close()
	b.b = pgx.Batch{}
	return mapError(err)
}

// dbPkgPath is gen/db's import path: its structs are sqlc's (Params, rows, models).
var dbPkgPath = reflect.TypeFor[db.Queries]().PkgPath()

// scanTargets are the destinations of a row scanned into dst: dst itself, unless it points to
// a struct of gen/db (a model or a row), whose fields are the row's columns in order, a field
// that is itself such a struct (sqlc.embed) standing for its own fields.
func scanTargets(dst any) []any {
	v := reflect.ValueOf(dst)
	if v.Kind() != reflect.Pointer || v.Elem().Kind() != reflect.Struct || v.Elem().Type().PkgPath() != dbPkgPath {
		return []any{dst}
	}
	var out []any
	var walk func(s reflect.Value)
	walk = func(s reflect.Value) {
		for i := range s.NumField() {
			f := s.Field(i)
			if f.Kind() == reflect.Struct && f.Type().PkgPath() == dbPkgPath {
				walk(f)
				continue
			}
			out = append(out, f.Addr().Interface())
		}
	}
	walk(v.Elem())
	return out
}

// noRow reads a queryRow's error where no row is an answer: found says whether there was one.
func noRow(err error) (found bool, _ error) {
	if errors.Is(err, pgx.ErrNoRows) {
		return false, nil
	}
	return err == nil, err
}

// errMixed is a plan or a read whose parts do not belong together (another account's, a
// different time): a mistake of the caller, refused before anything is sent.
func errMixed(what string) error {
	return fmt.Errorf("store: %s", what)
}
