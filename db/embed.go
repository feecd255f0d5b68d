// Package db embeds the SQL migrations, the one source of the schema for goose and sqlc.
package db

import "embed"

// Migrations holds db/migrations/*.sql.
//
//go:embed migrations/*.sql
var Migrations embed.FS

// SystemTemplates holds the read-only templates every account can use, one JSON file each;
// the store writes them at migration time under their fixed ids.
//
//go:embed system-templates/*.json
var SystemTemplates embed.FS
