package httpmw

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/netip"
	"slices"
	"strconv"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/labstack/echo/v4"

	"github.com/certhub/credentiald/internal/apperr"
	"github.com/certhub/credentiald/internal/auth"
	"github.com/certhub/credentiald/internal/domain"
	"github.com/certhub/credentiald/internal/ratelimit"
	"github.com/certhub/credentiald/internal/spec"
	"github.com/certhub/credentiald/internal/verification"
)

// operation is what the access checks need to know of one operation of the contract.
type operation struct {
	ID          string
	Public      bool     // security: []
	SessionOnly bool     // x-session-only
	Scopes      []string // x-required-scopes: any one suffices
	Role        string   // x-required-role: the least role of a member's session
	AuditAction string   // x-audit-action: the audit log entry it writes
	Idempotent  bool     // declares the Idempotency-Key header
	JSONBody    bool     // takes an application/json request body
}

// Operations indexes the contract's operations by method and Echo route, read from the
// document itself so that enforcement and documentation cannot drift apart.
type Operations map[string]operation

func routeKey(method, route string) string { return method + " " + route }

// EchoRoute turns /api/v1/events/{id} into /api/v1/events/:id, as Echo names the route.
func EchoRoute(path string) string {
	var b strings.Builder
	for _, seg := range strings.Split(strings.TrimPrefix(path, "/"), "/") {
		b.WriteByte('/')
		if name, ok := strings.CutPrefix(seg, "{"); ok {
			b.WriteString(":" + strings.TrimSuffix(name, "}"))
		} else {
			b.WriteString(seg)
		}
	}
	return b.String()
}

func IndexOperations(doc *openapi3.T) (Operations, error) {
	ops := Operations{}
	for path, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			o := operation{ID: op.OperationID}
			// Public: no credentials (security: []), or only a protocol's own (the OpenID4VCI
			// access token, which its handler checks): none of this service's bearer credentials.
			o.Public = op.Security != nil && !usesScheme(*op.Security, "bearerAuth")
			if v, ok := op.Extensions["x-session-only"].(bool); ok {
				o.SessionOnly = v
			}
			if raw, ok := op.Extensions["x-required-scopes"].([]any); ok {
				for _, s := range raw {
					o.Scopes = append(o.Scopes, fmt.Sprint(s))
				}
			}
			o.Role, _ = op.Extensions["x-required-role"].(string)
			o.AuditAction, _ = op.Extensions["x-audit-action"].(string)
			for _, p := range op.Parameters {
				if p.Value != nil && p.Value.In == "header" && p.Value.Name == headerIdempotencyKey {
					o.Idempotent = true
				}
			}
			if op.RequestBody != nil && op.RequestBody.Value != nil && op.RequestBody.Value.Content.Get(echo.MIMEApplicationJSON) != nil {
				o.JSONBody = true
			}
			if !o.Public && !o.SessionOnly && len(o.Scopes) == 0 {
				return nil, fmt.Errorf("operation %s needs credentials but declares neither x-required-scopes nor x-session-only", o.ID)
			}
			if !o.Public && !slices.Contains(auth.Roles, o.Role) {
				return nil, fmt.Errorf("operation %s needs credentials but its x-required-role %q is not a role", o.ID, o.Role)
			}
			ops[routeKey(method, EchoRoute(spec.FullPath(path, item)))] = o
		}
	}
	return ops, nil
}

// usesScheme reports whether any of the requirements names the security scheme.
func usesScheme(reqs openapi3.SecurityRequirements, scheme string) bool {
	for _, r := range reqs {
		if _, ok := r[scheme]; ok {
			return true
		}
	}
	return false
}

// Authenticator resolves a bearer credential to a principal.
type Authenticator interface {
	Authenticate(ctx context.Context, bearer string) (auth.Principal, error)
}

// unverifiedMayCall are the operations a session of an unverified address may call where
// verified ones are required: who it is, the verification, and signing out.
var unverifiedMayCall = map[string]bool{"getMe": true, "resendVerificationEmail": true, "logout": true}

