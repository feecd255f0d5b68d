package testkit

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/certhub/credentiald/internal/store"
	"github.com/certhub/credentiald/internal/testkit/contract"
)

// Password is the password of every account the factories create.
const Password = "correct horse battery staple"

// Account is a registered account with a signed-in session.
type Account struct {
	ID           uuid.UUID
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
	a := &Account{Email: email, AccessToken: body.Data.AccessToken, RefreshToken: body.Data.RefreshToken,
		Client: env.Client.WithBearer(body.Data.AccessToken)}
	var me struct {
		Data struct{ Account struct{ ID uuid.UUID } }
	}
	a.Client.Get("/api/v1/auth/me").JSON(t, &me)
	a.ID = me.Data.Account.ID
	// The fixture's owner has verified their address, as the users who existed before
	// verification did, and the verification email the registration queued is withdrawn (its
	// row and its job), so that a test counts only the messages it causes. Tests of
	// verification register through the API themselves. (A server the test only reaches over
	// HTTP, a binary of its own, keeps the email: there the test counts it.)
	if env.Service == nil || env.Config.DatabaseURL == "" {
		return a
	}
	SQL(t, env, `UPDATE users SET email_verified_at = now() WHERE email = $1`, email)
	SQL(t, env, `DELETE FROM river_job WHERE kind = 'email_send' AND args->>'deliveryId' IN
		(SELECT id::text FROM email_deliveries WHERE to_address = $1 AND kind = 'email_verification')`, email)
	SQL(t, env, `DELETE FROM email_deliveries WHERE to_address = $1 AND kind = 'email_verification'`, email)
	return a
}

// Template stores a plain template in the account and returns its id.
func (a *Account) Template(t testing.TB, env *Env) uuid.UUID {
	t.Helper()
	tmpl, err := env.Store.InsertTemplate(context.Background(), store.NewTemplate{AccountID: &a.ID, Name: "Plain",
		PageSize: "A4", Orientation: "landscape",
		Layout: json.RawMessage(`{"rows":[{"height":40,"cols":[{"size":12,"content":{"type":"text","text":"{{recipient.fullName}}"}}]}]}`)}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	return tmpl.ID
}

// Event creates an event named name through the API and returns its id.
func (a *Account) Event(t testing.TB, env *Env, name string) uuid.UUID {
	t.Helper()
	res := a.Client.Post("/api/v1/events", map[string]any{"name": name, "eventDate": "2026-11-12T09:00:00Z",
		"templateId": a.Template(t, env).String()})
	if res.StatusCode != http.StatusCreated {
		t.Fatalf("create event: %d %s", res.StatusCode, res.Body)
	}
	var body struct{ Data struct{ ID uuid.UUID } }
	res.JSON(t, &body)
	return body.Data.ID
}

// Attendee adds an attendee to an event through the API and returns its id.
func (a *Account) Attendee(t testing.TB, event uuid.UUID, first, last, email string) uuid.UUID {
	t.Helper()
	res := a.Client.Post("/api/v1/attendees", map[string]any{"eventId": event, "firstName": first, "lastName": last, "email": email})
	if res.StatusCode != http.StatusCreated {
		t.Fatalf("create attendee: %d %s", res.StatusCode, res.Body)
	}
	var body struct{ Data struct{ ID uuid.UUID } }
	res.JSON(t, &body)
	return body.Data.ID
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
