package httpmw

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/labstack/echo/v4"
)

// The routes whose path holds a secret come from the contract, and a request's telemetry path
// leaves the secret out, whether the request matched such a route or, mistyped, none (which
// no test through the contract client can send): the route up to the secret stands for it.
func TestTelemetryPathLeavesTheSecretsOfThePathOut(t *testing.T) {
	t.Parallel()
	const token = "s3cr3t-0ffer-t0ken_9f8e7d6c5b4a39281706f5e4d3c2b1a0"
	cases := []struct{ path, route, want string }{
		{"/interactions/" + token, "/interactions/:offerToken", "/interactions/:offerToken"},
		{"/exchanges/" + token, "/exchanges/:offerToken", "/exchanges/:offerToken"},
		{"/issuers/0f6b/offers/" + token, "/issuers/:accountId/offers/:offerToken", "/issuers/:accountId/offers/:offerToken"},
		{"/interactions/" + token + "/more", "", "/interactions/:offerToken"},
		{"//Exchanges//" + token, "", "/exchanges/:offerToken"},
		{"/exchanges/" + token, "/exchanges/:offerToken", "/exchanges/:offerToken"}, // a GET: 405
		{"/issuers/0f6b/offers/" + token + "/x", "", "/issuers/:accountId/offers/:offerToken"},
		{"/issuers/0f6b/token", "/issuers/:accountId/token", "/issuers/0f6b/token"},
		{"/issuers/0f6b/did.json", "/issuers/:accountId/did.json", "/issuers/0f6b/did.json"},
		{"/api/v1/events/0f6b", "/api/v1/events/:id", "/api/v1/events/0f6b"},
		{"/interactions", "", "/interactions"},
		{"/verify/7K2M9QXRT4VZ", "/verify/:code", "/verify/7K2M9QXRT4VZ"},
	}
	e := echo.New()
	for _, c := range cases {
		ctx := e.NewContext(httptest.NewRequest(http.MethodGet, "http://credentiald.test"+c.path+"?t=x", nil), httptest.NewRecorder())
		ctx.SetPath(c.route)
		if got := telemetryPath(ctx); got != c.want {
			t.Errorf("the telemetry path of %s (route %q) is %q, want %q", c.path, c.route, got, c.want)
		}
	}
	for _, route := range []string{"/interactions/:offerToken", "/exchanges/:offerToken", "/issuers/:accountId/offers/:offerToken"} {
		if !secretRoutes().templates[route] {
			t.Errorf("the contract does not mark the path of %s as holding a secret: %v", route, secretRoutes().templates)
		}
	}
}
