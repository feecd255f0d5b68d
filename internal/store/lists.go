package store

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/certhub/credentiald/gen/db"
)

// A list's sort orders. The API names an order by a field ("name", or "-name" for descending);
// each list maps its fields to the column that orders them, and every order breaks its ties by
// id in the same direction, so that pages never repeat or skip a row. The list's queries
// (db/queries) are written in its default order; list runs them in the order asked, by putting
// its ORDER BY in place of the default one. Only clauses built here from these tables ever
// reach the SQL: the API's value selects one, it is never written into the text.
type sortColumns struct {
	// byField maps each sortable field to what orders it.
	byField map[string]sortColumn
	// fallback is the default order ("-createdAt").
	fallback string
	// alias qualifies the columns and the id ("b." when the query names the table b).
	alias string
}

// sortColumn is what orders a field: a column, compared as text under ICU's root collation
// when text (names sort as people read them, "adam" before "Zed" and "Żółć" after "Zed",
// whatever the database's locale; their indexes use the same collation), its nulls last in
// both directions when it may be null ("-issuedAt" is the newest issued first, then the
// drafts, never issued).
type sortColumn struct {
	column          string
	text, nullsLast bool
}

func col(name string) sortColumn  { return sortColumn{column: name} }
func text(name string) sortColumn { return sortColumn{column: name, text: true} }

// orderBy is the ORDER BY clause of the order named sort.
func (c sortColumns) orderBy(sort string) (string, error) {
	field, dir := sort, "ASC"
	if rest, ok := strings.CutPrefix(sort, "-"); ok {
		field, dir = rest, "DESC"
	}
	sc, ok := c.byField[field]
	if !ok {
		return "", fmt.Errorf("store: no sort order %q", sort)
	}
	key := c.alias + sc.column
	if sc.text {
		key += ` COLLATE "und-x-icu"`
	}
	key += " " + dir
	if sc.nullsLast {
		key += " NULLS LAST"
	}
	return "ORDER BY " + key + ", " + c.alias + "id " + dir, nil
}

var (
	created     = col("created_at")
	eventOrders = sortColumns{byField: map[string]sortColumn{"createdAt": created, "name": text("name"),
		"eventDate": col("event_date")}, fallback: "-createdAt"}
	attendeeOrders = sortColumns{byField: map[string]sortColumn{"createdAt": created, "lastName": text("last_name"),
		"email": col("email_normalized")}, fallback: "-createdAt"}
	certificateOrders = sortColumns{byField: map[string]sortColumn{"createdAt": created,
		"issuedAt": {column: "issued_at", nullsLast: true}, "id": col("id")}, fallback: "-createdAt"}
	templateOrders    = sortColumns{byField: map[string]sortColumn{"createdAt": created, "name": text("name")}, fallback: "-createdAt"}
	badgeOrders       = sortColumns{byField: map[string]sortColumn{"createdAt": created, "name": text("name")}, fallback: "-createdAt", alias: "b."}
	assertionOrders   = sortColumns{byField: map[string]sortColumn{"issuedAt": col("issued_at")}, fallback: "-issuedAt"}
	createdOrders     = sortColumns{byField: map[string]sortColumn{"createdAt": created}, fallback: "-createdAt"}
	emailOrders       = sortColumns{byField: map[string]sortColumn{"createdAt": created}, fallback: "-createdAt", alias: "d."}
	walletOfferOrders = sortColumns{byField: map[string]sortColumn{"createdAt": created, "expiresAt": col("expires_at")}, fallback: "-createdAt"}
)

// list returns the queries of a list in the order sort (the default when empty). Its
// statements are also planned for their arguments every time (pgx's QueryExecModeExec: an
// unnamed statement, which PostgreSQL plans with the values bound): a list's filters are
// optional ("no search" or "this text"), and a plan cached for every value would have to read
// the account's rows in order and filter them, where a search by index reads only its matches.
func (d queries) list(c sortColumns, sort string) (*db.Queries, error) {
	from, err := c.orderBy(c.fallback)
	if err != nil {
		return nil, err
	}
	to, err := c.orderBy(cmp.Or(sort, c.fallback))
	if err != nil {
		return nil, err
	}
	return db.New(listDB{conn: d.conn, from: from, to: to}), nil
}

// listDB runs a list's queries: with its order in place of the default, planned for their
// arguments.
type listDB struct {
	conn     db.DBTX
	from, to string
}

var errListOrder = errors.New("store: a list query must sort in its default order")

// reorder puts the list's order in place of the default one wherever the query holds it (a
// count, which does not sort, holds none and is left as it is; a search's walk sorts twice,
// what it walks and what it keeps).
func (l listDB) reorder(sql string) (string, error) {
	if !strings.Contains(sql, l.from) {
		if strings.Contains(sql, "ORDER BY") {
			return "", fmt.Errorf("%w: %q not in %s", errListOrder, l.from, sql)
		}
		return sql, nil
	}
	return strings.ReplaceAll(sql, l.from, l.to), nil
}

func (l listDB) args(args []any) []any { return append([]any{pgx.QueryExecModeExec}, args...) }

func (l listDB) Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error) {
	sql, err := l.reorder(sql)
	if err != nil {
		return nil, err
	}
	return l.conn.Query(ctx, sql, l.args(args)...)
}

func (l listDB) QueryRow(ctx context.Context, sql string, args ...any) pgx.Row {
	sql, err := l.reorder(sql)
	if err != nil {
		return errorRow{err}
	}
	return l.conn.QueryRow(ctx, sql, l.args(args)...)
}

func (l listDB) Exec(context.Context, string, ...any) (pgconn.CommandTag, error) {
	return pgconn.CommandTag{}, errListOnly
}

func (l listDB) CopyFrom(context.Context, pgx.Identifier, []string, pgx.CopyFromSource) (int64, error) {
	return 0, errListOnly
}

func (l listDB) SendBatch(context.Context, *pgx.Batch) pgx.BatchResults { return failedBatch{} }

var errListOnly = errors.New("store: a list runs queries only")

// failedBatch answers every result of a batch a list was asked to send (none does) with
// errListOnly.
type failedBatch struct{}

func (failedBatch) Exec() (pgconn.CommandTag, error) { return pgconn.CommandTag{}, errListOnly }
func (failedBatch) Query() (pgx.Rows, error)         { return nil, errListOnly }
func (failedBatch) QueryRow() pgx.Row                { return errorRow{errListOnly} }
func (failedBatch) Close() error                     { return nil }
func (failedBatch) Tx() pgx.Tx                       { return nil }

type errorRow struct{ err error }

func (r errorRow) Scan(...any) error { return r.err }

// containsPattern is the LIKE pattern of a search: the text lower-cased (Unicode's simple
// case folding, as the indexed expressions are lower-cased under ICU's root collation), with
// LIKE's own characters escaped, between wildcards; nil when there is no search.
func containsPattern(q *string) *string {
	if q == nil || *q == "" {
		return nil
	}
	esc := strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(strings.ToLower(*q))
	p := "%" + esc + "%"
	return &p
}
