// Package changefeed tells the process what changed in the database, two ways: the changes of
// its own transactions once they have committed (Committed, which the store's commit hook
// hands to the function given to store.Store.OnCommit), and those of every session of the
// database, this process's and other instances' included, through PostgreSQL's notifications
// (Watch, the triggers of migration 00030). The lookups that keep credentials in memory
// (verification, GET /certificates/{id}) and the operator's issuance counters are told here.
package changefeed

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/certhub/credentiald/internal/recovery"
)

// Change names credentials whose public face changed: one certificate (Certificate and Code),
// or what every credential of an account shows of its issuer (Account). It is what a cache of
// verification lookups must forget. Changes come two ways: from this process, once the
// transaction that made them has committed (Committed.Changed, through store.Store.OnCommit),
// and from every session of the database, this process's included, through Watch (the triggers
// of migration 00030).
type Change struct {
	Certificate uuid.UUID
	Code        string
	Account     uuid.UUID
}

// Channel is the channel the triggers of migration 00030 notify.
const Channel = "credential_changes"

// Parse reads a notice's payload: "certificate <id> <code>" or "account <id>".
func Parse(payload string) (Change, error) {
	f := strings.Fields(payload)
	switch {
	case len(f) == 3 && f[0] == "certificate":
		id, err := uuid.Parse(f[1])
		return Change{Certificate: id, Code: f[2]}, err
	case len(f) == 2 && f[0] == "account":
		id, err := uuid.Parse(f[1])
		return Change{Account: id}, err
	}
	return Change{}, fmt.Errorf("a change notice of no known shape: %q", payload)
}

// Committed is what one transaction issued, spent and changed, told once it has committed: the
// operator's counters of credentials issued and credits spent count only what is in the
// database, never what a rollback undid, and a cache forgets what changed only once the change
// can be read.
type Committed struct {
	// Issued counts the credentials issued by kind (store.KindCertificate,
	// store.KindBadgeAssertion): the counts of the issuances applied.
	Issued map[string]int
	// CreditsSpent counts the credits the transaction's issuances took.
	CreditsSpent int
	// Changed names the credentials whose public face the transaction changed (revoked, made
	// out again, their recipient's token, their issuer's branding).
	Changed []Change
}

// Empty says the transaction issued, spent and changed nothing.
func (c Committed) Empty() bool {
	return len(c.Issued) == 0 && c.CreditsSpent == 0 && len(c.Changed) == 0
}

// Watcher is told what Watch hears.
type Watcher interface {
	// Listening: every change committed from now on will be told, until Lost.
	Listening()
	// Lost: the connection that listened is gone (err); changes may go untold until the next
	// Listening.
	Lost(err error)
	// Changed: a change committed.
	Changed(c Change)
}

// Options time Watch.
type Options struct {
	// Retry is the pause before connecting again after a loss (default 1 s).
	Retry time.Duration
	// Heartbeat is how often the listening connection proves that notices still reach it,
	// and how long a proof may take (default 5 s): a connection lost without a word (a network
	// partition), or one whose LISTEN holds no session (a pooler in transaction mode), is
	// known lost within twice this.
	Heartbeat time.Duration
	// Logger logs a panic in the listening, which is then told as a loss (default: slog's).
	Logger *slog.Logger
}

// Watchers tells every one of its watchers, in order.
type Watchers []Watcher

func (ws Watchers) Listening() {
	for _, w := range ws {
		w.Listening()
	}
}

func (ws Watchers) Lost(err error) {
	for _, w := range ws {
		w.Lost(err)
	}
}

func (ws Watchers) Changed(c Change) {
	for _, w := range ws {
		w.Changed(c)
	}
}

// Source is the database Watch listens to: a connection of its own (Listener), and a way to
// send a notice through another (the pool), as another instance's change would come.
type Source interface {
	Listener(ctx context.Context) (*pgx.Conn, error)
	Notify(ctx context.Context, channel, payload string) error
}

// Watch listens for the changes of every session of the database, on a connection of its
// own, and tells w until ctx ends. It never gives up: a lost connection is told (w.Lost) and
// opened again after o.Retry, and so is a failed connect.
//
// Listening is told only once a notice sent through another connection (a heartbeat, through
// the pool, as another instance's change would come) has come back on the listening one; one
// is sent again whenever o.Heartbeat passes, and one that does not come back within o.Heartbeat
// loses the connection. A notice it cannot read is told as lost too, since what it named is
// unknown.
func Watch(ctx context.Context, src Source, w Watcher, o Options) {
	if o.Retry <= 0 {
		o.Retry = time.Second
	}
	if o.Heartbeat <= 0 {
		o.Heartbeat = 5 * time.Second
	}
	for ctx.Err() == nil {
		conn, err := src.Listener(ctx)
		if err != nil {
			err = fmt.Errorf("connecting to listen for changes: %w", err)
		} else {
			err = recovery.Run(ctx, o.Logger, "listening for changes panicked", func() error {
				return listen(ctx, src, w, o, conn)
			})
		}
		if ctx.Err() == nil {
			w.Lost(err) // before the connection's close, which may take its time
		}
		if conn != nil {
			closeCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), closeTimeout)
			_ = conn.Close(closeCtx)
			cancel()
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(o.Retry):
		}
	}
}

// listen listens on conn until it fails or ctx ends.
func listen(ctx context.Context, src Source, w Watcher, o Options, conn *pgx.Conn) error {
	every := o.Heartbeat
	if _, err := conn.Exec(ctx, "LISTEN "+Channel); err != nil {
		return fmt.Errorf("listening for changes: %w", err)
	}
	beat := heartbeatPrefix + uuid.NewString()
	// A heartbeat is sent within its own time, beside the loop once listening: a pool with no
	// connection to spare (or a database that no longer answers) must not keep the loop from
	// hearing notices, nor from knowing that the beat is late.
	send := func() error {
		sendCtx, cancel := context.WithTimeout(ctx, every)
		defer cancel()
		if err := src.Notify(sendCtx, Channel, beat); err != nil {
			return fmt.Errorf("sending a heartbeat to the connection listening for changes: %w", err)
		}
		return nil
	}
	if err := send(); err != nil {
		return err
	}
	listening, awaited, next := false, true, time.Now().Add(every)
	for {
		waitCtx, cancel := context.WithDeadline(ctx, next)
		n, err := conn.WaitForNotification(waitCtx)
		cancel()
		switch {
		case err != nil && ctx.Err() != nil:
			return ctx.Err()
		case err != nil && waitCtx.Err() == nil:
			return fmt.Errorf("waiting for changes: %w", err)
		case err != nil && awaited:
			return fmt.Errorf("a heartbeat sent %s ago has not come back to the connection listening for changes", every)
		case err != nil:
			// Sent beside the loop, which goes on hearing notices; a beat that fails to go
			// never comes back, and the next deadline says so.
			go func() { _ = recovery.Run(ctx, o.Logger, "sending a heartbeat panicked", send) }()
			awaited, next = true, time.Now().Add(every)
		case n.Payload == beat:
			if !listening {
				listening = true
				w.Listening()
			}
			awaited, next = false, time.Now().Add(every)
		case strings.HasPrefix(n.Payload, heartbeatPrefix):
			// another instance's
		default:
			c, err := Parse(n.Payload)
			if err != nil {
				return err
			}
			w.Changed(c)
		}
	}
}

// heartbeatPrefix begins the payload of a heartbeat, which names no change.
const heartbeatPrefix = "heartbeat "

// closeTimeout bounds the close of a lost listening connection.
const closeTimeout = 5 * time.Second
