package email

import (
	"bytes"
	"cmp"
	"embed"
	"html/template"
	"regexp"
)

// A branded message is the HTML part of an email (the issuer's logo and colour, a button to
// the verification page), set from the message's recorded plain text (FromText), which is
// sent beside it word for word for clients that show no HTML. The HTML keeps to what mail clients render: tables for layout, inline
// styles, no script, no external stylesheet or font, the logo as an inline image (cid:) rather
// than a remote one that clients block.

// Brand is how the issuer appears in its emails.
type Brand struct {
	Name    string
	Color   string // #RRGGBB; a navy blue when empty or malformed
	Website string
	Logo    []byte // PNG, sent inline as cid:logo; none when nil
}

// Button is the message's one call to action.
type Button struct {
	Label, URL string
}

// Branded is the content of a branded message.
type Branded struct {
	Brand      Brand
	Preheader  string // the line clients show after the subject
	Heading    string
	Paragraphs []string
	Button     *Button
	// Wallet is the second call to action: the link that adds the credential to a wallet.
	Wallet  *Button
	Closing []string    // paragraphs after the button (a sign-off)
	Details [][2]string // label and value rows, e.g. the certificate number
	Footer  string
	// Lang is the message's language (<html lang>); English when empty.
	Lang string
}

// LogoContentID names the inline logo in the HTML part (the template says cid:logo).
const LogoContentID = "logo"

//go:embed templates/branded.html
var templateFiles embed.FS

var brandedHTML = template.Must(template.New("branded.html").ParseFS(templateFiles, "templates/branded.html"))

var hexColour = regexp.MustCompile(`^#[0-9A-Fa-f]{6}$`)

// HTML renders the HTML part.
func (b Branded) HTML() (string, error) {
	colour := b.Brand.Color
	if !hexColour.MatchString(colour) {
		colour = "#1F2A44"
	}
	var buf bytes.Buffer
	err := brandedHTML.Execute(&buf, map[string]any{"M": b, "Colour": colour, "HasLogo": len(b.Brand.Logo) > 0, "Lang": cmp.Or(b.Lang, "en")})
	return buf.String(), err
}
