package httpapi

import (
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/certhub/credentiald/internal/webapp"
)

// registerApp serves the issuer's application (internal/webapp) at /app/: hashed assets kept a
// year, any other path under /app/ the application's page (it routes in the browser) with its
// Content-Security-Policy, /app itself redirected to /app/.
func registerApp(p *part, files *webapp.Files) {
	page := func(c echo.Context) error {
		h := c.Response().Header()
		h.Set("Content-Security-Policy", webapp.ContentSecurityPolicy)
		h.Set("Cache-Control", "no-cache")
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "same-origin")
		h.Set("X-Frame-Options", "DENY")
		return c.Blob(http.StatusOK, "text/html; charset=utf-8", files.Page())
	}
	asset := func(c echo.Context) error {
		name := c.Param("*")
		if !strings.HasPrefix(name, "assets/") {
			return page(c)
		}
		body, mediaType, ok := files.Asset(name)
		if !ok {
			return echo.NewHTTPError(http.StatusNotFound)
		}
		h := c.Response().Header()
		h.Set("Cache-Control", "public, max-age=31536000, immutable")
		h.Set("X-Content-Type-Options", "nosniff")
		return c.Blob(http.StatusOK, mediaType, body)
	}
	redirect := func(c echo.Context) error { return c.Redirect(http.StatusMovedPermanently, "/app/") }
	for _, m := range []string{http.MethodGet, http.MethodHead} {
		p.Add(m, "/app", redirect)
		p.Add(m, "/app/", page)
		p.Add(m, "/app/*", asset)
	}
}
