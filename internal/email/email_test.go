package email_test

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"mime"
	"net"
	"net/mail"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/certhub/credentiald/internal/accounts"
	"github.com/certhub/credentiald/internal/email"
	"github.com/certhub/credentiald/internal/store"
	"github.com/certhub/credentiald/internal/testkit"
)

func TestMain(m *testing.M) { testkit.Main(m) }

var composer = email.Composer{From: mail.Address{Name: "credentiald", Address: "no-reply@certs.example"}, Domain: "certs.example"}

type fixture struct {
	store   *store.Store
	account uuid.UUID
	smtp    *testkit.SMTP
	worker  *email.Worker
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	st, _ := testkit.Store(t)
	acc, _, err := accounts.New(st).Create(context.Background(), accounts.CreateParams{
		Email: "owner@example.org", Password: testkit.Password, Name: "Owner", AccountName: "Academy"})
	if err != nil {
		t.Fatal(err)
	}
	srv := testkit.SMTPServer(t)
	sender, err := email.NewSMTPSender(srv.URL(), nil)
	if err != nil {
		t.Fatal(err)
	}
	w := &email.Worker{Store: st, Sender: sender, Composer: composer, Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
		Backoff: func(int) time.Duration { return 0 }}
	return &fixture{store: st, account: acc.ID, smtp: srv, worker: w}
}

