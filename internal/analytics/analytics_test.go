package analytics_test

import (
	"testing"
	"time"

	"github.com/certhub/credentiald/internal/analytics"
	"github.com/certhub/credentiald/internal/apperr"
	"github.com/certhub/credentiald/internal/testkit"
)

func TestMain(m *testing.M) { testkit.Main(m) }

func day(s string) *time.Time {
	t, err := time.Parse(time.DateOnly, s)
	if err != nil {
		panic(err)
	}
	return &t
}

// The period's defaults and limits: days are UTC days, whatever the clock's zone; the field
// named is the one to change.
func TestPeriodDefaultsAndLimits(t *testing.T) {
	t.Parallel()
	// 23:30 in New York on the 22nd is already the 23rd in UTC.
	now := time.Date(2026, 11, 22, 23, 30, 0, 0, time.FixedZone("EST", -5*3600))
	for name, c := range map[string]struct {
		from, to         *time.Time
		wantFrom, wantTo string
		days             int
		field            string
	}{
		"both defaulted: the last 30 days, today included": {nil, nil, "2026-10-25", "2026-11-23", 30, ""},
		"to given: 30 days up to it":                       {nil, day("2026-03-01"), "2026-01-31", "2026-03-01", 30, ""},
		"from given: up to today":                          {day("2026-11-01"), nil, "2026-11-01", "2026-11-23", 23, ""},
		"one day":                                          {day("2026-11-23"), day("2026-11-23"), "2026-11-23", "2026-11-23", 1, ""},
		"a leap year, 366 days":                            {day("2024-01-01"), day("2024-12-31"), "2024-01-01", "2024-12-31", 366, ""},
		"days to come are allowed":                         {day("2026-12-01"), day("2026-12-31"), "2026-12-01", "2026-12-31", 31, ""},
		"367 days":                                         {day("2024-01-01"), day("2025-01-01"), "", "", 0, "from"},
		"to before from":                                   {day("2026-11-10"), day("2026-11-09"), "", "", 0, "to"},
		"from after today, to not given":                   {day("2026-11-24"), nil, "", "", 0, "from"},
		"the widest dates":                                 {day("0001-01-01"), day("9999-12-31"), "", "", 0, "from"},
	} {
		t.Run(name, func(t *testing.T) {
			p, err := analytics.PeriodOf(c.from, c.to, now)
			if c.field != "" {
				e, ok := apperr.As(err)
				if !ok || e.Code != apperr.ValidationError || len(e.Details) != 1 || e.Details[0].Field != c.field {
					t.Fatalf("want 400 naming %s, got %v", c.field, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := p.From.Format(time.DateOnly); got != c.wantFrom {
				t.Errorf("from %s, want %s", got, c.wantFrom)
			}
			if got := p.To.Format(time.DateOnly); got != c.wantTo {
				t.Errorf("to %s, want %s", got, c.wantTo)
			}
			if p.Days() != c.days || p.From.Location() != time.UTC {
				t.Errorf("%d days in %v, want %d in UTC", p.Days(), p.From.Location(), c.days)
			}
		})
	}
}
