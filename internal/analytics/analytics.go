// Package analytics answers the dashboard and per-event figures from the daily counters that
// issuing and public verification keep (an issuance's plan counts, written by the store's
// executor with its other writes; the verification recorder's batches), never from the credentials themselves, so an answer costs the same whatever an
// account's volume.
package analytics

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/google/uuid"

	"github.com/certhub/credentiald/internal/apperr"
	"github.com/certhub/credentiald/internal/events"
	"github.com/certhub/credentiald/internal/store"
)

// DefaultDays is the length of the period when from is not given: the last 30 days, today
// included.
const DefaultDays = 30

// MaxDays is the longest period one request may ask for (a leap year).
const MaxDays = 366

const day = 24 * time.Hour

// Period is a range of UTC days, both included, as dates at midnight UTC.
type Period struct{ From, To time.Time }

// Days is the number of days in the period.
func (p Period) Days() int { return int(p.To.Sub(p.From)/day) + 1 }

// PeriodOf applies the defaults and the limits to the dates asked for (nil when not given),
// today being the UTC date of now: to defaults to today, from to DefaultDays-1 days before to;
// from after to and a period of more than MaxDays are refused, naming the field to change.
func PeriodOf(from, to *time.Time, now time.Time) (Period, error) {
	now = now.UTC()
	p := Period{To: date(now)}
	if to != nil {
		p.To = date(*to)
	}
	p.From = p.To.AddDate(0, 0, -(DefaultDays - 1))
	if from != nil {
		p.From = date(*from)
	}
	switch {
	case p.From.After(p.To) && to == nil:
		return Period{}, apperr.Invalid("from", fmt.Sprintf("must not be after today (%s, UTC) when `to` is not given", p.To.Format(time.DateOnly)))
	case p.From.After(p.To):
		return Period{}, apperr.Invalid("to", fmt.Sprintf("must not be before `from` (%s)", p.From.Format(time.DateOnly)))
	case p.Days() > MaxDays:
		return Period{}, apperr.Invalid("from", fmt.Sprintf("the period may cover at most %d days; with `to` %s, `from` may be %s at the earliest",
			MaxDays, p.To.Format(time.DateOnly), p.To.AddDate(0, 0, -(MaxDays-1)).Format(time.DateOnly)))
	}
	return p, nil
}

func date(t time.Time) time.Time {
	return time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC)
}

// Dashboard is an account's figures over a period.
type Dashboard struct {
	Period
	CertificatesIssued, BadgesIssued        int
	Views, Shares, Downloads, Verifications int
	// Claims are credentials taken into a wallet through an offer.
	Claims int
	// VerificationRate is the share of the credentials issued in the period that have been
	// verified at least once (by now), 0 when none were issued.
	VerificationRate float64
	// Days are the period's figures day by day, oldest first, days without activity included.
	Days []Day
}

// CredentialsIssued counts certificates and badge assertions together.
func (d Dashboard) CredentialsIssued() int { return d.CertificatesIssued + d.BadgesIssued }

// Day is one day's figures of an event, credentials issued per kind as the dashboard counts
// them.
type Day struct {
	Date                                    time.Time
	CertificatesIssued, BadgesIssued        int
	Views, Shares, Downloads, Verifications int
	// Claims are credentials taken into a wallet through an offer.
	Claims int
}

// Issued counts certificates and badge assertions together.
func (d Day) Issued() int { return d.CertificatesIssued + d.BadgesIssued }

// Service reads the figures.
type Service struct {
	store *store.Store
	now   func() time.Time
}

// New returns the service.
func New(st *store.Store, now func() time.Time) *Service {
	if now == nil {
		now = time.Now
	}
	return &Service{store: st, now: now}
}

// Dashboard sums the account's figures over the period the dates ask for (see PeriodOf).
func (s *Service) Dashboard(ctx context.Context, accountID uuid.UUID, from, to *time.Time) (Dashboard, error) {
	p, err := PeriodOf(from, to, s.now())
	if err != nil {
		return Dashboard{}, err
	}
	t, err := s.store.AnalyticsTotals(ctx, accountID, p.From, p.To)
	if err != nil {
		return Dashboard{}, err
	}
	d := Dashboard{Period: p, CertificatesIssued: t.CertificatesIssued, BadgesIssued: t.BadgesIssued,
		Views: t.Views, Shares: t.Shares, Downloads: t.Downloads, Verifications: t.Verifications, Claims: t.Claims}
	d.VerificationRate = rate(t.IssuedVerified, d.CredentialsIssued())
	rows, err := s.store.AccountAnalyticsDays(ctx, accountID, p.From, p.To)
	if err != nil {
		return Dashboard{}, err
	}
	d.Days = daysOf(p, rows)
	return d, nil
}

// daysOf spreads rows (days with activity) over every day of p, oldest first.
func daysOf(p Period, rows []store.EventDay) []Day {
	out := make([]Day, p.Days())
	for i := range out {
		out[i].Date = p.From.AddDate(0, 0, i)
	}
	for _, r := range rows {
		i := int(date(r.Day).Sub(p.From) / day)
		if i < 0 || i >= len(out) {
			continue // not asked for: the query reads only the period
		}
		out[i] = Day{Date: out[i].Date, CertificatesIssued: r.CertificatesIssued, BadgesIssued: r.BadgesIssued, Views: r.Views,
			Shares: r.Shares, Downloads: r.Downloads, Verifications: r.Verifications, Claims: r.Claims}
	}
	return out
}

// rate is verified of issued, rounded to four decimals (0.1234 is 12.34 %), at most 1.
func rate(verified, issued int) float64 {
	if issued <= 0 || verified <= 0 {
		return 0
	}
	return math.Min(1, math.Round(float64(verified)/float64(issued)*1e4)/1e4)
}

// Event returns one day's figures of the account's event for every day of the period, oldest
// first, days without activity included with zeros. Another account's event is not found.
func (s *Service) Event(ctx context.Context, accountID, eventID uuid.UUID, from, to *time.Time) ([]Day, error) {
	p, err := PeriodOf(from, to, s.now())
	if err != nil {
		return nil, err
	}
	if _, err := s.store.FindEvent(ctx, accountID, eventID); err != nil {
		return nil, apperr.When(err, store.ErrNotFound, events.Missing())
	}
	rows, err := s.store.EventAnalyticsDays(ctx, accountID, eventID, p.From, p.To)
	if err != nil {
		return nil, err
	}
	return daysOf(p, rows), nil
}
