package testkit

import (
	"context"
	"net"
	"strings"
	"sync"
	"testing"

	"golang.org/x/net/dns/dnsmessage"
)

// DNS is a DNS server on loopback that answers the TXT records a test publishes (and "no such
// name" to everything else), for the service's lookups of domain verification records.
// golang.org/x/net/dns/dnsmessage reads and writes the messages.
type DNS struct {
	conn net.PacketConn
	mu   sync.Mutex
	txt  map[string][]string // by lower-case name, without the trailing dot
}

// DNSServer starts the server.
func DNSServer(t testing.TB) *DNS {
	t.Helper()
	conn, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	d := &DNS{conn: conn, txt: map[string][]string{}}
	t.Cleanup(func() { _ = conn.Close() })
	go d.serve()
	return d
}

// Publish adds a TXT record at name.
func (d *DNS) Publish(name, text string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	name = strings.TrimSuffix(strings.ToLower(name), ".")
	d.txt[name] = append(d.txt[name], text)
}

// Resolver returns a resolver that asks this server only.
func (d *DNS) Resolver() *net.Resolver {
	addr := d.conn.LocalAddr().String()
	return &net.Resolver{PreferGo: true, Dial: func(ctx context.Context, _, _ string) (net.Conn, error) {
		var dialer net.Dialer
		return dialer.DialContext(ctx, "udp", addr)
	}}
}

func (d *DNS) serve() {
	buf := make([]byte, 1500)
	for {
		n, from, err := d.conn.ReadFrom(buf)
		if err != nil {
			return
		}
		if answer, ok := d.answer(buf[:n]); ok {
			_, _ = d.conn.WriteTo(answer, from)
		}
	}
}

func (d *DNS) answer(query []byte) ([]byte, bool) {
	var p dnsmessage.Parser
	h, err := p.Start(query)
	if err != nil {
		return nil, false
	}
	q, err := p.Question()
	if err != nil {
		return nil, false
	}
	name := strings.TrimSuffix(strings.ToLower(q.Name.String()), ".")
	d.mu.Lock()
	records := append([]string(nil), d.txt[name]...)
	d.mu.Unlock()
	rcode := dnsmessage.RCodeSuccess
	if len(records) == 0 {
		rcode = dnsmessage.RCodeNameError
	}
	b := dnsmessage.NewBuilder(nil, dnsmessage.Header{ID: h.ID, Response: true, Authoritative: true, RCode: rcode})
	b.EnableCompression()
	_ = b.StartQuestions()
	_ = b.Question(q)
	_ = b.StartAnswers()
	if q.Type == dnsmessage.TypeTXT {
		for _, r := range records {
			_ = b.TXTResource(dnsmessage.ResourceHeader{Name: q.Name, Type: dnsmessage.TypeTXT, Class: dnsmessage.ClassINET, TTL: 60},
				dnsmessage.TXTResource{TXT: []string{r}})
		}
	}
	out, err := b.Finish()
	return out, err == nil
}
