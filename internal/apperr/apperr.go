// Package apperr defines the one application error type. Its codes are the contract's
// `error.code` values; the HTTP edge (internal/httperr) maps each code to a status in one
// table, so nothing here speaks HTTP.
package apperr

import (
	"errors"
	"fmt"
	"time"
)

// Code is a stable error code of the contract.
type Code string

// The contract's error codes.
const (
	ValidationError       Code = "VALIDATION_ERROR"
	InvalidAPIKey         Code = "INVALID_API_KEY"
	InvalidCredentials    Code = "INVALID_CREDENTIALS"
	TwoFactorRequired     Code = "TWO_FACTOR_REQUIRED"
	CreditLimit           Code = "CREDIT_LIMIT"
	InsufficientScope     Code = "INSUFFICIENT_SCOPE"
	APIKeyNotAllowed      Code = "API_KEY_NOT_ALLOWED"
	NotFound              Code = "NOT_FOUND"
	MethodNotAllowed      Code = "METHOD_NOT_ALLOWED"
	AlreadyIssued         Code = "ALREADY_ISSUED"
	IdempotencyInProgress Code = "IDEMPOTENCY_IN_PROGRESS"
	Conflict              Code = "CONFLICT"
	AttendeeHasCerts      Code = "ATTENDEE_HAS_CERTIFICATES"
	AttendeeHasBadges     Code = "ATTENDEE_HAS_BADGES"
	RequestTimeout        Code = "REQUEST_TIMEOUT"
	PayloadTooLarge       Code = "PAYLOAD_TOO_LARGE"
	IdempotencyKeyReused  Code = "IDEMPOTENCY_KEY_REUSED"
	RateLimited           Code = "RATE_LIMITED"
	Internal              Code = "INTERNAL"
	NotImplemented        Code = "NOT_IMPLEMENTED"
	// OfferGone: a wallet offer that was claimed, expired, or whose credential was revoked.
	OfferGone Code = "OFFER_GONE"
	// InsufficientRole: the signed-in member's role is below the operation's; Required names
	// the least role that may.
	InsufficientRole Code = "INSUFFICIENT_ROLE"
	// EmailInUse: an invitation accepted for an address that has a user by now.
	EmailInUse Code = "EMAIL_IN_USE"
	// InvitationGone: an invitation accepted, revoked or past its expiry.
	InvitationGone Code = "INVITATION_GONE"
	// TokenGone: a password reset or address verification link used, expired or unknown.
	TokenGone Code = "TOKEN_GONE"
	// EmailNotVerified: a session of an unverified address where verified ones are required.
	EmailNotVerified Code = "EMAIL_NOT_VERIFIED"
	// Erased: a file of a credential whose holder was erased at their request.
	Erased Code = "ERASED"
	// Single sign-on (issue 51).
	SSORequired          Code = "SSO_REQUIRED"
	SSORefused           Code = "SSO_REFUSED"
	SSOLinkRequired      Code = "SSO_LINK_REQUIRED"
	DomainRecordNotFound Code = "DOMAIN_RECORD_NOT_FOUND"
)

// Detail names one input at fault, as `error.details[]` does.
type Detail struct {
	Field   string
	Message string
}

// Existing names the certificate behind ALREADY_ISSUED.
type Existing struct {
	ID                string
	CertificateNumber string
	VerificationCode  string
}

// Credits carries the figures behind CREDIT_LIMIT. Limit and Remaining are nil when unlimited.
type Credits struct {
	Limit     *int
	Used      int
	Remaining *int
	ResetsAt  time.Time
}

// Error is an expected failure, shown to the client as it is.
type Error struct {
	Code     Code
	Message  string
	Details  []Detail
	Required string    // INSUFFICIENT_SCOPE: the missing scope
	Existing *Existing // ALREADY_ISSUED
	Credits  *Credits  // CREDIT_LIMIT
	Location string    // a Location header to send along, if any
	Cause    error     // logged, never shown
}

func (e *Error) Error() string {
	if e.Cause != nil {
		return fmt.Sprintf("%s: %s: %v", e.Code, e.Message, e.Cause)
	}
	return fmt.Sprintf("%s: %s", e.Code, e.Message)
}

func (e *Error) Unwrap() error { return e.Cause }

// New returns an error with a code and a message for people.
func New(code Code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// Invalid returns a VALIDATION_ERROR naming one field.
func Invalid(field, message string) *Error {
	return &Error{Code: ValidationError, Message: "The request is not valid.", Details: []Detail{{Field: field, Message: message}}}
}

// As finds an *Error in err's chain.
func As(err error) (*Error, bool) {
	var e *Error
	ok := errors.As(err, &e)
	return e, ok
}

// CodeOf returns the code of err, or Internal when err is not an application error.
func CodeOf(err error) Code {
	if e, ok := As(err); ok {
		return e.Code
	}
	return Internal
}

// NoSuch is NOT_FOUND for a resource that is not in the caller's account: "No such <what>."
func NoSuch(what string) *Error { return New(NotFound, "No such %s.", what) }

// At adds a detail naming the input at fault (the field that pointed at a missing resource,
// for example) and returns e.
func (e *Error) At(field, message string) *Error {
	e.Details = append(e.Details, Detail{Field: field, Message: message})
	return e
}

// When returns e, with err as its cause, when err matches target (errors.Is); otherwise err
// itself, nil included. Services use it to turn the store's typed errors into the contract's:
// apperr.When(err, store.ErrNotFound, apperr.NoSuch("event")).
func When(err, target error, e *Error) error {
	if err == nil || !errors.Is(err, target) {
		return err
	}
	e.Cause = err
	return e
}

// Count is n with the English noun phrase that agrees with it, for the messages (in English,
// as every error.message is): Count(1, "issued certificate", "issued certificates") is
// "1 issued certificate", Count(0, ...) "0 issued certificates".
func Count(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}
