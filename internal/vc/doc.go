// Package vc signs the verifiable-credential forms of certificates and badge assertions: Open
// Badges 3.0 credentials (VC Data Model 2.0) with an embedded eddsa-rdfc-2022 Data Integrity
// proof or as VC-JOSE JWTs, the issuer's did:web document and JWK Set, and the Bitstring Status
// List that revokes them. No maintained Go library implements eddsa-rdfc-2022 or the status
// list, so both are written here, small, and checked against the W3C test vectors and against
// Digital Bazaar's JavaScript libraries (TestDigitalBazaarVerifiesOurCredentials).
//
// The package knows nothing of HTTP, the database or accounts beyond their ids. Wiring it:
//
//	did, _ := vc.DIDWeb(siteURL, accountID)                 // the issuer
//	signer := vc.NewSigner(did, privateKey)                  // the account's current key
//	entry, _ := vc.NewStatusEntry(vc.StatusListURL(siteURL, accountID, list), index)
//	cred, _ := vc.NewOpenBadgeCredential(vc.CredentialInput{ /* ... */ Status: &entry})
//	signed, _ := signer.SignDataIntegrity(cred, time.Now()) // credential.json (application/vc)
//	token, _ := signer.SignJWT(cred, signedAt)               // credential.jwt (application/vc+jwt)
//	doc := vc.NewDIDDocument(did, everyPublicKey)            // /issuers/{id}/did.json
//	set, _ := vc.NewJWKSet(did, everyPublicKey)              // /issuers/{id}/jwks.json
//
// Revocation keeps two StatusLists per account and list number, stored as Bytes: the indexes
// taken (RandomClearIndex draws a new credential's index from it; ErrStatusListFull means: open
// the next list) and the revoked ones, whose NewStatusListCredential is signed like any
// credential and served with StatusListCacheControl.
//
// Canonicalization is json-gold's JSON-LD expansion and RDF conversion, with a document loader
// that serves only the contexts shipped in contexts/ and refuses every other URL, then RDFC-1.0
// by internal/rdfc, which counts its work and stops at a limit. A document from outside (a
// holder's DID authentication, a credential to verify) is bounded before any of it: its
// bytes, JSON depth, values and objects, then its quads and blank nodes, then the
// canonicalizer's work (bounds.go); one over a bound is refused with a *BoundError naming it.
package vc
