package testkit

import (
	"io"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/emersion/go-smtp"
)

// Mail is one message a test SMTP server accepted.
type Mail struct {
	From string
	To   []string
	Data []byte
}

// SMTP is a real SMTP server on loopback that keeps what it accepts. It can be told to refuse
// the next messages with a given reply, to provoke temporary and permanent failures.
type SMTP struct {
	Addr string

	mu       sync.Mutex
	messages []Mail
	refusals []*smtp.SMTPError
}

// SMTPServer starts an SMTP server on 127.0.0.1 for the test.
func SMTPServer(t testing.TB) *SMTP {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &SMTP{Addr: ln.Addr().String()}
	srv := smtp.NewServer(smtp.BackendFunc(func(*smtp.Conn) (smtp.Session, error) { return &smtpSession{srv: s}, nil }))
	srv.Domain = "localhost"
	srv.ReadTimeout, srv.WriteTimeout = 10*time.Second, 10*time.Second
	srv.MaxMessageBytes = 30 << 20
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	return s
}

// URL is the SMTP_URL of the server (plain text: it is on loopback).
func (s *SMTP) URL() string { return "smtp://" + s.Addr + "?tls=none" }

// Refuse makes the next message fail at DATA with code (4xx: temporary, 5xx: permanent).
func (s *SMTP) Refuse(code int, message string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	enh := smtp.EnhancedCode{code / 100, 0, 0}
	s.refusals = append(s.refusals, &smtp.SMTPError{Code: code, EnhancedCode: enh, Message: message})
}

// Messages returns what the server accepted so far.
func (s *SMTP) Messages() []Mail {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Mail(nil), s.messages...)
}

type smtpSession struct {
	srv  *SMTP
	mail Mail
}

func (ss *smtpSession) Reset()        { ss.mail = Mail{} }
func (ss *smtpSession) Logout() error { return nil }

func (ss *smtpSession) Mail(from string, _ *smtp.MailOptions) error {
	ss.mail.From = from
	return nil
}

func (ss *smtpSession) Rcpt(to string, _ *smtp.RcptOptions) error {
	ss.mail.To = append(ss.mail.To, to)
	return nil
}

func (ss *smtpSession) Data(r io.Reader) error {
	data, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	ss.srv.mu.Lock()
	defer ss.srv.mu.Unlock()
	if len(ss.srv.refusals) > 0 {
		refusal := ss.srv.refusals[0]
		ss.srv.refusals = ss.srv.refusals[1:]
		return refusal
	}
	ss.mail.Data = data
	ss.srv.messages = append(ss.srv.messages, ss.mail)
	return nil
}
