package locale

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/goodsign/monday"
)

// mondayLocales name goodsign/monday's month names of each locale (it has them in the
// genitive where a language takes it after the day: 12 listopada 2026). Portuguese takes
// Brazil's names: they are lower-case, as both spellings write months since the 1990 agreement
// (monday's pt_PT still capitalises them).
var mondayLocales = map[string]monday.Locale{
	"en": monday.LocaleEnGB, "de": monday.LocaleDeDE, "fr": monday.LocaleFrFR, "es": monday.LocaleEsES,
	"it": monday.LocaleItIT, "pt": monday.LocalePtBR, "nl": monday.LocaleNlNL, "pl": monday.LocalePlPL,
	"ja": monday.LocaleJaJP, "zh-Hans": monday.LocaleZhCN,
}

// LongDate is t's UTC day as locale writes it in running text: 12 November 2026,
// 12. November 2026, 2026年11月12日. The layout is the catalog's date.long, which the
// translator chooses; "" for the zero time.
func LongDate(t time.Time, locale string) string {
	if t.IsZero() {
		return ""
	}
	locale = Or(locale, Default)
	t = t.UTC()
	key := dayKey{locale, t.Year(), t.YearDay()}
	if s, ok := days.Load(key); ok {
		return s.(string)
	}
	s := monday.Format(t, Raw(locale, "date.long"), mondayLocales[locale])
	if nDays.Load() < maxDays {
		if _, loaded := days.LoadOrStore(key, s); !loaded {
			nDays.Add(1)
		}
	}
	return s
}

// days keeps the days written, by locale and day: monday formats by parsing its layout for
// each date, a twentieth of the verification page's CPU, while a service writes the same few
// hundred days (issued, expires, the event's) over and over. At most maxDays are kept (some
// ten years of days in each language); past them a day is formatted each time.
var (
	days  sync.Map
	nDays atomic.Int32
)

const maxDays = 40_000

type dayKey struct {
	locale    string
	year, day int
}
