package wallet

import (
	"context"
	"regexp"
	"strings"

	"github.com/certhub/credentiald/internal/apperr"
	"github.com/certhub/credentiald/internal/domain"
	"github.com/certhub/credentiald/internal/locale"
)

// LinkMarker stands in a recorded delivery email for the link of a wallet offer, made when the
// message is sent (PrepareEmail): an offer is claimable once, so the message gets a fresh one,
// and its token never rests in the recorded body.
const LinkMarker = "[[wallet-link]]"

// EmailParagraph is the paragraph of a delivery email that offers the credential to the
// recipient's wallet, in English.
var EmailParagraph = EmailParagraphIn(locale.Default)

// EmailParagraphIn is that paragraph in a language: its words, then the link's marker on a
// line of its own.
func EmailParagraphIn(lang string) string {
	return locale.Text(lang, "email.walletParagraph", nil) + "\n" + LinkMarker
}

// walletParagraph finds the wallet paragraph in a recorded body, whatever its language.
var walletParagraph = regexp.MustCompile(`\n\n[^\n]*\n` + regexp.QuoteMeta(LinkMarker))

// PrepareEmail fills a certificate's or a badge's delivery email, as it is sent, with the link
// of a fresh wallet offer. A credential that can no longer be offered (revoked, expired) loses
// the paragraph; a message without the marker is left as it is.
func (s *Service) PrepareEmail(ctx context.Context, d *domain.EmailDelivery) error {
	if !strings.Contains(d.BodyText, LinkMarker) {
		return nil
	}
	c := Credential{AccountID: d.AccountID, CertificateID: d.CertificateID}
	if c.CertificateID == nil {
		c.AssertionID = d.BadgeAssertionID
	}
	o, err := s.offerFor(ctx, c)
	if e, ok := apperr.As(err); ok && (e.Code == apperr.Conflict || e.Code == apperr.NotFound) {
		d.BodyText = walletParagraph.ReplaceAllString(d.BodyText, "")
		return nil
	} else if err != nil {
		return err
	}
	d.BodyText = strings.ReplaceAll(d.BodyText, LinkMarker, o.InteractionURL)
	return nil
}

// offerFor makes an offer of the credential of a delivery email: NOT_FOUND for a message of
// neither a certificate nor a badge assertion.
func (s *Service) offerFor(ctx context.Context, c Credential) (Offer, error) {
	if c.CertificateID == nil && c.AssertionID == nil {
		return Offer{}, apperr.NoSuch("credential")
	}
	c, err := s.withBadge(ctx, c)
	if err != nil {
		return Offer{}, err
	}
	return s.Create(ctx, c)
}
