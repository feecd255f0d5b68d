// Package openapi holds the published contract, embedded so the server serves it byte for byte.
package openapi

import _ "embed"

// Document is openapi/v1.json exactly as committed.
//
//go:embed v1.json
var Document []byte
