package httpmw

import (
	"context"

	"github.com/labstack/echo/v4"

	"github.com/certhub/credentiald/internal/verification"
)

// Public verification is the hottest path of the service and needs none of what protects the
// account API: no credentials, no body, and a handful of inputs (the code's shape, a format,
// a token's length) that the handlers check themselves. So its routes are mounted without
// authentication, the contract's request validator and idempotency, and their access log is a
// summary (publiclog.go); they keep the request id, panic recovery and the rate limits. A
// parameter the generated wrapper cannot bind (a malformed UUID) is explained by the validator
// after all (RequestValidator.ExplainRefusals), so the 400 names it like every other.

type visitorKey struct{}

// Visitors puts who is asking into the context of public verification requests: the counting
// of views needs the User-Agent, which the strict request objects do not carry.
func Visitors(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		req := c.Request()
		v := verification.Visitor{UserAgent: req.UserAgent()}
		c.SetRequest(req.WithContext(context.WithValue(req.Context(), visitorKey{}, v)))
		return next(c)
	}
}

// Visitor is who asks, as Visitors found it.
func Visitor(ctx context.Context) verification.Visitor {
	v, _ := ctx.Value(visitorKey{}).(verification.Visitor)
	return v
}

// AllowAnyOrigin answers CORS `*`: the public verification API, the Open Badges documents and
// the issuers' DID documents, JWK Sets and status lists are read by verifiers that run in
// browsers too. Mounted before the rate limit, it is on the errors of its routes as well.
func AllowAnyOrigin(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		c.Response().Header().Set("Access-Control-Allow-Origin", "*")
		return next(c)
	}
}
