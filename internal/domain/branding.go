package domain

import (
	"time"
)

// Branding is how an account presents itself on credentials, pages and emails. Nil fields are
// unset.
type Branding struct {
	IssuerName    *string
	Website       *string
	Logo          *string
	PrimaryColor  *string
	EmailFromName *string
	EmailReplyTo  *string
	// PublicEmail is the issuer's public contact address (Open Badges 2.0 Issuer email).
	PublicEmail *string
	// DefaultLocale is the locale an event takes when it is created without one; nil: English.
	DefaultLocale *string
	// Signatories sign the account's certificates, in order (at most two); never nil when
	// read.
	Signatories []Signatory
	UpdatedAt   *time.Time // nil until first set
}

// Signatory is a person who signs an account's certificates, kept as one element of the
// branding's jsonb array.
type Signatory struct {
	Name           string  `json:"name"`
	Title          string  `json:"title,omitempty"`
	SignatureImage *string `json:"signatureImage,omitempty"` // data URI, or nil
}
