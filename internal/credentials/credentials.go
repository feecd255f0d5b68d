// Package credentials makes every issued certificate and badge assertion a verifiable
// credential: the account's Ed25519 issuer keys (the first made with the account, sealed at
// rest, rotated by the operator), each credential's entry in a Bitstring Status List (drawn at
// random in the issuing transaction, set in the revoking one), and the signed forms served to
// verifiers (the Open Badges 3.0 credential with an eddsa-rdfc-2022 proof or as a VC-JOSE JWT,
// the DID document, the JWK Set and the signed status lists). internal/vc does the
// cryptography; this package holds the rules and the transactions.
//
// Signed on request, never stored: a credential's content is frozen when it is issued (a
// certificate's snapshot, a badge assertion's claims in its entry) together with the time it
// was fixed (signed_at, the proof's created) and the key that signs it (the key active at that
// time), and Ed25519 and the canonical form are deterministic, so signing again gives the same
// bytes. Storing the signatures would put 2 to 3 ms of JSON-LD work into every issuing
// transaction, which holds the account's credit row; signing on request costs that once per
// credential and instance (a bounded cache keeps the answers), and a strong ETag made of the
// credential's version, read in one query, answers revalidations without building or signing.
package credentials

import (
	"time"

	"github.com/certhub/credentiald/internal/links"
	"github.com/certhub/credentiald/internal/secretbox"
	"github.com/certhub/credentiald/internal/store"
)

// Service serves the verifiable-credential forms and manages the issuer keys.
type Service struct {
	store  *store.Store
	box    *secretbox.Box
	links  links.Site
	now    func() time.Time
	signed *signedCache
}

// New returns the service. box seals the private keys; siteURL names the issuers
// (did:web:<host>:issuers:<account>) and the status lists.
func New(st *store.Store, box *secretbox.Box, siteURL string, now func() time.Time) *Service {
	if now == nil {
		now = time.Now
	}
	return &Service{store: st, box: box, links: links.New(siteURL), now: now, signed: newSignedCache(4096)}
}
