// Package webapp holds the issuer's application (decision "The application"): the files
// web/app builds into dist, committed like all generated code and embedded, so that the binary
// needs no tool beyond Go. internal/httpapi serves them at {site_url}/app/.
package webapp

import (
	"embed"
	"io/fs"
	"path"
	"strings"
)

//go:embed all:dist
var files embed.FS

// ContentSecurityPolicy is the application page's: its own scripts, styles, images and calls,
// and images from blob: and data: (previews it fetched with its token); nothing inline,
// nothing framed, no form posted elsewhere.
const ContentSecurityPolicy = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' blob: data:; " +
	"connect-src 'self'; font-src 'self'; manifest-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

// Files is the embedded build.
type Files struct {
	dist  fs.FS
	index []byte
}

// Open reads the embedded build; it fails when the build has no index.html.
func Open() (*Files, error) {
	dist, err := fs.Sub(files, "dist")
	if err != nil {
		return nil, err
	}
	index, err := fs.ReadFile(dist, "index.html")
	if err != nil {
		return nil, err
	}
	return &Files{dist: dist, index: index}, nil
}

// Page is the application's one page, which routes in the browser.
func (f *Files) Page() []byte { return f.index }

// Asset answers a built asset by its path under /app/ (assets/<name>-<hash>.<ext>) with its
// media type; ok is false for any other path (the page's routes).
func (f *Files) Asset(name string) (body []byte, mediaType string, ok bool) {
	name = strings.TrimPrefix(path.Clean("/"+name), "/")
	if !strings.HasPrefix(name, "assets/") {
		return nil, "", false
	}
	b, err := fs.ReadFile(f.dist, name)
	if err != nil {
		return nil, "", false
	}
	return b, mediaTypeOf(name), true
}

func mediaTypeOf(name string) string {
	switch path.Ext(name) {
	case ".js":
		return "text/javascript; charset=utf-8"
	case ".css":
		return "text/css; charset=utf-8"
	case ".svg":
		return "image/svg+xml"
	case ".png":
		return "image/png"
	case ".woff2":
		return "font/woff2"
	}
	return "application/octet-stream"
}
