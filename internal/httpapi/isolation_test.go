package httpapi_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/certhub/credentiald/internal/testkit"
)

// Another account's resources answer 404 and stay as they were. One case per resource type
// that exists so far; each later resource adds its own.
func TestAnotherAccountsResourcesAreNotFoundAndUnchanged(t *testing.T) {
	t.Parallel()
	env := testkit.NewServer(t)
	alice, bob := testkit.SignUp(t, env), testkit.SignUp(t, env)

	t.Run("API key", func(t *testing.T) {
		bobKey, bobClient := bob.APIKey(t, "events:read")
		var list struct{ Data []struct{ ID string } }
		bob.Client.Get("/api/v1/api-keys").JSON(t, &list)
		before := testkit.Fingerprint(t, env)
		res := alice.Client.Delete("/api/v1/api-keys/" + list.Data[0].ID)
		wantError(t, res, 404, res.StatusCode, "NOT_FOUND")
		if after := testkit.Fingerprint(t, env); after != before {
			t.Fatal("the refused delete changed the database")
		}
		if res := alice.Client.Get("/api/v1/api-keys"); strings.Contains(string(res.Body), list.Data[0].ID) {
			t.Fatalf("alice lists bob's key: %s", res.Body)
		}
		if res := bobClient.Get("/api/v1/events"); res.StatusCode == 401 {
			t.Fatalf("bob's key %s stopped working", bobKey[:12])
		}
	})

	t.Run("session, by a refresh token in the body", func(t *testing.T) {
		before := testkit.Fingerprint(t, env)
		res := alice.Client.Post("/api/v1/auth/logout", map[string]string{"refreshToken": bob.RefreshToken})
		if e := wantError(t, res, 400, res.StatusCode, "VALIDATION_ERROR"); e.Error.Details[0].Field != "body.refreshToken" {
			t.Fatalf("details %+v", e.Error.Details)
		}
		if after := testkit.Fingerprint(t, env); after != before {
			t.Fatal("the refused logout changed the database")
		}
		if res := bob.Client.Get("/api/v1/auth/me"); res.StatusCode != 200 {
			t.Fatalf("bob's session ended: %d", res.StatusCode)
		}
	})

	t.Run("branding", func(t *testing.T) {
		res := bob.Client.Put("/api/v1/branding", map[string]any{"issuerName": "Bob's Academy", "primaryColor": "#112233"})
		if res.StatusCode != 200 {
			t.Fatalf("bob's branding: %d %s", res.StatusCode, res.Body)
		}
		res = alice.Client.Get("/api/v1/branding")
		if strings.Contains(string(res.Body), "Bob") {
			t.Fatalf("alice sees bob's branding: %s", res.Body)
		}
		alice.Client.Put("/api/v1/branding", map[string]any{"issuerName": "Alice Institute"})
		if res := bob.Client.Get("/api/v1/branding"); !strings.Contains(string(res.Body), "Bob's Academy") {
			t.Fatalf("alice's update reached bob: %s", res.Body)
		}
	})

	t.Run("profile", func(t *testing.T) {
		res := alice.Client.Get("/api/v1/auth/me")
		if strings.Contains(string(res.Body), bob.Email) {
			t.Fatalf("alice's profile shows bob: %s", res.Body)
		}
	})
}

func TestBrandingIsReplacedAsAWholeAndValidated(t *testing.T) {
	t.Parallel()
	env := testkit.NewServer(t)
	acct := testkit.SignUp(t, env)
	res := acct.Client.Get("/api/v1/branding")
	if string(res.Body) != `{"data":{"defaultLocale":null,"emailFromName":null,"emailReplyTo":null,"issuerName":null,"logo":null,"primaryColor":null,"publicEmail":null,"signatories":[],"website":null}}`+"\n" {
		t.Fatalf("unset branding: %s", res.Body)
	}
	png := "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
	res = acct.Client.Put("/api/v1/branding", map[string]any{"issuerName": " Analytical Society ", "website": "https://example.org",
		"logo": png, "primaryColor": "#1F4E79", "emailFromName": "Certificates", "emailReplyTo": "certs@example.org"})
	require.Equal(t, 200, res.StatusCode, "put: status (body %s)", res.Body)
	require.Contains(t, string(res.Body), `"issuerName":"Analytical Society"`, "put: body")
	require.Contains(t, string(res.Body), png, "put: body")
	res = acct.Client.Put("/api/v1/branding", map[string]any{"issuerName": "Only this"})
	require.Contains(t, string(res.Body), `"logo":null`, "an omitted field was kept: body")
	require.Contains(t, string(res.Body), `"website":null`, "an omitted field was kept: body")
	for name, b := range map[string]map[string]any{
		"logo not a PNG":     {"logo": "data:image/png;base64,aGVsbG8="},
		"logo wrong media":   {"logo": "data:image/gif;base64,R0lGODlh"},
		"website not http":   {"website": "ftp://example.org"},
		"colour not hex":     {"primaryColor": "blue"},
		"name with newline":  {"emailFromName": "Certs\r\nBcc: x@example.org"},
		"reply-to not email": {"emailReplyTo": "nobody"},
	} {
		res := acct.Client.Put("/api/v1/branding", b)
		if res.StatusCode != 400 {
			t.Errorf("%s: %d %s", name, res.StatusCode, res.Body)
		}
	}
	_, key := acct.APIKey(t, "events:read")
	res = key.Get("/api/v1/branding")
	wantError(t, res, 403, res.StatusCode, "API_KEY_NOT_ALLOWED")
}
