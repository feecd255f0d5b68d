package vc

import (
	"fmt"
	"strings"
	"time"
)

// OpenBadgeCredential is the credential of a certificate or a badge assertion (Open Badges
// 3.0 on the VC Data Model 2.0), members in the order they are published. Every member is
// defined by its two contexts (Canonicalize refuses undefined ones).
type OpenBadgeCredential struct {
	Context           []string           `json:"@context"`
	ID                string             `json:"id"`
	Type              []string           `json:"type"`
	Issuer            Profile            `json:"issuer"`
	ValidFrom         string             `json:"validFrom"`
	ValidUntil        string             `json:"validUntil,omitempty"`
	Name              string             `json:"name"`
	CredentialSubject AchievementSubject `json:"credentialSubject"`
	CredentialStatus  *StatusEntry       `json:"credentialStatus,omitempty"`
}

// Profile is the issuer.
type Profile struct {
	ID    string   `json:"id"`
	Type  []string `json:"type"`
	Name  string   `json:"name"`
	URL   string   `json:"url,omitempty"`
	Image *Image   `json:"image,omitempty"`
}

// Image is an Open Badges image reference.
type Image struct {
	ID   string `json:"id"`
	Type string `json:"type"`
}

// AchievementSubject is the recipient, known only by a salted hash of the email.
type AchievementSubject struct {
	// ID is the holder's DID once the credential is bound to a wallet; empty before.
	ID          string           `json:"id,omitempty"`
	Type        []string         `json:"type"`
	Identifier  []IdentityObject `json:"identifier"`
	Achievement Achievement      `json:"achievement"`
}

// IdentityObject is a hashed recipient identity.
type IdentityObject struct {
	Type         string `json:"type"`
	IdentityHash string `json:"identityHash"`
	IdentityType string `json:"identityType"`
	Hashed       bool   `json:"hashed"`
	Salt         string `json:"salt"`
}

// Achievement is what was earned: the event's certificate or the badge.
type Achievement struct {
	ID              string   `json:"id"`
	Type            []string `json:"type"`
	Name            string   `json:"name"`
	Description     string   `json:"description,omitempty"`
	Criteria        Criteria `json:"criteria"`
	AchievementType string   `json:"achievementType"`
}

// Criteria says how the achievement is earned.
type Criteria struct {
	Narrative string `json:"narrative"`
}

// CredentialInput is what a certificate or an assertion contributes to its credential.
type CredentialInput struct {
	// ID is the certificate's or the assertion's UUID; the credential id is urn:uuid:<ID>.
	ID string
	// IssuerDID is the account's DIDWeb; IssuerName, IssuerURL and IssuerImageURL its public
	// profile (URL and image are left out when empty).
	IssuerDID, IssuerName, IssuerURL, IssuerImageURL string
	// Name is the credential's name (the certificate's or badge's title).
	Name string
	// IdentityHash ("sha256$<hex>", as openbadges.RecipientIdentity computes it) and Salt
	// identify the recipient's email without showing it.
	IdentityHash, Salt string
	// AchievementID (a URL or URN), AchievementName, AchievementDescription, Narrative (the
	// criteria) and AchievementType (an Open Badges achievement type, "Certificate" or "Badge")
	// describe what was earned.
	AchievementID, AchievementName, AchievementDescription, Narrative, AchievementType string
	// IssuedAt becomes validFrom and ExpiresAt, when set, validUntil.
	IssuedAt  time.Time
	ExpiresAt *time.Time
	// Status is the revocation entry (NewStatusEntry); nil leaves credentialStatus out.
	Status *StatusEntry
}

// NewOpenBadgeCredential builds the credential from its input. It checks only what would make
// the credential malformed whatever the text; text itself is checked on input and, for what
// canonicalization cannot take, when signing.
func NewOpenBadgeCredential(in CredentialInput) (OpenBadgeCredential, error) {
	switch {
	case in.ID == "" || strings.ContainsAny(in.ID, " #/?"):
		return OpenBadgeCredential{}, fmt.Errorf("vc: credential id %q is not a UUID", in.ID)
	case !strings.HasPrefix(in.IssuerDID, "did:"):
		return OpenBadgeCredential{}, fmt.Errorf("vc: issuer %q is not a DID", in.IssuerDID)
	case in.AchievementID == "" || !strings.Contains(in.AchievementID, ":"):
		return OpenBadgeCredential{}, fmt.Errorf("vc: achievement id %q is not an absolute IRI", in.AchievementID)
	case !strings.HasPrefix(in.IdentityHash, "sha256$"):
		return OpenBadgeCredential{}, fmt.Errorf("vc: identity hash %q is not sha256$<hex>", in.IdentityHash)
	case in.IssuedAt.IsZero():
		return OpenBadgeCredential{}, fmt.Errorf("vc: no issue time")
	}
	c := OpenBadgeCredential{
		Context: []string{ContextCredentialsV2, ContextOpenBadgesV3},
		ID:      "urn:uuid:" + in.ID,
		Type:    []string{"VerifiableCredential", "OpenBadgeCredential"},
		Issuer: Profile{
			ID:   in.IssuerDID,
			Type: []string{"Profile"},
			Name: in.IssuerName,
			URL:  in.IssuerURL,
		},
		ValidFrom: formatTime(in.IssuedAt),
		Name:      in.Name,
		CredentialSubject: AchievementSubject{
			Type: []string{"AchievementSubject"},
			Identifier: []IdentityObject{{
				Type:         "IdentityObject",
				IdentityHash: in.IdentityHash,
				IdentityType: "emailAddress",
				Hashed:       true,
				Salt:         in.Salt,
			}},
			Achievement: Achievement{
				ID:              in.AchievementID,
				Type:            []string{"Achievement"},
				Name:            in.AchievementName,
				Description:     in.AchievementDescription,
				Criteria:        Criteria{Narrative: in.Narrative},
				AchievementType: in.AchievementType,
			},
		},
		CredentialStatus: in.Status,
	}
	if in.IssuerImageURL != "" {
		c.Issuer.Image = &Image{ID: in.IssuerImageURL, Type: "Image"}
	}
	if in.ExpiresAt != nil {
		c.ValidUntil = formatTime(*in.ExpiresAt)
	}
	return c, nil
}
