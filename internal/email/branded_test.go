package email

import (
	"os"
	"strings"
	"testing"
)

func sampleBranded() Branded {
	return Branded{
		Brand:      Brand{Name: "Gophers e.V.", Color: "#0E7C66", Website: "https://gophers.example.org"},
		Preheader:  "Your certificate for Go Conference 2026 is ready.",
		Heading:    "Your certificate is ready",
		Paragraphs: []string{"Hello Ana <script>alert(1)</script>,", "your certificate for Go Conference 2026 is attached. Anyone can verify it, and you can add it to your LinkedIn profile from its page."},
		Button:     &Button{Label: "View and share your certificate", URL: "https://certs.example.org/verify/7K3M9QX2PB4TW?t=abc"},
		Details:    [][2]string{{"Certificate", "CERT-2026-000042"}, {"Issued", "20 November 2026"}},
		Footer:     "Sent by Gophers e.V. through credentiald.",
	}
}

// The HTML part carries the words, the button, the brand's colour and the logo by cid, with
// every value escaped; the text part carries the same words and the link.
func TestBrandedMessageRendersAsHTMLAndText(t *testing.T) {
	b := sampleBranded()
	html, err := b.HTML()
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Your certificate is ready", "Hello Ana &lt;script&gt;", `href="https://certs.example.org/verify/7K3M9QX2PB4TW?t=abc"`,
		"#0E7C66", "CERT-2026-000042", `lang="en"`, "Gophers e.V."} {
		if !strings.Contains(html, want) {
			t.Errorf("the HTML lacks %q", want)
		}
	}
	if strings.Contains(html, "<script>") || strings.Contains(html, "cid:logo") {
		t.Fatalf("a script, or a logo without one:\n%s", html)
	}
	b.Brand.Logo = []byte("\x89PNG")
	b.Brand.Color = "red; background:url(x)"
	html, _ = b.HTML()
	if !strings.Contains(html, `src="cid:logo"`) || strings.Contains(html, "url(x)") || !strings.Contains(html, "#1F2A44") {
		t.Fatalf("logo or colour:\n%s", html)
	}
	if dir := os.Getenv("EMAIL_PREVIEW_DIR"); dir != "" {
		b.Brand.Logo, b.Brand.Color = nil, "#0E7C66"
		html, _ = b.HTML()
		_ = os.WriteFile(dir+"/email.html", []byte(html), 0o644)
	}
}
