package httpapi

import (
	"bytes"
	"context"
	"unicode/utf8"

	"github.com/certhub/credentiald/gen/api"
	"github.com/certhub/credentiald/internal/apperr"
	"github.com/certhub/credentiald/internal/credentials"
	"github.com/certhub/credentiald/internal/verification"
)

// The public verification operations under /api/v1/verify. They pass through a lighter
// middleware path (see internal/httpmw/visitors.go): the code's shape and the other inputs
// are checked by the service and here, not by the contract validator;
// Access-Control-Allow-Origin: * is set on every answer there.

// How long caches may keep what the verification answers hold.
const (
	cacheResult  = "no-cache"              // a revocation shows at once
	cacheQR      = "public, max-age=86400" // the code's URL never changes
	cachePreview = "public, max-age=300"   // changes only on regenerate
	cacheLogo    = "public, max-age=3600"  // branding changes rarely
	cachePDF     = "private, max-age=0, must-revalidate"
	maxTokenLen  = 128
)

func (s *Server) VerifyCredential(ctx context.Context, req api.VerifyCredentialRequestObject) (api.VerifyCredentialResponseObject, error) {
	c, err := s.verification.Verify(ctx, req.Code, visitorFrom(ctx))
	if err != nil {
		return nil, err
	}
	return api.VerifyCredential200JSONResponse{Body: api.VerificationResultEnvelope{Data: s.verificationResult(c)},
		Headers: api.VerifyCredential200ResponseHeaders{CacheControl: new(cacheResult)}}, nil
}

func (s *Server) verificationResult(c verification.Credential) api.VerificationResult {
	var r api.VerificationResult
	r.Status = string(c.Status)
	r.Credential.Type = api.VerificationResultCredentialType(c.Kind)
	r.Credential.Name, r.Credential.Description, r.Credential.ImageUrl = c.Name, c.Description, s.verification.ImageURL(c)
	if c.Number != "" {
		r.Credential.Number = new(c.Number)
	}
	r.Recipient.Name = c.RecipientName
	r.Issuer.Name, r.Issuer.Url, r.Issuer.LogoUrl = c.Issuer.Name, c.Issuer.Website, s.verification.LogoURL(c)
	r.Dates.IssuedAt, r.Dates.ExpiresAt, r.Dates.RevokedAt = c.IssuedAt, c.ExpiresAt, c.RevokedAt
	r.RevocationReason = c.RevocationReason
	if c.ReasonCode != nil {
		r.RevocationReasonCode = new(string(*c.ReasonCode))
	}
	r.VerificationUrl = s.links.Verification(c.Code)
	r.Links = &struct {
		CredentialJson string `json:"credentialJson"`
		CredentialJwt  string `json:"credentialJwt"`
	}{s.verification.CredentialURL(c.Code, credentials.FormDataIntegrity), s.verification.CredentialURL(c.Code, credentials.FormJWT)}
	return r
}

func (s *Server) GetVerificationQr(ctx context.Context, req api.GetVerificationQrRequestObject) (api.GetVerificationQrResponseObject, error) {
	format := verification.QRPNG
	if req.Params.Format != nil {
		format = verification.QRFormat(*req.Params.Format)
	}
	a, err := s.verification.QR(ctx, req.Code, format, ifNoneMatch(req.Params.IfNoneMatch))
	switch {
	case err != nil:
		return nil, err
	case a.NotModified:
		return api.GetVerificationQr304Response(notModified(a, cacheQR)), nil
	case a.ContentType == "image/svg+xml":
		return api.GetVerificationQr200ImagesvgXmlResponse{Body: bytes.NewReader(a.Body), ContentLength: int64(len(a.Body)),
			Headers: api.GetVerificationQr200ResponseHeaders{ETag: &a.ETag, CacheControl: new(cacheQR)}}, nil
	}
	return api.GetVerificationQr200ImagepngResponse{Body: bytes.NewReader(a.Body), ContentLength: int64(len(a.Body)),
		Headers: api.GetVerificationQr200ResponseHeaders{ETag: &a.ETag, CacheControl: new(cacheQR)}}, nil
}

func (s *Server) GetVerificationPreview(ctx context.Context, req api.GetVerificationPreviewRequestObject) (api.GetVerificationPreviewResponseObject, error) {
	a, err := s.verification.Preview(ctx, req.Code, ifNoneMatch(req.Params.IfNoneMatch))
	switch {
	case err != nil:
		return nil, err
	case a.NotModified:
		return api.GetVerificationPreview304Response(notModified(a, cachePreview)), nil
	}
	return api.GetVerificationPreview200ImagepngResponse{Body: bytes.NewReader(a.Body), ContentLength: int64(len(a.Body)),
		Headers: api.GetVerificationPreview200ResponseHeaders{ETag: &a.ETag, CacheControl: new(cachePreview)}}, nil
}

