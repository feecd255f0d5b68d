package httpapi_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/certhub/credentiald/internal/config"
	"github.com/certhub/credentiald/internal/ratelimit"
	"github.com/certhub/credentiald/internal/testkit"
	"github.com/certhub/credentiald/internal/testkit/contract"
)

func login(c *contract.Client, email string) *contract.Response {
	return c.Post("/api/v1/auth/login", map[string]string{"email": email, "password": "wrong password"})
}

func TestEveryAnswerCarriesRateLimitHeaders(t *testing.T) {
	t.Parallel()
	env := testkit.NewServer(t)
	acct := testkit.SignUp(t, env)
	for name, res := range map[string]*contract.Response{
		"200": acct.Client.Get("/api/v1/auth/me"),
		"401": env.Client.Get("/api/v1/auth/me"),
		"404": env.Client.Get("/api/v1/nothing"),
	} {
		limit, _ := strconv.Atoi(res.Header.Get("RateLimit-Limit"))
		remaining, err := strconv.Atoi(res.Header.Get("RateLimit-Remaining"))
		assert.Equal(t, 100, limit, "%s: RateLimit-Limit", name)
		assert.NoError(t, err, "%s: RateLimit-Remaining %q", name, res.Header.Get("RateLimit-Remaining"))
		assert.Less(t, remaining, 100, "%s: RateLimit-Remaining", name)
		assert.NotEmpty(t, res.Header.Get("RateLimit-Reset"), "%s: RateLimit-Reset", name)
	}
	// Login shows its own, more constrained limit.
	res := login(env.Client, acct.Email)
	if res.Header.Get("RateLimit-Limit") != "30" {
		t.Fatalf("login: RateLimit-Limit %q, want 30", res.Header.Get("RateLimit-Limit"))
	}
}

func TestLoginIsLimitedTo30AttemptsPer5Minutes(t *testing.T) {
	t.Parallel()
	clock := &testkit.Clock{}
	clock.Stop() // no token comes back while the test runs, however slow the machine
	env := testkit.NewServer(t, testkit.WithClock(clock.Now))
	acct := testkit.SignUp(t, env) // registering counts as a sign-in attempt too
	for i := 2; i <= 30; i++ {
		if res := login(env.Client, acct.Email); res.StatusCode != 401 {
			t.Fatalf("attempt %d: %d", i, res.StatusCode)
		}
	}
	res := login(env.Client, acct.Email)
	wantError(t, res, 429, res.StatusCode, "RATE_LIMITED")
	ra, err := strconv.Atoi(res.Header.Get("Retry-After"))
	require.NoError(t, err, "Retry-After %q", res.Header.Get("Retry-After"))
	require.GreaterOrEqual(t, ra, 1, "Retry-After")
	require.LessOrEqual(t, ra, 10, "Retry-After")
	if res.Header.Get("RateLimit-Remaining") != "0" {
		t.Fatalf("RateLimit-Remaining %q", res.Header.Get("RateLimit-Remaining"))
	}
	if res.Header.Get("RateLimit-Reset") != res.Header.Get("Retry-After") {
		t.Fatalf("RateLimit-Reset %q and Retry-After %q disagree", res.Header.Get("RateLimit-Reset"), res.Header.Get("Retry-After"))
	}
	// A made-up X-Forwarded-For from an untrusted peer changes nothing.
	req := env.Client.Request("POST", "/api/v1/auth/login", map[string]string{"email": acct.Email, "password": "x"})
	req.Header.Set("X-Forwarded-For", "198.51.100.77")
	if res := env.Client.Do(req); res.StatusCode != 429 {
		t.Fatalf("a spoofed address escaped the limit: %d", res.StatusCode)
	}
	// Other operations still work: only the global limit applies to them.
	if res := acct.Client.Get("/api/v1/auth/me"); res.StatusCode != 200 {
		t.Fatalf("me: %d", res.StatusCode)
	}
}

