// Package render turns a certificate template (rows of columns on a 12-column grid, the model
// of maroto v2) with its placeholders filled into a PDF, through maroto, and into a PNG of the
// same page, through Go's image libraries. Both come from one computed plan, so they agree.
// Preview, issuance, downloads and verification all render through this package.
package render

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"
	"unicode"

	"github.com/certhub/credentiald/internal/locale"
)

// Layout is a template's page: an optional background and rows of columns.
type Layout struct {
	Background *Background `json:"background,omitempty"`
	Rows       []Row       `json:"rows"`
	// Locale sets how dates are written: one of internal/locale's codes; English when empty.
	// A template may pin one (the contract allows en, de, fr, es, pl, ja); otherwise a
	// certificate gives its event's.
	Locale string `json:"locale,omitempty"`
	// AccentColor is the template's accent colour: wherever the layout uses exactly this
	// colour, the account's branding colour takes its place when the account has one.
	AccentColor string `json:"accentColor,omitempty"`
}

// Background fills the page behind the rows: colour, image, pattern, bands, then border.
type Background struct {
	Color   string   `json:"color,omitempty"`
	Image   string   `json:"image,omitempty"`
	Pattern *Pattern `json:"pattern,omitempty"`
	Bands   []Band   `json:"bands,omitempty"`
	Border  *Border  `json:"border,omitempty"`
}

// Border is a frame drawn around the page.
type Border struct {
	Color string  `json:"color,omitempty"`
	Width float64 `json:"width,omitempty"` // mm
	Style string  `json:"style,omitempty"` // single, double, ornate, guilloche
}

// Band is a stripe of colour along one edge of the page.
type Band struct {
	Edge   string  `json:"edge"`             // top, bottom, left, right
	Size   float64 `json:"size"`             // mm across
	Offset float64 `json:"offset,omitempty"` // mm from the edge
	Color  string  `json:"color,omitempty"`
}

// Pattern is a fine texture printed over the whole page, in a pale tint of its colour.
type Pattern struct {
	Style string `json:"style"` // guilloche
	Color string `json:"color,omitempty"`
}

// Row is a band of the page, Height millimetres tall.
type Row struct {
	Height float64 `json:"height"`
	Cols   []Col   `json:"cols"`
}

// Col is a column of a row, Size twelfths of the page wide.
type Col struct {
	Size    int     `json:"size"`
	Content Content `json:"content"`
}

// Content is what a column shows; Type says which fields apply.
type Content struct {
	Type     string  `json:"type"` // text, image, logo, qr, signature, spacer
	Text     string  `json:"text,omitempty"`
	FontSize float64 `json:"fontSize,omitempty"`
	Bold     bool    `json:"bold,omitempty"`
	Italic   bool    `json:"italic,omitempty"`
	Font     string  `json:"font,omitempty"` // sans, serif
	Color    string  `json:"color,omitempty"`
	Align    string  `json:"align,omitempty"`
	Image    string  `json:"image,omitempty"`
	Name     string  `json:"name,omitempty"`
	Title    string  `json:"title,omitempty"`
	// Ribbons hangs two ribbon tails under a seal.
	Ribbons bool `json:"ribbons,omitempty"`
	// Signatory (1 or 2) makes a signature show the account's signatory of that number,
	// when the branding has one, in place of the content's own image, name and title.
	Signatory int `json:"signatory,omitempty"`
}

// Page is a sheet size in millimetres.
type Page struct{ Width, Height float64 }

// Margin is the space around the rows, in millimetres.
const Margin = 15.0

// PageOf returns the sheet of a paper size ("A4", "LETTER") in an orientation.
func PageOf(size, orientation string) Page {
	p := Page{Width: 210, Height: 297}
	if size == "LETTER" {
		p = Page{Width: 215.9, Height: 279.4}
	}
	if orientation != "portrait" {
		p.Width, p.Height = p.Height, p.Width
	}
	return p
}

// Template is what is rendered: a layout on a page.
type Template struct {
	Page   Page
	Layout Layout
}

// ParseLayout decodes a stored layout.
func ParseLayout(raw []byte) (Layout, error) {
	var l Layout
	if err := json.Unmarshal(raw, &l); err != nil {
		return l, fmt.Errorf("render: layout: %w", err)
	}
	return l, nil
}

