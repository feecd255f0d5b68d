package loadbench

import (
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/labstack/echo/v4"
)

// The bare server is the yardstick: Echo with no middleware and pgx with its default pool,
// doing the least each kind of work needs, on the service's database. Its writes go to a
// schema of its own, shaped like the service's tables (LIKE ... INCLUDING ALL: the same
// columns, generated columns and indexes; no foreign keys and no triggers), search tables
// included: it writes a certificate's search row itself, where the service's triggers do
// (the service's attendees get theirs after the import, from its search indexer: the bare
// import writes none, and bench-http waits for the indexer between phases). One more table,
// bare.attendees_plain, has the attendees' columns and checks with a primary key and a
// non-unique (event, email) index only: the plain CopyFrom that the service's import is
// measured against too. They start with copies of the service account's rows (seedBare), so
// that both sides write through indexes of one size. Its SQL lives here, not in db/queries:
// it is the measure of the stack, not part of the service.
const bareSchema = `
CREATE SCHEMA bare;
CREATE TABLE bare.credit_usage (LIKE public.credit_usage INCLUDING ALL);
CREATE TABLE bare.certificates (LIKE public.certificates INCLUDING ALL);
CREATE TABLE bare.attendees (LIKE public.attendees INCLUDING ALL);
CREATE TABLE bare.attendees_plain (LIKE public.attendees INCLUDING DEFAULTS INCLUDING GENERATED INCLUDING CONSTRAINTS,
    PRIMARY KEY (id));
CREATE INDEX attendees_plain_event_email_idx ON bare.attendees_plain (event_id, email_normalized);
CREATE TABLE bare.certificate_search (LIKE public.certificate_search INCLUDING ALL);
`

type bareServer struct {
	*http.Server
	addr        string
	stopCleaner context.CancelFunc
}

// Close stops the bare server and the merges of its search index.
func (s *bareServer) Close() error {
	s.stopCleaner()
	return s.Server.Close()
}

// cleanBareSearch merges the pending entries of the bare certificates' search index every
// second until ctx ends, as the service's searchindex.Cleaner does its own: the bare index
// carries the service's limit of 64 MB (LIKE ... INCLUDING ALL copies it), and without merges
// apart its pending list would grow through the run until one insert merged it all.
func cleanBareSearch(ctx context.Context, pool *pgxpool.Pool, out io.Writer) error {
	var index string
	if err := pool.QueryRow(ctx, `SELECT c.oid::regclass::text FROM pg_index i
		JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_am a ON a.oid = c.relam
		WHERE i.indrelid = 'bare.certificate_search'::regclass AND a.amname = 'gin'`).Scan(&index); err != nil {
		return fmt.Errorf("the bare search index: %w", err)
	}
	go func() {
		tick := time.NewTicker(time.Second)
		defer tick.Stop()
		failed := false
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
				// The comment names the bare schema, which printStatements leaves out.
				_, err := pool.Exec(ctx, `/* bare. */ SELECT gin_clean_pending_list($1::regclass)`, index)
				if err != nil && ctx.Err() == nil && !failed {
					failed = true // the bare figures include merges in its transactions again
					fmt.Fprintf(out, "bench-http: merging the bare search index failed: %v\n", err)
				}
			}
		}
	}()
	return nil
}

