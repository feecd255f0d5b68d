package email

import (
	"slices"
	"testing"

	"github.com/certhub/credentiald/internal/domain"
)

// A certificate's recorded text reads in the HTML in the order it was written: the greeting
// and the words above the button (its lead-in last), the sign-off
// below it; the footer ends in one full stop even when the name has its own.
func TestTheHTMLKeepsTheTextsOrder(t *testing.T) {
	t.Parallel()
	d := domain.EmailDelivery{OutboundEmail: domain.OutboundEmail{Kind: "certificate", Subject: "Your certificate: Go Conference 2026",
		BodyText: "Hello Ada,\n\nyour certificate for Go Conference 2026 is attached (CERT-2026-000042).\n\n" +
			"Anyone can verify it at:\nhttps://certs.example.org/verify/7K3M9QX2PB4TW8?t=abc\n\nGophers e.V.\n"}}
	b := FromText(d, Brand{Name: "Gophers e.V."})
	if want := []string{"Hello Ada,", "your certificate for Go Conference 2026 is attached (CERT-2026-000042).",
		"Anyone can verify it at:"}; !slices.Equal(b.Paragraphs, want) {
		t.Errorf("above the button: %q, want %q", b.Paragraphs, want)
	}
	if b.Button == nil || b.Button.URL != "https://certs.example.org/verify/7K3M9QX2PB4TW8?t=abc" {
		t.Errorf("button: %+v", b.Button)
	}
	if !slices.Equal(b.Closing, []string{"Gophers e.V."}) {
		t.Errorf("below the button: %q", b.Closing)
	}
	if b.Footer != "Sent for Gophers e.V." {
		t.Errorf("footer: %q", b.Footer)
	}
}