// Authenticate checks the credentials of every operation that needs them, then what the
// operation asks of them: a session (of a verified address, with requireVerified), or an API
// key with one of its scopes; the role of a session's member. It records where every request
// comes from (auth.WithClient): a session it begins keeps it.
func Authenticate(ops Operations, authn Authenticator, trusted []netip.Prefix, requireVerified bool) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			req := c.Request()
			c.SetRequest(req.WithContext(auth.WithClient(req.Context(), domain.Client{
				IP: ratelimit.ClientAddr(req, trusted).String(), UserAgent: truncate(req.UserAgent(), maxUserAgent)})))
			op, ok := ops[routeKey(c.Request().Method, c.Path())]
			if !ok || op.Public {
				return next(c)
			}
			c.Response().Header().Set("WWW-Authenticate", `Bearer realm="credentiald"`)
			bearer, found := BearerToken(c.Request().Header.Get(echo.HeaderAuthorization))
			if !found {
				return apperr.New(apperr.InvalidAPIKey, "Send an API key or an access token as `Authorization: Bearer <token>`.")
			}
			ctx := c.Request().Context()
			p, err := authn.Authenticate(ctx, bearer)
			if err != nil {
				return err
			}
			c.Response().Header().Del("WWW-Authenticate")
			if op.SessionOnly && !p.IsSession() {
				return apperr.New(apperr.APIKeyNotAllowed, "This operation needs a signed-in session; API keys cannot use it.")
			}
			if !p.Allows(op.Scopes) {
				return &apperr.Error{Code: apperr.InsufficientScope, Required: op.Scopes[0],
					Message: "The API key lacks the scope " + strings.Join(op.Scopes, " or ") + "."}
			}
			if requireVerified && p.IsSession() && !p.EmailVerified && !unverifiedMayCall[op.ID] {
				return apperr.New(apperr.EmailNotVerified, "Verify your email address first: open the link we emailed you, or POST /api/v1/auth/email/resend for a new one.")
			}
			if !p.HasRole(op.Role) {
				return &apperr.Error{Code: apperr.InsufficientRole, Required: op.Role,
					Message: fmt.Sprintf("Your role (%s) may not do this: it needs the role %s or above. Ask an admin of the account.", p.Role, op.Role)}
			}
			c.SetRequest(c.Request().WithContext(auth.WithPrincipal(ctx, p)))
			return next(c)
		}
	}
}

// limitsFor names the limits a request counts against per client address: the global one,
// and its operation's own.
func limitsFor(method, route string) []ratelimit.Limit {
	limits := []ratelimit.Limit{ratelimit.Global}
	switch routeKey(method, route) {
	case routeKey(http.MethodPost, apiPrefix+"/auth/login"), routeKey(http.MethodPost, apiPrefix+"/auth/register"),
		// Each tries a secret: an invitation's, a reset link's, a verification link's token.
		routeKey(http.MethodPost, apiPrefix+"/auth/invitations/accept"), routeKey(http.MethodPost, apiPrefix+"/auth/password/reset"),
		routeKey(http.MethodPost, apiPrefix+"/auth/email/verify"),
		// Single sign-on: a start writes a flow and may call the provider; an exchange tries a
		// code, and a password while linking.
		routeKey(http.MethodGet, apiPrefix+"/auth/sso/start"), routeKey(http.MethodPost, apiPrefix+"/auth/sso/exchange"):
		limits = append(limits, ratelimit.SignIn)
	case routeKey(http.MethodPost, apiPrefix+"/auth/password/forgot"):
		limits = append(limits, ratelimit.SignIn, ratelimit.PasswordLinks)
	case routeKey(http.MethodGet, apiPrefix+"/verify/:code"), routeKey(http.MethodGet, "/verify/:code"),
		// Wallet delivery: each request tries a secret (an offer token, a code, an access
		// token), so they are limited like lookups of a verification code.
		routeKey(http.MethodGet, "/interactions/:offerToken"), routeKey(http.MethodPost, "/exchanges/:offerToken"),
		routeKey(http.MethodGet, "/issuers/:accountId/offers/:offerToken"), routeKey(http.MethodPost, "/issuers/:accountId/token"),
		routeKey(http.MethodPost, "/issuers/:accountId/nonce"), routeKey(http.MethodPost, "/issuers/:accountId/credential"):
		limits = append(limits, ratelimit.Verification)
	case routeKey(http.MethodGet, apiPrefix+"/certificates/:id/download"),
		routeKey(http.MethodGet, apiPrefix+"/verify/:code/certificate.pdf"):
		limits = append(limits, ratelimit.Download)
	}
	return limits
}

// RecipientTokens tells the rate limits whether a request's `t` is the recipient token of its
// verification code (verification.Service). The check comes before anything is counted, so it
// must be cheap: mayRead is asked before it reads the database.
type RecipientTokens interface {
	RecipientTokenValid(ctx context.Context, code, token string, mayRead func() bool) (bool, error)
}

// RateLimitOption adjusts RateLimit.
type RateLimitOption func(*rateLimits)

// WithRecipientTokens counts the requests of public verification by their credential or code
// (see bucketsFor), checking recipient tokens with tokens.
func WithRecipientTokens(tokens RecipientTokens) RateLimitOption {
	return func(r *rateLimits) { r.tokens = tokens }
}

type rateLimits struct {
	limiter ratelimit.Limiter
	tokens  RecipientTokens
	logger  *slog.Logger
}

// bucket is one bucket a request takes a token from: a limit, and whose bucket it is (a client
// address, a verification code).
type bucket struct {
	limit ratelimit.Limit
	key   string
}

// The routes of one verification code, by how their requests are counted.
type codeRoute int

const (
	notACodeRoute codeRoute = iota
	codeLookup              // the JSON lookup and the page: the address's verification bucket
	codeAsset               // the code's assets under /api/v1/verify/{code}/
	codeOther               // the page's share links
)

func codeRouteOf(method, route string) codeRoute {
	switch {
	case route == apiPrefix+"/verify/:code" || route == "/verify/:code":
		return codeLookup
	case strings.HasPrefix(route, apiPrefix+"/verify/:code/") && method == http.MethodGet:
		return codeAsset
	case strings.HasPrefix(route, "/verify/:code/"):
		return codeOther
	}
	return notACodeRoute
}

