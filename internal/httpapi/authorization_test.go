package httpapi_test

import (
	"fmt"
	"net/netip"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/certhub/credentiald/internal/auth"
	"github.com/certhub/credentiald/internal/config"
	"github.com/certhub/credentiald/internal/spec"
	"github.com/certhub/credentiald/internal/testkit"
	"github.com/certhub/credentiald/internal/testkit/contract"
)

// Every operation of the document, with the credentials it does not accept: a key without the
// operation's scope gets 403 INSUFFICIENT_SCOPE naming it, a key on a session-only operation
// gets 403 API_KEY_NOT_ALLOWED, and neither changes anything. A key with the scope gets through.
func TestEveryOperationEnforcesItsDocumentedCredentials(t *testing.T) {
	t.Parallel()
	// Many requests from one test: each operation comes from its own address through a trusted
	// proxy, so that the global rate limit does not interfere.
	env := testkit.NewServer(t, testkit.WithConfig(func(c *config.Config) {
		c.TrustedProxies = []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")}
	}))
	acct := testkit.SignUp(t, env)
	keyWith := map[string]*contract.Client{}
	for _, sc := range auth.Scopes {
		_, keyWith[sc] = acct.APIKey(t, sc)
	}
	_, allScopes := acct.APIKey(t, auth.Scopes...)

	doc := spec.MustLoad()
	checked := 0
	n := 0
	for path, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			n++
			addr := fmt.Sprintf("198.51.100.%d", n)
			send := func(c *contract.Client) *contract.Response {
				req := sampleRequest(t, env, method, spec.FullPath(path, item), op)
				req.Header.Set("X-Forwarded-For", addr)
				return c.Do(req)
			}
			var scopes []string
			if raw, ok := op.Extensions["x-required-scopes"].([]any); ok {
				for _, s := range raw {
					scopes = append(scopes, s.(string))
				}
			}
			sessionOnly, _ := op.Extensions["x-session-only"].(bool)
			t.Run(op.OperationID, func(t *testing.T) {
				before := testkit.Fingerprint(t, env)
				switch {
				case sessionOnly:
					res := send(allScopes)
					wantError(t, res, 403, res.StatusCode, "API_KEY_NOT_ALLOWED")
				case len(scopes) > 0:
					other := auth.Scopes[0]
					for _, sc := range auth.Scopes {
						if !slices.Contains(scopes, sc) {
							other = sc
							break
						}
					}
					res := send(keyWith[other])
					wantError(t, res, 403, res.StatusCode, "INSUFFICIENT_SCOPE")
					if want := `"required":"` + scopes[0] + `"`; !strings.Contains(string(res.Body), want) {
						t.Fatalf("the answer does not name %s: %s", want, res.Body)
					}
				default:
					// Login and refresh may answer 401 for what they check; only the
					// credential check asks for this service's bearer (WWW-Authenticate with
					// its realm). The OpenID4VCI credential endpoint asks for its own access
					// token (error="invalid_token", RFC 6750), which is not a credential here.
					if res := send(env.Client); strings.Contains(res.Header.Get("WWW-Authenticate"), "realm=") {
						t.Fatalf("a public operation asked for credentials: %s", res.Body)
					}
					return
				}
				if after := testkit.Fingerprint(t, env); after != before {
					t.Fatal("a refused request changed the database")
				}
				checked++
				if len(scopes) > 0 {
					res := send(keyWith[scopes[0]])
					require.NotEqual(t, 401, res.StatusCode, "a key with %s was refused: status (body %s)", scopes[0], res.Body)
					require.NotEqual(t, 403, res.StatusCode, "a key with %s was refused: status (body %s)", scopes[0], res.Body)
				}
			})
		}
	}
	if checked < 60 {
		t.Fatalf("only %d operations need credentials; the document lost its security", checked)
	}
}
