package httpapi_test

import (
	"strings"
	"testing"

	"github.com/certhub/credentiald/internal/openbadges"
)

// A badge assertion verifies like a certificate: the JSON result names a badge with its image,
// the page shows it, badge.png and badge.svg carry the assertion baked in, a certificate's
// preview and PDF do not apply; once the badge is retired the assertion verifies as revoked.
func TestBadgeAssertionsVerifyPublicly(t *testing.T) {
	t.Parallel()
	b := newBadging(t)
	badge := b.badge(t, map[string]any{"name": "Speaker", "description": "Gave a talk"})
	_, issued := b.issue(t, b.acct.Client, badge.Data.ID, ids(b.attendee(t, "Ada")))
	code := strings.ToLower(issued.Data[0].VerificationCode)
	public := b.env.Client

	var v struct {
		Data struct {
			Status     string
			Credential struct {
				Type, Name string
				ImageURL   string `json:"imageUrl"`
			}
			Recipient struct{ Name string }
		}
	}
	res := public.Get("/api/v1/verify/" + code)
	if res.StatusCode != 200 {
		t.Fatalf("verify: %d %s", res.StatusCode, res.Body)
	}
	res.JSON(t, &v)
	if v.Data.Status != "valid" || v.Data.Credential.Type != "badge" || v.Data.Credential.Name != "Speaker" ||
		!strings.HasSuffix(v.Data.Credential.ImageURL, "/badge.png") || v.Data.Recipient.Name != "Ada Lovelace" {
		t.Fatalf("verify: %+v", v.Data)
	}
	if strings.Contains(string(res.Body), "ada@example.org") {
		t.Fatal("the recipient's email is shown publicly")
	}
	if res := public.Get("/verify/" + code); res.StatusCode != 200 || !strings.Contains(string(res.Body), "Speaker") {
		t.Fatalf("page: %d", res.StatusCode)
	}

	png := public.Get("/api/v1/verify/" + code + "/badge.png")
	chunks, err := openbadges.UnbakePNG(png.Body, openbadges.PNGKeywordAssertion)
	if png.StatusCode != 200 || err != nil || len(chunks) != 1 || !strings.Contains(string(chunks[0]), issued.Data[0].ID) {
		t.Fatalf("badge.png: %d, %d chunks (%v)", png.StatusCode, len(chunks), err)
	}
	svg := public.Get("/api/v1/verify/" + code + "/badge.svg")
	verify, texts, err := openbadges.UnbakeSVG(svg.Body, openbadges.SVGElementAssertion)
	if svg.StatusCode != 200 || err != nil || len(texts) != 1 || !strings.HasSuffix(verify[0], "/ob/v2/assertions/"+issued.Data[0].ID) {
		t.Fatalf("badge.svg: %d, %q (%v)", svg.StatusCode, verify, err)
	}
	for _, asset := range []string{"preview.png", "certificate.pdf"} {
		if res := public.Get("/api/v1/verify/" + code + "/" + asset); res.StatusCode != 404 {
			t.Fatalf("%s of a badge: %d", asset, res.StatusCode)
		}
	}

	if res := b.acct.Client.Delete("/api/v1/badges/" + badge.Data.ID); res.StatusCode != 204 {
		t.Fatalf("retire: %d %s", res.StatusCode, res.Body)
	}
	public.Get("/api/v1/verify/"+code).JSON(t, &v)
	if v.Data.Status != "revoked" {
		t.Fatalf("after retiring the badge: %s", v.Data.Status)
	}
}
