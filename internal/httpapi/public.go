package httpapi

import (
	"context"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/certhub/credentiald/internal/verification"
)

// Public verification is the hottest path of the service and needs none of what protects the
// account API: no credentials, no body, and a handful of inputs (the code's shape, a format,
// a token's length) that the handlers check themselves. So its routes skip authentication,
// the contract's request validator and idempotency, and their access log is a summary
// (publiclog.go); they keep the request id, panic recovery and the rate limits. A parameter
// the generated wrapper cannot bind (a malformed UUID) is explained by the validator after
// all (requestValidator.explainRefusals), so the 400 names it like every other.

// publicRoutes are the Echo routes of the public operations: those of the document that need
// no credentials and live under /api/v1/verify or outside /api/v1 (the site's pages, the Open
// Badges documents, the issuers' DID documents, JWK Sets and status lists).
type publicRoutes map[string]bool

func publicRoutesOf(ops operations) publicRoutes {
	routes := publicRoutes{}
	for key, op := range ops {
		_, route, _ := strings.Cut(key, " ")
		if op.Public && (strings.HasPrefix(route, apiPrefix+"/verify/") || !strings.HasPrefix(route, apiPrefix+"/")) {
			routes[route] = true
		}
	}
	return routes
}

// unless runs mw for every request except those on the public verification routes.
func (p publicRoutes) unless(mw echo.MiddlewareFunc) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		full := mw(next)
		return func(c echo.Context) error {
			if p[c.Path()] {
				return next(c)
			}
			return full(c)
		}
	}
}

type visitorKey struct{}

// visitors puts who is asking into the context of public verification requests (the counting
// of views needs the User-Agent, which the strict request objects do not carry), and answers
// CORS `*` on the API's verification routes, errors included.
func (p publicRoutes) visitors(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		route := c.Path()
		if !p[route] {
			return next(c)
		}
		if strings.HasPrefix(route, apiPrefix+"/") {
			c.Response().Header().Set("Access-Control-Allow-Origin", "*")
		}
		req := c.Request()
		v := verification.Visitor{UserAgent: req.UserAgent()}
		c.SetRequest(req.WithContext(context.WithValue(req.Context(), visitorKey{}, v)))
		return next(c)
	}
}

func visitorFrom(ctx context.Context) verification.Visitor {
	v, _ := ctx.Value(visitorKey{}).(verification.Visitor)
	return v
}

// only runs mw for the public verification routes, and nothing else for them.
func (p publicRoutes) only(mw echo.MiddlewareFunc) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		wrapped := mw(next)
		return func(c echo.Context) error {
			if p[c.Path()] {
				return wrapped(c)
			}
			return next(c)
		}
	}
}
