//go:build tools

// Package tools pins the code generators this module runs with `go run`,
// so every machine generates with the same versions.
package tools

import (
	_ "github.com/a-h/templ/cmd/templ"
	_ "github.com/oapi-codegen/oapi-codegen/v2/cmd/oapi-codegen"
	_ "github.com/sqlc-dev/sqlc/cmd/sqlc"
)
