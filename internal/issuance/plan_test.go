package issuance_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/certhub/credentiald/internal/credentials"
	"github.com/certhub/credentiald/internal/domain"
	"github.com/certhub/credentiald/internal/issuance"
	"github.com/certhub/credentiald/internal/store"
)

// counter draws ids 00000000-...-000000000001, -2, ... so that a plan can be written out.
func counter() func() uuid.UUID {
	n := byte(0)
	return func() uuid.UUID {
		n++
		var id uuid.UUID
		id[15] = n
		return id
	}
}

func idOf(n byte) uuid.UUID {
	var id uuid.UUID
	id[15] = n
	return id
}

// A request of a new certificate, a new draft and a draft turned issued plans, without a
// database: the credits of the two issued (none for the draft), the lapsed certificate
// marked expired, the new rows with their drawn ids and codes in the order asked, the draft
// issued, an entry, an event and a count for each issued, and where each answer will be.
func TestPlanCertificates(t *testing.T) {
	acct, event, tmpl := uuid.New(), uuid.New(), uuid.New()
	now := time.Date(2026, 12, 7, 15, 4, 5, 0, time.UTC)
	lapsed := uuid.New()
	draft := domain.Certificate{ID: uuid.New(), AccountID: acct, EventID: event, AttendeeID: uuid.New(), TemplateID: tmpl,
		Number: "CERT-2026-000007", VerificationCode: "DRAFTCODE", Status: domain.CertificateDraft, Snapshot: json.RawMessage(`{}`)}
	newCert := func(draft bool) *store.NewCertificate {
		c := &store.NewCertificate{AccountID: acct, CertificateKey: store.CertificateKey{AttendeeID: uuid.New(), EventID: event, TemplateID: tmpl},
			Number: store.NumberFormat{Prefix: "CERT-2026-", Digits: 6}, Draft: draft}
		if !draft {
			c.IssuedAt = &now
		}
		return c
	}
	event1 := func(c domain.Certificate) any { return map[string]any{"id": c.ID, "code": c.VerificationCode} }
	issuing, drafting := newCert(false), newCert(true)
	r := issuance.Request{AccountID: acct, Now: now, Certificates: []issuance.Certificate{
		{New: issuing, Lapsed: lapsed, Event: event1},
		{New: drafting, Event: event1},
		{Draft: &draft, Issuance: store.Issuance{IssuedAt: now}, Event: event1},
	}}
	got, err := issuance.PlanCertificates(r, issuance.Draws{Codes: []string{"CODEONE", "CODETWO"}, NewID: counter()}, true)
	require.NoError(t, err)

	wantNew := *issuing
	wantNew.ID, wantNew.VerificationCode = idOf(1), "CODEONE"
	wantDraft := *drafting
	wantDraft.ID, wantDraft.VerificationCode = idOf(3), "CODETWO"
	payload := func(id uuid.UUID, code string) []byte {
		b, err := json.Marshal(map[string]any{"id": id, "code": code})
		require.NoError(t, err)
		return b
	}
	day := time.Date(2026, 12, 7, 0, 0, 0, 0, time.UTC)
	want := issuance.Plan{
		Writes: store.IssuancePlan{AccountID: acct, Now: now, CreditPeriod: time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC), Credits: 2,
			Lapsed:       []uuid.UUID{lapsed},
			Certificates: []store.NewCertificate{wantNew, wantDraft},
			Drafts:       []store.DraftIssuance{{ID: draft.ID, Issuance: store.Issuance{IssuedAt: now}}},
			EventType:    "certificate.issued", FanOut: true,
			Events: []store.PlannedEvent{
				{ID: idOf(2), CertificateID: idOf(1), Payload: payload(idOf(1), "CODEONE")},
				{ID: idOf(4), CertificateID: draft.ID, Payload: payload(draft.ID, "DRAFTCODE")},
			},
			Counts: []store.IssuedCount{
				{N: 1, IssuedKey: store.IssuedKey{AccountID: acct, EventID: event, Kind: store.KindCertificate, Day: day}},
				{N: 1, IssuedKey: store.IssuedKey{AccountID: acct, EventID: event, Kind: store.KindCertificate, Day: day}},
			}},
		Entries: []credentials.Entry{
			{Kind: store.KindCertificate, AccountID: acct, CredentialID: idOf(1)},
			{Kind: store.KindCertificate, AccountID: acct, CredentialID: draft.ID},
		},
		Places: []issuance.Place{{New: true, Index: 0}, {New: true, Index: 1}, {Index: 0}},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Fatalf("the plan (-want +got):\n%s", d)
	}
}

