package email

import (
	"cmp"
	"regexp"
	"strings"

	"github.com/certhub/credentiald/internal/domain"
	"github.com/certhub/credentiald/internal/locale"
	"github.com/certhub/credentiald/internal/render"
	"github.com/certhub/credentiald/internal/store"
)

// Every message is sent as its recorded plain text, word for word, and beside it as branded
// HTML (Branded) set from the same text: the recorded text stays the one source of the words,
// whatever feature recorded it, and the HTML presents it. Paragraphs are separated by blank
// lines; a paragraph that ends in a link becomes the button, its other lines the words above
// it; a paragraph of "Label: value" lines becomes the detail rows.

// headings and button labels per kind of message, in English; the kinds a recipient receives
// (certificate, badge) take theirs from the catalog in the message's language.
var headings = map[string][2]string{
	"certificate":     {"Your certificate is ready", "View and verify your certificate"},
	"badge":           {"You have been awarded a badge", "View your badge"},
	"api_key_created": {"A new API key was created", "Open"},
}

// CatalogTable is the catalog table (email.<table>.subject, .heading, .button, .body) of a
// kind of the account's own emails about its members; "" for another kind.
func CatalogTable(kind string) string { return catalogIDs[kind] }

// catalogIDs are the catalog tables of the account's own emails about its members.
var catalogIDs = map[string]string{"invitation": "invitation", "invitation_existing": "invitationExisting",
	"password_reset": "passwordReset", "password_changed": "passwordChanged", "email_verification": "emailVerification",
	"retention_changed": "retentionChanged"}

// headingOf is the heading and button label of a message in its language.
func headingOf(d domain.EmailDelivery) ([2]string, bool) {
	lang := locale.Or(d.Locale, locale.Default)
	switch d.Kind {
	case "certificate", "badge":
		return [2]string{locale.Text(lang, "email."+d.Kind+".heading", nil), locale.Text(lang, "email."+d.Kind+".button", nil)}, true
	case "invitation", "invitation_existing", "password_reset", "password_changed", "email_verification", "retention_changed":
		id := catalogIDs[d.Kind]
		return [2]string{locale.Text(lang, "email."+id+".heading", nil), locale.Text(lang, "email."+id+".button", nil)}, true
	}
	h, ok := headings[d.Kind]
	return h, ok
}

var detailLine = regexp.MustCompile(`^\s*([^:]{1,40}):\s+(\S.*)$`)

// FromText is the branded form of a recorded message.
func FromText(d domain.EmailDelivery, brand Brand) Branded {
	h, ok := headingOf(d)
	if !ok {
		h = [2]string{d.Subject, "Open"}
	}
	lang := locale.Or(d.Locale, locale.Default)
	footer := locale.Text(lang, "email.footerNoIssuer", nil)
	if name := strings.TrimRight(cmp.Or(brand.Name, d.FromName), "."); name != "" {
		footer = locale.Text(lang, "email.footer", map[string]any{"Issuer": name})
	}
	b := Branded{Brand: brand, Heading: h[0], Preheader: d.Subject, Footer: footer, Lang: lang}
	for _, para := range strings.Split(strings.ReplaceAll(d.BodyText, "\r\n", "\n"), "\n\n") {
		lines := strings.Split(strings.Trim(para, "\n"), "\n")
		if len(lines) == 0 || strings.TrimSpace(lines[0]) == "" {
			continue
		}
		last := strings.TrimSpace(lines[len(lines)-1])
		isLink := (strings.HasPrefix(last, "https://") || strings.HasPrefix(last, "http://")) && !strings.ContainsAny(last, " \t")
		if b.Button != nil && b.Wallet == nil && isLink && strings.Contains(last, "/interactions/") {
			// The wallet link (a wallet offer's interaction URL) is the second button.
			b.Wallet = &Button{Label: locale.Text(lang, "email.walletButton", nil), URL: last}
			continue
		}
		if b.Button == nil && isLink {
			b.Button = &Button{Label: h[1], URL: last}
			// The words that lead to the link ("Anyone can verify it at:") stay right above
			// the button.
			if words := strings.TrimSpace(strings.Join(lines[:len(lines)-1], " ")); words != "" {
				b.Paragraphs = append(b.Paragraphs, words)
			}
			continue
		}
		details := make([][2]string, 0, len(lines))
		for _, l := range lines {
			if m := detailLine.FindStringSubmatch(l); m != nil && strings.HasPrefix(l, " ") {
				details = append(details, [2]string{strings.TrimSpace(m[1]), strings.TrimSpace(m[2])})
			}
		}
		if len(details) == len(lines) {
			b.Details = append(b.Details, details...)
			continue
		}
		// Lines of one paragraph are one flow of words in HTML.
		words := make([]string, len(lines))
		for i, l := range lines {
			words[i] = strings.TrimSpace(l)
		}
		if b.Button != nil {
			b.Closing = append(b.Closing, strings.Join(words, " ")) // after the link: below the button
			continue
		}
		b.Paragraphs = append(b.Paragraphs, strings.Join(words, " "))
	}
	return b
}

// BrandOf is how an account's branding appears in its emails; the logo is sent as a PNG at
// most logoWidth pixels wide (mail clients show no SVG).
func BrandOf(b domain.Branding) Brand {
	brand := Brand{Name: store.Deref(b.IssuerName), Color: store.Deref(b.PrimaryColor), Website: store.Deref(b.Website)}
	if b.Logo != nil {
		brand.Logo = logoPNG(*b.Logo)
	}
	return brand
}

const logoWidth = 440 // twice the 220 px the HTML shows it at, for sharp screens

// logoPNG is the logo as the email shows it (nil when it cannot be drawn; the branding's
// check refuses such a logo when it is stored).
func logoPNG(uri string) []byte {
	logo, err := render.ImagePNG(uri, logoWidth)
	if err != nil {
		return nil
	}
	return logo
}
