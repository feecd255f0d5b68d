// Package httpapi is the HTTP edge: the Echo server, its middleware and the handlers that
// implement the generated strict interface by calling the domain services.
package httpapi

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"net/netip"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/labstack/echo/v4"

	"github.com/certhub/credentiald/gen/api"
	"github.com/certhub/credentiald/gen/docs"
	"github.com/certhub/credentiald/internal/accounts"
	"github.com/certhub/credentiald/internal/analytics"
	"github.com/certhub/credentiald/internal/attendees"
	"github.com/certhub/credentiald/internal/auth"
	"github.com/certhub/credentiald/internal/badges"
	"github.com/certhub/credentiald/internal/bulk"
	"github.com/certhub/credentiald/internal/certificates"
	"github.com/certhub/credentiald/internal/credentials"
	"github.com/certhub/credentiald/internal/events"
	"github.com/certhub/credentiald/internal/httperr"
	"github.com/certhub/credentiald/internal/links"
	"github.com/certhub/credentiald/internal/metrics"
	"github.com/certhub/credentiald/internal/ratelimit"
	"github.com/certhub/credentiald/internal/spec"
	"github.com/certhub/credentiald/internal/templates"
	"github.com/certhub/credentiald/internal/verification"
	"github.com/certhub/credentiald/internal/webhooks"
	"github.com/certhub/credentiald/openapi"
)

const apiPrefix = "/api/v1"

// Readiness reports whether the service can serve: database reachable, migrations applied.
type Readiness interface {
	Ready(ctx context.Context) error
}

// Options are the server's dependencies.
type Options struct {
	Logger       *slog.Logger
	Readiness    Readiness
	Auth         *auth.Service
	Accounts     *accounts.Service
	Events       *events.Service
	Attendees    *attendees.Service
	Templates    *templates.Service
	Certificates *certificates.Service
	Bulk         *bulk.Service
	Badges       *badges.Service
	Verification *verification.Service
	Webhooks     *webhooks.Service
	// Credentials serves the issuers' DID documents, JWK Sets and status lists.
	Credentials *credentials.Service
	Analytics   *analytics.Service
	// Idempotency remembers the answers of requests sent with an Idempotency-Key.
	Idempotency IdempotencyKeys
	// Limiter counts requests per client address; TrustedProxies are the peers whose
	// X-Forwarded-For is believed.
	Limiter        ratelimit.Limiter
	TrustedProxies []netip.Prefix
	SignupEnabled  bool
	// StrictMiddlewares wrap every operation; tests use them to provoke failures.
	StrictMiddlewares []api.StrictMiddlewareFunc
	// Metrics, when set, records every request (METRICS_ADDR); nil: no metrics.
	Metrics *metrics.HTTP
	// Links makes the URLs the answers carry (site_url); its zero value makes them relative.
	Links links.Site
}

// Server implements the contract's operations.
type Server struct {
	logger        *slog.Logger
	auth          *auth.Service
	accounts      *accounts.Service
	events        *events.Service
	attendees     *attendees.Service
	templates     *templates.Service
	certificates  *certificates.Service
	bulk          *bulk.Service
	badges        *badges.Service
	verification  *verification.Service
	credentials   *credentials.Service
	pages         *pageRenderer
	webhooks      *webhooks.Service
	analytics     *analytics.Service
	signupEnabled bool
	links         links.Site
}

var _ api.StrictServerInterface = (*Server)(nil)