func (s *Server) GetVerificationShareCard(ctx context.Context, req api.GetVerificationShareCardRequestObject) (api.GetVerificationShareCardResponseObject, error) {
	a, err := s.verification.ShareCard(ctx, req.Code, ifNoneMatch(req.Params.IfNoneMatch))
	switch {
	case err != nil:
		return nil, err
	case a.NotModified:
		return api.GetVerificationShareCard304Response(notModified(a, cachePreview)), nil
	}
	return api.GetVerificationShareCard200ImagepngResponse{Body: bytes.NewReader(a.Body), ContentLength: int64(len(a.Body)),
		Headers: api.GetVerificationShareCard200ResponseHeaders{ETag: &a.ETag, CacheControl: new(cachePreview)}}, nil
}

func (s *Server) GetVerificationCertificatePdf(ctx context.Context, req api.GetVerificationCertificatePdfRequestObject) (api.GetVerificationCertificatePdfResponseObject, error) {
	token := ""
	if req.Params.T != nil {
		if token = *req.Params.T; utf8.RuneCountInString(token) > maxTokenLen {
			return nil, apperr.Invalid("t", "must be at most 128 characters")
		}
	}
	a, err := s.verification.Download(ctx, req.Code, token, ifNoneMatch(req.Params.IfNoneMatch), visitorFrom(ctx))
	switch {
	case err != nil:
		return nil, err
	case a.NotModified:
		return api.GetVerificationCertificatePdf304Response(notModified(a, cachePDF)), nil
	}
	disposition := `attachment; filename="` + a.Filename + `"` // a certificate number: letters, digits, hyphens
	return api.GetVerificationCertificatePdf200ApplicationpdfResponse{Body: bytes.NewReader(a.Body), ContentLength: int64(len(a.Body)),
		Headers: api.GetVerificationCertificatePdf200ResponseHeaders{ETag: &a.ETag, CacheControl: new(cachePDF), ContentDisposition: &disposition}}, nil
}

func (s *Server) GetVerificationIssuerLogo(ctx context.Context, req api.GetVerificationIssuerLogoRequestObject) (api.GetVerificationIssuerLogoResponseObject, error) {
	a, err := s.verification.IssuerLogo(ctx, req.Code, ifNoneMatch(req.Params.IfNoneMatch))
	switch {
	case err != nil:
		return nil, err
	case a.NotModified:
		return api.GetVerificationIssuerLogo304Response(notModified(a, cacheLogo)), nil
	}
	// The contract documents the policy of every logo; sandboxSVG sends it with any SVG.
	h := api.GetVerificationIssuerLogo200ResponseHeaders{ETag: &a.ETag, CacheControl: new(cacheLogo), ContentSecurityPolicy: new(svgPolicy)}
	if a.ContentType == "image/svg+xml" {
		return api.GetVerificationIssuerLogo200ImagesvgXmlResponse{Body: bytes.NewReader(a.Body), ContentLength: int64(len(a.Body)), Headers: h}, nil
	}
	return api.GetVerificationIssuerLogo200ImagepngResponse{Body: bytes.NewReader(a.Body), ContentLength: int64(len(a.Body)), Headers: h}, nil
}

func (s *Server) GetVerificationBadgePng(ctx context.Context, req api.GetVerificationBadgePngRequestObject) (api.GetVerificationBadgePngResponseObject, error) {
	a, err := s.verification.BadgeImage(ctx, req.Code, false, badgeVersion((*int)(req.Params.Version)))
	if err != nil {
		return nil, err
	}
	return api.GetVerificationBadgePng200ImagepngResponse{Body: bytes.NewReader(a.Body), ContentLength: int64(len(a.Body))}, nil
}

func (s *Server) GetVerificationBadgeSvg(ctx context.Context, req api.GetVerificationBadgeSvgRequestObject) (api.GetVerificationBadgeSvgResponseObject, error) {
	a, err := s.verification.BadgeImage(ctx, req.Code, true, badgeVersion((*int)(req.Params.Version)))
	if err != nil {
		return nil, err
	}
	return api.GetVerificationBadgeSvg200ImagesvgXmlResponse{Body: bytes.NewReader(a.Body), ContentLength: int64(len(a.Body))}, nil
}

// badgeVersion is the Open Badges version asked for, 2 by default.
func badgeVersion(v *int) int {
	if v == nil {
		return 2
	}
	return *v
}

func notModified(a verification.Asset, cache string) api.NotModifiedResponse {
	return api.NotModifiedResponse{Headers: api.NotModifiedResponseHeaders{ETag: &a.ETag, CacheControl: new(cache)}}
}

// ifNoneMatch reads the optional header; a value longer than the contract allows never
// matches (it cannot name one of our tags), so it needs no error of its own.
func ifNoneMatch(h *api.IfNoneMatch) string {
	if h == nil || len(*h) > 512 {
		return ""
	}
	return *h
}