func (f *fixture) enqueue(t *testing.T, m store.OutboundEmail) store.EmailDelivery {
	t.Helper()
	m.AccountID = f.account
	if m.Kind == "" {
		m.Kind = "notice"
	}
	d, err := f.store.EnqueueEmail(context.Background(), m)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func (f *fixture) status(t *testing.T, id uuid.UUID) store.EmailDelivery {
	t.Helper()
	d, err := f.store.FindEmailDelivery(context.Background(), f.account, id)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func (f *fixture) run(t *testing.T) {
	t.Helper()
	if _, err := f.worker.RunOnce(context.Background()); err != nil {
		t.Fatal(err)
	}
}

func TestAQueuedMessageIsDeliveredThroughSMTP(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	reply := "desk@academy.example"
	d := f.enqueue(t, store.OutboundEmail{ToAddress: "ada@example.org", ToName: "Ada Lovelace", FromName: "Analytical Society",
		ReplyTo: &reply, Subject: "Your certificate — Łukasz Żółć", BodyText: "Hello Ada,\n\nhere it is.\n"})
	f.run(t)
	got := f.smtp.Messages()
	if len(got) != 1 || got[0].From != "no-reply@certs.example" || len(got[0].To) != 1 || got[0].To[0] != "ada@example.org" {
		t.Fatalf("envelope: %+v", got)
	}
	msg, err := mail.ReadMessage(bytes.NewReader(got[0].Data))
	if err != nil {
		t.Fatal(err)
	}
	dec := new(mime.WordDecoder)
	subject, _ := dec.DecodeHeader(msg.Header.Get("Subject"))
	from, _ := msg.Header.AddressList("From")
	if subject != "Your certificate — Łukasz Żółć" || from[0].Name != "Analytical Society" || msg.Header.Get("Reply-To") != "<desk@academy.example>" {
		t.Fatalf("headers: subject %q from %v reply-to %q", subject, from, msg.Header.Get("Reply-To"))
	}
	if id := msg.Header.Get("Message-Id"); id != "<"+d.ID.String()+"@certs.example>" {
		t.Fatalf("Message-Id %q", id)
	}
	if s := f.status(t, d.ID); s.Status != "sent" || s.Attempts != 1 || s.SentAt == nil {
		t.Fatalf("delivery after sending: %+v", s)
	}
	// Nothing is due any more.
	if n, _ := f.worker.RunOnce(context.Background()); n != 0 {
		t.Fatalf("a sent message was claimed again")
	}
}

// Names and subjects are stored as people typed them; none can add a header or a recipient.
func TestHeaderInjectionThroughNamesIsImpossible(t *testing.T) {
	t.Parallel()
	d := store.EmailDelivery{ID: uuid.New(), CreatedAt: time.Now(), OutboundEmail: store.OutboundEmail{
		ToAddress: "ada@example.org", ToName: "Ada\r\nBcc: victim@evil.example", FromName: "Certs\nCc: other@evil.example",
		Subject: "Hi\r\n\r\nInjected body\r\nBcc: third@evil.example", BodyText: "body"}}
	m, err := composer.Compose(d)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if _, err := m.WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	msg, err := mail.ReadMessage(&buf)
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range []string{"Bcc", "Cc"} {
		if v := msg.Header.Get(h); v != "" {
			t.Fatalf("%s header injected: %q", h, v)
		}
	}
	to, err := msg.Header.AddressList("To")
	if err != nil || len(to) != 1 || to[0].Address != "ada@example.org" {
		t.Fatalf("To: %v %v", to, err)
	}
	body, _ := io.ReadAll(msg.Body)
	if strings.Contains(string(body), "Injected") {
		t.Fatalf("the subject reached the body: %s", body)
	}
	// An address that is more than one address is refused outright.
	d.ToAddress = "ada@example.org, victim@evil.example"
	if _, err := composer.Compose(d); err == nil {
		t.Fatal("a list of recipients was accepted")
	}
}

func TestATemporaryFailureIsRetriedAndAPermanentOneRecorded(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.smtp.Refuse(451, "greylisted, try again")
	d := f.enqueue(t, store.OutboundEmail{ToAddress: "ada@example.org", Subject: "Retry me", BodyText: "x"})
	f.run(t)
	if s := f.status(t, d.ID); s.Status != "queued" || s.Attempts != 1 || s.LastError == nil || !strings.Contains(*s.LastError, "451") {
		t.Fatalf("after a 451: %+v", s)
	}
	f.run(t)
	if s := f.status(t, d.ID); s.Status != "sent" || s.Attempts != 2 {
		t.Fatalf("after the retry: %+v", s)
	}

	f.smtp.Refuse(550, "no such mailbox")
	d = f.enqueue(t, store.OutboundEmail{ToAddress: "gone@example.org", Subject: "Bounce", BodyText: "x"})
	f.run(t)
	if s := f.status(t, d.ID); s.Status != "failed" || s.Attempts != 1 || !strings.Contains(*s.LastError, "550") {
		t.Fatalf("after a 550: %+v", s)
	}
	if len(f.smtp.Messages()) != 1 {
		t.Fatalf("messages: %d", len(f.smtp.Messages()))
	}
}

func TestAnUnreachableServerIsRetriedUntilGivenUp(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	addr := ln.Addr().String()
	ln.Close() // nothing listens here now
	sender, err := email.NewSMTPSender("smtp://"+addr+"?tls=none", nil)
	if err != nil {
		t.Fatal(err)
	}
	f.worker.Sender, f.worker.MaxAttempts = sender, 3
	d := f.enqueue(t, store.OutboundEmail{ToAddress: "ada@example.org", Subject: "Down", BodyText: "x"})
	for attempt := 1; attempt <= 3; attempt++ {
		f.run(t)
		s := f.status(t, d.ID)
		want := "queued"
		if attempt == 3 {
			want = "failed"
		}
		if s.Status != want || s.Attempts != attempt {
			t.Fatalf("attempt %d: %+v", attempt, s)
		}
	}
}

// A worker that claims a message and dies leaves it due again once its lease has passed.
func TestAMessageClaimedByADeadWorkerIsSentAfterItsLease(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	d := f.enqueue(t, store.OutboundEmail{ToAddress: "ada@example.org", Subject: "Lease", BodyText: "x"})
	claimed, err := f.store.ClaimDueEmails(context.Background(), 10, time.Second)
	if err != nil || len(claimed) != 1 {
		t.Fatalf("claim: %v %v", claimed, err)
	}
	if n, _ := f.worker.RunOnce(context.Background()); n != 0 {
		t.Fatal("a message under lease was claimed twice")
	}
	time.Sleep(1200 * time.Millisecond) // the lease runs out
	f.run(t)
	if s := f.status(t, d.ID); s.Status != "sent" || s.Attempts != 2 {
		t.Fatalf("after the lease: %+v", s)
	}
}
