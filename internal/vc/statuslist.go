package vc

import (
	"bytes"
	"compress/gzip"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"math/big"
	"math/bits"
	"strconv"
	"strings"
	"time"
)

// StatusListSize is the number of entries of every list: 131,072 bits (16 KiB), the minimum
// the Bitstring Status List specification sets so that one credential's index says little
// about its holder (herd privacy).
const StatusListSize = 131072

// StatusListCacheControl is the Cache-Control for a served status list credential: verifiers
// may cache it, for five minutes at most, so a revocation shows within minutes.
const StatusListCacheControl = "public, max-age=300"

// ErrStatusListFull says that every index of a list is taken: open the account's next list.
var ErrStatusListFull = errors.New("vc: status list full")

// StatusList is a bitstring of StatusListSize entries. Index 0 is the most significant bit of
// the first byte (the specification's order; trustbloc/vc-go reads the least significant bit
// first, which is why this is written here). The zero value is not usable: use NewStatusList
// or StatusListFromBytes.
type StatusList struct {
	bits []byte
}

// NewStatusList returns a list with every bit clear.
func NewStatusList() *StatusList {
	return &StatusList{bits: make([]byte, StatusListSize/8)}
}

// StatusListFromBytes wraps a stored bitstring (Bytes) of exactly StatusListSize/8 bytes.
func StatusListFromBytes(b []byte) (*StatusList, error) {
	if len(b) != StatusListSize/8 {
		return nil, fmt.Errorf("vc: status list of %d bytes, want %d", len(b), StatusListSize/8)
	}
	return &StatusList{bits: bytes.Clone(b)}, nil
}

// Bytes is the bitstring, to store (a copy).
func (l *StatusList) Bytes() []byte { return bytes.Clone(l.bits) }

func checkIndex(i int) error {
	if i < 0 || i >= StatusListSize {
		return fmt.Errorf("vc: status list index %d outside 0..%d", i, StatusListSize-1)
	}
	return nil
}

// Set sets (revoked) or clears entry i.
func (l *StatusList) Set(i int, on bool) error {
	if err := checkIndex(i); err != nil {
		return err
	}
	mask := byte(0x80) >> (i % 8)
	if on {
		l.bits[i/8] |= mask
	} else {
		l.bits[i/8] &^= mask
	}
	return nil
}

// Get reports whether entry i is set.
func (l *StatusList) Get(i int) (bool, error) {
	if err := checkIndex(i); err != nil {
		return false, err
	}
	return l.bits[i/8]&(0x80>>(i%8)) != 0, nil
}

// Count is the number of set entries.
func (l *StatusList) Count() int {
	n := 0
	for _, b := range l.bits {
		n += bits.OnesCount8(b)
	}
	return n
}

// RandomClearIndex draws, with crypto/rand, one of the clear entries uniformly. Used on a list
// of taken indexes, it picks a new credential's statusListIndex; a uniform draw among the free
// ones keeps indexes unpredictable even as the list fills.
func (l *StatusList) RandomClearIndex() (int, error) {
	free := StatusListSize - l.Count()
	if free == 0 {
		return 0, ErrStatusListFull
	}
	r, err := rand.Int(rand.Reader, big.NewInt(int64(free)))
	if err != nil {
		return 0, fmt.Errorf("vc: random index: %w", err)
	}
	n := int(r.Int64()) // the n-th clear entry, counting from 0
	for bi, b := range l.bits {
		zeros := 8 - bits.OnesCount8(b)
		if n >= zeros {
			n -= zeros
			continue
		}
		for bit := 0; bit < 8; bit++ {
			if b&(0x80>>bit) == 0 {
				if n == 0 {
					return bi*8 + bit, nil
				}
				n--
			}
		}
	}
	panic("vc: RandomClearIndex counted wrong") // free > 0 guarantees a hit
}

