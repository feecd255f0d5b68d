// Package db embeds the SQL migrations, the one source of the schema for goose and sqlc.
package db

import "embed"

// Migrations holds db/migrations/*.sql.
//
//go:embed migrations/*.sql
var Migrations embed.FS
