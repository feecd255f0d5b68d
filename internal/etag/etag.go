// Package etag is the service's one reading of If-None-Match (RFC 9110, section 13.1.2): the
// verification assets, the signed credentials and status lists, and the issuer's keys answer
// 304 Not Modified by it.
package etag

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
)

// Of is a strong entity tag made of the parts that determine an answer's bytes: a digest of
// them, quoted. Equal parts, equal tags; any part changed, another tag.
func Of(parts ...string) string {
	h := sha256.Sum256([]byte(strings.Join(parts, "\x00")))
	return `"` + hex.EncodeToString(h[:12]) + `"`
}

// Matches reports whether an If-None-Match header names tag: a list of entity tags, each
// compared weakly (a W/ prefix ignored, as RFC 9110 asks for GET and HEAD), or "*". An empty
// header matches nothing.
func Matches(ifNoneMatch, tag string) bool {
	for _, t := range strings.Split(ifNoneMatch, ",") {
		t = strings.TrimPrefix(strings.TrimSpace(t), "W/")
		if t != "" && (t == "*" || t == tag) {
			return true
		}
	}
	return false
}
