package httpapi_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"maps"
	"mime/multipart"
	"net/http"
	"net/netip"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/labstack/echo/v4"
	"github.com/stretchr/testify/require"

	"github.com/certhub/credentiald/gen/api"
	"github.com/certhub/credentiald/internal/config"
	"github.com/certhub/credentiald/internal/ratelimit"
	"github.com/certhub/credentiald/internal/spec"
	"github.com/certhub/credentiald/internal/testkit"
	"github.com/certhub/credentiald/internal/testkit/contract"
)

// The tests of this file walk the contract and provoke, in every operation that documents it,
// each answer that (nearly) every operation shares: 401 without a valid credential, 413 for a
// body over the limit, 429 once the client's global bucket is empty, 500 when the handler
// fails, and 400 for a UUID parameter that is not one. The operations come from the document,
// so a new one is covered as soon as it is documented; an operation that documents such an
// answer the test cannot provoke fails it, unless a skip list says why.

// contractOperation is one operation of the document, with where it is served.
type contractOperation struct {
	*openapi3.Operation
	Method string // GET, POST, ...
	Path   string // the full path template: /api/v1/events/{id}, /verify/{code}
}

func (o contractOperation) documents(status int) bool {
	return o.Responses.Value(strconv.Itoa(status)) != nil
}

// public reports whether the operation needs no credentials (security: []).
func (o contractOperation) public() bool { return o.Security != nil && len(*o.Security) == 0 }

// walletProtocol reports whether the operation takes an OpenID4VCI access token, the
// protocol's own bearer, which its handler checks and refuses in OAuth's words.
func (o contractOperation) walletProtocol() bool {
	if o.Security == nil {
		return false
	}
	for _, r := range *o.Security {
		if _, ok := r["walletAccessToken"]; ok {
			return true
		}
	}
	return false
}

func (o contractOperation) sessionOnly() bool {
	v, _ := o.Extensions["x-session-only"].(bool)
	return v
}

// request builds a request for the operation that passes the contract's request validation
// (see sampleRequest), at path: op.Path, or op.Path with a parameter the test substituted.
func (o contractOperation) request(t *testing.T, env *testkit.Env, path string) *http.Request {
	t.Helper()
	return sampleRequest(t, env, o.Method, path, o.Operation)
}

// contractOperations lists every operation of the document, by id.
func contractOperations() []contractOperation {
	var ops []contractOperation
	for path, item := range spec.MustLoad().Paths.Map() {
		for method, op := range item.Operations() {
			ops = append(ops, contractOperation{Operation: op, Method: method, Path: spec.FullPath(path, item)})
		}
	}
	slices.SortFunc(ops, func(a, b contractOperation) int { return strings.Compare(a.OperationID, b.OperationID) })
	return ops
}

// documenting selects the operations that document status.
func documenting(status int) func(contractOperation) bool {
	return func(o contractOperation) bool { return o.documents(status) }
}

// forEachOperation runs check, as a subtest named after the operation, for every operation
// selected picks. skip names the operations the test cannot exercise, with the reason: an
// entry that names no selected operation fails the test, so that the list does not outlive
// its reason, and so does a selection of none.
func forEachOperation(t *testing.T, selected func(contractOperation) bool, skip map[string]string, check func(*testing.T, contractOperation)) {
	t.Helper()
	picked := map[string]bool{}
	for _, op := range contractOperations() {
		if !selected(op) {
			continue
		}
		picked[op.OperationID] = true
		t.Run(op.OperationID, func(t *testing.T) {
			if reason, ok := skip[op.OperationID]; ok {
				t.Skip(reason)
			}
			check(t, op)
		})
	}
	if len(picked) == 0 {
		t.Fatal("no operation of the document was selected")
	}
	for id := range skip {
		if !picked[id] {
			t.Errorf("the skip list names %s, which is not among the operations this test exercises", id)
		}
	}
}

// trustLoopback makes the server believe the X-Forwarded-For of the test's client, so that
// each request can name the client address it counts against.
func trustLoopback() testkit.Option {
	return testkit.WithConfig(func(c *config.Config) {
		c.TrustedProxies = []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}
	})
}

var clientAddresses atomic.Uint32

// clientFor returns a validating client bound to t, sending bearer (nothing when empty), from a
// client address of its own (the server must trustLoopback): a walk over every operation
// sends more requests than the global limit lets one address send in a minute.
func clientFor(t *testing.T, env *testkit.Env, bearer string) *contract.Client {
	c := contract.NewClient(t, env.URL)
	if bearer != "" {
		c = c.WithBearer(bearer)
	}
	n := clientAddresses.Add(1)
	c.Header.Set("X-Forwarded-For", fmt.Sprintf("2001:db8::%x:%x", n>>16, n&0xffff))
	return c
}

