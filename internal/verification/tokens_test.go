package verification

import (
	"context"
	"crypto/sha256"
	"strings"
	"testing"
	"time"

	"github.com/certhub/credentiald/internal/changecache"
	"github.com/certhub/credentiald/internal/domain"
	"github.com/certhub/credentiald/internal/store"
)

// The rate limits check a recipient token before they count, so the check reads memory: a
// certificate the lookups keep is judged without the database, in any spelling of its code;
// what is not a token or a code is refused without a look; and a code the lookups do not keep
// is read only when the caller allows it (here it does not: the service has no store, and a
// read would fail the test).
func TestRecipientTokensAreCheckedFromMemory(t *testing.T) {
	s := &Service{lookups: changecache.New[string, store.VerifiedCertificate](10)}
	s.lookups.Listening()
	issued := time.Date(2026, 11, 12, 9, 0, 0, 0, time.UTC)
	hash := sha256.Sum256([]byte("the recipient's token"))
	gen, _ := s.lookups.Begin()
	s.lookups.Put(gen, "7K2M9QXRT4VZ1", store.VerifiedCertificate{Code: "7K2M9QXRT4VZ1", Status: domain.StoredCertificateIssued,
		IssuedAt: &issued, RecipientTokenHash: hash[:]})
	asked := 0
	never := func() bool { asked++; return false }
	for _, c := range []struct {
		code, token string
		valid       bool
		asks        int
	}{
		{"7K2M9QXRT4VZ1", "the recipient's token", true, 0},
		{"7k2m-9qxr-t4vz1", "the recipient's token", true, 0},
		{"7K2M9QXRT4VZ1", "another token", false, 0},
		{"7K2M9QXRT4VZ1", "", false, 0},
		{"7K2M9QXRT4VZ1", strings.Repeat("é", MaxTokenLength+1), false, 0},
		{"7K2M_9QXR", "the recipient's token", false, 0},
		{"AAAAAAAAAAAAA", "the recipient's token", false, 1},
	} {
		asked = 0
		valid, err := s.RecipientTokenValid(context.Background(), c.code, c.token, never)
		if err != nil || valid != c.valid || asked != c.asks {
			t.Errorf("%s with %.20q: valid %v, %v, asked %d times to read; want %v, asked %d", c.code, c.token, valid, err, asked, c.valid, c.asks)
		}
	}
}
