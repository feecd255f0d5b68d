// Package httpapi is the HTTP edge: the handlers that implement the generated strict interface
// by calling the domain services, and the server that mounts them, the middleware
// (internal/httpmw) and the HTML site (internal/site), each part as an Echo group.
package httpapi

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"net/netip"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/labstack/echo/v4"
	"go.opentelemetry.io/otel/trace"

	"github.com/certhub/credentiald/gen/api"
	"github.com/certhub/credentiald/gen/docs"
	"github.com/certhub/credentiald/internal/accounts"
	"github.com/certhub/credentiald/internal/analytics"
	"github.com/certhub/credentiald/internal/attendees"
	"github.com/certhub/credentiald/internal/auditlog"
	"github.com/certhub/credentiald/internal/auth"
	"github.com/certhub/credentiald/internal/badges"
	"github.com/certhub/credentiald/internal/bulk"
	"github.com/certhub/credentiald/internal/certificates"
	"github.com/certhub/credentiald/internal/credentials"
	"github.com/certhub/credentiald/internal/events"
	"github.com/certhub/credentiald/internal/httperr"
	"github.com/certhub/credentiald/internal/httpmw"
	"github.com/certhub/credentiald/internal/links"
	"github.com/certhub/credentiald/internal/members"
	"github.com/certhub/credentiald/internal/metrics"
	"github.com/certhub/credentiald/internal/privacy"
	"github.com/certhub/credentiald/internal/ratelimit"
	"github.com/certhub/credentiald/internal/retention"
	"github.com/certhub/credentiald/internal/site"
	"github.com/certhub/credentiald/internal/spec"
	"github.com/certhub/credentiald/internal/sso"
	"github.com/certhub/credentiald/internal/templates"
	"github.com/certhub/credentiald/internal/verification"
	"github.com/certhub/credentiald/internal/wallet"
	"github.com/certhub/credentiald/internal/webapp"
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
	// Wallet runs wallet delivery: offers, the VC API exchange, OpenID4VCI.
	Wallet    *wallet.Service
	Analytics *analytics.Service
	// Members runs the account's members and invitations.
	Members *members.Service
	// SSO runs single sign-on.
	SSO *sso.Service
	// Retention keeps the accounts' retention.
	Retention *retention.Service
	// AuditLog reads the audit log, and AuditWriter writes the entries no transaction wrote
	// (store.Store).
	AuditLog *auditlog.Service
	// Privacy erases people at their request, and exports what is held about them.
	Privacy     *privacy.Service
	AuditWriter httpmw.AuditWriter
	// Idempotency remembers the answers of requests sent with an Idempotency-Key.
	Idempotency httpmw.IdempotencyKeys
	// Limiter counts requests per client address; TrustedProxies are the peers whose
	// X-Forwarded-For is believed.
	Limiter        ratelimit.Limiter
	TrustedProxies []netip.Prefix
	SignupEnabled  bool
	// RequireVerifiedEmail refuses the sessions of unverified addresses (REQUIRE_VERIFIED_EMAIL).
	RequireVerifiedEmail bool
	// StrictMiddlewares wrap every operation; tests use them to provoke failures.
	StrictMiddlewares []api.StrictMiddlewareFunc
	// Metrics, when set, records every request (METRICS_ADDR); nil: no metrics.
	Metrics *metrics.HTTP
	// Tracer, when set, makes a server span of every request (OTEL_EXPORTER_OTLP_ENDPOINT);
	// nil: no tracing.
	Tracer trace.Tracer
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
	wallet        *wallet.Service
	webhooks      *webhooks.Service
	analytics     *analytics.Service
	members       *members.Service
	sso           *sso.Service
	retention     *retention.Service
	auditLog      *auditlog.Service
	privacy       *privacy.Service
	signupEnabled bool
	links         links.Site
	cookies       sessionCookies
}

var _ api.StrictServerInterface = (*Server)(nil)

