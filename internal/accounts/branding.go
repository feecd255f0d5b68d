package accounts

import (
	"bytes"
	"context"
	"encoding/base64"
	"net/url"
	"strings"

	"github.com/google/uuid"

	"github.com/certhub/credentiald/internal/apperr"
	"github.com/certhub/credentiald/internal/store"
)

// MaxLogoBytes is the largest logo accepted, decoded.
const MaxLogoBytes = 256 << 10

// Branding returns the account's branding.
func (s *Service) Branding(ctx context.Context, accountID uuid.UUID) (store.Branding, error) {
	return s.store.FindBranding(ctx, accountID)
}

// PutBranding validates b and replaces the account's branding with it.
func (s *Service) PutBranding(ctx context.Context, accountID uuid.UUID, b store.Branding) (store.Branding, error) {
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
	for field, v := range map[string]*string{"body.issuerName": b.IssuerName, "body.emailFromName": b.EmailFromName} {
		if v != nil && hasControl(*v) {
			details = append(details, apperr.Detail{Field: field, Message: "must not contain control characters"})
		}
	}
	if b.Website != nil {
		if u, err := url.Parse(*b.Website); err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
			details = append(details, apperr.Detail{Field: "body.website", Message: "must be an absolute http(s) URL"})
		}
	}
	if b.Logo != nil {
		if msg := CheckImageDataURI(*b.Logo); msg != "" {
			details = append(details, apperr.Detail{Field: "body.logo", Message: msg})
		}
	}
	if len(details) > 0 {
		return store.Branding{}, &apperr.Error{Code: apperr.ValidationError, Message: "The branding is not valid.", Details: details}
	}
	return s.store.PutBranding(ctx, accountID, b, s.now())
}

// CheckImageDataURI accepts a PNG or SVG data URI of at most MaxLogoBytes whose content is
// what it says, and otherwise says what is wrong with it (a logo, a badge image).
func CheckImageDataURI(uri string) string {
	media, data, ok := strings.Cut(strings.TrimPrefix(uri, "data:"), ";base64,")
	if !ok || !strings.HasPrefix(uri, "data:") {
		return "must be a base64 data URI"
	}
	raw, err := base64.StdEncoding.DecodeString(data)
	if err != nil {
		return "is not valid base64"
	}
	if len(raw) > MaxLogoBytes {
		return "must be at most 256 KiB"
	}
	switch media {
	case "image/png":
		if !bytes.HasPrefix(raw, []byte("\x89PNG\r\n\x1a\n")) {
			return "is not a PNG image"
		}
	case "image/svg+xml":
		if !bytes.Contains(raw[:min(len(raw), 4096)], []byte("<svg")) {
			return "is not an SVG image"
		}
	default:
		return "must be a PNG or SVG image"
	}
	return ""
}
