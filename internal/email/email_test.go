package email_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"image/png"
	"io"
	"log/slog"
	"mime"
	"mime/multipart"
	"net"
	"net/mail"
	"net/textproto"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"
	gomail "github.com/wneessen/go-mail"

	"github.com/certhub/credentiald/internal/accounts"
	"github.com/certhub/credentiald/internal/domain"
	"github.com/certhub/credentiald/internal/email"
	"github.com/certhub/credentiald/internal/jobqueue"
	"github.com/certhub/credentiald/internal/jobs"
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
	jobs    *testkit.Jobs
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	st, dbURL := testkit.Store(t)
	acc, _, err := accounts.New(st, nil).Create(context.Background(), accounts.CreateParams{
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
	f := &fixture{store: st, account: acc.ID, smtp: srv, worker: w}
	f.jobs = testkit.NewJobs(t, dbURL, f.now)
	testkit.AddJobWorker(f.jobs, river.Worker[jobs.SendEmail](w))
	return f
}

func (f *fixture) enqueue(t *testing.T, m domain.OutboundEmail) domain.EmailDelivery {
	t.Helper()
	m.AccountID = f.account
	if m.Kind == "" {
		m.Kind = "notice"
	}
	d, err := f.store.EnqueueEmail(context.Background(), m, f.now())
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// now is the worker's clock: messages are due from when they are recorded on it.
func (f *fixture) now() time.Time {
	if f.worker.Now != nil {
		return f.worker.Now()
	}
	return time.Now()
}

func (f *fixture) status(t *testing.T, id uuid.UUID) domain.EmailDelivery {
	t.Helper()
	d, err := f.store.FindEmailDelivery(context.Background(), f.account, id)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// run works the email jobs that are due, as River would, and returns how many it worked.
func (f *fixture) run(t *testing.T) int {
	t.Helper()
	return len(f.jobs.WorkDue(jobs.SendEmail{}.Kind()))
}

func TestAQueuedMessageIsDeliveredThroughSMTP(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	reply := "desk@academy.example"
	d := f.enqueue(t, domain.OutboundEmail{ToAddress: "ada@example.org", ToName: "Ada Lovelace", FromName: "Analytical Society",
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
	if n := f.run(t); n != 0 {
		t.Fatalf("a sent message was sent again")
	}
}

// Names and subjects are stored as people typed them; none can add a header or a recipient.
func TestHeaderInjectionThroughNamesIsImpossible(t *testing.T) {
	t.Parallel()
	d := domain.EmailDelivery{ID: uuid.New(), CreatedAt: time.Now(), OutboundEmail: domain.OutboundEmail{
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
	d := f.enqueue(t, domain.OutboundEmail{ToAddress: "ada@example.org", Subject: "Retry me", BodyText: "x"})
	f.run(t)
	if s := f.status(t, d.ID); s.Status != "queued" || s.Attempts != 1 || s.LastError == nil || !strings.Contains(*s.LastError, "451") {
		t.Fatalf("after a 451: %+v", s)
	}
	f.run(t)
	if s := f.status(t, d.ID); s.Status != "sent" || s.Attempts != 2 {
		t.Fatalf("after the retry: %+v", s)
	}

	f.smtp.Refuse(550, "no such mailbox")
	d = f.enqueue(t, domain.OutboundEmail{ToAddress: "gone@example.org", Subject: "Bounce", BodyText: "x"})
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
	d := f.enqueue(t, domain.OutboundEmail{ToAddress: "ada@example.org", Subject: "Down", BodyText: "x"})
	for attempt := 1; attempt <= 3; attempt++ {
		f.run(t)
		s := f.status(t, d.ID)
		want := domain.EmailQueued
		if attempt == 3 {
			want = domain.EmailFailed
		}
		if s.Status != want || s.Attempts != attempt {
			t.Fatalf("attempt %d: %+v", attempt, s)
		}
	}
}

// clockedFixture is a fixture whose worker reads the time from a clock the test moves.
func clockedFixture(t *testing.T) (*fixture, *testkit.Clock) {
	t.Helper()
	f := newFixture(t)
	clock := &testkit.Clock{}
	f.worker.Now = clock.Now
	return f, clock
}

// deadWorkerClaims takes what is due the way River's client does for a worker, and then does
// nothing more: the worker's process died (kill -9) while sending.
func (f *fixture) deadWorkerClaims(t *testing.T) []*rivertype.JobRow {
	t.Helper()
	return f.jobs.Abandon(jobs.SendEmail{}.Kind())
}

// A worker whose process dies while sending loses nothing: River rescues its job once the
// attempt's time (3 minutes) has passed, and the message is sent then, the lapsed attempt
// counted.
func TestAMessageClaimedByADeadWorkerIsSentAfterItsLease(t *testing.T) {
	t.Parallel()
	f, clock := clockedFixture(t)
	d := f.enqueue(t, domain.OutboundEmail{ToAddress: "ada@example.org", Subject: "Lease", BodyText: "x"})
	if claimed := f.deadWorkerClaims(t); len(claimed) != 1 {
		t.Fatalf("claim: %v", claimed)
	}
	if n := f.run(t); n != 0 {
		t.Fatal("a message being sent was taken twice")
	}
	clock.Advance(2 * time.Minute)
	if n := f.run(t); n != 0 {
		t.Fatal("a message was taken again before its attempt's time ran out")
	}
	clock.Advance(time.Minute + time.Second) // the attempt's time runs out
	f.run(t)
	if s := f.status(t, d.ID); s.Status != "sent" || s.Attempts != 2 {
		t.Fatalf("after the rescue: %+v", s)
	}
}

// A message whose sending stops the process every time (the worker never records an outcome)
// counts each lapsed attempt, and is given up at the cap instead of stopping the process again
// after every restart: the run after the last lapsed attempt only records it failed.
func TestLapsedLeasesCountTowardTheAttemptCap(t *testing.T) {
	t.Parallel()
	f, clock := clockedFixture(t)
	f.worker.MaxAttempts = 3
	d := f.enqueue(t, domain.OutboundEmail{ToAddress: "ada@example.org", Subject: "Crash", BodyText: "x"})
	for attempt := 1; attempt <= 3; attempt++ {
		if claimed := f.deadWorkerClaims(t); len(claimed) != 1 || claimed[0].Attempt != attempt {
			t.Fatalf("claim %d: %+v", attempt, claimed)
		}
		clock.Advance(3*time.Minute + time.Second)
	}
	// The third attempt has lapsed: the next run sends nothing and gives the message up.
	if n := f.run(t); n != 1 {
		t.Fatalf("run: %d", n)
	}
	s := f.status(t, d.ID)
	if s.Status != "failed" || s.Attempts != 3 || s.LastError == nil || !strings.Contains(*s.LastError, "gave up after 3 attempts") ||
		!strings.Contains(*s.LastError, "did not finish") {
		t.Fatalf("after three lapsed attempts: %+v %q", s, store.Deref(s.LastError))
	}
	if len(f.smtp.Messages()) != 0 {
		t.Fatal("the message was sent")
	}
	if n := f.run(t); n != 0 {
		t.Fatal("a message given up was taken again")
	}

	// A message in its last attempt is left alone until the attempt's time runs out.
	d = f.enqueue(t, domain.OutboundEmail{ToAddress: "ada@example.org", Subject: "Slow", BodyText: "x"})
	for range 3 {
		f.deadWorkerClaims(t)
		clock.Advance(2 * time.Minute)
		f.run(t)
		if s := f.status(t, d.ID); s.Status != "queued" {
			t.Fatalf("given up while being sent: %+v", s)
		}
		clock.Advance(time.Minute + time.Second)
	}
	f.run(t)
	if s := f.status(t, d.ID); s.Status != "failed" || s.Attempts != 3 {
		t.Fatalf("after its last attempt's time: %+v", s)
	}
}

// A panic while a message is prepared (in the renderer, say) is recovered: the message is
// recorded as failed for good, the panic is logged with its stack, and the worker goes on
// with the next message.
func TestAPanicWhilePreparingFailsThatMessageAndTheWorkerGoesOn(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	var logs syncBuffer
	f.worker.Logger = slog.New(slog.NewJSONHandler(&logs, nil))
	f.worker.Prepare = func(_ context.Context, d *domain.EmailDelivery) ([]email.Attachment, error) {
		if d.Subject == "Boom" {
			explode()
		}
		return nil, nil
	}
	sent := make(chan uuid.UUID, 10)
	f.worker.Sender = notifying{Sender: f.worker.Sender, sent: sent}
	boom := f.enqueue(t, domain.OutboundEmail{ToAddress: "ada@example.org", Subject: "Boom", BodyText: "x"})
	next := f.enqueue(t, domain.OutboundEmail{ToAddress: "grace@example.org", Subject: "Fine", BodyText: "x"})

	// The worker runs as the service runs it: on a River client.
	queue, err := jobqueue.New(f.store, jobqueue.Workers{Email: f.worker}, f.worker.Logger, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := queue.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	stop := sync.OnceFunc(func() { _ = queue.Stop(context.Background()) })
	t.Cleanup(stop)
	waitForSend(t, sent, next.ID)
	// Still running: a message recorded now is sent too, with no wake-up but River's.
	later := f.enqueue(t, domain.OutboundEmail{ToAddress: "alan@example.org", Subject: "Later", BodyText: "x"})
	waitForSend(t, sent, later.ID)
	stop() // the client lets each running job record its outcome before it returns

	s := f.status(t, boom.ID)
	if s.Status != "failed" || s.Attempts != 1 || s.LastError == nil || !strings.Contains(*s.LastError, "internal error") ||
		!strings.Contains(*s.LastError, "not retried") {
		t.Fatalf("the message that panicked: %+v %q", s, store.Deref(s.LastError))
	}
	for _, id := range []uuid.UUID{next.ID, later.ID} {
		if s := f.status(t, id); s.Status != "sent" {
			t.Fatalf("message after the panic: %+v", s)
		}
	}
	var line struct {
		Level, Msg, Panic, Stack string
		DeliveryID               string `json:"delivery_id"`
	}
	for l := range strings.SplitSeq(logs.String(), "\n") {
		if strings.Contains(l, `"panic"`) {
			_ = json.Unmarshal([]byte(l), &line)
		}
	}
	if line.Level != "ERROR" || line.DeliveryID != boom.ID.String() || line.Panic != "glyph index out of range" ||
		!strings.Contains(line.Stack, "email_test.explode") {
		t.Fatalf("panic log: %+v\n%s", line, logs.String())
	}
}

func explode() { panic("glyph index out of range") }

// notifying tells the test each message it handed on.
type notifying struct {
	email.Sender
	sent chan<- uuid.UUID
}

func (n notifying) Send(ctx context.Context, d domain.EmailDelivery, m *gomail.Msg) error {
	err := n.Sender.Send(ctx, d, m)
	if err == nil {
		n.sent <- d.ID
	}
	return err
}

func waitForSend(t *testing.T, sent <-chan uuid.UUID, id uuid.UUID) {
	t.Helper()
	timeout := time.After(30 * time.Second)
	for {
		select {
		case got := <-sent:
			if got == id {
				return
			}
		case <-timeout:
			t.Fatalf("message %s was not sent", id)
		}
	}
}

type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// mimeParts walks a MIME entity and returns every leaf part: its headers and decoded body.
func mimeParts(t *testing.T, header textproto.MIMEHeader, body io.Reader) []mimePart {
	t.Helper()
	media, params, err := mime.ParseMediaType(header.Get("Content-Type"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(media, "multipart/") {
		b, _ := io.ReadAll(body)
		if header.Get("Content-Transfer-Encoding") == "base64" {
			b, _ = base64.StdEncoding.DecodeString(strings.NewReplacer("\r", "", "\n", "").Replace(string(b)))
		}
		return []mimePart{{media, header, b}}
	}
	var out []mimePart
	r := multipart.NewReader(body, params["boundary"])
	for {
		p, err := r.NextPart()
		if err != nil {
			return out
		}
		out = append(out, mimeParts(t, p.Header, p)...)
	}
}

type mimePart struct {
	media  string
	header textproto.MIMEHeader
	body   []byte
}

// A delivery email is the recorded plain text, word for word, and beside it the branded HTML:
// the account's colour, its logo inline as cid:logo (an SVG logo sent as PNG), the link as a
// button; sent through a real SMTP server.
func TestMessagesAreSentAsPlainTextAndBrandedHTML(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	logo := `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 100 40"><rect width="100" height="40" fill="#0E7C66"/></svg>`
	name, colour, site := "Gophers e.V.", "#0E7C66", "https://gophers.example.org"
	uri := "data:image/svg+xml;base64," + base64.StdEncoding.EncodeToString([]byte(logo))
	if _, err := f.store.PutBranding(context.Background(), f.account, domain.Branding{IssuerName: &name, PrimaryColor: &colour, Website: &site, Logo: &uri}, time.Now()); err != nil {
		t.Fatal(err)
	}
	body := "Hello Ada,\n\nyour certificate for Go Conference 2026 is attached (CERT-2026-000042).\n\nAnyone can verify it at:\nhttps://certs.example.org/verify/7K3M9QX2PB4T?t=tok\n\nGophers e.V.\n"
	f.enqueue(t, domain.OutboundEmail{Kind: "certificate", ToAddress: "ada@example.org", Subject: "Your certificate: Go Conference 2026", BodyText: body})
	f.run(t)
	got := f.smtp.Messages()
	if len(got) != 1 {
		t.Fatalf("%d messages", len(got))
	}
	msg, err := mail.ReadMessage(bytes.NewReader(got[0].Data))
	if err != nil {
		t.Fatal(err)
	}
	parts := mimeParts(t, textproto.MIMEHeader(msg.Header), msg.Body)
	var text, html string
	var logoPart *mimePart
	for i, p := range parts {
		switch p.media {
		case "text/plain":
			text = string(p.body)
		case "text/html":
			html = string(p.body)
		case "image/png":
			logoPart = &parts[i]
		}
	}
	if strings.ReplaceAll(text, "\r\n", "\n") != body {
		t.Fatalf("the text part is not the recorded text:\n%q", text)
	}
	for _, want := range []string{"Your certificate is ready", `href="https://certs.example.org/verify/7K3M9QX2PB4T?t=tok"`, "View and verify your certificate",
		"#0E7C66", `src="cid:logo"`, "your certificate for Go Conference 2026 is attached (CERT-2026-000042).", "Anyone can verify it at:", site} {
		if !strings.Contains(html, want) {
			t.Errorf("the HTML part lacks %q:\n%s", want, html)
		}
	}
	if logoPart == nil || logoPart.header.Get("Content-Id") != "<logo>" {
		t.Fatalf("no inline logo with Content-ID <logo>: %d parts", len(parts))
	}
	if img, err := png.Decode(bytes.NewReader(logoPart.body)); err != nil || img.Bounds().Dx() > 440 {
		t.Fatalf("the logo is not a PNG at most 440 px wide: %v", err)
	}
	// The alternative part lists the plain text first, so that clients prefer the HTML.
	if strings.Index(string(got[0].Data), "text/plain") > strings.Index(string(got[0].Data), "text/html") {
		t.Fatal("text/html comes before text/plain")
	}
}

// The API key notice's indented "Label: value" lines become the HTML's detail rows.
func TestAPIKeyNoticeDetailsBecomeRows(t *testing.T) {
	t.Parallel()
	b := email.FromText(domain.EmailDelivery{OutboundEmail: domain.OutboundEmail{Kind: "api_key_created", Subject: "A new API key",
		BodyText: "Hello Ada,\n\na new API key was created for Academy.\n\n  Name:       ci\n  Scopes:     events:read\n  Expires:    never\n\nIf you did not expect this key, delete it.\n"}}, email.Brand{Name: "Academy"})
	if b.Heading != "A new API key was created" || len(b.Paragraphs) != 3 || len(b.Details) != 3 || b.Button != nil {
		t.Fatalf("%+v", b)
	}
	b = email.FromText(domain.EmailDelivery{OutboundEmail: domain.OutboundEmail{Kind: "api_key_created",
		BodyText: "Hi,\n\n  Name:       ci\n  Scopes:     events:read, events:write\n"}}, email.Brand{})
	if len(b.Details) != 2 || b.Details[1] != [2]string{"Scopes", "events:read, events:write"} {
		t.Fatalf("details %+v", b.Details)
	}
}
