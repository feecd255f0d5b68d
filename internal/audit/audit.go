// Package audit is the vocabulary of the audit log: who did what to which resource, written
// in the transaction of the change.
//
// A request that may change something carries a Pending entry in its context (httpmw starts
// it from the contract's x-audit-action); the service that makes the change may name the
// resource and add a summary (Describe); the store writes the entry in the transaction that
// commits the change (store.InTx takes it), and gives it back should that commit fail. A
// request whose transactions all roll back leaves no entry; one that succeeds without any
// transaction taking it has it written on its own by httpmw.Audit.
package audit

import (
	"context"
	"sync"
	"time"

	"github.com/google/uuid"
)

// Actor types.
const (
	ActorUser   = "user"
	ActorAPIKey = "apiKey"
	ActorSystem = "system"
)

// Actor is who made a change: a member, an API key or the service itself. Name is a snapshot,
// kept when the member or key is gone.
type Actor struct {
	Type string
	ID   uuid.UUID
	Name string
}

// Resource is what a change was made to; Type is empty when it names none.
type Resource struct {
	Type string
	ID   string
}

// Entry is one line of the audit log. Summary names resources by id and holds no secret and
// no recipient's personal data, so that an erasure never has to rewrite it.
type Entry struct {
	ID        uuid.UUID
	AccountID uuid.UUID
	At        time.Time
	Actor     Actor
	Action    string
	Resource  Resource
	IP        string
	UserAgent string
	Summary   string
}

// Pending is the entry of one request, written at most once.
type Pending struct {
	mu    sync.Mutex
	entry Entry
	taken bool
}

type pendingKey struct{}

// Begin returns ctx carrying e as the entry its changes will write.
func Begin(ctx context.Context, e Entry) (context.Context, *Pending) {
	p := &Pending{entry: e}
	return context.WithValue(ctx, pendingKey{}, p), p
}

// From returns the entry ctx carries, or nil.
func From(ctx context.Context) *Pending {
	p, _ := ctx.Value(pendingKey{}).(*Pending)
	return p
}

// Without returns ctx carrying no entry: for work done on behalf of several requests, each of
// which writes its own.
func Without(ctx context.Context) context.Context {
	if From(ctx) == nil {
		return ctx
	}
	return context.WithValue(ctx, pendingKey{}, (*Pending)(nil))
}

// Describe names the resource of ctx's entry and, when summary is not empty, sets its summary.
// Without an entry it does nothing.
func Describe(ctx context.Context, resourceType, resourceID, summary string) {
	p := From(ctx)
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.entry.Resource = Resource{Type: resourceType, ID: resourceID}
	if summary != "" {
		p.entry.Summary = summary
	}
}

// SetAccount sets the account of ctx's entry, for a request whose account is known only once
// it is served (an invitation accepted).
func SetAccount(ctx context.Context, accountID uuid.UUID) {
	if p := From(ctx); p != nil {
		p.mu.Lock()
		p.entry.AccountID = accountID
		p.mu.Unlock()
	}
}

// SetActor sets the actor of ctx's entry, for a request that proves who it is as it is served
// (a sign-in).
func SetActor(ctx context.Context, a Actor) {
	if p := From(ctx); p != nil {
		p.mu.Lock()
		p.entry.Actor = a
		p.mu.Unlock()
	}
}

// Take returns the entry, at, to be written by the transaction that asks, once: the second
// caller gets false. An entry without an account is not taken.
func (p *Pending) Take(at time.Time) (Entry, bool) {
	if p == nil {
		return Entry{}, false
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.taken || p.entry.AccountID == uuid.Nil {
		return Entry{}, false
	}
	p.taken = true
	e := p.entry
	e.At = at
	return e, true
}

// Untake gives the entry back after the transaction that took it failed to commit.
func (p *Pending) Untake() {
	if p == nil {
		return
	}
	p.mu.Lock()
	p.taken = false
	p.mu.Unlock()
}

// Written reports whether a transaction has taken the entry.
func (p *Pending) Written() bool {
	if p == nil {
		return false
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.taken
}
