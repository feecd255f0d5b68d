package locale

import (
	"strings"

	"golang.org/x/text/language"
)

// Choose is the language a page speaks: the ?lang= value when it names a supported locale
// (de, de-AT, zh, zh-CN all count), else the best supported match of the Accept-Language header,
// else fallback, the credential's own locale. A value or header the service cannot speak is
// ignored rather than refused, so a link with ?lang=xx still shows its page.
func Choose(query, acceptLanguage, fallback string) string {
	if c, ok := matchTag(query); ok {
		return c
	}
	if prefs, _, err := language.ParseAcceptLanguage(acceptLanguage); err == nil && len(prefs) > 0 {
		if _, i, conf := matcher.Match(prefs...); conf >= language.High {
			return Codes[i]
		}
	}
	return Or(fallback, Default)
}

// matchTag is the supported locale one BCP 47 tag asks for, when there is one close enough:
// a region or script variant of it (en-US for en, zh-CN for zh-Hans), not a neighbour.
func matchTag(s string) (string, bool) {
	s = strings.TrimSpace(s)
	if s == "" {
		return "", false
	}
	if Supported(s) {
		return s, true
	}
	t, err := language.Parse(s)
	if err != nil {
		return "", false
	}
	if _, i, conf := matcher.Match(t); conf >= language.High {
		return Codes[i], true
	}
	return "", false
}

// Parse is the supported locale a stored or configured tag names (see matchTag), else "".
func Parse(s string) string {
	c, _ := matchTag(s)
	return c
}
