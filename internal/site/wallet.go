package site

import (
	"html/template"
	"net/http"

	"github.com/a-h/templ"
	"github.com/labstack/echo/v4"

	"github.com/certhub/credentiald/internal/httpmw"
	"github.com/certhub/credentiald/internal/links"
	"github.com/certhub/credentiald/internal/render"
	"github.com/certhub/credentiald/internal/verification"
	"github.com/certhub/credentiald/internal/wallet"
)

// routeInteraction is an offer's interaction URL: a page with a QR code for people, the
// protocols as JSON for wallets (the VC API's interaction URL, which wallets ask for JSON).
const routeInteraction = "/interactions/:offerToken"

// walletView is the page that offers a credential to its recipient's wallet.
type walletView struct {
	pageData
	Heading, Name, RecipientName string
	KindLabel, KindLower         string
	IssuerName, IssuerURL        string
	LogoURL, Monogram            string
	// WalletURL is the openid-credential-offer: deep link, which a page would refuse as an
	// unknown scheme: it is the service's own, built from the offer's https URL.
	WalletURL                 templ.SafeURL
	LCWRequestURL             string
	VerificationPath, Expires string
	QRCode                    template.HTML
	Gone                      string
}

// walletInteraction answers an offer's interaction URL. A wallet (Accept: application/json)
// gets the protocols it may use, or the API's envelope for an offer gone or unknown; a person
// gets the page: what is offered, the two wallet links, and a QR code of this URL for a
// phone's camera; an offer gone shows why, with 410.
func (s *Site) walletInteraction(c echo.Context) error {
	ctx := c.Request().Context()
	token := c.Param("offerToken")
	if httpmw.Prefers(ctx, echo.MIMEApplicationJSON, echo.MIMETextHTML) {
		protocols, err := s.wallet.Protocols(ctx, token)
		if err != nil {
			return err
		}
		c.Response().Header().Set("Cache-Control", "no-store")
		return c.JSON(http.StatusOK, map[string]any{"protocols": protocols})
	}
	p, err := s.wallet.Interaction(ctx, token)
	if err != nil {
		return err
	}
	cred, err := s.verification.Describe(ctx, p.VerificationCode)
	if err != nil {
		return err
	}
	l := pageLang(c, cred.Locale)
	v := walletView{Name: cred.Name, RecipientName: cred.RecipientName, IssuerName: cred.Issuer.Name,
		WalletURL: templ.SafeURL(p.WalletURL), LCWRequestURL: p.LCWRequestURL, Gone: goneText(l, p.Gone),
		VerificationPath: links.VerificationPage(cred.Code), Expires: l.day(p.ExpiresAt)}
	v.accent, v.L, v.Langs = cred.Issuer.Color, l, switcher(c, l)
	v.KindLower = "certificate"
	if cred.Kind == verification.KindBadge {
		v.KindLower = "badge"
	}
	v.KindLabel = l.T("page." + v.KindLower + ".kind")
	if cred.Issuer.Website != nil {
		v.IssuerURL = *cred.Issuer.Website
	}
	if cred.Issuer.HasLogo {
		v.LogoURL = links.VerificationAssetPath(cred.Code, "issuer-logo")
	}
	v.Monogram = monogram(cred.Issuer.Name)
	status := http.StatusOK
	if p.Gone != "" {
		status = http.StatusGone
		v.Heading = l.T("page.walletGone")
	} else {
		v.Heading = l.T("page." + v.KindLower + ".walletHeading")
		qr, err := render.QRCodeSVG(p.InteractionURL, l.T("page.qrAlt"))
		if err != nil {
			return err
		}
		v.QRCode = template.HTML(qr) // drawn here from a URL: squares only, nothing of the visitor's
	}
	return s.pages.render(c, status, &v, walletPage(&v), "no-store")
}

// walletCard is the recipient's page's offer to their wallet: the two links and a QR code of
// the offer's interaction URL (for a wallet on another device than the one reading the page).
type walletCard struct {
	WalletURL     templ.SafeURL // see walletView
	LCWRequestURL string
	QRCode        template.HTML
}

// recipientWallet is the wallet card of the recipient's page of a valid credential, or nil:
// an offer that cannot be made (a fault) leaves the page without the card, logged.
func (s *Site) recipientWallet(c echo.Context, cred verification.Credential, l lang) *walletCard {
	ctx := c.Request().Context()
	w := wallet.Credential{AccountID: cred.AccountID}
	id := cred.ID
	if cred.Kind == verification.KindBadge {
		w.AssertionID = &id
	} else {
		w.CertificateID = &id
	}
	o, err := s.wallet.ForRecipient(ctx, w)
	if err != nil {
		s.logger.WarnContext(ctx, "no wallet offer on the recipient's page", "error", err)
		return nil
	}
	qr, err := render.QRCodeSVG(o.InteractionURL, l.T("page.qrAlt"))
	if err != nil {
		s.logger.WarnContext(ctx, "no wallet offer on the recipient's page", "error", err)
		return nil
	}
	return &walletCard{WalletURL: templ.SafeURL(o.WalletURL), LCWRequestURL: o.LCWRequestURL, QRCode: template.HTML(qr)}
}

// goneText says in the page's language why an offer can no longer be claimed; "" while it
// can.
func goneText(l lang, r wallet.GoneReason) string {
	if r == "" {
		return ""
	}
	return l.T("page.walletGoneWhy." + string(r))
}
