package testkit

import (
	"fmt"
	"net/http"
	"sync/atomic"
	"testing"

	"github.com/certhub/credentiald/internal/testkit/contract"
)

// Password is the password of every account the factories create.
const Password = "correct horse battery staple"

// Account is a registered account with a signed-in session.
type Account struct {
	Email        string
	AccessToken  string
	RefreshToken string
	// Client sends the session's access token.
	Client *contract.Client
}

var accountSeq atomic.Int64

// SignUp registers a new account through the API and returns its session.
func SignUp(t testing.TB, env *Env) *Account {
	t.Helper()
	n := accountSeq.Add(1)
	email := fmt.Sprintf("owner%d@example.org", n)
	res := env.Client.Post("/api/v1/auth/register", map[string]string{
		"email": email, "password": Password, "name": fmt.Sprintf("Owner %d", n), "accountName": fmt.Sprintf("Account %d", n),
	})
	if res.StatusCode != http.StatusCreated {
		t.Fatalf("register: %d %s", res.StatusCode, res.Body)
	}
	var body struct {
		Data struct{ AccessToken, RefreshToken string }
	}
	res.JSON(t, &body)
	return &Account{Email: email, AccessToken: body.Data.AccessToken, RefreshToken: body.Data.RefreshToken,
		Client: env.Client.WithBearer(body.Data.AccessToken)}
}

// APIKey creates a key with scopes for the account and returns a client that sends it.
func (a *Account) APIKey(t testing.TB, scopes ...string) (key string, c *contract.Client) {
	t.Helper()
	res := a.Client.Post("/api/v1/api-keys", map[string]any{"name": "test key", "scopes": scopes})
	if res.StatusCode != http.StatusOK {
		t.Fatalf("create API key: %d %s", res.StatusCode, res.Body)
	}
	var body struct{ Data struct{ Key string } }
	res.JSON(t, &body)
	return body.Data.Key, a.Client.WithBearer(body.Data.Key)
}