// startBare starts the bare server on tables that hold copies of the service account's rows
// (see seedBare), and says how many.
func startBare(ctx context.Context, pool *pgxpool.Pool, service uuid.UUID, out io.Writer) (*bareServer, error) {
	if _, err := pool.Exec(ctx, bareSchema); err != nil {
		return nil, err
	}
	// UUIDs as pgtype.UUID: pgx writes them in binary at once (the service's store teaches
	// its pool the same for uuid.UUID, see store/uuidcodec.go).
	account, event, template := pgUUID(uuid.New()), pgUUID(uuid.New()), pgUUID(uuid.New())
	if err := seedBare(ctx, pool, service, account, out); err != nil {
		return nil, fmt.Errorf("copying the service's rows into the bare tables: %w", err)
	}
	e := echo.New()
	e.HideBanner, e.HidePort = true, true
	// One indexed lookup, a small JSON answer.
	e.GET("/certificates/:id", func(c echo.Context) error {
		var number, status, first, last string
		var issued *time.Time
		err := pool.QueryRow(c.Request().Context(),
			`SELECT certificate_number, status, recipient_first_name, recipient_last_name, issued_at FROM certificates WHERE id = $1`,
			c.Param("id")).Scan(&number, &status, &first, &last, &issued)
		if err != nil {
			return err
		}
		return c.JSON(http.StatusOK, map[string]any{"data": map[string]any{"id": c.Param("id"), "number": number,
			"status": status, "recipient": first + " " + last, "issuedAt": issued}})
	})
	// The public lookup by verification code: one indexed lookup, a small JSON answer.
	e.GET("/verify/:code", func(c echo.Context) error {
		var number, status, first, last string
		var issued *time.Time
		err := pool.QueryRow(c.Request().Context(),
			`SELECT certificate_number, status, recipient_first_name, recipient_last_name, issued_at FROM certificates WHERE verification_code = $1`,
			c.Param("code")).Scan(&number, &status, &first, &last, &issued)
		if err != nil {
			return err
		}
		return c.JSON(http.StatusOK, map[string]any{"data": map[string]any{"valid": status == "issued", "number": number,
			"recipient": first + " " + last, "issuedAt": issued}})
	})
	// Issue + credit on one account, in one transaction: one statement that takes the
	// account's credit row and inserts the certificate numbered by it (a random code, an empty
	// snapshot), through every index the service's certificates have.
	e.POST("/issue", func(c echo.Context) error {
		var body struct{ AttendeeID uuid.UUID }
		if err := c.Bind(&body); err != nil {
			return err
		}
		var id pgtype.UUID
		var number string
		err := pool.QueryRow(c.Request().Context(), `
WITH credit AS (
    INSERT INTO bare.credit_usage AS u (account_id, period, used) VALUES ($1, date_trunc('month', now())::date, 1)
    ON CONFLICT (account_id, period) DO UPDATE SET used = u.used + 1 RETURNING used),
cert AS (
INSERT INTO bare.certificates (id, account_id, event_id, attendee_id, template_id, certificate_number, verification_code,
    status, recipient_first_name, recipient_last_name, recipient_email, snapshot, issued_at, created_at, updated_at)
SELECT $2, $1, $4, $3, $5, 'CERT-' || used, upper(md5($2::uuid::text)), 'issued', 'Ada', 'Lovelace', 'ada@example.org', '{}',
    now(), now(), now() FROM credit
RETURNING id, account_id, event_id, certificate_number, verification_code),
searched AS (
INSERT INTO bare.certificate_search (account_id, certificate_id, event_id, search_text)
SELECT account_id, id, event_id, lower(certificate_number || ' ' || verification_code || ' Ada Lovelace ada@example.org') FROM cert)
SELECT id, certificate_number FROM cert`, account, pgUUID(uuid.Must(uuid.NewV7())), pgUUID(body.AttendeeID), event, template).Scan(&id, &number)
		if err != nil {
			return err
		}
		return c.JSON(http.StatusOK, map[string]any{"data": map[string]any{"id": uuid.UUID(id.Bytes), "certificateNumber": number}})
	})
	// The import's file, as the service's import takes it (the field "file" of a multipart
	// form), parsed with encoding/csv and copied with CopyFrom into table, in one transaction:
	// bare.attendees (the service's indexes) or bare.attendees_plain (a key and one index).
	importInto := func(table string) echo.HandlerFunc {
		return func(c echo.Context) error {
			header, err := c.FormFile("file")
			if err != nil {
				return err
			}
			file, err := header.Open()
			if err != nil {
				return err
			}
			defer file.Close()
			records, err := csv.NewReader(file).ReadAll()
			if err != nil || len(records) < 1 {
				return errors.Join(errors.New("bad csv"), err)
			}
			now := time.Now()
			rows := make([][]any, 0, len(records)-1)
			for _, r := range records[1:] {
				rows = append(rows, []any{pgUUID(uuid.Must(uuid.NewV7())), account, event, r[0], r[1], r[2], []byte("{}"), now, now})
			}
			ctx := c.Request().Context()
			tx, err := pool.Begin(ctx)
			if err != nil {
				return err
			}
			defer func() { _ = tx.Rollback(ctx) }()
			n, err := tx.CopyFrom(ctx, pgx.Identifier{"bare", table},
				[]string{"id", "account_id", "event_id", "first_name", "last_name", "email", "metadata", "created_at", "updated_at"},
				pgx.CopyFromRows(rows))
			if err != nil {
				return err
			}
			if err := tx.Commit(ctx); err != nil {
				return err
			}
			return c.JSON(http.StatusOK, map[string]any{"data": map[string]any{"added": n}})
		}
	}
	e.POST("/import", importInto("attendees"))
	e.POST("/import-plain", importInto("attendees_plain"))
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	cleaning, stop := context.WithCancel(context.WithoutCancel(ctx))
	if err := cleanBareSearch(cleaning, pool, out); err != nil {
		stop()
		_ = ln.Close()
		return nil, err
	}
	s := &bareServer{Server: &http.Server{Handler: e, ReadHeaderTimeout: 10 * time.Second}, addr: ln.Addr().String(), stopCleaner: stop}
	go func() { _ = s.Serve(ln) }()
	return s, nil
}

