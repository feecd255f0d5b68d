package httpapi_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/certhub/credentiald/internal/testkit"
)

type createdKey struct {
	Data struct {
		ID         string     `json:"id"`
		Key        string     `json:"key"`
		Prefix     string     `json:"prefix"`
		Scopes     []string   `json:"scopes"`
		ExpiresAt  *time.Time `json:"expiresAt"`
		LastUsedAt *time.Time `json:"lastUsedAt"`
	} `json:"data"`
}

func TestAPIKeyLifecycle(t *testing.T) {
	t.Parallel()
	env := testkit.NewServer(t)
	acct := testkit.SignUp(t, env)

	res := acct.Client.Post("/api/v1/api-keys", map[string]any{"name": "CRM sync", "scopes": []string{"events:read", "attendees:write"}, "expiresInDays": 90})
	var k createdKey
	res.JSON(t, &k)
	require.Equal(t, 200, res.StatusCode, "create: status (body %s)", res.Body)
	require.Regexp(t, regexp.MustCompile(`^cis_live_[A-Za-z0-9_-]{43}$`), k.Data.Key, "create: k.Data.Key")
	require.Equal(t, k.Data.Key[:12], k.Data.Prefix, "create: k.Data.Prefix")
	require.NotNil(t, k.Data.ExpiresAt, "expiresAt")
	require.GreaterOrEqual(t, time.Until(*k.Data.ExpiresAt), 89*24*time.Hour, "expiresAt %v is not 90 days ahead", k.Data.ExpiresAt)
	require.LessOrEqual(t, time.Until(*k.Data.ExpiresAt), 90*24*time.Hour, "expiresAt %v is not 90 days ahead", k.Data.ExpiresAt)

	key := env.Client.WithBearer(k.Data.Key)
	res = key.Get("/api/v1/events")
	require.NotEqual(t, 401, res.StatusCode, "a key with events:read on GET /events: status (body %s)", res.Body)
	require.NotEqual(t, 403, res.StatusCode, "a key with events:read on GET /events: status (body %s)", res.Body)
	res = key.Get("/api/v1/templates")
	if e := wantError(t, res, 403, res.StatusCode, "INSUFFICIENT_SCOPE"); !strings.Contains(string(res.Body), `"required":"templates:read"`) {
		t.Fatalf("no required scope: %+v %s", e, res.Body)
	}
	res = key.Get("/api/v1/auth/me")
	wantError(t, res, 403, res.StatusCode, "API_KEY_NOT_ALLOWED")
	res = key.Post("/api/v1/api-keys", map[string]any{"name": "escalate", "scopes": []string{"webhooks:manage"}})
	wantError(t, res, 403, res.StatusCode, "API_KEY_NOT_ALLOWED")

	res = acct.Client.Get("/api/v1/api-keys")
	var list struct {
		Data []map[string]any `json:"data"`
	}
	res.JSON(t, &list)
	require.Len(t, list.Data, 1, "list: list.Data")
	require.Equal(t, k.Data.ID, list.Data[0]["id"], `list: list.Data[0]["id"]`)
	require.NotNil(t, list.Data[0]["lastUsedAt"], `list: list.Data[0]["lastUsedAt"]`)
	if strings.Contains(string(res.Body), k.Data.Key) {
		t.Fatal("the list shows the key")
	}

	if res := acct.Client.Delete("/api/v1/api-keys/" + k.Data.ID); res.StatusCode != 204 {
		t.Fatalf("delete: %d %s", res.StatusCode, res.Body)
	}
	res = key.Get("/api/v1/events")
	wantError(t, res, 401, res.StatusCode, "INVALID_API_KEY")
	res = acct.Client.Delete("/api/v1/api-keys/" + k.Data.ID)
	wantError(t, res, 404, res.StatusCode, "NOT_FOUND")
	if res := acct.Client.Get("/api/v1/api-keys"); string(res.Body) != `{"data":[]}`+"\n" {
		t.Fatalf("list after delete: %s", res.Body)
	}
}

