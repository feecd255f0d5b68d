package site

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/a-h/templ"

	"github.com/certhub/credentiald/internal/verification"
)

// hostile is what an issuer or a visitor may have typed into a field a page shows.
const hostile = `</p><script>alert(1)</script><img src=x onerror="alert(2)">'&`

// The pages write every value an issuer or a visitor wrote as text: escaped in text and in
// attributes, a link to another scheme than the web's made harmless, and the page's own markup
// (icons, the QR code, the style and script the Content-Security-Policy names) as it is.
func TestPagesEscapeWhatIssuersAndVisitorsWrote(t *testing.T) {
	desc := hostile
	v := &verificationView{Status: verification.Revoked, Kind: verification.KindCertificate, Name: hostile, Number: hostile,
		Code: hostile, Description: &desc, Title: hostile, ShareTitle: hostile, Summary: hostile, Headline: hostile,
		StatusLabel: hostile, StatusMessage: hostile, ReasonLabel: hostile, Reason: hostile, KindLabel: hostile, KindLower: "certificate",
		Recipient: hostile, RecipientFirst: hostile, IssuerName: hostile, IssuerURL: "javascript:alert(3)", LogoURL: hostile,
		Monogram: hostile, IssuedOn: hostile, RevokedOn: hostile, IssuedISO: hostile, RevokedISO: hostile, EventWhen: hostile,
		PageURL: hostile, ImageURL: hostile, PreviewURL: hostile, PreviewAlt: hostile, Caption: hostile, CopyBeacon: hostile,
		CredentialJSONURL: hostile, CredentialJWTURL: hostile, Portal: true}
	v.L, v.Tx, v.Style, v.Script = "en", verifyTextsFor("en", "certificate"), "main{color:red}", "void 0"
	v.Langs = []langLink{{Code: "en", Name: hostile, Href: "/verify/X?t=" + hostile, Current: true}}
	home := &homeView{Code: hostile, Error: hostile}
	home.L = "en"
	errPage := &errorView{Title: hostile, Message: hostile, RequestID: hostile, Lookup: true}
	errPage.L = "en"
	wallet := &walletView{Heading: hostile, Name: hostile, RecipientName: hostile, KindLabel: hostile, KindLower: "badge",
		IssuerName: hostile, IssuerURL: "javascript:alert(3)", Monogram: hostile, WalletURL: "openid-credential-offer://?x=1",
		LCWRequestURL: "javascript:alert(4)", VerificationPath: hostile, Expires: hostile, QRCode: "<svg>qr</svg>"}
	wallet.L = "en"
	for name, page := range map[string]templ.Component{"verify": verifyPage(v), "home": homePage(home), "error": errorPage(errPage), "wallet": walletPage(wallet)} {
		var b bytes.Buffer
		if err := page.Render(context.Background(), &b); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		out := b.String()
		for _, bad := range []string{"<script>alert", "<img src=x", "javascript:", `onerror="`} {
			if strings.Contains(out, bad) {
				t.Errorf("%s page: %q written as markup:\n%s", name, bad, out)
			}
		}
		if !strings.Contains(out, "&lt;script&gt;alert(1)&lt;/script&gt;") {
			t.Errorf("%s page: the hostile text is not shown escaped", name)
		}
	}
	var b bytes.Buffer
	_ = verifyPage(v).Render(context.Background(), &b)
	for _, own := range []string{"<style>main{color:red}</style>", "<script>void 0</script>", iconRevoked, iconShield} {
		if !strings.Contains(b.String(), own) {
			t.Errorf("the verification page lacks its own markup %q", own)
		}
	}
	b.Reset()
	_ = walletPage(wallet).Render(context.Background(), &b)
	if !strings.Contains(b.String(), `href="openid-credential-offer://?x=1"`) || !strings.Contains(b.String(), "<svg>qr</svg>") {
		t.Errorf("the wallet page lost its deep link or QR code:\n%s", b.String())
	}
}