func pgUUID(u uuid.UUID) pgtype.UUID { return pgtype.UUID{Bytes: u, Valid: true} }

// seedBare copies the service account's attendees (into both attendee tables) and
// certificates, with the certificates' search rows, into the bare tables, as rows of the bare
// account: each side then writes through the same indexes holding as many entries, not the
// service into a busy account's attendees and certificates and the bare server into empty
// tables whose every page is cached. The copies keep their ids, events, names, numbers and
// codes (none collides with what the bare server writes: its numbers are CERT-n, its codes 32
// hex digits); their snapshots are left empty, as the bare server's own are (no index reads
// one), so the bare certificates' heap is smaller than the service's (a snapshot a row, kept
// inline).
func seedBare(ctx context.Context, pool *pgxpool.Pool, service uuid.UUID, account pgtype.UUID, out io.Writer) error {
	rows, _ := pool.Query(ctx, `SELECT column_name FROM information_schema.columns
		WHERE table_schema = 'public' AND table_name = 'certificates' AND is_generated = 'NEVER' ORDER BY ordinal_position`)
	columns, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return err
	}
	values := make([]string, len(columns))
	for i, c := range columns {
		switch c {
		case "account_id":
			values[i] = "$1"
		case "snapshot":
			values[i] = "'{}'::jsonb"
		default:
			values[i] = pgx.Identifier{c}.Sanitize()
		}
		columns[i] = pgx.Identifier{c}.Sanitize()
	}
	tx, err := pool.Begin(ctx)
	if err != nil {
		return err
	}
	defer func() { _ = tx.Rollback(ctx) }()
	var counts [3]int64
	for i, q := range []string{
		`INSERT INTO bare.attendees (id, account_id, event_id, first_name, last_name, email, metadata, created_at, updated_at)
		 SELECT id, $1, event_id, first_name, last_name, email, metadata, created_at, updated_at FROM public.attendees WHERE account_id = $2`,
		`INSERT INTO bare.attendees_plain (id, account_id, event_id, first_name, last_name, email, metadata, created_at, updated_at)
		 SELECT id, $1, event_id, first_name, last_name, email, metadata, created_at, updated_at FROM public.attendees WHERE account_id = $2`,
		fmt.Sprintf(`INSERT INTO bare.certificates (%s) SELECT %s FROM public.certificates WHERE account_id = $2`,
			strings.Join(columns, ", "), strings.Join(values, ", ")),
	} {
		tag, err := tx.Exec(ctx, q, account, pgUUID(service))
		if err != nil {
			return err
		}
		counts[i] = tag.RowsAffected()
	}
	for _, q := range []string{
		`INSERT INTO bare.certificate_search (account_id, certificate_id, event_id, search_text)
		 SELECT $1, certificate_id, event_id, search_text FROM public.certificate_search WHERE account_id = $2`,
	} {
		if _, err := tx.Exec(ctx, q, account, pgUUID(service)); err != nil {
			return err
		}
	}
	if err := tx.Commit(ctx); err != nil {
		return err
	}
	// The bare tables only: prepare analyses the service's once it has filled them. Analysed
	// empty (-prepare 0), the service's certificates were planned as empty while the issuance
	// load filled them, and each issuance cost PostgreSQL several times its CPU (see
	// docs/benchmarks.md).
	if _, err := pool.Exec(ctx, "VACUUM ANALYZE bare.attendees, bare.attendees_plain, bare.certificates, bare.certificate_search"); err != nil {
		return err
	}
	fmt.Fprintf(out, "bench-http: the bare tables hold copies of the service account's %d attendees and %d certificates, with the certificates' search rows\n",
		counts[0], counts[2])
	return nil
}
