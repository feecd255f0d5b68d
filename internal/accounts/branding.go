package accounts

import (
	"context"
	"encoding/base64"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/google/uuid"

	"github.com/certhub/credentiald/internal/apperr"
	"github.com/certhub/credentiald/internal/domain"
	"github.com/certhub/credentiald/internal/render"
	"github.com/certhub/credentiald/internal/spec"
	"github.com/certhub/credentiald/internal/store"
)

// MaxLogoBytes is the largest logo accepted, decoded.
const MaxLogoBytes = 256 << 10

// Signatories: at most two (a layout holds at most two signatures). A signature image is
// smaller than a logo: it is printed about 50 mm wide, and a logo and two signature images
// (base64) must fit in one 1 MiB request body.
const (
	MaxSignatories         = 2
	MaxSignatureImageBytes = 128 << 10
	maxSignatoryText       = 120 // characters of a name or a title
)

// Branding returns the account's branding.
func (s *Service) Branding(ctx context.Context, accountID uuid.UUID) (domain.Branding, error) {
	return s.store.FindBranding(ctx, accountID)
}

// PutBranding validates b and replaces the account's branding with it.
func (s *Service) PutBranding(ctx context.Context, accountID uuid.UUID, b domain.Branding) (domain.Branding, error) {
	var details []apperr.Detail
	trim := func(p **string) {
		if *p != nil {
			if v := strings.TrimSpace(**p); v == "" {
				*p = nil
			} else {
				*p = &v
			}
		}
	}
	trim(&b.IssuerName)
	trim(&b.EmailFromName)
	trim(&b.Website)
	trim(&b.PublicEmail)
	for field, v := range map[string]*string{"issuerName": b.IssuerName, "emailFromName": b.EmailFromName} {
		if v != nil && hasControl(*v) {
			details = append(details, apperr.Detail{Field: field, Message: "must not contain control characters"})
		}
	}
	if b.Website != nil {
		if u, err := url.Parse(*b.Website); err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
			details = append(details, apperr.Detail{Field: "website", Message: "must be an absolute http(s) URL"})
		}
	}
	if b.Logo != nil {
		if msg := CheckImageDataURI(*b.Logo); msg != "" {
			details = append(details, apperr.Detail{Field: "logo", Message: msg})
		}
	}
	var sd []apperr.Detail
	b.Signatories, sd = checkSignatories(b.Signatories)
	details = append(details, sd...)
	if len(details) > 0 {
		return domain.Branding{}, &apperr.Error{Code: apperr.ValidationError, Message: "The branding is not valid.", Details: details}
	}
	return store.InTx(ctx, s.store, func(tx *store.Tx) (domain.Branding, error) { return tx.PutBranding(ctx, accountID, b, s.now()) })
}

// checkSignatories trims the signatories' names and titles and says what is wrong with each.
// A signature image must decode as the renderer decodes it, so that a stored signatory never
// makes a certificate fail to render later.
func checkSignatories(in []domain.Signatory) ([]domain.Signatory, []apperr.Detail) {
	var details []apperr.Detail
	if len(in) > MaxSignatories {
		return in, []apperr.Detail{{Field: "signatories", Message: fmt.Sprintf(
			"holds %d signatories; a certificate shows at most %d: keep the first two", len(in), MaxSignatories)}}
	}
	out := make([]domain.Signatory, 0, len(in))
	for i, sg := range in {
		field := func(name string) string { return fmt.Sprintf("signatories[%d].%s", i, name) }
		sg.Name, sg.Title = strings.TrimSpace(sg.Name), strings.TrimSpace(sg.Title)
		for name, v := range map[string]string{"name": sg.Name, "title": sg.Title} {
			if err := spec.CheckSingleLine(v); err != nil {
				details = append(details, apperr.Detail{Field: field(name), Message: err.Error()})
			} else if n := utf8.RuneCountInString(v); n > maxSignatoryText {
				details = append(details, apperr.Detail{Field: field(name), Message: fmt.Sprintf(
					"is %d characters long; at most %d fit under a signature: shorten it", n, maxSignatoryText)})
			}
		}
		if sg.Name == "" {
			details = append(details, apperr.Detail{Field: field("name"), Message: "must not be empty: give the signatory's name as it is printed under the signature"})
		}
		if sg.SignatureImage != nil {
			if msg := checkSignatureImage(*sg.SignatureImage); msg != "" {
				details = append(details, apperr.Detail{Field: field("signatureImage"), Message: msg})
			}
		}
		out = append(out, sg)
	}
	slices.SortStableFunc(details, func(a, b apperr.Detail) int { return strings.Compare(a.Field, b.Field) })
	return out, details
}

// checkSignatureImage accepts a signature image (see checkImage) of at most
// MaxSignatureImageBytes decoded, and otherwise says how to fix it.
func checkSignatureImage(uri string) string {
	return checkImage(uri, MaxSignatureImageBytes, fmt.Sprintf(
		"must be at most %d KiB decoded: scale the signature down (about 600 x 200 pixels is plenty) or save it as SVG", MaxSignatureImageBytes>>10))
}

// CheckImageDataURI accepts a logo or a badge image (see checkImage) of at most MaxLogoBytes
// decoded, and otherwise says how to fix it.
func CheckImageDataURI(uri string) string {
	return checkImage(uri, MaxLogoBytes, fmt.Sprintf("must be at most %d KiB decoded: scale the image down or save it as SVG", MaxLogoBytes>>10))
}

// checkImage accepts a PNG or SVG data URI of at most maxBytes decoded that the renderer can
// draw (it decodes, within the renderer's pixel limit), and otherwise says how to fix it;
// tooBig is what it says of an image over maxBytes. Every image stored for drawing later goes
// through it, so that what was accepted never fails a preview, an issuance or an email.
func checkImage(uri string, maxBytes int, tooBig string) string {
	media, data, ok := strings.Cut(strings.TrimPrefix(uri, "data:"), ";base64,")
	if !ok || !strings.HasPrefix(uri, "data:") {
		return "must be a base64 data URI: data:image/png;base64,... or data:image/svg+xml;base64,..."
	}
	if media != "image/png" && media != "image/svg+xml" {
		return "must be a PNG or SVG image (data:image/png;base64,... or data:image/svg+xml;base64,...)"
	}
	if base64.StdEncoding.DecodedLen(len(data)) > maxBytes+2 {
		return tooBig
	}
	raw, err := base64.StdEncoding.DecodeString(data)
	if err != nil {
		return "is not valid base64"
	}
	if len(raw) > maxBytes {
		return tooBig
	}
	if err := render.CheckImage(uri); err != nil {
		return "cannot be drawn: " + err.Error()
	}
	return ""
}
