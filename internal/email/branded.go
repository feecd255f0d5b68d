package email

import (
	"bytes"
	"embed"
	"html/template"
	"regexp"
	"strings"
)

// A branded message is written once and sent twice over: as HTML (the issuer's logo and
// colour, a button to the verification page) and as the plain-text part beside it, for clients
// that show no HTML. The HTML keeps to what mail clients render: tables for layout, inline
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
	Closing    []string    // paragraphs after the button (a sign-off)
	Details    [][2]string // label and value rows, e.g. the certificate number
	Footer     string
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
	err := brandedHTML.Execute(&buf, map[string]any{"M": b, "Colour": colour, "HasLogo": len(b.Brand.Logo) > 0})
	return buf.String(), err
}

// Text renders the plain-text part: the same words, the button as its address.
func (b Branded) Text() string {
	var w strings.Builder
	if b.Heading != "" {
		w.WriteString(b.Heading + "\n\n")
	}
	for _, p := range b.Paragraphs {
		w.WriteString(p + "\n\n")
	}
	if b.Button != nil {
		w.WriteString(b.Button.Label + ":\n" + b.Button.URL + "\n\n")
	}
	for _, d := range b.Details {
		w.WriteString(d[0] + ": " + d[1] + "\n")
	}
	if len(b.Details) > 0 {
		w.WriteString("\n")
	}
	if b.Footer != "" {
		w.WriteString(b.Footer + "\n")
	}
	return w.String()
}
