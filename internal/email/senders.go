package email

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"time"

	gomail "github.com/wneessen/go-mail"

	"github.com/certhub/credentiald/internal/domain"
)

// SMTPSender delivers through an SMTP server.
type SMTPSender struct {
	opts []gomail.Option
	host string
}

// NewSMTPSender reads SMTP_URL: smtp://[user:password@]host[:port][?tls=none|starttls] (STARTTLS
// when the server offers it, unless tls=none; tls=starttls requires it) or smtps://... for TLS
// from the first byte. tlsConfig may be nil.
func NewSMTPSender(rawURL string, tlsConfig *tls.Config) (*SMTPSender, error) {
	u, err := url.Parse(rawURL)
	if err != nil || u.Hostname() == "" {
		return nil, fmt.Errorf("SMTP_URL: want smtp://host:port or smtps://host:port")
	}
	opts := []gomail.Option{gomail.WithTimeout(30 * time.Second)}
	port := 25
	switch u.Scheme {
	case "smtp":
		switch u.Query().Get("tls") {
		case "", "opportunistic":
			opts = append(opts, gomail.WithTLSPolicy(gomail.TLSOpportunistic))
		case "starttls", "required":
			opts = append(opts, gomail.WithTLSPolicy(gomail.TLSMandatory))
		case "none":
			opts = append(opts, gomail.WithTLSPolicy(gomail.NoTLS))
		default:
			return nil, fmt.Errorf("SMTP_URL: tls=%q: want none, opportunistic or starttls", u.Query().Get("tls"))
		}
	case "smtps":
		port = 465
		opts = append(opts, gomail.WithSSL())
	default:
		return nil, fmt.Errorf("SMTP_URL: scheme %q: want smtp or smtps", u.Scheme)
	}
	if p := u.Port(); p != "" {
		if port, err = strconv.Atoi(p); err != nil {
			return nil, fmt.Errorf("SMTP_URL: port %q", p)
		}
	}
	opts = append(opts, gomail.WithPort(port))
	if tlsConfig != nil {
		opts = append(opts, gomail.WithTLSConfig(tlsConfig))
	}
	if u.User != nil {
		pass, _ := u.User.Password()
		opts = append(opts, gomail.WithSMTPAuth(gomail.SMTPAuthPlain),
			gomail.WithUsername(u.User.Username()), gomail.WithPassword(pass))
	}
	return &SMTPSender{opts: opts, host: u.Hostname()}, nil
}

// Send delivers one message. An SMTP 5xx answer is permanent; everything else (4xx, a refused
// or broken connection) is worth another try.
func (s *SMTPSender) Send(ctx context.Context, _ domain.EmailDelivery, m *gomail.Msg) error {
	c, err := gomail.NewClient(s.host, s.opts...)
	if err != nil {
		return &PermanentError{err}
	}
	err = c.DialAndSendWithContext(ctx, m)
	var se *gomail.SendError
	if errors.As(err, &se) && !se.IsTemp() && se.ErrorCode() >= 500 {
		return &PermanentError{err}
	}
	return err
}

// FileSender writes each message as an .eml file into a folder: the default when no SMTP
// server is configured, so that development never sends real mail.
type FileSender struct{ Dir string }

// Send writes the message atomically (a reader never sees half a file).
func (f FileSender) Send(_ context.Context, d domain.EmailDelivery, m *gomail.Msg) error {
	if err := os.MkdirAll(f.Dir, 0o750); err != nil {
		return err
	}
	name := filepath.Join(f.Dir, d.CreatedAt.UTC().Format("20060102T150405Z")+"-"+d.ID.String()+".eml")
	tmp, err := os.CreateTemp(f.Dir, ".writing-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := m.WriteTo(tmp); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), name)
}
