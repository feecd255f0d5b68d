package domain

import (
	"time"

	"github.com/google/uuid"
)

// SSOConfig is an account's OpenID Connect provider. The client secret stays sealed in the
// store and never leaves it but to the service that signs in.
type SSOConfig struct {
	AccountID   uuid.UUID
	Issuer      string
	ClientID    string
	DefaultRole string // viewer or issuer
	Enforced    bool
	CreatedAt   time.Time
	UpdatedAt   time.Time
}

// SSODomain is a domain an account claimed for single sign-on; it counts once verified.
type SSODomain struct {
	Domain     string
	Token      string // published as the TXT record credentiald-verification=<token>
	VerifiedAt *time.Time
	CreatedAt  time.Time
}

// VerificationRecord is the TXT record that proves the domain is the account's.
func (d SSODomain) VerificationRecord() string { return "credentiald-verification=" + d.Token }