// caller holds an account's credentials: its session, and an API key with every scope the
// contract requires.
type caller struct{ session, apiKey string }

func signUpWithEveryScope(t *testing.T, env *testkit.Env) caller {
	t.Helper()
	scopes := map[string]bool{}
	for _, op := range contractOperations() {
		raw, _ := op.Extensions["x-required-scopes"].([]any)
		for _, s := range raw {
			scopes[fmt.Sprint(s)] = true
		}
	}
	acct := testkit.SignUp(t, env)
	key, _ := acct.APIKey(t, slices.Sorted(maps.Keys(scopes))...)
	return caller{session: acct.AccessToken, apiKey: key}
}

// bearerFor is the credential op asks for: none, the session, or the API key.
func (c caller) bearerFor(op contractOperation) string {
	switch {
	case op.public():
		return ""
	case op.sessionOnly():
		return c.session
	default:
		return c.apiKey
	}
}

// wantRefusal fails t unless res has status and, when it is the JSON envelope (the site's
// pages answer in HTML), the error code.
func wantRefusal(t *testing.T, res *contract.Response, status int, code string) {
	t.Helper()
	if res.StatusCode != status {
		t.Fatalf("%d %.300s, want %d %s", res.StatusCode, bytes.TrimSpace(res.Body), status, code)
	}
	if !strings.HasPrefix(res.Header.Get("Content-Type"), echo.MIMEApplicationJSON) {
		return
	}
	if e := decodeError(t, res); e.Error.Code != code {
		t.Fatalf("%d %s (%s), want %s", res.StatusCode, e.Error.Code, e.Error.Message, code)
	}
}

// unauthorizedOnlyInState names the public operations whose 401 needs a state of an account
// that the example body cannot reach, each with the test that shows it.
var unauthorizedOnlyInState = map[string]string{
	"acceptInvitation":         "401 SSO_REQUIRED only into an account that enforces single sign-on: TestSingleSignOnEnforced",
	"exchangeSingleSignOnCode": "401 only for a wrong password while linking a live code: TestSingleSignOnThroughARealProvider",
}

func TestEveryOperationDocumenting401RefusesMissingAndMalformedCredentials(t *testing.T) {
	t.Parallel()
	env := testkit.NewServer(t, trustLoopback())
	forEachOperation(t, documenting(401), nil, func(t *testing.T, op contractOperation) {
		if op.walletProtocol() {
			// RFC 6750: an access token missing or unknown is invalid_token, in OAuth's error
			// object, with the challenge in WWW-Authenticate.
			for name, bearer := range map[string]string{"NoCredential": "", "UnknownToken": "not-a-token"} {
				res := clientFor(t, env, bearer).Do(op.request(t, env, op.Path))
				var e struct{ Error string }
				res.JSON(t, &e)
				require.Equal(t, http.StatusUnauthorized, res.StatusCode, "%s: status (body %s)", name, res.Body)
				require.Equal(t, "invalid_token", e.Error, "%s: e.Error", name)
				require.Contains(t, res.Header.Get("WWW-Authenticate"), `error="invalid_token"`, "%s: WWW-Authenticate", name)
			}
			return
		}
		if op.public() {
			if why, ok := unauthorizedOnlyInState[op.OperationID]; ok {
				t.Skip(why)
			}
			// The credential is in the body (a password, a refresh token), and the
			// document's example names none of this fresh database's.
			res := clientFor(t, env, "").Do(op.request(t, env, op.Path))
			if res.StatusCode != http.StatusUnauthorized {
				t.Fatalf("the example body: %d %.300s, want 401", res.StatusCode, bytes.TrimSpace(res.Body))
			}
			return
		}
		for name, bearer := range map[string]string{"NoCredential": "", "MalformedToken": "not-a-token"} {
			t.Run(name, func(t *testing.T) {
				res := clientFor(t, env, bearer).Do(op.request(t, env, op.Path))
				wantRefusal(t, res, http.StatusUnauthorized, "INVALID_API_KEY")
				if !strings.HasPrefix(res.Header.Get("WWW-Authenticate"), "Bearer ") {
					t.Fatalf("WWW-Authenticate %q", res.Header.Get("WWW-Authenticate"))
				}
			})
		}
	})
}

