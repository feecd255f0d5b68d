package vc

import (
	"bytes"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mr-tron/base58"
	"github.com/piprate/json-gold/ld"
)

const vectors = "testdata/w3c-vc-di-eddsa"

func readVector(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(vectors, name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func trimmed(t *testing.T, name string) string {
	return strings.TrimSpace(string(readVector(t, name)))
}

// vectorLoader serves the shipped contexts and the examples context the vectors use.
func vectorLoader(t *testing.T) *DocumentLoader {
	t.Helper()
	l := NewDocumentLoader()
	var doc any
	if err := json.Unmarshal(readVector(t, "credentials-examples-v2.jsonld"), &doc); err != nil {
		t.Fatal(err)
	}
	const url = "https://www.w3.org/ns/credentials/examples/v2"
	l.docs[url] = &ld.RemoteDocument{DocumentURL: url, Document: doc}
	return l
}

// vectorKey decodes the vectors' key pair: secretKeyMultibase is multicodec ed25519-priv
// (0x1300, varint 0x80 0x26) and the 32-byte seed.
func vectorKey(t *testing.T) ed25519.PrivateKey {
	t.Helper()
	var kp struct{ PublicKeyMultibase, PrivateKeyMultibase string }
	if err := json.Unmarshal(readVector(t, "keyPair.json"), &kp); err != nil {
		t.Fatal(err)
	}
	raw, err := base58.Decode(strings.TrimPrefix(kp.PrivateKeyMultibase, "z"))
	if err != nil || len(raw) != 34 || raw[0] != 0x80 || raw[1] != 0x26 {
		t.Fatalf("secret key multibase: %x %v", raw, err)
	}
	key := ed25519.NewKeyFromSeed(raw[2:])
	if got := Multibase(key.Public().(ed25519.PublicKey)); got != kp.PublicKeyMultibase {
		t.Fatalf("Multibase(public key) = %s, the vectors say %s", got, kp.PublicKeyMultibase)
	}
	pub, err := ParseMultibase(kp.PublicKeyMultibase)
	if err != nil || !pub.Equal(key.Public()) {
		t.Fatalf("ParseMultibase: %v", err)
	}
	return key
}

// Every intermediate value of Appendix B.1 of Data Integrity EdDSA Cryptosuites v1.0, in order,
// so that a regression names the step that broke: canonical document, canonical proof
// configuration, both hashes, the signature, the signed document byte for byte (as JSON).
func TestW3CTestVectorsEddsaRdfc2022(t *testing.T) {
	t.Parallel()
	l := vectorLoader(t)
	key := vectorKey(t)
	signer := NewSigner("did:key:"+Multibase(key.Public().(ed25519.PublicKey)), key)
	signer.loader = l

	var unsigned map[string]any
	if err := json.Unmarshal(readVector(t, "unsigned.json"), &unsigned); err != nil {
		t.Fatal(err)
	}
	canonDoc, err := l.canonicalize(unsigned, ownBounds)
	if err != nil {
		t.Fatal(err)
	}
	if want := trimmed(t, "canonDocDataInt.txt"); strings.TrimSpace(canonDoc) != want {
		t.Fatalf("canonical document:\n%s\nwant:\n%s", canonDoc, want)
	}
	var config map[string]any
	if err := json.Unmarshal(readVector(t, "proofConfigDataInt.json"), &config); err != nil {
		t.Fatal(err)
	}
	canonConfig, err := l.canonicalize(config, ownBounds)
	if err != nil {
		t.Fatal(err)
	}
	if want := trimmed(t, "proofCanonDataInt.txt"); strings.TrimSpace(canonConfig) != want {
		t.Fatalf("canonical proof configuration:\n%s\nwant:\n%s", canonConfig, want)
	}
	docHash, configHash := sha256.Sum256([]byte(canonDoc)), sha256.Sum256([]byte(canonConfig))
	if got := hex.EncodeToString(docHash[:]); got != trimmed(t, "docHashDataInt.txt") {
		t.Fatalf("document hash %s", got)
	}
	if got := hex.EncodeToString(configHash[:]); got != trimmed(t, "proofHashDataInt.txt") {
		t.Fatalf("proof configuration hash %s", got)
	}

	created, _ := time.Parse(time.RFC3339, config["created"].(string))
	signed, err := signer.SignDataIntegrity(readVector(t, "unsigned.json"), created)
	if err != nil {
		t.Fatal(err)
	}
	var got, want map[string]any
	_ = json.Unmarshal(signed, &got)
	_ = json.Unmarshal(readVector(t, "signedDataInt.json"), &want)
	gotProof, _ := json.Marshal(got["proof"])
	wantProof, _ := json.Marshal(want["proof"])
	if !bytes.Equal(gotProof, wantProof) {
		t.Fatalf("proof:\n%s\nwant:\n%s", gotProof, wantProof)
	}
	sig, _ := base58.Decode(strings.TrimPrefix(want["proof"].(map[string]any)["proofValue"].(string), "z"))
	if hex.EncodeToString(sig) != trimmed(t, "sigHexDataInt.txt") || "z"+base58.Encode(sig) != trimmed(t, "sigBTC58DataInt.txt") {
		t.Fatal("the vectors' signature files disagree with signedDataInt.json")
	}
	gotAll, _ := json.Marshal(got)
	wantAll, _ := json.Marshal(want)
	if !bytes.Equal(gotAll, wantAll) {
		t.Fatalf("signed document:\n%s\nwant:\n%s", gotAll, wantAll)
	}

	// The Go verifier finds the signature good but refuses the document: its issuer
	// (https://vc.example/issuers/5678) does not control the did:key that signed, which a
	// verifiable credential requires (Digital Bazaar's CredentialIssuancePurpose refuses it too).
	resolve := func(vm string) (ed25519.PublicKey, error) {
		return ParseMultibase(strings.SplitN(vm, "#", 2)[1])
	}
	_, err = l.verifyDataIntegrity(readVector(t, "signedDataInt.json"), resolve, credentialBounds)
	if err == nil || !strings.Contains(err.Error(), "is not the issuer's") {
		t.Fatalf("verify the vectors' signed document: %v, want the issuer refusal", err)
	}
	delete(want, "proof")
	data, err := l.hashData(want, Proof{Type: ProofType, Cryptosuite: Cryptosuite, Created: config["created"].(string),
		VerificationMethod: signer.VerificationMethod, ProofPurpose: ProofPurpose}, ownBounds)
	if err != nil || hex.EncodeToString(data) != trimmed(t, "combinedHashDataInt.txt") || !ed25519.Verify(key.Public().(ed25519.PublicKey), data, sig) {
		t.Fatalf("combined hash %x (%v) or its signature", data, err)
	}
}