// New builds the HTTP handler of the service.
func New(opts Options) (*echo.Echo, error) {
	doc, err := spec.Load()
	if err != nil {
		return nil, err
	}
	if opts.Auth == nil || opts.Accounts == nil || opts.Events == nil || opts.Attendees == nil || opts.Templates == nil || opts.Certificates == nil || opts.Bulk == nil || opts.Verification == nil || opts.Badges == nil || opts.Webhooks == nil || opts.Credentials == nil || opts.Wallet == nil || opts.Analytics == nil || opts.Members == nil || opts.SSO == nil || opts.Retention == nil || opts.AuditLog == nil || opts.Privacy == nil || opts.AuditWriter == nil || opts.Idempotency == nil || opts.Limiter == nil || opts.Readiness == nil {
		return nil, errors.New("httpapi: Auth, Accounts, Events, Attendees, Templates, Certificates, Bulk, Verification, Badges, Webhooks, Credentials, Wallet, Analytics, Members, SSO, Retention, AuditLog, Privacy, AuditWriter, Idempotency, Limiter and Readiness are required")
	}
	ops, err := httpmw.IndexOperations(doc)
	if err != nil {
		return nil, err
	}
	logger := opts.Logger
	pages, err := site.New(opts.Verification, opts.Wallet, opts.Links, logger)
	if err != nil {
		return nil, err
	}
	e := echo.New()
	e.HideBanner, e.HidePort = true, true
	e.HTTPErrorHandler = pages.Errors(httperr.Handler(logger))

	// The parts of the service, each with the middleware its routes run (parts.go), in order.
	// Public verification takes a lighter path than the account API (see httpmw/visitors.go):
	// no authentication, request validator or idempotency, and a summarised access log.
	validator := httpmw.NewRequestValidator(doc)
	access, summary := httpmw.AccessLog(logger), httpmw.NewAccessSummary(logger).Middleware
	limit := httpmw.RateLimit(opts.Limiter, opts.TrustedProxies, logger, httpmw.WithRecipientTokens(opts.Verification))
	ps := newParts(e)
	ps.add(apiPrefix, true, access, httpmw.RecoverPanics, limit, httpmw.LimitBody,
		httpmw.Authenticate(ops, opts.Auth, opts.TrustedProxies, opts.RequireVerifiedEmail), httpmw.CheckJSONText(ops), validator.Middleware,
		httpmw.Idempotency(ops, opts.Idempotency, logger), httpmw.Audit(ops, opts.AuditWriter, opts.TrustedProxies, logger),
		httpmw.ConditionalGET(ops))
	ps.add(apiPrefix+"/verify", true, summary, httpmw.RecoverPanics, httpmw.Visitors, httpmw.AllowAnyOrigin,
		limit, httpmw.LimitBody, validator.ExplainRefusals)
	// The Open Badges documents and the issuers' (did:web resolves there) at the site root;
	// their CORS comes last, as it always did: a refusal before it (429, 413) goes without.
	for _, prefix := range []string{"/ob", "/issuers"} {
		ps.add(prefix, true, summary, httpmw.RecoverPanics, httpmw.Visitors, limit, httpmw.LimitBody,
			validator.ExplainRefusals, httpmw.AllowAnyOrigin, httpmw.ReadableForm)
	}
	// Wallet delivery at the site root: the interaction page and the VC API exchange, and the
	// OpenID4VCI discovery documents (the issuers' own endpoints are under /issuers above).
	interactions := ps.add("/interactions", true, summary, httpmw.RecoverPanics, httpmw.Visitors, limit, httpmw.LimitBody)
	for _, prefix := range []string{"/exchanges", "/.well-known"} {
		ps.add(prefix, true, summary, httpmw.RecoverPanics, httpmw.Visitors, limit, httpmw.LimitBody,
			validator.ExplainRefusals, httpmw.AllowAnyOrigin)
	}
	home := ps.add("", false, summary, httpmw.RecoverPanics, httpmw.Visitors, httpmw.LimitBody)
	lookups := ps.add("/verify", true, summary, httpmw.RecoverPanics, httpmw.Visitors, limit, httpmw.LimitBody)
	infrastructure := ps.add("", false, access, httpmw.RecoverPanics, httpmw.LimitBody)
	ps.rest = infrastructure
	names := httpmw.RouteNamesOf(ops, infrastructureRoutes)
	e.Use(httpmw.Observe(opts.Metrics, opts.Tracer, names), httpmw.RequestID, httpmw.SandboxSVG, ps.unmatched)

	infrastructure.Add(http.MethodGet, "/openapi/v1.json", func(c echo.Context) error {
		return c.Blob(http.StatusOK, "application/json", openapi.Document)
	})
	infrastructure.Add(http.MethodGet, "/docs", func(c echo.Context) error {
		h := c.Response().Header()
		h.Set("Content-Security-Policy", docs.ContentSecurityPolicy)
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("Cache-Control", "public, max-age=300")
		return c.Blob(http.StatusOK, "text/html; charset=utf-8", docs.Page)
	})
	app, err := webapp.Open()
	if err != nil {
		return nil, err
	}
	registerApp(infrastructure, app)
	infrastructure.Add(http.MethodGet, "/healthz", func(c echo.Context) error {
		return c.JSON(http.StatusOK, map[string]string{"status": "ok"})
	})
	infrastructure.Add(http.MethodGet, "/readyz", func(c echo.Context) error {
		if err := opts.Readiness.Ready(c.Request().Context()); err != nil {
			logger.WarnContext(c.Request().Context(), "not ready", "error", err)
			return c.JSON(http.StatusServiceUnavailable, map[string]string{"status": "unavailable"})
		}
		return c.JSON(http.StatusOK, map[string]string{"status": "ready"})
	})

	srv := &Server{logger: logger, auth: opts.Auth, accounts: opts.Accounts, events: opts.Events, attendees: opts.Attendees, templates: opts.Templates, certificates: opts.Certificates, bulk: opts.Bulk, verification: opts.Verification, badges: opts.Badges, webhooks: opts.Webhooks, credentials: opts.Credentials, analytics: opts.Analytics, wallet: opts.Wallet, members: opts.Members, sso: opts.SSO, retention: opts.Retention, auditLog: opts.AuditLog, privacy: opts.Privacy, signupEnabled: opts.SignupEnabled}
	srv.links = opts.Links
	srv.cookies = newSessionCookies(opts.Links.Root())
	fields, err := httpmw.FieldLocationsOf(doc)
	if err != nil {
		return nil, err
	}
	strict := append([]api.StrictMiddlewareFunc{fields.Middleware, walletTransport, cookieTransport}, opts.StrictMiddlewares...)
	api.RegisterHandlersWithBaseURL(mountedRouter{parts: ps, mounts: mounts(doc)}, api.NewStrictHandler(srv, strict), apiPrefix)
	pages.Register(home, lookups, infrastructure)
	pages.RegisterWallet(interactions)
	if err := names.Cover(e.Routes()); err != nil {
		return nil, err
	}
	return e, nil
}

