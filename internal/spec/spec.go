// Package spec loads the published contract once, for the request validator, the scope
// checks and the contract tests: one document, one reading of it.
package spec

import (
	"context"
	"errors"
	"fmt"
	"net/mail"
	"regexp"
	"sync"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"

	"github.com/certhub/credentiald/openapi"
)

var (
	once   sync.Once
	doc    *openapi3.T
	docErr error
)

var uuidPattern = regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)

type emailFormat struct{}

func (emailFormat) Validate(v string) error {
	if !IsEmail(v) {
		return fmt.Errorf("not a valid email address")
	}
	return nil
}

// IsEmail reports whether v is one bare email address of at most 254 bytes (RFC 5321's limit
// of a path): no display name, no list, no line break. It is the contract's `email` format and
// the one check every email address goes through (accounts, attendees, outbound mail).
func IsEmail(v string) bool {
	a, err := mail.ParseAddress(v)
	return err == nil && a.Address == v && len(v) <= 254
}

type uuidFormat struct{}

func (uuidFormat) Validate(v string) error {
	if !uuidPattern.MatchString(v) {
		return fmt.Errorf("not a valid UUID")
	}
	return nil
}

// DateMessage is what a `date` that is not one is told.
const DateMessage = "must be a date as YYYY-MM-DD, a day that exists (2026-02-28, not 2026-02-30)"

// dateFormat checks a `date` by reading it: kin-openapi's own check is a pattern, which lets
// 2026-02-30 through to the handler's parsing (a 400 naming no field) and answers 2026-13-01
// with the pattern itself.
type dateFormat struct{}

func (dateFormat) Validate(v string) error {
	if _, err := time.Parse(time.DateOnly, v); err != nil {
		return errors.New(DateMessage)
	}
	return nil
}

// DateTimeMessage is what a `date-time` that is not one is told.
const DateTimeMessage = "must be a date and time in RFC 3339 with its time zone, for example 2026-11-12T09:00:00Z or 2026-11-12T10:00:00+01:00 (a date alone is not enough)"

// dateTimeFormat checks a `date-time` by reading it, for the same reasons as dateFormat.
type dateTimeFormat struct{}

func (dateTimeFormat) Validate(v string) error {
	if _, err := time.Parse(time.RFC3339Nano, v); err != nil {
		return errors.New(DateTimeMessage)
	}
	return nil
}

// Load returns the parsed, validated document. kin-openapi checks `uuid`, `email` and the
// contract's own `single-line` only with validators defined, and `date` and `date-time` by a
// pattern only, so
// Load defines them first.
func Load() (*openapi3.T, error) {
	once.Do(func() {
		openapi3.DefineStringFormatValidator("uuid", uuidFormat{})
		openapi3.DefineStringFormatValidator("email", emailFormat{})
		openapi3.DefineStringFormatValidator("date", dateFormat{})
		openapi3.DefineStringFormatValidator("date-time", dateTimeFormat{})
		openapi3.DefineStringFormatValidator(SingleLineFormat, singleLineFormat{})
		// A form's file part may come with any media type (browsers differ for one CSV file),
		// and kin-openapi decodes a part only with a decoder registered for its type: read
		// the others as they are, and let the operation judge the content.
		openapi3filter.RegisterBodyDecoder("*/*", openapi3filter.FileBodyDecoder)
		// A verifiable credential (application/vc) is JSON without the +json suffix.
		openapi3filter.RegisterBodyDecoder("application/vc", openapi3filter.JSONBodyDecoder)
		loader := openapi3.NewLoader()
		doc, docErr = loader.LoadFromData(openapi.Document)
		if docErr == nil {
			docErr = doc.Validate(context.Background())
		}
	})
	return doc, docErr
}

// MustLoad is Load for callers that cannot go on without the contract.
func MustLoad() *openapi3.T {
	d, err := Load()
	if err != nil {
		panic(fmt.Sprintf("openapi/v1.json: %v", err))
	}
	return d
}
