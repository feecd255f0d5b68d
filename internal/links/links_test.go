package links

import (
	"testing"

	"github.com/google/uuid"
)

// The URLs are the paths the server serves, rooted at site_url with or without its trailing
// slash.
func TestURLs(t *testing.T) {
	id := uuid.MustParse("0190a5f2-7b3c-7d4e-8f60-123456789abc")
	ev := uuid.MustParse("0190a5f2-0000-7000-8000-000000000001")
	for _, site := range []Site{New("https://certs.example.org"), New("https://certs.example.org/")} {
		for got, want := range map[string]string{
			site.Root():                             "https://certs.example.org",
			site.Verification("7K3M9QX2PB4TW"):      "https://certs.example.org/verify/7K3M9QX2PB4TW",
			site.IssuerLogo("7K3M9QX2PB4TW"):        "https://certs.example.org/api/v1/verify/7K3M9QX2PB4TW/issuer-logo",
			site.BakedBadge("7K3M9QX2PB4TW", "svg"): "https://certs.example.org/api/v1/verify/7K3M9QX2PB4TW/badge.svg",
			site.OpenBadgesAssertion(id):            "https://certs.example.org/ob/v2/assertions/" + id.String(),
			site.OpenBadgesBadgeClass(id):           "https://certs.example.org/ob/v2/badges/" + id.String(),
			site.OpenBadgesIssuer(id):               "https://certs.example.org/ob/v2/issuers/" + id.String(),
			Certificate(id):                         "/api/v1/certificates/" + id.String(),
			BulkJob(ev, id):                         "/api/v1/events/" + ev.String() + "/certificates/generate/jobs/" + id.String(),
			EscapedVerificationPage("a/b"):          "/verify/a%2Fb",
			VerificationShare("7K3M", "copy"):       "/verify/7K3M/share/copy",
		} {
			if got != want {
				t.Errorf("got %s, want %s", got, want)
			}
		}
	}
}
