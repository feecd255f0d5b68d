package credentials_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/certhub/credentiald/internal/accounts"
	"github.com/certhub/credentiald/internal/credentials"
	"github.com/certhub/credentiald/internal/store"
	"github.com/certhub/credentiald/internal/testkit"
	"github.com/certhub/credentiald/internal/vc"
)

func TestMain(m *testing.M) { testkit.Main(m) }

func newWorld(t *testing.T) (*credentials.Service, *store.Store, uuid.UUID) {
	s, st, account, _ := newWorldAt(t)
	return s, st, account
}

func newWorldAt(t *testing.T) (*credentials.Service, *store.Store, uuid.UUID, string) {
	t.Helper()
	st, dbURL := testkit.Store(t)
	s := credentials.New(st, testkit.SecretBox(t), site, nil)
	acct, _, err := accounts.New(st, nil, accounts.WithIssuerKeys(s)).Create(context.Background(), accounts.CreateParams{
		Email: uuid.NewString() + "@example.org", Password: "correct horse battery", Name: "Ada", AccountName: "Society", Plan: "free"})
	if err != nil {
		t.Fatal(err)
	}
	return s, st, acct.ID, dbURL
}

// Indexes are drawn without collision, concurrent issuances included; a list 7/8 full whose
// random draws miss is marked full and the next one opened.
func TestStatusIndexesAreDistinctAndAFullListOpensTheNext(t *testing.T) {
	t.Parallel()
	_, st, account, dbURL := newWorldAt(t)
	ctx := context.Background()
	const capacity, n = 8, 20
	testkit.Race(n, func(i int) int {
		_, err := store.InTx(ctx, st, func(tx *store.Tx) (struct{}, error) {
			e := credentials.Entry{Kind: store.KindCertificate, AccountID: account, CredentialID: uuid.New()}
			return struct{}{}, credentials.AssignStatusWithCapacity(ctx, tx, e, time.Now(), capacity)
		})
		if err != nil {
			t.Errorf("issuance %d: %v", i, err)
			return 500
		}
		return 200
	})
	var rows []struct {
		List, Index int
	}
	var text string
	testkit.QueryRowAt(t, dbURL, `SELECT coalesce(json_agg(json_build_object('list', list, 'index', status_index)), '[]')::text
		FROM verifiable_credentials WHERE account_id = $1`, []any{account}, &text)
	if err := json.Unmarshal([]byte(text), &rows); err != nil {
		t.Fatal(err)
	}
	perList := map[int]map[int]bool{}
	for _, r := range rows {
		if perList[r.List] == nil {
			perList[r.List] = map[int]bool{}
		}
		if perList[r.List][r.Index] || r.Index < 0 || r.Index >= capacity {
			t.Fatalf("list %d index %d given twice or out of range", r.List, r.Index)
		}
		perList[r.List][r.Index] = true
	}
	// A list closes once 7/8 full when random draws miss (7 or 8 of 8 here), and only then.
	if len(rows) != n || len(perList) < 3 {
		t.Fatalf("%d entries over lists %v", len(rows), perList)
	}
	for list := 1; list < len(perList); list++ {
		if k := len(perList[list]); k < capacity*7/8 || k > capacity {
			t.Fatalf("list %d closed with %d of %d entries: %v", list, k, capacity, perList)
		}
	}
	for list, full := range map[int]bool{1: true, 2: true, 3: false} {
		l, err := st.FindStatusList(ctx, account, list)
		if err != nil || (l.FullAt != nil) != full {
			t.Fatalf("list %d: full %v, %v", list, l.FullAt, err)
		}
	}
}

// A revocation sets the credential's bit in the signed list, which gets a new ETag; the bits
// of the others stay clear; revoking again changes nothing.
func TestRevocationSetsTheBitInTheSignedList(t *testing.T) {
	t.Parallel()
	s, st, account := newWorld(t)
	ctx := context.Background()
	ids := []uuid.UUID{uuid.New(), uuid.New(), uuid.New()}
	for _, id := range ids {
		if _, err := store.InTx(ctx, st, func(tx *store.Tx) (struct{}, error) {
			return struct{}{}, credentials.AssignStatus(ctx, tx, credentials.Entry{Kind: store.KindCertificate, AccountID: account, CredentialID: id}, time.Now())
		}); err != nil {
			t.Fatal(err)
		}
	}
	before, err := s.StatusList(ctx, account, 1, "")
	if err != nil {
		t.Fatal(err)
	}
	if again, _ := s.StatusList(ctx, account, 1, before.ETag); !again.NotModified {
		t.Fatal("an unchanged list did not revalidate")
	}
	revoke := func() {
		t.Helper()
		if _, err := store.InTx(ctx, st, func(tx *store.Tx) (struct{}, error) {
			return struct{}{}, credentials.RevokeStatus(ctx, tx, time.Now().Add(time.Second), ids[1])
		}); err != nil {
			t.Fatal(err)
		}
	}
	revoke()
	after, err := s.StatusList(ctx, account, 1, before.ETag)
	if err != nil || after.NotModified || after.ETag == before.ETag {
		t.Fatalf("after a revocation: %+v %v", after.ETag, err)
	}
	keys, _ := s.IssuerKeys(ctx, account)
	did := vc.NewDIDDocument(keys.DID, keys.Keys)
	if _, err := vc.VerifyDataIntegrity(after.Body, did.PublicKey); err != nil {
		t.Fatalf("the signed list does not verify: %v", err)
	}
	var l vc.StatusListCredential
	if err := json.Unmarshal(after.Body, &l); err != nil {
		t.Fatal(err)
	}
	bits, err := vc.DecodeStatusList(l.CredentialSubject.EncodedList)
	if err != nil {
		t.Fatal(err)
	}
	for i, id := range ids {
		e, _ := st.FindVerifiableCredential(ctx, id)
		if on, _ := bits.Get(e.Index); on != (i == 1) {
			t.Fatalf("credential %d (index %d): bit %v", i, e.Index, on)
		}
	}
	revoke()
	if again, _ := s.StatusList(ctx, account, 1, after.ETag); !again.NotModified {
		t.Fatal("revoking a revoked credential changed its list")
	}
	// A revocation stamped before the last one (another instance's clock behind) still
	// changes the list: a new ETag, and the bit in what is signed.
	if _, err := store.InTx(ctx, st, func(tx *store.Tx) (struct{}, error) {
		return struct{}{}, credentials.RevokeStatus(ctx, tx, time.Now(), ids[2])
	}); err != nil {
		t.Fatal(err)
	}
	later, err := s.StatusList(ctx, account, 1, after.ETag)
	if err != nil || later.NotModified || later.ETag == after.ETag {
		t.Fatalf("after a revocation stamped earlier: %q (was %q), %v", later.ETag, after.ETag, err)
	}
	var l2 vc.StatusListCredential
	if err := json.Unmarshal(later.Body, &l2); err != nil {
		t.Fatal(err)
	}
	bits2, err := vc.DecodeStatusList(l2.CredentialSubject.EncodedList)
	if err != nil {
		t.Fatal(err)
	}
	e2, _ := st.FindVerifiableCredential(ctx, ids[2])
	if on, _ := bits2.Get(e2.Index); !on {
		t.Fatal("the later revocation's bit is not in the signed list")
	}
	if _, err := s.StatusList(ctx, account, 2, ""); err == nil {
		t.Fatal("a list that does not exist was answered")
	}
}