func TestAnExpiredKeyAnswers401AndIsNotListed(t *testing.T) {
	t.Parallel()
	clock := &testkit.Clock{}
	env := testkit.NewServer(t, testkit.WithClock(clock.Now))
	acct := testkit.SignUp(t, env)
	res := acct.Client.Post("/api/v1/api-keys", map[string]any{"name": "short-lived", "scopes": []string{"events:read"}, "expiresInDays": 1})
	var k createdKey
	res.JSON(t, &k)
	if res := env.Client.WithBearer(k.Data.Key).Get("/api/v1/events"); res.StatusCode != 200 {
		t.Fatalf("the key before its expiry: %d %s", res.StatusCode, res.Body)
	}
	clock.Advance(24*time.Hour + time.Minute) // the key, valid for one day, has expired
	res = env.Client.WithBearer(k.Data.Key).Get("/api/v1/events")
	wantError(t, res, 401, res.StatusCode, "INVALID_API_KEY")
	// The session has expired too: sign in again to list the keys.
	var login struct{ Data struct{ AccessToken string } }
	env.Client.Post("/api/v1/auth/login", map[string]string{"email": acct.Email, "password": testkit.Password}).JSON(t, &login)
	res = env.Client.WithBearer(login.Data.AccessToken).Get("/api/v1/api-keys")
	require.Equal(t, 200, res.StatusCode, "an expired key is listed: status (body %s)", res.Body)
	require.NotContains(t, string(res.Body), k.Data.ID, "an expired key is listed: body")
}

func TestCreatingAKeyNeedsARecentSignInOrThePassword(t *testing.T) {
	t.Parallel()
	clock := &testkit.Clock{}
	env := testkit.NewServer(t, testkit.WithClock(clock.Now))
	acct := testkit.SignUp(t, env)
	clock.Advance(6 * time.Minute)
	body := func(extra ...string) map[string]any {
		b := map[string]any{"name": "late", "scopes": []string{"events:read"}}
		for i := 0; i < len(extra); i += 2 {
			b[extra[i]] = extra[i+1]
		}
		return b
	}
	before := testkit.Fingerprint(t, env)
	for name, b := range map[string]map[string]any{
		"nothing":        body(),
		"wrong password": body("currentPassword", "wrong password"),
	} {
		res := acct.Client.Post("/api/v1/api-keys", b)
		if e := wantError(t, res, 400, res.StatusCode, "VALIDATION_ERROR"); e.Error.Details[0].Field != "body.currentPassword" {
			t.Fatalf("%s: details %+v", name, e.Error.Details)
		}
	}
	res := acct.Client.Post("/api/v1/api-keys", body("twoFactorCode", "123456"))
	wantError(t, res, 400, res.StatusCode, "VALIDATION_ERROR")
	if after := testkit.Fingerprint(t, env); after != before {
		t.Fatal("a refused key creation changed the database")
	}
	// A refresh does not renew the window; the password does.
	if res := acct.Client.Post("/api/v1/api-keys", body("currentPassword", testkit.Password)); res.StatusCode != 200 {
		t.Fatalf("with the password: %d %s", res.StatusCode, res.Body)
	}
}

func TestKeyCreationRefusesUnknownScopesAndBadExpiry(t *testing.T) {
	t.Parallel()
	env := testkit.NewServer(t)
	acct := testkit.SignUp(t, env)
	for name, b := range map[string]map[string]any{
		"unknown scope":   {"name": "k", "scopes": []string{"events:read", "admin:all"}},
		"no scope":        {"name": "k", "scopes": []string{}},
		"repeated scope":  {"name": "k", "scopes": []string{"events:read", "events:read"}},
		"expiry too long": {"name": "k", "scopes": []string{"events:read"}, "expiresInDays": 366},
		"expiry zero":     {"name": "k", "scopes": []string{"events:read"}, "expiresInDays": 0},
	} {
		res := acct.Client.Post("/api/v1/api-keys", b)
		if res.StatusCode != 400 {
			t.Errorf("%s: %d %s", name, res.StatusCode, res.Body)
		}
	}
}

// The owner hears of every new key, through the email worker, without the key itself.
func TestTheOwnerIsEmailedAboutEveryNewKey(t *testing.T) {
	t.Parallel()
	env := testkit.NewServer(t)
	acct := testkit.SignUp(t, env)
	key, _ := acct.APIKey(t, "events:read")
	n, err := runEmail(t, env)
	require.NoError(t, err, "email worker")
	require.Equal(t, 1, n, "email worker: messages")
	files, _ := filepath.Glob(filepath.Join(env.Config.DataDir, "outbox", "*.eml"))
	if len(files) != 1 {
		t.Fatalf("outbox: %v", files)
	}
	raw, _ := os.ReadFile(files[0])
	msg := string(raw)
	for _, want := range []string{"To: \"Owner", acct.Email, "Subject: A new API key was created", key[:12], "events:read"} {
		if !strings.Contains(msg, want) {
			t.Errorf("the message lacks %q:\n%s", want, msg)
		}
	}
	if strings.Contains(msg, key[12:]) {
		t.Fatal("the message contains the secret part of the key")
	}
}