// Data fills the placeholders.
type Data struct {
	Recipient       Recipient
	Event           Event
	Certificate     Certificate
	IssuerName      string
	IssuerLogo      string // data URI of the branding logo, or ""
	BrandColor      string // #RRGGBB of the branding, or "": replaces the layout's AccentColor
	Signatories     []Signatory
	VerificationURL string
	Metadata        map[string]string
}

// Signatory is a person who signs an account's certificates (from its branding).
type Signatory struct {
	Name, Title string
	Image       string // data URI of the signature, or ""
}

// Recipient is the person a certificate is for.
type Recipient struct{ FirstName, LastName, Email string }

// Event is the event a certificate is for.
type Event struct {
	Name     string
	Date     time.Time
	Location string
}

// Certificate is the issued credential's own data.
type Certificate struct {
	Number    string
	IssuedAt  time.Time
	ExpiresAt *time.Time
}

// Placeholders is every placeholder a template may use, besides attendee.metadata.KEY.
var Placeholders = []string{
	"recipient.firstName", "recipient.lastName", "recipient.fullName", "event.name", "event.date",
	"event.location", "certificate.number", "certificate.issuedAt", "certificate.expiresAt",
	"issuer.name", "verification.url",
}

const metadataPrefix = "attendee.metadata."

var placeholderPattern = regexp.MustCompile(`\{\{\s*([^{}]*?)\s*\}\}`)

// Problem is a finding about a layout, located by its JSON path below the layout.
type Problem struct{ Path, Message string }

// Check finds what would keep a layout from rendering as meant: a locale it does not know,
// unknown or unclosed
// placeholders, rows wider than 12 twelfths or taller than the page, images that cannot be
// drawn or hold active content (CheckImage), more than two signatures.
func Check(t Template) []Problem {
	var out []Problem
	// The contract publishes a template's locale as a growing enum (answers may name locales
	// added later), so what a request may name is checked here, not by the request validator.
	if t.Layout.Locale != "" && !slices.Contains(Locales, t.Layout.Locale) {
		out = append(out, Problem{Path: "locale", Message: "must be one of " + strings.Join(Locales, ", ")})
	}
	known := map[string]bool{}
	for _, p := range Placeholders {
		known[p] = true
	}
	total, signatures := 0.0, 0
	for i, row := range t.Layout.Rows {
		total += row.Height
		width := 0
		for j, col := range row.Cols {
			width += col.Size
			if col.Content.Type == "signature" {
				signatures++
			}
			path := fmt.Sprintf("rows[%d].cols[%d].content", i, j)
			for _, text := range []string{col.Content.Text, col.Content.Name, col.Content.Title} {
				for _, m := range placeholderPattern.FindAllStringSubmatch(text, -1) {
					name := m[1]
					if known[name] || (strings.HasPrefix(name, metadataPrefix) && len(name) > len(metadataPrefix)) {
						continue
					}
					out = append(out, Problem{path, fmt.Sprintf("unknown placeholder {{%s}}; known: %s, attendee.metadata.KEY", name, strings.Join(Placeholders, ", "))})
				}
				rest := placeholderPattern.ReplaceAllString(text, "")
				if strings.Contains(rest, "{{") || strings.Contains(rest, "}}") {
					out = append(out, Problem{path, "a placeholder is not closed: write {{name}}"})
				}
			}
			if img := col.Content.Image; img != "" {
				if err := CheckImage(img); err != nil {
					out = append(out, Problem{path + ".image", err.Error()})
				}
			}
		}
		if width > 12 {
			out = append(out, Problem{fmt.Sprintf("rows[%d].cols", i), fmt.Sprintf("the columns are %d twelfths wide; a row holds 12", width)})
		}
	}
	if signatures > 2 {
		out = append(out, Problem{"rows", fmt.Sprintf("the layout has %d signatures; a certificate holds at most two", signatures)})
	}
	if room := t.Page.Height - 2*Margin; total > room+0.01 {
		out = append(out, Problem{"rows", fmt.Sprintf("the rows are %.1f mm tall; the page holds %.1f mm between its margins", total, room)})
	}
	if bg := t.Layout.Background; bg != nil && bg.Image != "" {
		if err := CheckImage(bg.Image); err != nil {
			out = append(out, Problem{"background.image", err.Error()})
		}
	}
	return out
}

