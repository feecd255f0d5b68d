package store

import (
	"bytes"
	"cmp"
	"context"
	"slices"
	"time"

	"github.com/google/uuid"

	"github.com/certhub/credentiald/gen/db"
)

// IssuedKey is a row of the daily counters that issuing adds to: an account's credentials of
// one kind, issued for one event, on one UTC day.
type IssuedKey struct {
	AccountID uuid.UUID
	EventID   uuid.UUID
	Kind      string
	Day       time.Time
}

// CountIssued counts n credentials of kind issued for the event at at (its UTC day). The
// counts are kept with the transaction and written once, in key order: by the next issuance
// pipeline's Send (after the issuance's other writes, in the same round trip), or else just
// before the commit. A transaction that issues for several events takes their counter rows in
// key order.
func (t *Tx) CountIssued(accountID, eventID uuid.UUID, kind string, at time.Time, n int) {
	if n <= 0 {
		return
	}
	at = at.UTC()
	k := IssuedKey{AccountID: accountID, EventID: eventID, Kind: kind, Day: time.Date(at.Year(), at.Month(), at.Day(), 0, 0, 0, 0, time.UTC)}
	if t.issued == nil {
		t.issued = map[IssuedKey]int{}
	}
	t.issued[k] += n
	t.countCommitted(kind, n)
}

func (t *Tx) writeIssued(ctx context.Context) error {
	p, ok := t.takeIssued()
	if !ok {
		return nil
	}
	return mapError(t.q.CountIssued(ctx, p))
}

// takeIssued returns the counts CountIssued was told, in key order, and forgets them: the
// commit writes them, or an issuance's pipeline (Pipeline.Send) with its other writes.
func (t *Tx) takeIssued() (db.CountIssuedParams, bool) {
	var p db.CountIssuedParams
	if len(t.issued) == 0 {
		return p, false
	}
	keys := make([]IssuedKey, 0, len(t.issued))
	for k := range t.issued {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b IssuedKey) int {
		return cmp.Or(bytes.Compare(a.AccountID[:], b.AccountID[:]), a.Day.Compare(b.Day),
			bytes.Compare(a.EventID[:], b.EventID[:]), cmp.Compare(a.Kind, b.Kind))
	})
	for _, k := range keys {
		p.AccountIds = append(p.AccountIds, k.AccountID)
		p.Days = append(p.Days, k.Day)
		p.EventIds = append(p.EventIds, k.EventID)
		p.Kinds = append(p.Kinds, k.Kind)
		p.Counts = append(p.Counts, int32(t.issued[k]))
	}
	t.issued = nil
	return p, true
}

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