// Encode is the list's encodedList: "u" (multibase base64url) and the unpadded base64url of the
// GZIP-compressed bitstring.
func (l *StatusList) Encode() string {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	_, _ = zw.Write(l.bits) // a bytes.Buffer does not fail
	_ = zw.Close()
	return "u" + base64.RawURLEncoding.EncodeToString(buf.Bytes())
}

// DecodeStatusList reads an encodedList of exactly StatusListSize entries. Decompression stops
// past the expected size, so a small hostile list cannot expand without bound.
func DecodeStatusList(encoded string) (*StatusList, error) {
	if !strings.HasPrefix(encoded, "u") {
		return nil, fmt.Errorf("vc: encodedList is not multibase base64url (no \"u\")")
	}
	z, err := base64.RawURLEncoding.DecodeString(encoded[1:])
	if err != nil {
		return nil, fmt.Errorf("vc: encodedList: %w", err)
	}
	zr, err := gzip.NewReader(bytes.NewReader(z))
	if err != nil {
		return nil, fmt.Errorf("vc: encodedList is not GZIP: %w", err)
	}
	b, err := io.ReadAll(io.LimitReader(zr, StatusListSize/8+1))
	if err != nil {
		return nil, fmt.Errorf("vc: encodedList: %w", err)
	}
	return StatusListFromBytes(b)
}

// StatusEntry is a credential's credentialStatus: its index in a revocation list.
type StatusEntry struct {
	ID                   string `json:"id"`
	Type                 string `json:"type"`
	StatusPurpose        string `json:"statusPurpose"`
	StatusListIndex      string `json:"statusListIndex"`
	StatusListCredential string `json:"statusListCredential"`
}

// StatusListURL is where an account's list is served: <siteURL>/issuers/<accountID>/status/<list>.
func StatusListURL(siteURL, accountID string, list int) string {
	return strings.TrimRight(siteURL, "/") + "/issuers/" + accountID + "/status/" + strconv.Itoa(list)
}

// NewStatusEntry points at entry index of the revocation list served at listURL.
func NewStatusEntry(listURL string, index int) (StatusEntry, error) {
	if err := checkIndex(index); err != nil {
		return StatusEntry{}, err
	}
	i := strconv.Itoa(index)
	return StatusEntry{
		ID:                   listURL + "#" + i,
		Type:                 "BitstringStatusListEntry",
		StatusPurpose:        "revocation",
		StatusListIndex:      i,
		StatusListCredential: listURL,
	}, nil
}

// StatusListCredential is a BitstringStatusListCredential, to sign with SignDataIntegrity.
type StatusListCredential struct {
	Context           []string          `json:"@context"`
	ID                string            `json:"id"`
	Type              []string          `json:"type"`
	Issuer            string            `json:"issuer"`
	ValidFrom         string            `json:"validFrom"`
	CredentialSubject StatusListSubject `json:"credentialSubject"`
}

// StatusListSubject is the list itself.
type StatusListSubject struct {
	ID            string `json:"id"`
	Type          string `json:"type"`
	StatusPurpose string `json:"statusPurpose"`
	EncodedList   string `json:"encodedList"`
}

// NewStatusListCredential is the revocation list served at listURL, issued by the same DID as
// the credentials pointing into it (verifiers check that the two issuers match). validFrom is
// when this state of the list was signed.
func NewStatusListCredential(listURL, issuerDID string, list *StatusList, validFrom time.Time) StatusListCredential {
	return StatusListCredential{
		Context:   []string{ContextCredentialsV2},
		ID:        listURL,
		Type:      []string{"VerifiableCredential", "BitstringStatusListCredential"},
		Issuer:    issuerDID,
		ValidFrom: formatTime(validFrom),
		CredentialSubject: StatusListSubject{
			ID:            listURL + "#list",
			Type:          "BitstringStatusList",
			StatusPurpose: "revocation",
			EncodedList:   list.Encode(),
		},
	}
}

// formatTime writes an xsd:dateTimeStamp in UTC to the second, as every date here.
func formatTime(t time.Time) string { return t.UTC().Format(time.RFC3339) }