// The body limits of internal/httpapi's limitBody: a template's body may hold the largest
// background image in base64, and the CSV import's multipart form more.
const (
	jsonBodyLimit      = 1 << 20
	templateBodyLimit  = 4 << 20
	multipartBodyLimit = 10<<20 + 64<<10
)

// oversizeBody returns a body of op's media type just over its limit, and its Content-Type.
func oversizeBody(t *testing.T, op contractOperation) ([]byte, string) {
	t.Helper()
	content := op.RequestBody.Value.Content
	switch {
	case content.Get(echo.MIMEApplicationJSON) != nil:
		limit := jsonBodyLimit
		if op.OperationID == "createTemplate" || op.OperationID == "updateTemplate" {
			limit = templateBodyLimit
		}
		return []byte(`{"name":"` + strings.Repeat("a", limit) + `"}`), echo.MIMEApplicationJSON
	case content.Get(echo.MIMEMultipartForm) != nil:
		var buf bytes.Buffer
		w := multipart.NewWriter(&buf)
		f, err := w.CreateFormFile("file", "attendees.csv")
		if err != nil {
			t.Fatal(err)
		}
		row := "Ada,Lovelace,ada@example.org\n"
		_, _ = f.Write([]byte("firstName,lastName,email\n" + strings.Repeat(row, multipartBodyLimit/len(row)+1)))
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		return buf.Bytes(), w.FormDataContentType()
	}
	t.Fatalf("no oversize body for the media types of %s's request body", op.OperationID)
	return nil, ""
}

func TestEveryOperationDocumenting413RefusesABodyOverTheLimit(t *testing.T) {
	t.Parallel()
	env := testkit.NewServer(t, trustLoopback())
	who := signUpWithEveryScope(t, env)
	forEachOperation(t, documenting(413), nil, func(t *testing.T, op contractOperation) {
		if op.RequestBody == nil {
			t.Fatal("documents 413 but takes no request body")
		}
		body, contentType := oversizeBody(t, op)
		// A declared length over the limit is refused before anything reads the body; a body
		// of unknown length, once whoever reads it (the checks of the request, after the
		// credential's) reaches the limit.
		for name, length := range map[string]int64{"DeclaredLength": int64(len(body)), "UnknownLength": -1} {
			t.Run(name, func(t *testing.T) {
				req := op.request(t, env, op.Path)
				req.Header.Set("Content-Type", contentType)
				req.Body, req.ContentLength = io.NopCloser(bytes.NewReader(body)), length
				res := clientFor(t, env, who.bearerFor(op)).Do(req)
				wantRefusal(t, res, http.StatusRequestEntityTooLarge, "PAYLOAD_TOO_LARGE")
			})
		}
	})
}

func TestEveryOperationDocumenting429RefusesAClientOverTheGlobalLimit(t *testing.T) {
	t.Parallel()
	clock := &testkit.Clock{}
	clock.Stop() // no token comes back while the test runs, however slow the machine
	env := testkit.NewServer(t, testkit.WithClock(clock.Now), trustLoopback())
	const client = "198.51.100.29"
	from := func(c *contract.Client, req *http.Request) *contract.Response {
		req.Header.Set("X-Forwarded-For", client)
		return c.Do(req)
	}
	// Empty the client's global bucket; the limit counts before authentication, so a request
	// without credentials does.
	for i := 1; i <= ratelimit.Global.Burst; i++ {
		if res := from(env.Client, env.Client.Request(http.MethodGet, "/api/v1/auth/me", nil)); res.StatusCode != http.StatusUnauthorized {
			t.Fatalf("request %d: %d %s", i, res.StatusCode, res.Body)
		}
	}
	forEachOperation(t, documenting(429), nil, func(t *testing.T, op contractOperation) {
		res := from(contract.NewClient(t, env.URL), op.request(t, env, op.Path))
		wantRefusal(t, res, http.StatusTooManyRequests, "RATE_LIMITED")
		h := res.Header
		ra, err := strconv.Atoi(h.Get("Retry-After"))
		require.NoError(t, err, "Retry-After %q", h.Get("Retry-After"))
		require.GreaterOrEqual(t, ra, 1, "Retry-After")
		require.Equal(t, strconv.Itoa(ratelimit.Global.Burst), h.Get("RateLimit-Limit"), "RateLimit-Limit, want the global limit's")
		require.Equal(t, "0", h.Get("RateLimit-Remaining"), "RateLimit-Remaining")
		require.Equal(t, h.Get("Retry-After"), h.Get("RateLimit-Reset"), "RateLimit-Reset, want Retry-After: due when it may ask again")
	})
}

