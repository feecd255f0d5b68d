package locale

import (
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
)

// fieldPattern finds what a message fills in: {{.Field}} from the code, {{event.name}} from a
// certificate template.
var fieldPattern = regexp.MustCompile(`\{\{\s*\.?([A-Za-z.]+)\s*\}\}`)

// fieldsOf is the set of fields a message's texts name; a greeting may call the recipient by
// first name or, where the language is formal, by full name, so both count as Name.
func fieldsOf(text string) []string {
	var out []string
	for _, m := range fieldPattern.FindAllStringSubmatch(text, -1) {
		f := m[1]
		if f == "FirstName" || f == "FullName" {
			f = "Name"
		}
		if !slices.Contains(out, f) {
			out = append(out, f)
		}
	}
	slices.Sort(out)
	return out
}

// TestCatalogsComplete is the check `make check` runs: every language holds exactly the ids of
// the English catalog, none empty, each naming the same fields, so that no text falls back to
// English unseen and no translation drops a link, a name or a date.
func TestCatalogsComplete(t *testing.T) {
	en, err := Messages(Default)
	if err != nil || len(en) == 0 {
		t.Fatalf("en.toml: %d messages, %v", len(en), err)
	}
	for _, code := range Codes[1:] {
		t.Run(code, func(t *testing.T) {
			msgs, err := Messages(code)
			if err != nil {
				t.Fatal(err)
			}
			for id, want := range en {
				got, ok := msgs[id]
				if !ok {
					t.Errorf("%s.toml: %q is missing", code, id)
					continue
				}
				if strings.TrimSpace(got.Other) == "" {
					t.Errorf("%s.toml: %q is empty", code, id)
				}
				if w, g := fieldsOf(forms(want)), fieldsOf(forms(got)); !slices.Equal(w, g) {
					t.Errorf("%s.toml: %q names %v; English names %v", code, id, g, w)
				}
			}
			for id := range msgs {
				if _, ok := en[id]; !ok {
					t.Errorf("%s.toml: %q is not in en.toml (a typo, or a text no longer used)", code, id)
				}
			}
		})
	}
}

func TestChoosePrefersQueryThenAcceptLanguageThenFallback(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ query, accept, fallback, want string }{
		{"de", "ja", "fr", "de"},
		{"de-AT", "", "en", "de"},
		{"zh-CN", "", "en", "zh-Hans"},
		{"zh", "", "en", "zh-Hans"},
		{"xx", "ja,en;q=0.5", "de", "ja"},           // an unsupported ?lang= is ignored
		{"", "ru, de-CH;q=0.8, en;q=0.5", "", "de"}, // the first supported preference wins
		{"", "en-US,en;q=0.9", "de", "en"},
		{"", "ru", "pl", "pl"},    // nothing spoken: the credential's locale
		{"", "", "it", "it"},      // no header at all
		{"", "", "klingon", "en"}, // an unknown stored locale: English
		{"", "*", "nl", "nl"},     // a wildcard asks for nothing in particular
		{"", "zh-TW", "en", "en"}, // Traditional Chinese is not Simplified Chinese
		{"", "garbage;;q", "fr", "fr"},
	} {
		if got := Choose(tc.query, tc.accept, tc.fallback); got != tc.want {
			t.Errorf("Choose(%q, %q, %q) = %q, want %q", tc.query, tc.accept, tc.fallback, got, tc.want)
		}
	}
}

func TestLongDateFollowsEachLanguage(t *testing.T) {
	t.Parallel()
	d := time.Date(2026, 11, 12, 23, 30, 0, 0, time.FixedZone("UTC-5", -5*3600)) // 13 November in UTC
	want := map[string]string{
		"en": "13 November 2026", "de": "13. November 2026", "fr": "13 novembre 2026",
		"es": "13 de noviembre de 2026", "it": "13 novembre 2026", "pt": "13 de novembro de 2026",
		"nl": "13 november 2026", "pl": "13 listopada 2026", "ja": "2026年11月13日", "zh-Hans": "2026年11月13日",
	}
	for _, code := range Codes {
		equal(t, want[code], LongDate(d, code))
		equal(t, want[code], LongDate(d, code))                                                              // kept once written
		if next := LongDate(d.Add(24*time.Hour), code); next != strings.Replace(want[code], "13", "14", 1) { // the next day is its own
			t.Errorf("%s: the next day is %q", code, next)
		}
	}
	equal(t, "", LongDate(time.Time{}, "de"))
}

func TestTextFillsFieldsInTheLanguage(t *testing.T) {
	t.Parallel()
	equal(t, "Ihr Zertifikat: GoDays", Text("de", "email.certificate.subject", map[string]any{"Event": "GoDays"}))
	equal(t, "Your certificate: GoDays", Text("xx", "email.certificate.subject", map[string]any{"Event": "GoDays"}))
	equal(t, "an {{event.name}} teilgenommen hat", TemplateText("de", "classic", "has attended {{event.name}}"))
	equal(t, "{{event.name}}に参加したことを証明します", TemplateText("ja", "classic", "has attended {{event.name}}"))
	equal(t, "Typed by a user", TemplateText("de", "classic", "Typed by a user"))
	equal(t, "has attended {{event.name}}", TemplateText("en", "classic", "has attended {{event.name}}"))
}

func equal(t *testing.T, want, got string) {
	t.Helper()
	if got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}
