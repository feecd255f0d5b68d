package domain

import (
	"testing"
	"time"
)

// What a stored certificate reads as is decided by the time it is read at, not by what the
// store last wrote: an issued certificate past its expiry is expired; drafts and revoked
// certificates keep their status.
func TestCertificateStatusAtATime(t *testing.T) {
	now := time.Date(2026, 11, 13, 10, 0, 0, 0, time.FixedZone("UTC+5", 5*3600))
	past, future := now.Add(-time.Second), now.Add(time.Second)
	for _, tc := range []struct {
		stored  string
		expires *time.Time
		want    CertificateStatus
	}{
		{StoredCertificateDraft, nil, CertificateDraft},
		{StoredCertificateIssued, nil, CertificateValid},
		{StoredCertificateIssued, &future, CertificateValid},
		{StoredCertificateIssued, &now, CertificateExpired},
		{StoredCertificateIssued, &past, CertificateExpired},
		{StoredCertificateExpired, &past, CertificateExpired},
		{StoredCertificateRevoked, &future, CertificateRevoked},
		{StoredCertificateRevoked, &past, CertificateRevoked},
	} {
		if got := CertificateStatusAt(tc.stored, tc.expires, now); got != tc.want {
			t.Errorf("CertificateStatusAt(%s, %v) = %s, want %s", tc.stored, tc.expires, got, tc.want)
		}
	}
}

// An assertion reads as revoked when it was revoked or its badge retired, whatever its expiry.
func TestAssertionStatusAtATime(t *testing.T) {
	now := time.Date(2026, 11, 13, 10, 0, 0, 0, time.UTC)
	past, future := now.Add(-time.Second), now.Add(time.Second)
	active, retired := Badge{Status: BadgeActive}, Badge{Status: BadgeRetired}
	for _, tc := range []struct {
		name string
		a    BadgeAssertion
		b    Badge
		want AssertionStatus
	}{
		{"no expiry", BadgeAssertion{}, active, AssertionActive},
		{"before expiry", BadgeAssertion{ExpiresAt: &future}, active, AssertionActive},
		{"at expiry", BadgeAssertion{ExpiresAt: &now}, active, AssertionExpired},
		{"past expiry", BadgeAssertion{ExpiresAt: &past}, active, AssertionExpired},
		{"revoked", BadgeAssertion{Revoked: true, ExpiresAt: &past}, active, AssertionRevoked},
		{"badge retired", BadgeAssertion{ExpiresAt: &future}, retired, AssertionRevoked},
	} {
		if got := tc.a.StatusAt(tc.b, now); got != tc.want {
			t.Errorf("%s: %s, want %s", tc.name, got, tc.want)
		}
	}
}
