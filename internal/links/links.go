// Package links is where credentiald's URLs are made: the public site's pages and documents,
// rooted at site_url, and the API's own paths, which Location headers name. The paths it
// writes are the ones internal/httpapi serves (openapi/v1.json for those under /api/v1);
// nothing else in the application spells them.
package links

import (
	"net/url"
	"strings"

	"github.com/google/uuid"
)

// API is the prefix of every operation of the contract.
const API = "/api/v1"

// Site makes the absolute URLs of the public site at one site_url. Its zero value makes
// site-relative URLs.
type Site struct {
	root string // site_url without a trailing slash
}

// New returns the Site rooted at siteURL (for example https://certs.example.org).
func New(siteURL string) Site { return Site{root: strings.TrimSuffix(siteURL, "/")} }

// Root is site_url, without a trailing slash.
func (s Site) Root() string { return s.root }

// Verification is the public page of a verification code: {site}/verify/{code}.
func (s Site) Verification(code string) string { return s.root + VerificationPage(code) }

// VerificationAsset is one of a code's public assets: {site}/api/v1/verify/{code}/{asset}
// (qr, preview.png, share.png, certificate.pdf, badge.png, badge.svg, issuer-logo,
// credential.json, credential.jwt).
func (s Site) VerificationAsset(code, asset string) string {
	return s.root + VerificationAssetPath(code, asset)
}

// IssuerLogo is the logo of the issuer of a code's credential.
func (s Site) IssuerLogo(code string) string { return s.VerificationAsset(code, "issuer-logo") }

// BakedBadge is an assertion's badge image with the assertion baked in, in format png or svg.
func (s Site) BakedBadge(code, format string) string {
	return s.VerificationAsset(code, "badge."+format)
}

// Every assertion is published as Open Badges 2.0, verified by hosting: its Assertion, its
// badge's BadgeClass and the account's Issuer Profile live at the site root under /ob/v2/,
// and each document's id is its own URL.

// OpenBadgesAssertion is the URL of an assertion's hosted Open Badges 2.0 document.
func (s Site) OpenBadgesAssertion(id uuid.UUID) string {
	return s.root + "/ob/v2/assertions/" + id.String()
}

// OpenBadgesBadgeClass is the URL of a badge's Open Badges 2.0 BadgeClass.
func (s Site) OpenBadgesBadgeClass(id uuid.UUID) string {
	return s.root + "/ob/v2/badges/" + id.String()
}

// OpenBadgesIssuer is the URL of an account's Open Badges 2.0 Issuer Profile.
func (s Site) OpenBadgesIssuer(accountID uuid.UUID) string {
	return s.root + "/ob/v2/issuers/" + accountID.String()
}

// Wallet delivery: an offer's interaction (a page for people, the protocols for wallets), its
// VC API exchange, and the account's OpenID4VCI credential issuer with its offers.

// Interaction is where a claim of an offer starts: {site}/interactions/{token}?iuv=1 (the
// parameter tells a wallet that reads it that the URL is an interaction URL).
func (s Site) Interaction(token string) string { return s.root + "/interactions/" + token + "?iuv=1" }

// Exchange is the VC API exchange of an offer.
func (s Site) Exchange(token string) string { return s.root + "/exchanges/" + token }

// Issuer is an account's OpenID4VCI credential issuer identifier, the root of its issuer
// endpoints and documents: {site}/issuers/{account}.
func (s Site) Issuer(accountID uuid.UUID) string { return s.root + "/issuers/" + accountID.String() }

// CredentialOffer is the OpenID4VCI credential offer of an offer, by reference.
func (s Site) CredentialOffer(accountID uuid.UUID, token string) string {
	return s.Issuer(accountID) + "/offers/" + token
}

// VerificationPage is the site-relative path of a code's public page: /verify/{code}. code
// is written as it is: verification codes are letters and digits.
func VerificationPage(code string) string { return "/verify/" + code }

// EscapedVerificationPage is VerificationPage for a code that may hold anything, escaped.
func EscapedVerificationPage(code string) string { return VerificationPage(url.PathEscape(code)) }

// VerificationShare is the site-relative path the page's share buttons follow:
// /verify/{code}/share/{network} (network "copy" is the beacon of the copy button).
func VerificationShare(code, network string) string {
	return VerificationPage(code) + "/share/" + network
}

// VerificationAssetPath is the site-relative path of one of a code's public assets:
// /api/v1/verify/{code}/{asset}.
func VerificationAssetPath(code, asset string) string {
	return API + "/verify/" + code + "/" + asset
}

// The API's resources, as Location headers name them (site-relative).

// Certificate is /api/v1/certificates/{id}.
func Certificate(id uuid.UUID) string { return API + "/certificates/" + id.String() }

// Event is /api/v1/events/{id}.
func Event(id uuid.UUID) string { return API + "/events/" + id.String() }

// Attendee is /api/v1/attendees/{id}.
func Attendee(id uuid.UUID) string { return API + "/attendees/" + id.String() }

// Template is /api/v1/templates/{id}.
func Template(id uuid.UUID) string { return API + "/templates/" + id.String() }

// Webhook is /api/v1/webhooks/{id}.
func Webhook(id uuid.UUID) string { return API + "/webhooks/" + id.String() }

// BulkJob is /api/v1/events/{eventId}/certificates/generate/jobs/{jobId}.
func BulkJob(eventID, jobID uuid.UUID) string {
	return Event(eventID) + "/certificates/generate/jobs/" + jobID.String()
}