// fill replaces the placeholders of text with d's values. A separator (" · ", ", ", " | ",
// " – ", " — ") left beside a placeholder that came out empty goes with it: "Berlin · 12 November
// 2026" becomes "12 November 2026" for an event without a location, not "· 12 November 2026".
func fill(text string, d *Data, loc string) string {
	if !strings.Contains(text, "{{") {
		return text
	}
	empty := false
	out := placeholderPattern.ReplaceAllStringFunc(text, func(m string) string {
		v := value(placeholderPattern.FindStringSubmatch(m)[1], d, loc)
		if strings.TrimSpace(v) == "" {
			empty = true
			return "\x00"
		}
		return v
	})
	if !empty {
		return out
	}
	lines := strings.Split(out, "\n")
	for i, line := range lines {
		for _, sep := range separators {
			line = strings.ReplaceAll(line, "\x00"+sep, "")
			line = strings.ReplaceAll(line, sep+"\x00", "")
		}
		lines[i] = strings.TrimSpace(strings.ReplaceAll(line, "\x00", ""))
	}
	return strings.Join(lines, "\n")
}

var separators = []string{" · ", ", ", " | ", " – ", " — "}

// value is a placeholder's value.
func value(name string, d *Data, loc string) string {
	if key, ok := strings.CutPrefix(name, metadataPrefix); ok {
		return d.Metadata[key]
	}
	switch name {
	case "recipient.firstName":
		return d.Recipient.FirstName
	case "recipient.lastName":
		return d.Recipient.LastName
	case "recipient.fullName":
		return FullName(d.Recipient.FirstName, d.Recipient.LastName)
	case "event.name":
		return d.Event.Name
	case "event.date":
		return longDate(d.Event.Date, loc)
	case "event.location":
		return d.Event.Location
	case "certificate.number":
		return d.Certificate.Number
	case "certificate.issuedAt":
		return longDate(d.Certificate.IssuedAt, loc)
	case "certificate.expiresAt":
		if d.Certificate.ExpiresAt == nil {
			return locale.Raw(locale.Or(loc, locale.Default), "date.noExpiry")
		}
		return longDate(*d.Certificate.ExpiresAt, loc)
	case "issuer.name":
		return d.IssuerName
	case "verification.url":
		return d.VerificationURL
	}
	return ""
}

// longDate is t's UTC day as loc writes it (internal/locale: the catalog's layout, monday's
// month names), English for an unknown loc.
func longDate(t time.Time, loc string) string { return locale.LongDate(t, loc) }

// Locales lists the locales a template's layout may name (the contract's TemplateLayout.locale).
var Locales = []string{"en", "de", "fr", "es", "pl", "ja"}

// MetadataKeys lists the attendee.metadata keys a layout's texts use.
func MetadataKeys(l Layout) []string {
	var keys []string
	seen := map[string]bool{}
	for _, row := range l.Rows {
		for _, col := range row.Cols {
			for _, text := range []string{col.Content.Text, col.Content.Name, col.Content.Title} {
				for _, m := range placeholderPattern.FindAllStringSubmatch(text, -1) {
					if key, ok := strings.CutPrefix(m[1], metadataPrefix); ok && key != "" && !seen[key] {
						seen[key] = true
						keys = append(keys, key)
					}
				}
			}
		}
	}
	return keys
}

// FullName joins a recipient's names as they are written: given name first with a space, or,
// when both are written in CJK scripts, family name first without a space (李小龙, 山田太郎,
// 김민준). It is the one rule for a recipient's whole name wherever it is written: the
// certificate ({{recipient.fullName}}), the verification page and its share texts, emails and
// Open Badges assertions, so that none of them names a recipient otherwise than the others.
func FullName(first, last string) string {
	first, last = strings.TrimSpace(first), strings.TrimSpace(last)
	if first != "" && last != "" && allCJK(first) && allCJK(last) {
		return last + first
	}
	return strings.TrimSpace(first + " " + last)
}

func allCJK(s string) bool {
	for _, r := range s {
		if !unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul) && r != '・' && r != 'ー' {
			return false
		}
	}
	return true
}
