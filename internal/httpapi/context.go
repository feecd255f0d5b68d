package httpapi

import (
	"context"

	"github.com/certhub/credentiald/internal/auth"
	"github.com/certhub/credentiald/internal/httpmw"
	"github.com/certhub/credentiald/internal/verification"
)

// What the handlers read from the request's context, which the middleware (internal/httpmw)
// put there.

// principal returns the caller of an operation that needs credentials; the authenticate
// middleware guarantees one.
func principal(ctx context.Context) auth.Principal {
	p, ok := auth.PrincipalFrom(ctx)
	if !ok {
		panic("operation reached without a principal: is it public in the contract?")
	}
	return p
}

// visitorFrom is who asks for a public verification resource.
func visitorFrom(ctx context.Context) verification.Visitor { return httpmw.Visitor(ctx) }

// prefers reports whether the request's Accept header ranks media type a above b.
func prefers(ctx context.Context, a, b string) bool { return httpmw.Prefers(ctx, a, b) }

// svgPolicy is the Content-Security-Policy the middleware sends with every SVG.
const svgPolicy = httpmw.SVGPolicy
