//go:build tools

// Package tools pins oasdiff, which `make contract-gate` runs with
// `go -C internal/tools/oasdiff run github.com/oasdiff/oasdiff`.
package tools

import (
	_ "github.com/oasdiff/oasdiff"
)
