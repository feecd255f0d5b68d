package httpapi

import (
	"slices"
	"strings"

	"github.com/labstack/echo/v4"
)

// The service is served in parts, each an Echo group whose routes run the middleware that part
// needs: the account API, public verification, the public documents (Open Badges, issuers),
// the HTML site and the infrastructure (/docs, /healthz, ...). See New for what each runs.
//
// A part's middleware is given to each of its routes, not to its group: Echo (v4.16) answers a
// group's middleware by adding catch-all routes under its prefix, which answer 404 where the
// path exists with other methods (PATCH /api/v1/events must answer 405). A request that
// matches no route gets only the global middleware, so parts.unmatched gives it the chain of
// the part it was meant for: its rate limits, its log, the API's envelope.

// part is one part of the service.
type part struct {
	parts  *parts
	prefix string // its routes' common prefix ("" for the parts at the site root)
	group  *echo.Group
	chain  []echo.MiddlewareFunc
}

// Add adds the route at path, a full path under the part's prefix, with the part's middleware
// before m.
func (p *part) Add(method, path string, h echo.HandlerFunc, m ...echo.MiddlewareFunc) *echo.Route {
	r := p.group.Add(method, strings.TrimPrefix(path, p.prefix), h, append(slices.Clone(p.chain), m...)...)
	p.parts.routes[method+" "+r.Path] = true
	p.parts.byPath[r.Path] = p
	return r
}

// parts are the parts of the service, and what a request that matches no route needs.
type parts struct {
	e        *echo.Echo
	routes   map[string]bool  // "GET /api/v1/events": the routes added, by method and Echo route
	byPath   map[string]*part // each route's part, by Echo route
	prefixed []*part          // the parts that own every path under their prefix, longest first
	rest     *part            // the part of any other path
}

func newParts(e *echo.Echo) *parts {
	return &parts{e: e, routes: map[string]bool{}, byPath: map[string]*part{}}
}

// add makes a part serving the routes under prefix with chain. A part that owns its prefix
// also serves the requests under it that match no route.
func (ps *parts) add(prefix string, owns bool, chain ...echo.MiddlewareFunc) *part {
	p := &part{parts: ps, prefix: prefix, group: ps.e.Group(prefix), chain: chain} // no middleware: no catch-alls
	if owns {
		ps.prefixed = append(ps.prefixed, p)
		slices.SortStableFunc(ps.prefixed, func(a, b *part) int { return len(b.prefix) - len(a.prefix) })
	}
	return p
}

// under is the part that owns path: the one with the longest prefix it is under, or rest.
// This is the one test by path prefix left: it places the generated routes, which come
// through one router, and the requests that match no route.
func (ps *parts) under(path string) *part {
	for _, p := range ps.prefixed {
		if strings.HasPrefix(path, p.prefix+"/") {
			return p
		}
	}
	return ps.rest
}

// unmatched runs a request that matches no route through its part's middleware: the part of
// its path when Echo found the path with other methods (405), else the part that owns the
// prefix it is under (404). Matched requests pass: their route runs its part's middleware.
func (ps *parts) unmatched(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		if ps.routes[c.Request().Method+" "+c.Path()] {
			return next(c)
		}
		p := ps.byPath[c.Path()]
		if p == nil {
			p = ps.under(c.Request().URL.Path)
		}
		h := next
		for i := len(p.chain) - 1; i >= 0; i-- {
			h = p.chain[i](h)
		}
		return h(c)
	}
}