// New builds the HTTP handler of the service.
func New(opts Options) (*echo.Echo, error) {
	doc, err := spec.Load()
	if err != nil {
		return nil, err
	}
	if opts.Auth == nil || opts.Accounts == nil || opts.Events == nil || opts.Attendees == nil || opts.Templates == nil || opts.Certificates == nil || opts.Bulk == nil || opts.Verification == nil || opts.Badges == nil || opts.Webhooks == nil || opts.Credentials == nil || opts.Analytics == nil || opts.Idempotency == nil || opts.Limiter == nil || opts.Readiness == nil {
		return nil, errors.New("httpapi: Auth, Accounts, Events, Attendees, Templates, Certificates, Bulk, Verification, Badges, Webhooks, Credentials, Analytics, Idempotency, Limiter and Readiness are required")
	}
	ops, err := indexOperations(doc)
	if err != nil {
		return nil, err
	}
	pages, err := newPageRenderer()
	if err != nil {
		return nil, err
	}
	logger := opts.Logger
	e := echo.New()
	e.HideBanner, e.HidePort = true, true
	e.HTTPErrorHandler = pageErrors(httperr.Handler(logger), pages, logger)
	// Public verification takes a lighter path through the middleware (see public.go).
	public := publicRoutesOf(ops)
	validator := newRequestValidator(doc)
	names := routeNamesOf(ops)
	e.Use(countRequests(opts.Metrics, names), requestID, sandboxSVG,
		public.unless(accessLog(logger)), public.only(newAccessSummary(logger).middleware),
		recoverPanics, public.visitors,
		rateLimit(opts.Limiter, opts.TrustedProxies, logger),
		limitBody,
		public.unless(authenticate(ops, opts.Auth)),
		public.unless(checkJSONText(ops)),
		public.unless(validator.middleware), public.only(validator.explainRefusals),
		public.unless(idempotency(ops, opts.Idempotency, logger)),
		public.unless(conditionalGET(ops)),
		publicDocumentsCORS)

	e.GET("/openapi/v1.json", func(c echo.Context) error {
		return c.Blob(http.StatusOK, "application/json", openapi.Document)
	})
	e.GET("/docs", func(c echo.Context) error {
		h := c.Response().Header()
		h.Set("Content-Security-Policy", docs.ContentSecurityPolicy)
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("Cache-Control", "public, max-age=300")
		return c.Blob(http.StatusOK, "text/html; charset=utf-8", docs.Page)
	})
	e.GET("/healthz", func(c echo.Context) error {
		return c.JSON(http.StatusOK, map[string]string{"status": "ok"})
	})
	e.GET("/readyz", func(c echo.Context) error {
		if err := opts.Readiness.Ready(c.Request().Context()); err != nil {
			logger.WarnContext(c.Request().Context(), "not ready", "error", err)
			return c.JSON(http.StatusServiceUnavailable, map[string]string{"status": "unavailable"})
		}
		return c.JSON(http.StatusOK, map[string]string{"status": "ready"})
	})

	srv := &Server{logger: logger, auth: opts.Auth, accounts: opts.Accounts, events: opts.Events, attendees: opts.Attendees, templates: opts.Templates, certificates: opts.Certificates, bulk: opts.Bulk, verification: opts.Verification, badges: opts.Badges, webhooks: opts.Webhooks, credentials: opts.Credentials, analytics: opts.Analytics, pages: pages, signupEnabled: opts.SignupEnabled}
	srv.links = opts.Links
	fields, err := fieldLocationsOf(doc)
	if err != nil {
		return nil, err
	}
	strict := append([]api.StrictMiddlewareFunc{fields.middleware}, opts.StrictMiddlewares...)
	api.RegisterHandlersWithBaseURL(mountedRouter{Echo: e, mounts: mounts(doc)}, api.NewStrictHandler(srv, strict), apiPrefix)
	srv.registerSite(e)
	if err := names.cover(e.Routes()); err != nil {
		return nil, err
	}
	return e, nil
}

// mountedRouter registers the generated routes where the contract serves them: the generated
// code puts every operation under /api/v1, and the few whose path item names the site root as
// its server (the Open Badges documents) move there.
type mountedRouter struct {
	*echo.Echo
	mounts map[string]string // the route asked for -> the route served
}

// mounts maps each operation's route under /api/v1 to the route the contract serves it at.
func mounts(doc *openapi3.T) map[string]string {
	m := map[string]string{}
	for path, item := range doc.Paths.Map() {
		if at := spec.FullPath(path, item); at != apiPrefix+path {
			m[echoRoute(apiPrefix+path)] = echoRoute(at)
		}
	}
	return m
}

func (r mountedRouter) at(route string) string {
	if m, ok := r.mounts[route]; ok {
		return m
	}
	return route
}

func (r mountedRouter) GET(p string, h echo.HandlerFunc, m ...echo.MiddlewareFunc) *echo.Route {
	return r.Echo.GET(r.at(p), h, m...)
}

func (r mountedRouter) POST(p string, h echo.HandlerFunc, m ...echo.MiddlewareFunc) *echo.Route {
	return r.Echo.POST(r.at(p), h, m...)
}

func (r mountedRouter) PUT(p string, h echo.HandlerFunc, m ...echo.MiddlewareFunc) *echo.Route {
	return r.Echo.PUT(r.at(p), h, m...)
}

func (r mountedRouter) PATCH(p string, h echo.HandlerFunc, m ...echo.MiddlewareFunc) *echo.Route {
	return r.Echo.PATCH(r.at(p), h, m...)
}

func (r mountedRouter) DELETE(p string, h echo.HandlerFunc, m ...echo.MiddlewareFunc) *echo.Route {
	return r.Echo.DELETE(r.at(p), h, m...)
}