// mountedRouter registers the generated routes where the contract serves them, each in its
// part of the service: the generated code puts every operation under /api/v1, and the few
// whose path item names the site root as its server (the Open Badges and issuers' documents)
// move there.
type mountedRouter struct {
	parts  *parts
	mounts map[string]string // the route asked for -> the route served
}

// mounts maps each operation's route under /api/v1 to the route the contract serves it at.
func mounts(doc *openapi3.T) map[string]string {
	m := map[string]string{}
	for path, item := range doc.Paths.Map() {
		if at := spec.FullPath(path, item); at != apiPrefix+path {
			m[httpmw.EchoRoute(apiPrefix+path)] = httpmw.EchoRoute(at)
		}
	}
	return m
}

func (r mountedRouter) add(method, route string, h echo.HandlerFunc, m []echo.MiddlewareFunc) *echo.Route {
	if at, ok := r.mounts[route]; ok {
		route = at
	}
	return r.parts.under(route).Add(method, route, h, m...)
}

func (r mountedRouter) CONNECT(p string, h echo.HandlerFunc, m ...echo.MiddlewareFunc) *echo.Route {
	return r.add(http.MethodConnect, p, h, m)
}

func (r mountedRouter) DELETE(p string, h echo.HandlerFunc, m ...echo.MiddlewareFunc) *echo.Route {
	return r.add(http.MethodDelete, p, h, m)
}

func (r mountedRouter) GET(p string, h echo.HandlerFunc, m ...echo.MiddlewareFunc) *echo.Route {
	return r.add(http.MethodGet, p, h, m)
}

func (r mountedRouter) HEAD(p string, h echo.HandlerFunc, m ...echo.MiddlewareFunc) *echo.Route {
	return r.add(http.MethodHead, p, h, m)
}

func (r mountedRouter) OPTIONS(p string, h echo.HandlerFunc, m ...echo.MiddlewareFunc) *echo.Route {
	return r.add(http.MethodOptions, p, h, m)
}

func (r mountedRouter) PATCH(p string, h echo.HandlerFunc, m ...echo.MiddlewareFunc) *echo.Route {
	return r.add(http.MethodPatch, p, h, m)
}

func (r mountedRouter) POST(p string, h echo.HandlerFunc, m ...echo.MiddlewareFunc) *echo.Route {
	return r.add(http.MethodPost, p, h, m)
}

func (r mountedRouter) PUT(p string, h echo.HandlerFunc, m ...echo.MiddlewareFunc) *echo.Route {
	return r.add(http.MethodPut, p, h, m)
}

func (r mountedRouter) TRACE(p string, h echo.HandlerFunc, m ...echo.MiddlewareFunc) *echo.Route {
	return r.add(http.MethodTrace, p, h, m)
}

// infrastructureRoutes name, for the metrics, the routes outside the contract.
var infrastructureRoutes = map[string]string{
	"GET /openapi/v1.json": "openapi_document",
	"GET /docs":            "docs_page",
	"GET /healthz":         "healthz",
	"GET /readyz":          "readyz",
	"GET /favicon.svg":     "favicon_svg", // the site's icons (internal/site)
	"GET /favicon.ico":     "favicon_ico",
	"GET /assets/:file":    "site_assets",  // the pages' style sheet
	"GET /app":             "app_redirect", // the issuer's application (internal/webapp)
	"GET /app/":            "app_page",
	"GET /app/*":           "app_files",
	"HEAD /app":            "app_redirect",
	"HEAD /app/":           "app_page",
	"HEAD /app/*":          "app_files",
}