// bucketsFor names the buckets a request counts against. Its address's (limitsFor), but for
// public verification, where one address may be a whole venue:
//
//   - a request whose `t` is the recipient token of its code (the delivery email's link, and the
//     page's own assets, whose links carry it) counts against its credential's bucket
//     (ratelimit.Credential) instead of its address's (verification, global, download); the token
//     is checked first, and a `t` that is not the recipient's counts against the address, in
//     its verification bucket too, as any try at a secret does;
//   - an asset asked without a token counts against its code's bucket (ratelimit.CodeAssets)
//     beside the address's global one.
func (r rateLimits) bucketsFor(c echo.Context, client string) []bucket {
	req := c.Request()
	var out []bucket
	for _, l := range limitsFor(req.Method, c.Path()) {
		out = append(out, bucket{l, client})
	}
	kind, code := codeRouteOf(req.Method, c.Path()), c.Param("code")
	if kind == notACodeRoute || code == "" {
		return out
	}
	codeKey := code
	if n, ok := verification.NormalizeCode(code); ok {
		codeKey = n // the bucket of every spelling of the code
	}
	if token := c.QueryParam("t"); token != "" && r.tokens != nil {
		ctx := req.Context()
		valid, err := r.tokens.RecipientTokenValid(ctx, code, token, func() bool {
			res, err := r.limiter.Take(ctx, ratelimit.TokenLookups, client)
			return err != nil || res.Allowed // the limiter away lets requests through, and so the reads
		})
		if err != nil {
			r.logger.ErrorContext(ctx, "checking a recipient token for the rate limits failed; counted against the address", "error", err)
		}
		if valid {
			// The credential's bucket alone, the PDF included: at a venue every attendee
			// downloads their own, and the address's download bucket (5 a minute) would refuse
			// all but five of them; the credential's 30 a minute bound what one token may ask.
			return []bucket{{ratelimit.Credential, codeKey}}
		}
		if !slices.ContainsFunc(out, func(b bucket) bool { return b.limit.Name == ratelimit.Verification.Name }) {
			out = append(out, bucket{ratelimit.Verification, client})
		}
	}
	if kind == codeAsset {
		out = append(out, bucket{ratelimit.CodeAssets, codeKey})
	}
	return out
}

// RateLimit counts each request against its buckets (bucketsFor: per client address, and for
// public verification per credential or code), answers the most constrained one in
// RateLimit-* headers, and refuses with 429 and Retry-After when a bucket is empty. If the
// limiter itself fails (Redis away), requests pass and the failure is logged: an outage of the
// limiter does not become an outage of the API.
func RateLimit(limiter ratelimit.Limiter, trusted []netip.Prefix, logger *slog.Logger, opts ...RateLimitOption) echo.MiddlewareFunc {
	rl := rateLimits{limiter: limiter, logger: logger}
	for _, o := range opts {
		o(&rl)
	}
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			req := c.Request()
			client := ratelimit.ClientAddr(req, trusted).String()
			var shown, denied *ratelimit.Result
			for _, b := range rl.bucketsFor(c, client) {
				r, err := limiter.Take(req.Context(), b.limit, b.key)
				if err != nil {
					logger.ErrorContext(req.Context(), "rate limiter unavailable; request let through", "error", err)
					continue
				}
				if !r.Allowed && (denied == nil || r.RetryAfter > denied.RetryAfter) {
					denied = &r
				}
				if shown == nil || r.Remaining < shown.Remaining {
					shown = &r
				}
			}
			h := c.Response().Header()
			if denied != nil {
				shown = denied
				h.Set("Retry-After", strconv.Itoa(denied.RetryAfterSeconds()))
			}
			if shown != nil {
				h.Set("RateLimit-Limit", strconv.Itoa(shown.Limit.Burst))
				h.Set("RateLimit-Remaining", strconv.Itoa(shown.Remaining))
				reset := shown.ResetSeconds()
				if denied != nil {
					// Refused, what the client needs is when it may ask again: both headers
					// say the same, not one the next request and the other a full bucket.
					reset = denied.RetryAfterSeconds()
				}
				h.Set("RateLimit-Reset", strconv.Itoa(reset))
			}
			if denied != nil {
				return apperr.New(apperr.RateLimited, "Too many requests: wait %s (limit %q: %d per %s).",
					apperr.Count(denied.RetryAfterSeconds(), "second", "seconds"), denied.Limit.Name, denied.Limit.Burst,
					apperr.Count(int(denied.Limit.Period.Seconds()), "second", "seconds"))
			}
			return next(c)
		}
	}
}

// BearerToken is the token of an Authorization header "Bearer <token>" (RFC 6750), trimmed;
// false when the header is not one or the token is empty.
func BearerToken(header string) (string, bool) {
	t, ok := strings.CutPrefix(header, "Bearer ")
	t = strings.TrimSpace(t)
	return t, ok && t != ""
}
