// Package locale holds the languages the service speaks to recipients: the ten supported
// locales, how a request's language is chosen among them, the message catalogs (one TOML file
// per language in catalog/, which a translator edits without touching Go) and how each language
// writes a date.
//
// The catalogs are read with nicksnyder/go-i18n: its files are plain TOML with CLDR plural
// forms (one, few, many, other), its bundle matches tags through golang.org/x/text/language,
// and it is the format its own extract/merge tool (goi18n) speaks, so translators can work with
// it without us. golang.org/x/text/message would have needed its gotext generator and Go code
// for every catalog.
package locale

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"fmt"
	"io/fs"
	"path"
	"strings"
	"sync"

	"github.com/BurntSushi/toml"
	"github.com/nicksnyder/go-i18n/v2/i18n"
	"github.com/nicksnyder/go-i18n/v2/i18n/template"
	"golang.org/x/text/language"
)

// Default is the locale of everything that names none.
const Default = "en"

// Codes are the supported locales, as the contract's Locale enum writes them; Default first.
var Codes = []string{"en", "de", "fr", "es", "it", "pt", "nl", "pl", "ja", "zh-Hans"}

// Names are the locales' names in their own language, for a language switcher.
var Names = map[string]string{
	"en": "English", "de": "Deutsch", "fr": "Français", "es": "Español", "it": "Italiano",
	"pt": "Português", "nl": "Nederlands", "pl": "Polski", "ja": "日本語", "zh-Hans": "简体中文",
}

//go:embed catalog/*.toml
var catalogFiles embed.FS

// The package's state is built by functions from its package-level variables, not by init
// functions: Go initialises such variables in the order of their dependencies, across files,
// whereas init functions run in the order of the files' names, after every variable, so a
// variable that read the catalogs would have found them empty.
var (
	// tags are Codes as language tags, in Codes' order (matcher answers an index into both).
	tags    = languageTags(Codes)
	matcher = language.NewMatcher(tags)
	// localize holds a localizer for each of Codes, over one bundle of every catalog.
	localize = localizers(Codes)
)

func languageTags(codes []string) []language.Tag {
	out := make([]language.Tag, len(codes))
	for i, c := range codes {
		out[i] = language.MustParse(c)
	}
	return out
}

// localizers loads the catalogs of codes into one bundle whose default language is Default
// and returns a localizer for each, by code. A catalog that does not load stops the program
// at start: it is embedded, so only a broken build can meet that.
func localizers(codes []string) map[string]*i18n.Localizer {
	bundle := i18n.NewBundle(language.MustParse(Default))
	bundle.RegisterUnmarshalFunc("toml", toml.Unmarshal)
	out := make(map[string]*i18n.Localizer, len(codes))
	for _, c := range codes {
		if _, err := bundle.LoadMessageFileFS(catalogFiles, catalogPath(c)); err != nil {
			panic(fmt.Sprintf("locale: catalog %s: %v", c, err))
		}
		out[c] = i18n.NewLocalizer(bundle, c)
	}
	return out
}

// Digest names the catalogs this build carries (every language's texts, and which languages
// there are): a tag of something written from them (a signed credential's ETag) includes it,
// so that a release that changes a text or adds a language moves the tag.
var Digest = catalogDigest()

func catalogDigest() string {
	h := sha256.New()
	for _, c := range Codes {
		b, err := catalogFiles.ReadFile(catalogPath(c))
		if err != nil {
			panic(fmt.Sprintf("locale: catalog %s: %v", c, err))
		}
		fmt.Fprintf(h, "%s %d\n", c, len(b))
		h.Write(b)
	}
	return hex.EncodeToString(h.Sum(nil)[:12])
}

func catalogPath(code string) string { return path.Join("catalog", code+".toml") }

// Supported reports whether code is one of Codes, written as Codes writes it.
func Supported(code string) bool {
	_, ok := localize[code]
	return ok
}

// Or is code when it is supported, else fallback (Default when fallback is not supported
// either): a stored value the service no longer speaks never leaves a text untranslated.
func Or(code, fallback string) string {
	if Supported(code) {
		return code
	}
	if Supported(fallback) {
		return fallback
	}
	return Default
}

// Text is message id in locale, its {{.Name}} fields filled from data (nil when it has none).
// A message missing from locale is taken from English; an id missing from English comes back
// as the id, which the catalog test rules out for every id the code uses.
func Text(locale, id string, data map[string]any) string {
	if len(data) > 0 {
		return text(locale, &i18n.LocalizeConfig{MessageID: id, TemplateData: data})
	}
	// A text without fields is the same every time (the catalogs are fixed at start): kept
	// once made, since go-i18n executes its template on each call, and the verification page
	// asks for some forty of them (docs/benchmarks.md has what that cost).
	if _, ok := localize[locale]; !ok {
		locale = Default // as text does: the key stays among the supported languages
	}
	key := plainKey{locale, id}
	if s, ok := plain.Load(key); ok {
		return s.(string)
	}
	s := text(locale, &i18n.LocalizeConfig{MessageID: id})
	plain.Store(key, s)
	return s
}

// plain keeps the texts without fields, by locale and id: a few hundred ids times ten
// languages at most, whatever the traffic.
var plain sync.Map

type plainKey struct{ locale, id string }

// Count is the plural form of message id for n in locale (CLDR rules: Polish has one, few,
// many; Japanese and Chinese have only other), with {{.Count}} set to n.
func Count(locale, id string, n int, data map[string]any) string {
	d := map[string]any{"Count": n}
	for k, v := range data {
		d[k] = v
	}
	return text(locale, &i18n.LocalizeConfig{MessageID: id, PluralCount: n, TemplateData: d})
}

// Raw is message id in locale exactly as written, without executing it as a template: for
// texts that carry the certificate templates' own {{event.name}} placeholders.
func Raw(locale, id string) string {
	return text(locale, &i18n.LocalizeConfig{MessageID: id, TemplateParser: template.IdentityParser{}})
}

func text(locale string, cfg *i18n.LocalizeConfig) string {
	if cfg.TemplateParser == nil {
		cfg.TemplateParser = texts
	}
	l, ok := localize[locale]
	if !ok {
		l = localize[Default]
	}
	s, err := l.Localize(cfg)
	if err != nil {
		return cfg.MessageID
	}
	return s
}

// Messages are the message ids and texts (plural forms joined) of one catalog file, as the
// file holds them: what the completeness check compares across languages.
func Messages(code string) (map[string]*i18n.Message, error) {
	raw, err := fs.ReadFile(catalogFiles, catalogPath(code))
	if err != nil {
		return nil, err
	}
	mf, err := i18n.ParseMessageFileBytes(raw, catalogPath(code), map[string]i18n.UnmarshalFunc{"toml": toml.Unmarshal})
	if err != nil {
		return nil, err
	}
	out := make(map[string]*i18n.Message, len(mf.Messages))
	for _, m := range mf.Messages {
		out[m.ID] = m
	}
	return out, nil
}

// forms joins a message's plural forms, for checks that read every text of a message.
func forms(m *i18n.Message) string {
	return strings.Join([]string{m.Zero, m.One, m.Two, m.Few, m.Many, m.Other}, "\x00")
}
