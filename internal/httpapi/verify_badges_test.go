package httpapi_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

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
	require.Equal(t, "valid", v.Data.Status, "verify: v.Data.Status")
	require.Equal(t, "badge", v.Data.Credential.Type, "verify: v.Data.Credential.Type")
	require.Equal(t, "Speaker", v.Data.Credential.Name, "verify: v.Data.Credential.Name")
	require.True(t, strings.HasSuffix(v.Data.Credential.ImageURL, "/badge.png"), "verify: %q should end with %q", v.Data.Credential.ImageURL, "/badge.png")
	require.Equal(t, "Ada Lovelace", v.Data.Recipient.Name, "verify: v.Data.Recipient.Name")
	if strings.Contains(string(res.Body), "ada@example.org") {
		t.Fatal("the recipient's email is shown publicly")
	}
	res = public.Get("/verify/" + code)
	require.Equal(t, 200, res.StatusCode, "page: status")
	require.Contains(t, string(res.Body), "Speaker", "page: body")

	png := public.Get("/api/v1/verify/" + code + "/badge.png")
	chunks, err := openbadges.UnbakePNG(png.Body, openbadges.PNGKeywordAssertion)
	require.Equal(t, 200, png.StatusCode, "badge.png: status")
	require.NoError(t, err, "badge.png: unbaking")
	require.Len(t, chunks, 1, "badge.png: chunks")
	require.Contains(t, string(chunks[0]), issued.Data[0].ID, "badge.png: the baked chunk")
	svg := public.Get("/api/v1/verify/" + code + "/badge.svg")
	verify, texts, err := openbadges.UnbakeSVG(svg.Body, openbadges.SVGElementAssertion)
	require.Equal(t, 200, svg.StatusCode, "badge.svg: status")
	require.NoError(t, err, "badge.svg: unbaking")
	require.Len(t, texts, 1, "badge.svg: texts")
	require.True(t, strings.HasSuffix(verify[0], "/ob/v2/assertions/"+issued.Data[0].ID), "badge.svg: %q should end with %q", verify[0], "/ob/v2/assertions/"+issued.Data[0].ID)
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
