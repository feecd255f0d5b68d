package store_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/certhub/credentiald/internal/testkit"
	"github.com/certhub/credentiald/internal/testkit/coverage"
)

// docs/privacy.md classifies every column that can hold text, JSON or bytes (personal data or
// not): a column added by a migration and not classified there fails this test, and so does
// one the document names that the schema no longer has.
func TestPrivacyInventoryCoversEveryColumn(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, testkit.Database(t))
	require.NoError(t, err)
	t.Cleanup(func() { _ = conn.Close(context.Background()) })
	rows, err := conn.Query(ctx, `SELECT c.table_name || '.' || c.column_name
		FROM information_schema.columns c
		JOIN information_schema.tables t USING (table_schema, table_name)
		WHERE c.table_schema = current_schema() AND t.table_type = 'BASE TABLE'
		  AND c.data_type IN ('text', 'jsonb', 'json', 'bytea', 'inet', 'character varying', 'character', 'ARRAY', 'USER-DEFINED')
		  AND c.table_name NOT LIKE 'river\_%' AND c.table_name NOT LIKE 'goose\_%'
		ORDER BY 1`)
	require.NoError(t, err)
	columns, err := pgx.CollectRows(rows, pgx.RowTo[string])
	require.NoError(t, err)
	require.NotEmpty(t, columns, "no column read from the schema")

	doc, err := os.ReadFile(filepath.Join(coverage.ModuleRoot(), "docs", "privacy.md"))
	require.NoError(t, err)
	named := map[string]bool{}
	for _, line := range strings.Split(string(doc), "\n") {
		if !strings.HasPrefix(line, "| `") {
			continue
		}
		cell := strings.Split(line, "|")[1]
		for _, part := range strings.Split(cell, "`") {
			if part = strings.TrimSpace(part); strings.Count(part, ".") == 1 && !strings.ContainsAny(part, " ,") {
				named[part] = true
			}
		}
	}
	var missing []string
	for _, c := range columns {
		if !named[c] {
			missing = append(missing, c)
		}
		delete(named, c)
	}
	require.Empty(t, missing, "columns docs/privacy.md does not classify (personal data or not)")
	var gone []string
	for c := range named {
		gone = append(gone, c)
	}
	require.Empty(t, gone, "columns docs/privacy.md names that the schema does not have")
}
