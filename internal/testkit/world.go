package testkit

import (
	"encoding/json"
	"testing"

	"github.com/google/uuid"

	"github.com/certhub/credentiald/internal/accounts"
	"github.com/certhub/credentiald/internal/credentials"
	"github.com/certhub/credentiald/internal/domain"
	"github.com/certhub/credentiald/internal/secretbox"
	"github.com/certhub/credentiald/internal/store"
)

// World is what a domain service's tests start from: a fresh database with one account on the
// free plan (12 credits a month), its template and an event, on a stopped clock the test moves.
type World struct {
	Store *store.Store
	DBURL string
	Clock *Clock
	// Secrets sealed the account's issuer key: a credentials service of the test opens it.
	Secrets  *secretbox.Box
	Account  uuid.UUID
	Template uuid.UUID
	Event    uuid.UUID
}

// NewWorld makes a World through the account service and the store, without an HTTP server.
func NewWorld(t testing.TB) World {
	t.Helper()
	ctx := t.Context()
	st, dbURL := Store(t)
	clock := &Clock{}
	clock.Stop()
	box := SecretBox(t)
	keys := credentials.New(st, box, "https://credentials.example.org", clock.Now)
	acct, _, err := accounts.New(st, clock.Now, accounts.WithIssuerKeys(keys)).Create(ctx, accounts.CreateParams{Email: "owner@example.org",
		Password: Password, Name: "Owner", AccountName: "Analytical Society"})
	if err != nil {
		t.Fatal(err)
	}
	tmpl, err := st.InsertTemplate(ctx, store.NewTemplate{AccountID: &acct.ID, Name: "Plain", PageSize: "A4", Orientation: "landscape",
		Layout: json.RawMessage(`{"rows":[{"height":40,"cols":[{"size":12,"content":{"type":"text","text":"{{recipient.fullName}}"}}]}]}`)}, clock.Now())
	if err != nil {
		t.Fatal(err)
	}
	ev, err := st.CreateEvent(ctx, acct.ID, domain.EventFields{Name: "Congress", EventDate: clock.Now(), TemplateID: tmpl.ID}, clock.Now())
	if err != nil {
		t.Fatal(err)
	}
	return World{Store: st, DBURL: dbURL, Clock: clock, Secrets: box, Account: acct.ID, Template: tmpl.ID, Event: ev.ID}
}
