package spec

import (
	"net/url"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
)

// APIPrefix is the path of the document's global server, where the API lives.
const APIPrefix = "/api/v1"

// FullPath is the path template a document path is served at: the path of its path-level
// server when it names one (the pages at the site root), else the API's prefix before it.
// "/events/{id}" is "/api/v1/events/{id}"; "/{code}" under the server "/verify" is
// "/verify/{code}"; "/" under the server "/" is "/".
func FullPath(path string, item *openapi3.PathItem) string {
	prefix := APIPrefix
	if item != nil && len(item.Servers) > 0 {
		prefix = item.Servers[0].URL
		if u, err := url.Parse(prefix); err == nil {
			prefix = u.Path
		}
	}
	prefix = strings.TrimSuffix(prefix, "/")
	if path == "/" && prefix != "" {
		return prefix
	}
	return prefix + path
}

// WithFullPaths returns a shallow copy of doc whose paths are their FullPath and carry no
// servers, for routers that match a request's whole path and must not apply servers again.
func WithFullPaths(doc *openapi3.T) *openapi3.T {
	clone := *doc
	clone.Servers = nil
	clone.Paths = openapi3.NewPaths()
	for path, item := range doc.Paths.Map() {
		it := *item
		it.Servers = nil
		clone.Paths.Set(FullPath(path, item), &it)
	}
	return &clone
}
