package locale

import (
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
	return monday.Format(t.UTC(), Raw(locale, "date.long"), mondayLocales[locale])
}
