// Package email delivers the messages other features record in email_deliveries: the River
// job queued with each message runs the worker, which composes it and hands it to a Sender
// (SMTP, or .eml files when no SMTP server is configured). Temporary failures are retried with
// backoff; permanent ones are recorded.
package email

import (
	"context"
	"errors"
	"fmt"
	"net/mail"
	"strings"
	"unicode"

	gomail "github.com/wneessen/go-mail"

	"github.com/certhub/credentiald/internal/domain"
	"github.com/certhub/credentiald/internal/spec"
)

// Sender hands a composed message to its next hop.
type Sender interface {
	Send(ctx context.Context, d domain.EmailDelivery, m *gomail.Msg) error
}

// PermanentError marks a failure that retrying cannot fix (a 5xx answer, a refused address).
type PermanentError struct{ Err error }

func (e *PermanentError) Error() string { return e.Err.Error() }
func (e *PermanentError) Unwrap() error { return e.Err }

func isPermanent(err error) bool {
	var p *PermanentError
	return errors.As(err, &p)
}

// Composer turns a recorded delivery into a message from the service's address.
type Composer struct {
	From   mail.Address // envelope sender and default display name
	Domain string       // right-hand side of Message-IDs
}

// ParseFrom reads MAIL_FROM ("Name <address>" or a bare address).
func ParseFrom(s string) (mail.Address, error) {
	a, err := mail.ParseAddress(s)
	if err != nil {
		return mail.Address{}, fmt.Errorf("MAIL_FROM %q: %w", s, err)
	}
	return *a, nil
}

// oneLine keeps a display name or subject on one line without control characters, whatever
// was stored: the header cannot be split, so nothing can be injected through it.
func oneLine(s string) string {
	return strings.TrimSpace(strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return ' '
		}
		return r
	}, s))
}

// Compose builds the message of a delivery. Names and the subject are encoded by the mail
// library (RFC 2047) after control characters are removed; addresses must parse as one address.
func (c Composer) Compose(d domain.EmailDelivery) (*gomail.Msg, error) {
	m := gomail.NewMsg()
	fromName := oneLine(d.FromName)
	if fromName == "" {
		fromName = c.From.Name
	}
	if err := m.FromFormat(fromName, c.From.Address); err != nil {
		return nil, &PermanentError{fmt.Errorf("from address: %w", err)}
	}
	to, err := singleAddress(d.ToAddress)
	if err != nil {
		return nil, &PermanentError{fmt.Errorf("recipient: %w", err)}
	}
	if err := m.AddToFormat(oneLine(d.ToName), to); err != nil {
		return nil, &PermanentError{fmt.Errorf("recipient: %w", err)}
	}
	if d.ReplyTo != nil && *d.ReplyTo != "" {
		rt, err := singleAddress(*d.ReplyTo)
		if err != nil {
			return nil, &PermanentError{fmt.Errorf("reply-to: %w", err)}
		}
		if err := m.ReplyTo(rt); err != nil {
			return nil, &PermanentError{fmt.Errorf("reply-to: %w", err)}
		}
	}
	m.Subject(oneLine(d.Subject))
	m.SetMessageIDWithValue(d.ID.String() + "@" + c.Domain)
	m.SetDateWithValue(d.CreatedAt)
	m.SetBodyString(gomail.TypeTextPlain, d.BodyText)
	return m, nil
}

// singleAddress accepts exactly one bare address: no name, no list, no line break.
func singleAddress(s string) (string, error) {
	if !spec.IsEmail(s) {
		return "", fmt.Errorf("%q is not a single email address", s)
	}
	return s, nil
}