// Drafts alone spend nothing, write no entry, no event and no count; without a subscription
// the events are not fanned out; a plan given fewer codes than it needs is refused.
func TestPlanCertificatesEdges(t *testing.T) {
	acct := uuid.New()
	now := time.Date(2026, 12, 7, 15, 4, 5, 0, time.UTC)
	ev := func(c domain.Certificate) any { return c.ID }
	draft := issuance.Certificate{New: &store.NewCertificate{AccountID: acct, VerificationCode: "HAS", Draft: true}, Event: ev}
	got, err := issuance.PlanCertificates(issuance.Request{AccountID: acct, Now: now, Certificates: []issuance.Certificate{draft}},
		issuance.Draws{NewID: counter()}, true)
	require.NoError(t, err)
	require.Zero(t, got.Writes.Credits, "credits of a draft")
	require.Empty(t, got.Writes.Events, "events of a draft")
	require.Empty(t, got.Entries, "entries of a draft")
	require.Empty(t, got.Writes.Counts, "counts of a draft")

	issued := issuance.Certificate{New: &store.NewCertificate{AccountID: acct, IssuedAt: &now}, Event: ev}
	got, err = issuance.PlanCertificates(issuance.Request{AccountID: acct, Now: now, Certificates: []issuance.Certificate{issued}},
		issuance.Draws{Codes: []string{"C"}, NewID: counter()}, false)
	require.NoError(t, err)
	require.False(t, got.Writes.FanOut, "events fanned out without a subscription")
	require.Len(t, got.Writes.Events, 1)

	_, err = issuance.PlanCertificates(issuance.Request{AccountID: acct, Now: now, Certificates: []issuance.Certificate{issued}},
		issuance.Draws{NewID: counter()}, false)
	require.Error(t, err, "a plan without the code its new certificate needs")
}

// A badge's plan: a credit, an entry with the badge's claims and the assertion's salt, an
// event and a count (on the attendee's event) for each assertion written.
func TestPlanBadge(t *testing.T) {
	acct, ev1, ev2 := uuid.New(), uuid.New(), uuid.New()
	now := time.Date(2026, 12, 7, 23, 59, 0, 0, time.UTC)
	a1 := domain.BadgeAssertion{ID: uuid.New(), AccountID: acct, AttendeeID: uuid.New(), RecipientSalt: "salt-one"}
	a2 := domain.BadgeAssertion{ID: uuid.New(), AccountID: acct, AttendeeID: uuid.New(), RecipientSalt: "salt-two"}
	claims := credentials.BadgeClaims{Name: "Speaker"}
	r := issuance.Request{AccountID: acct, Now: now, Badge: &issuance.Badge{Claims: claims,
		EventOf: map[uuid.UUID]uuid.UUID{a1.AttendeeID: ev1, a2.AttendeeID: ev2},
		Event:   func(a domain.BadgeAssertion) any { return a.ID }}}
	got, err := issuance.PlanBadge(r, []domain.BadgeAssertion{a1, a2}, issuance.Draws{NewID: counter()}, false)
	require.NoError(t, err)
	require.Equal(t, 2, got.Writes.Credits)
	require.Equal(t, "badge.issued", got.Writes.EventType)
	day := time.Date(2026, 12, 7, 0, 0, 0, 0, time.UTC)
	wantCounts := []store.IssuedCount{
		{N: 1, IssuedKey: store.IssuedKey{AccountID: acct, EventID: ev1, Kind: store.KindBadgeAssertion, Day: day}},
		{N: 1, IssuedKey: store.IssuedKey{AccountID: acct, EventID: ev2, Kind: store.KindBadgeAssertion, Day: day}},
	}
	if d := cmp.Diff(wantCounts, got.Writes.Counts); d != "" {
		t.Fatalf("counts (-want +got):\n%s", d)
	}
	wantEntries := []credentials.Entry{
		{Kind: store.KindBadgeAssertion, AccountID: acct, CredentialID: a1.ID, Salt: "salt-one", Claims: &claims},
		{Kind: store.KindBadgeAssertion, AccountID: acct, CredentialID: a2.ID, Salt: "salt-two", Claims: &claims},
	}
	if d := cmp.Diff(wantEntries, got.Entries); d != "" {
		t.Fatalf("entries (-want +got):\n%s", d)
	}
	for i, e := range got.Writes.Events {
		require.Equal(t, uuid.Nil, e.CertificateID, "event %d names a certificate", i)
	}
}
