package openbadges

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"time"
)

// Context is the JSON-LD context of every Open Badges 2.0 document.
const Context = "https://w3id.org/openbadges/v2"

// RecipientIdentity hashes an email for a recipient object: "sha256$" and the hex SHA-256 of
// the email, trimmed and lower-cased, followed by the salt.
func RecipientIdentity(email, salt string) string {
	sum := sha256.Sum256([]byte(strings.ToLower(strings.TrimSpace(email)) + salt))
	return "sha256$" + hex.EncodeToString(sum[:])
}

// Recipient is an assertion's hashed email identity.
type Recipient struct {
	Type     string `json:"type"`
	Hashed   bool   `json:"hashed"`
	Salt     string `json:"salt"`
	Identity string `json:"identity"`
}

// EmailRecipient returns the hashed recipient object of an email.
func EmailRecipient(email, salt string) Recipient {
	return Recipient{Type: "email", Hashed: true, Salt: salt, Identity: RecipientIdentity(email, salt)}
}

// Verification says how an assertion is checked; hosted: by fetching its id.
type Verification struct {
	Type string `json:"type"`
}

// Assertion is a hosted Open Badges 2.0 assertion.
type Assertion struct {
	Context      string       `json:"@context"`
	Type         string       `json:"type"`
	ID           string       `json:"id"`
	Recipient    Recipient    `json:"recipient"`
	Badge        string       `json:"badge"`
	Verification Verification `json:"verification"`
	IssuedOn     string       `json:"issuedOn"`
	Expires      string       `json:"expires,omitempty"`
	Image        string       `json:"image,omitempty"`
}

// NewAssertion builds a hosted assertion: its own URL, the BadgeClass URL, the recipient's
// email hashed with salt, and its dates.
func NewAssertion(id, badgeClass, email, salt, image string, issuedOn time.Time, expires *time.Time) Assertion {
	a := Assertion{Context: Context, Type: "Assertion", ID: id, Recipient: EmailRecipient(email, salt), Badge: badgeClass,
		Verification: Verification{Type: "hosted"}, IssuedOn: issuedOn.UTC().Format(time.RFC3339), Image: image}
	if expires != nil {
		a.Expires = expires.UTC().Format(time.RFC3339)
	}
	return a
}

// RevokedAssertion is what a revoked assertion's URL answers (with 410 Gone).
type RevokedAssertion struct {
	Context          string `json:"@context"`
	ID               string `json:"id"`
	Revoked          bool   `json:"revoked"`
	RevocationReason string `json:"revocationReason,omitempty"`
}

// Criteria says what earns a badge.
type Criteria struct {
	ID        string `json:"id,omitempty"`
	Narrative string `json:"narrative,omitempty"`
}

// BadgeClass describes a badge.
type BadgeClass struct {
	Context     string   `json:"@context"`
	Type        string   `json:"type"`
	ID          string   `json:"id"`
	Name        string   `json:"name"`
	Description string   `json:"description"`
	Image       string   `json:"image"`
	Criteria    Criteria `json:"criteria"`
	Issuer      string   `json:"issuer"`
	Tags        []string `json:"tags"`
}

// Issuer is an issuer's profile.
type Issuer struct {
	Context string `json:"@context"`
	Type    string `json:"type"`
	ID      string `json:"id"`
	Name    string `json:"name"`
	URL     string `json:"url,omitempty"`
	Email   string `json:"email,omitempty"`
	Image   string `json:"image,omitempty"`
}
