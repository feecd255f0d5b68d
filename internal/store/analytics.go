package store

import (
	"context"
	"time"

	"github.com/google/uuid"

	"github.com/certhub/credentiald/gen/db"
)

// AnalyticsTotals are an account's counters summed over a range of days.
type AnalyticsTotals struct {
	CertificatesIssued, BadgesIssued int
	// IssuedVerified counts the credentials issued in the range verified at least once so far.
	IssuedVerified                                  int
	Views, Shares, Downloads, Verifications, Claims int
}

// AnalyticsTotals sums the account's counters of the days first to last (dates, UTC),
// both included.
func (d queries) AnalyticsTotals(ctx context.Context, accountID uuid.UUID, first, last time.Time) (AnalyticsTotals, error) {
	rows, err := d.q.AnalyticsTotals(ctx, db.AnalyticsTotalsParams{AccountID: accountID, FirstDay: first, LastDay: last})
	if err != nil {
		return AnalyticsTotals{}, mapError(err)
	}
	var t AnalyticsTotals
	for _, r := range rows {
		switch r.CredentialKind {
		case KindCertificate:
			t.CertificatesIssued += int(r.Issued)
		case KindBadgeAssertion:
			t.BadgesIssued += int(r.Issued)
		}
		t.IssuedVerified += int(r.IssuedVerified)
		t.Views += int(r.Views)
		t.Shares += int(r.Shares)
		t.Downloads += int(r.Downloads)
		t.Verifications += int(r.Verifications)
		t.Claims += int(r.Claims)
	}
	return t, nil
}

// EventDay is one event's counters of one day, both kinds of credential together.
type EventDay struct {
	Day                                             time.Time
	CertificatesIssued, BadgesIssued                int
	Views, Shares, Downloads, Verifications, Claims int
}

// EventAnalyticsDays returns the event's counters of the days first to last (dates, UTC) that
// have any, oldest first.
// AccountAnalyticsDays sums the account's counters per day from first to last (UTC dates);
// days without any counter have no row.
func (d queries) AccountAnalyticsDays(ctx context.Context, accountID uuid.UUID, first, last time.Time) ([]EventDay, error) {
	rows, err := d.q.AccountAnalyticsDays(ctx, db.AccountAnalyticsDaysParams{AccountID: accountID, FirstDay: first, LastDay: last})
	if err != nil {
		return nil, mapError(err)
	}
	return convert(rows, func(r db.AccountAnalyticsDaysRow) EventDay {
		return EventDay{Day: r.Day, CertificatesIssued: int(r.CertificatesIssued), BadgesIssued: int(r.BadgesIssued), Views: int(r.Views), Shares: int(r.Shares),
			Downloads: int(r.Downloads), Verifications: int(r.Verifications), Claims: int(r.Claims)}
	}), nil
}

func (d queries) EventAnalyticsDays(ctx context.Context, accountID, eventID uuid.UUID, first, last time.Time) ([]EventDay, error) {
	rows, err := d.q.EventAnalyticsDays(ctx, db.EventAnalyticsDaysParams{AccountID: accountID, EventID: eventID, FirstDay: first, LastDay: last})
	if err != nil {
		return nil, mapError(err)
	}
	return convert(rows, func(r db.EventAnalyticsDaysRow) EventDay {
		return EventDay{Day: r.Day, CertificatesIssued: int(r.CertificatesIssued), BadgesIssued: int(r.BadgesIssued), Views: int(r.Views), Shares: int(r.Shares),
			Downloads: int(r.Downloads), Verifications: int(r.Verifications), Claims: int(r.Claims)}
	}), nil
}