func TestTheGlobalLimitIs100PerMinutePerClient(t *testing.T) {
	t.Parallel()
	clock := &testkit.Clock{}
	clock.Stop() // one token comes back every 0.6 s of real time otherwise
	env := testkit.NewServer(t, testkit.WithClock(clock.Now), testkit.WithConfig(func(c *config.Config) {
		c.TrustedProxies = []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}
	}))
	from := func(addr string) *contract.Response {
		req := env.Client.Request("GET", "/api/v1/auth/me", nil)
		req.Header.Set("X-Forwarded-For", addr)
		return env.Client.Do(req)
	}
	for i := 1; i <= 100; i++ {
		if res := from("198.51.100.1"); res.StatusCode != 401 {
			t.Fatalf("request %d: %d", i, res.StatusCode)
		}
	}
	res := from("198.51.100.1")
	wantError(t, res, 429, res.StatusCode, "RATE_LIMITED")
	ra := res.Header.Get("Retry-After")
	require.NotEmpty(t, ra, "Retry-After")
	require.Equal(t, ra, res.Header.Get("RateLimit-Reset"), "RateLimit-Reset, want Retry-After")
	if res := from("198.51.100.2"); res.StatusCode != 401 {
		t.Fatalf("another client behind the trusted proxy: %d", res.StatusCode)
	}
	clock.Advance(600 * time.Millisecond) // 100 a minute: one request back every 0.6 s
	if res := from("198.51.100.1"); res.StatusCode != 401 {
		t.Fatalf("after the refill interval: %d", res.StatusCode)
	}
	if res := from("198.51.100.1"); res.StatusCode != 429 {
		t.Fatalf("two requests came back, not one: %d", res.StatusCode)
	}
}

// Two instances of the service with one Redis enforce one sign-in limit.
func TestInstancesShareTheLimitThroughRedis(t *testing.T) {
	t.Parallel()
	url := testkit.Redis(t)
	limiter := func() ratelimit.Limiter {
		r, err := ratelimit.NewRedis(context.Background(), url)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = r.Close() })
		return r
	}
	// Each server gets a trusted proxy and a client address of this test's own, since a
	// shared TEST_REDIS_URL may hold other tests' buckets.
	trust := testkit.WithConfig(func(c *config.Config) {
		c.TrustedProxies = []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}
	})
	a := testkit.NewServer(t, testkit.WithLimiter(limiter()), trust)
	b := testkit.NewServer(t, testkit.WithLimiter(limiter()), trust)
	client := fmt.Sprintf("2001:db8::%x:%x", rand.N(0x10000), rand.N(0x10000))
	// The attempts leave out the password: the limit counts them before validation answers 400,
	// and none waits for a password hash. (Thirty wrong passwords took 14 s under the race
	// detector, queued behind other tests' hashes, while the limit, on Redis's clock, gives an
	// attempt back every 10 s.)
	attempt := func(env *testkit.Env) *contract.Response {
		req := env.Client.Request("POST", "/api/v1/auth/login", map[string]string{"email": "x@example.org"})
		req.Header.Set("X-Forwarded-For", client)
		return env.Client.Do(req)
	}
	for i := range ratelimit.SignIn.Burst {
		env := a
		if i%2 == 1 {
			env = b
		}
		if res := attempt(env); res.StatusCode != 400 {
			t.Fatalf("attempt %d: %d %s", i+1, res.StatusCode, res.Body)
		}
	}
	res := attempt(a)
	wantError(t, res, 429, res.StatusCode, "RATE_LIMITED")
	res = attempt(b)
	wantError(t, res, 429, res.StatusCode, "RATE_LIMITED")
}

// The wallet endpoints try a secret with every request (an offer token, a code, an access
// token), so they count against the verification lookups' bucket: 30 a minute per client,
// shared among them, then 429.
func TestWalletEndpointsShareTheVerificationLimit(t *testing.T) {
	t.Parallel()
	clock := &testkit.Clock{}
	clock.Stop()
	env := testkit.NewServer(t, testkit.WithClock(clock.Now))
	acct := testkit.SignUp(t, env)
	token := strings.Repeat("A", 43)
	issuer := "/issuers/" + acct.ID.String()
	try := []func() *contract.Response{
		func() *contract.Response { return env.Client.Post("/exchanges/"+token, map[string]any{}) },
		func() *contract.Response { return env.Client.Get(issuer + "/offers/" + token) },
		func() *contract.Response { return env.Client.Post(issuer+"/nonce", nil) },
	}
	for i := 1; i <= ratelimit.Verification.Burst; i++ {
		if res := try[i%len(try)](); res.StatusCode == http.StatusTooManyRequests {
			t.Fatalf("request %d refused: %s", i, res.Body)
		}
	}
	for _, f := range try {
		res := f()
		wantError(t, res, http.StatusTooManyRequests, res.StatusCode, "RATE_LIMITED")
	}
	// The account's API is not held back by it.
	if res := acct.Client.Get("/api/v1/auth/me"); res.StatusCode != http.StatusOK {
		t.Fatalf("me: %d", res.StatusCode)
	}
}