func TestEveryOperationDocumenting500AnswersInternalWhenItsHandlerFails(t *testing.T) {
	t.Parallel()
	var failing atomic.Bool // once the account exists: signing up runs operations too
	env := testkit.NewServer(t, trustLoopback(), testkit.WithStrictMiddleware(func(f api.StrictHandlerFunc, operationID string) api.StrictHandlerFunc {
		return func(ctx echo.Context, request any) (any, error) {
			if failing.Load() {
				return nil, errors.New("provoked failure of " + operationID)
			}
			return f(ctx, request)
		}
	}))
	who := signUpWithEveryScope(t, env)
	failing.Store(true)
	// The site's pages are Echo handlers of their own (site.go), outside the generated strict
	// handler that the middleware wraps.
	const outsideStrictHandler = "served by site.go, not by the strict handler, so no strict middleware can make it fail"
	skip := map[string]string{
		"getHomePage":          outsideStrictHandler,
		"getVerificationPage":  outsideStrictHandler,
		"recordCopiedLink":     outsideStrictHandler,
		"getWalletInteraction": outsideStrictHandler,
	}
	forEachOperation(t, documenting(500), skip, func(t *testing.T, op contractOperation) {
		res := clientFor(t, env, who.bearerFor(op)).Do(op.request(t, env, op.Path))
		wantRefusal(t, res, http.StatusInternalServerError, "INTERNAL")
		if strings.Contains(string(res.Body), "provoked failure") {
			t.Fatalf("the answer leaks the cause: %s", res.Body)
		}
	})
}

// uuidParameters lists op's path and query parameters that are UUIDs.
func uuidParameters(op contractOperation) []*openapi3.Parameter {
	var params []*openapi3.Parameter
	for _, p := range op.Parameters {
		if v := p.Value; (v.In == "path" || v.In == "query") && v.Schema.Value.Format == "uuid" {
			params = append(params, v)
		}
	}
	return params
}

func TestEveryUUIDParameterRefusesAMalformedOne(t *testing.T) {
	t.Parallel()
	env := testkit.NewServer(t, trustLoopback())
	who := signUpWithEveryScope(t, env)
	hasUUIDs := func(op contractOperation) bool { return len(uuidParameters(op)) > 0 }
	forEachOperation(t, hasUUIDs, nil, func(t *testing.T, op contractOperation) {
		for _, p := range uuidParameters(op) {
			field := p.In + "." + p.Name
			t.Run(field, func(t *testing.T) {
				path := strings.ReplaceAll(op.Path, "{"+p.Name+"}", "not-a-uuid")
				req := op.request(t, env, path)
				if p.In == "query" {
					q := req.URL.Query()
					q.Set(p.Name, "not-a-uuid")
					req.URL.RawQuery = q.Encode()
				}
				res := clientFor(t, env, who.bearerFor(op)).Do(req)
				wantRefusal(t, res, http.StatusBadRequest, "VALIDATION_ERROR")
				// The details show that the parameter is what was refused, not the sample, in the
				// same words whichever validator refused it (the public routes' included, which
				// explain the generated wrapper's refusal).
				details := decodeError(t, res).Error.Details
				named := false
				for _, d := range details {
					named = named || d.Field == field && d.Message == "must be a UUID"
				}
				if !named {
					t.Fatalf("details %+v do not say %s must be a UUID", details, field)
				}
			})
		}
	})
}

// Every operation that takes a verification code in its path and documents 400 refuses a code
// that breaks the code's pattern, naming the parameter in words (the public lookups check it
// themselves: they skip the request validator).
func TestEveryVerificationCodeParameterRefusesAMalformedOne(t *testing.T) {
	t.Parallel()
	env := testkit.NewServer(t, trustLoopback())
	takesCode := func(op contractOperation) bool {
		return op.documents(http.StatusBadRequest) && strings.Contains(op.Path, "{code}")
	}
	forEachOperation(t, takesCode, nil, func(t *testing.T, op contractOperation) {
		res := clientFor(t, env, "").Do(op.request(t, env, strings.ReplaceAll(op.Path, "{code}", "ab%20cd")))
		wantRefusal(t, res, http.StatusBadRequest, "VALIDATION_ERROR")
		named := false
		for _, d := range decodeError(t, res).Error.Details {
			named = named || d.Field == "path.code" && strings.Contains(d.Message, "letters, digits or hyphens")
		}
		if !named {
			t.Fatalf("%s does not name path.code in words", res.Body)
		}
	})
}
