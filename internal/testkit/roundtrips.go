package testkit

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"io"
	"net"
	"net/url"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/certhub/credentiald/internal/store"
)

// RoundTrips counts the round trips a store makes to PostgreSQL: the ReadyForQuery messages
// the server sends, one at the end of each simple query (BEGIN, COMMIT) and one per Sync, which
// ends a query of the extended protocol or a whole pgx.Batch.
//
// River's insert notification is not counted: when a job is inserted, River's client sends a
// pg_notify of its own in the transaction, at most once per queue per 100 ms, so whether a call
// pays it depends on the time since the last, which a loaded machine stretches.
type RoundTrips struct {
	n atomic.Int64
	// notifying is set when the client has sent a statement that calls pg_notify and the
	// server has not yet ended it; its ReadyForQuery is then not counted.
	notifying atomic.Bool
}

// Count is how many round trips were made so far.
func (r *RoundTrips) Count() int64 { return r.n.Load() }

// CountingStore opens a store on the database at dbURL through a relay that counts its round
// trips, with one connection in its pool, so that the count is that of one caller's calls.
// A statement's first use on the connection also prepares it (a round trip of its own): count
// what a warmed-up call takes. pgxpool pings a connection idle for over a second before handing
// it out, which adds one: take the least of a few counts.
func CountingStore(t testing.TB, dbURL string) (*store.Store, *RoundTrips) {
	t.Helper()
	u, err := url.Parse(dbURL)
	if err != nil {
		t.Fatal(err)
	}
	target := u.Host
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	rt := &RoundTrips{}
	var wg sync.WaitGroup
	var mu sync.Mutex
	var conns []net.Conn
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			client, err := ln.Accept()
			if err != nil {
				return
			}
			server, err := net.Dial("tcp", target)
			if err != nil {
				_ = client.Close()
				continue
			}
			mu.Lock()
			conns = append(conns, client, server)
			mu.Unlock()
			wg.Add(2)
			go func() { defer wg.Done(); rt.watch(server, client); _ = server.Close() }()
			go func() { defer wg.Done(); rt.relay(client, server); _ = client.Close() }()
		}
	}()
	q := u.Query()
	q.Set("pool_max_conns", "1")
	u.Host, u.RawQuery = ln.Addr().String(), q.Encode()
	st, err := store.Open(t.Context(), u.String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		st.Close()
		_ = ln.Close()
		mu.Lock()
		for _, c := range conns {
			_ = c.Close()
		}
		mu.Unlock()
		wg.Wait()
	})
	return st, rt
}

// relay copies the server's messages to the client, counting ReadyForQuery ('Z'). Every
// message the server sends (from the first, the answer to the startup message, with TLS off)
// is a type byte and a length that counts itself.
func (r *RoundTrips) relay(client, server net.Conn) {
	in := bufio.NewReader(server)
	var head [5]byte
	for {
		if _, err := io.ReadFull(in, head[:]); err != nil {
			return
		}
		if head[0] == 'Z' && !r.notifying.Swap(false) {
			r.n.Add(1)
		}
		if _, err := client.Write(head[:]); err != nil {
			return
		}
		n := int64(binary.BigEndian.Uint32(head[1:])) - 4
		if _, err := io.CopyN(client, in, n); err != nil {
			return
		}
	}
}

// watch copies the client's messages to the server, marking those that run pg_notify: a simple
// query ('Q') whose text calls it, or a Bind ('B') of a statement whose Parse ('P') did (pgx
// prepares a statement once per connection and binds it by name after). The first message, the
// startup message, has no type byte.
func (r *RoundTrips) watch(server, client net.Conn) {
	in := bufio.NewReader(client)
	var size [4]byte
	if _, err := io.ReadFull(in, size[:]); err != nil {
		return
	}
	if _, err := server.Write(size[:]); err != nil {
		return
	}
	if _, err := io.CopyN(server, in, int64(binary.BigEndian.Uint32(size[:]))-4); err != nil {
		return
	}
	notifies := map[string]bool{} // prepared statements that call pg_notify, by name
	var head [5]byte
	for {
		if _, err := io.ReadFull(in, head[:]); err != nil {
			return
		}
		body := make([]byte, int64(binary.BigEndian.Uint32(head[1:]))-4)
		if _, err := io.ReadFull(in, body); err != nil {
			return
		}
		fields := bytes.Split(body, []byte{0})
		switch {
		case head[0] == 'Q' && bytes.Contains(body, []byte("pg_notify")):
			r.notifying.Store(true)
		case head[0] == 'P' && len(fields) > 1:
			notifies[string(fields[0])] = bytes.Contains(fields[1], []byte("pg_notify"))
		case head[0] == 'B' && len(fields) > 1 && notifies[string(fields[1])]:
			r.notifying.Store(true)
		}
		if _, err := server.Write(append(head[:], body...)); err != nil {
			return
		}
	}
}
