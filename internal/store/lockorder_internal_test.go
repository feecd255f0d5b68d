package store

import (
	"regexp"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/certhub/credentiald/internal/domain"
)

// Every write of an issuance is queued by applyInLockOrder, in the one order that keeps
// concurrent issuances of an account from deadlocking: the credit row, the lapsed
// certificates, the number counter with the new certificates, the drafts, the status list
// entries, the events, the counters; the writes after the credit row planned generically.
func TestTheExecutorWritesInTheLockOrder(t *testing.T) {
	acct := uuid.New()
	now := time.Date(2026, 12, 7, 10, 0, 0, 0, time.UTC)
	cert := uuid.New()
	full := IssuancePlan{AccountID: acct, Now: now, CreditPeriod: now, Credits: 2,
		Lapsed:       []uuid.UUID{uuid.New()},
		Certificates: []NewCertificate{{ID: cert, AccountID: acct, VerificationCode: "CODE", IssuedAt: &now}},
		Drafts:       []DraftIssuance{{ID: uuid.New()}, {ID: uuid.New()}},
		Entries:      []PlannedEntry{{Credential: VerifiableCredential{CredentialID: cert, AccountID: acct}, Candidates: []int{1, 2}}},
		EventType:    "certificate.issued",
		Events:       []PlannedEvent{{ID: uuid.New(), CertificateID: cert}},
		Counts:       []IssuedCount{{IssuedKey: IssuedKey{AccountID: acct, Day: now}, N: 2}},
	}
	cases := []struct {
		name string
		plan IssuancePlan
		want []string
	}{
		{"every kind of write", full, []string{"IssuanceSpendCredits", "IssuancePlanGenerically", "IssuanceExpireCertificates",
			"IssuanceInsertCertificates", "IssuanceIssueDraft", "IssuanceIssueDraft", "IssuanceInsertStatusEntries",
			"IssuanceInsertCertificateEvents", "IssuanceCountIssued", "IssuancePlanAsBefore"}},
		{"drafts alone: the credit row locked, nothing spent", IssuancePlan{AccountID: acct, Now: now, CreditPeriod: now,
			Certificates: []NewCertificate{{ID: cert, AccountID: acct, VerificationCode: "CODE", Draft: true}}},
			[]string{"IssuanceLockCredits", "IssuancePlanGenerically", "IssuanceInsertCertificates", "IssuancePlanAsBefore"}},
		{"a badge's: events about no certificate", IssuancePlan{AccountID: acct, Now: now, CreditPeriod: now, Credits: 1,
			EventType: "badge.issued", Events: []PlannedEvent{{ID: uuid.New()}}},
			[]string{"IssuanceSpendCredits", "IssuancePlanGenerically", "IssuanceInsertOutboxEvents", "IssuancePlanAsBefore"}},
	}
	name := regexp.MustCompile(`^-- name: (\w+)`)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			require.NoError(t, checkPlan(c.plan))
			var b batch
			applyInLockOrder(&b, c.plan, &Applied{Certificates: make([]domain.Certificate, len(c.plan.Certificates)),
				Drafts: make([]domain.Certificate, len(c.plan.Drafts))})
			var got []string
			for _, q := range b.b.QueuedQueries {
				m := name.FindStringSubmatch(q.SQL)
				require.NotNil(t, m, "a queued statement that is not one of db/queries: %.60q", q.SQL)
				got = append(got, m[1])
			}
			if d := cmp.Diff(c.want, got); d != "" {
				t.Fatalf("the statements queued, in order (-want +got):\n%s", d)
			}
		})
	}
}

// Each statement the executor queues gets as many arguments as its SQL has parameters: the
// generated Params struct's fields, in order.
func TestTheExecutorGivesEachStatementItsParameters(t *testing.T) {
	acct := uuid.New()
	now := time.Now()
	cert := uuid.New()
	plan := IssuancePlan{AccountID: acct, Now: now, CreditPeriod: now, Credits: 1, Lapsed: []uuid.UUID{uuid.New()},
		Certificates: []NewCertificate{{ID: cert, AccountID: acct, VerificationCode: "CODE", IssuedAt: &now}},
		Drafts:       []DraftIssuance{{ID: uuid.New()}},
		Entries:      []PlannedEntry{{Credential: VerifiableCredential{CredentialID: cert, AccountID: acct}, Candidates: []int{1}}},
		Events:       []PlannedEvent{{ID: uuid.New(), CertificateID: cert}},
		Counts:       []IssuedCount{{IssuedKey: IssuedKey{AccountID: acct, Day: now}, N: 1}}}
	var b batch
	applyInLockOrder(&b, plan, &Applied{Certificates: make([]domain.Certificate, 1), Drafts: make([]domain.Certificate, 1)})
	param := regexp.MustCompile(`\$(\d+)`)
	for _, q := range b.b.QueuedQueries {
		highest := 0
		for _, m := range param.FindAllStringSubmatch(q.SQL, -1) {
			n := 0
			for _, d := range m[1] {
				n = n*10 + int(d-'0')
			}
			highest = max(highest, n)
		}
		require.Equal(t, highest, len(q.Arguments), "arguments of %.50q", q.SQL)
	}
}

// A plan whose parts are not all its account's, or that lacks what the statements need, is
// refused before anything is sent.
func TestAMixedPlanIsRefused(t *testing.T) {
	acct := uuid.New()
	for name, plan := range map[string]IssuancePlan{
		"a certificate of another account": {AccountID: acct, Certificates: []NewCertificate{{ID: uuid.New(), AccountID: uuid.New(), VerificationCode: "C"}}},
		"a certificate without its code":   {AccountID: acct, Certificates: []NewCertificate{{ID: uuid.New(), AccountID: acct}}},
		"an entry of another account": {AccountID: acct, Entries: []PlannedEntry{
			{Credential: VerifiableCredential{AccountID: uuid.New()}, Candidates: []int{1}}}},
		"entries with different numbers of candidates": {AccountID: acct, Entries: []PlannedEntry{
			{Credential: VerifiableCredential{AccountID: acct}, Candidates: []int{1}},
			{Credential: VerifiableCredential{AccountID: acct}, Candidates: []int{1, 2}}}},
		"an entry without candidates": {AccountID: acct, Entries: []PlannedEntry{{Credential: VerifiableCredential{AccountID: acct}}}},
		"events about certificates and others": {AccountID: acct, Events: []PlannedEvent{
			{ID: uuid.New(), CertificateID: uuid.New()}, {ID: uuid.New()}}},
		"a count of another account": {AccountID: acct, Counts: []IssuedCount{{IssuedKey: IssuedKey{AccountID: uuid.New()}, N: 1}}},
	} {
		require.Error(t, checkPlan(plan), name)
	}
}
