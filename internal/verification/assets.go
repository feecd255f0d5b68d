package verification

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"strconv"
	"strings"

	"github.com/boombuler/barcode/qr"

	"github.com/certhub/credentiald/internal/apperr"
	"github.com/certhub/credentiald/internal/credentials"
	"github.com/certhub/credentiald/internal/etag"
	"github.com/certhub/credentiald/internal/locale"
	"github.com/certhub/credentiald/internal/render"
	"github.com/certhub/credentiald/internal/store"
)

// Asset is a file answered for a code. NotModified means the request's If-None-Match named
// ETag: the answer is 304 and Body is empty.
type Asset struct {
	ContentType string
	Body        []byte
	ETag        string
	NotModified bool
	// Filename is the name to save the file under (the PDF).
	Filename string
}

func (c Credential) version() string {
	return c.storeKind + ":" + c.ID.String() + ":" + strconv.FormatInt(c.UpdatedAt.UnixNano(), 10)
}

// QRFormat is the media of a QR code.
type QRFormat string

// The formats of QR codes.
const (
	QRPNG QRFormat = "png"
	QRSVG QRFormat = "svg"
)

// QR answers the QR code of a code's verification page.
func (s *Service) QR(ctx context.Context, code string, format QRFormat, ifNoneMatch string) (Asset, error) {
	if format != QRPNG && format != QRSVG {
		return Asset{}, apperr.Invalid("format", "must be png or svg")
	}
	c, err := s.find(ctx, code)
	if err != nil {
		return Asset{}, err
	}
	url := s.links.Verification(c.Code)
	a := Asset{ETag: etag.Of("qr", string(format), url)}
	if a.NotModified = etag.Matches(ifNoneMatch, a.ETag); a.NotModified {
		return a, nil
	}
	matrix, err := qr.Encode(url, qr.M, qr.Auto)
	if err != nil {
		return Asset{}, fmt.Errorf("qr: %w", err)
	}
	n := matrix.Bounds().Dx()
	dark := func(x, y int) bool { r, _, _, _ := matrix.At(x, y).RGBA(); return r == 0 }
	if format == QRSVG {
		a.ContentType, a.Body = "image/svg+xml", qrSVG(n, dark)
		return a, nil
	}
	a.ContentType = "image/png"
	a.Body, err = qrPNG(n, dark)
	return a, err
}

// qrQuiet is the quiet zone around a QR code, in modules, that scanners need.
const qrQuiet = 4

// qrPNG draws the code at 8 pixels a module, two-coloured (a paletted PNG of a few hundred bytes).
func qrPNG(n int, dark func(x, y int) bool) ([]byte, error) {
	const scale = 8
	side := (n + 2*qrQuiet) * scale
	img := image.NewPaletted(image.Rect(0, 0, side, side), color.Palette{color.White, color.Black})
	for y := range n {
		for x := range n {
			if !dark(x, y) {
				continue
			}
			for dy := range scale {
				row := (y+qrQuiet)*scale + dy
				for dx := range scale {
					img.SetColorIndex((x+qrQuiet)*scale+dx, row, 1)
				}
			}
		}
	}
	var buf bytes.Buffer
	err := (&png.Encoder{CompressionLevel: png.BestCompression}).Encode(&buf, img)
	return buf.Bytes(), err
}

// qrSVG draws the code as one path of unit squares, scalable to any size.
func qrSVG(n int, dark func(x, y int) bool) []byte {
	side := n + 2*qrQuiet
	var b bytes.Buffer
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 %d %d" shape-rendering="crispEdges">`, side, side)
	fmt.Fprintf(&b, `<rect width="%d" height="%d" fill="#fff"/><path fill="#000" d="`, side, side)
	for y := range n {
		for x := range n {
			if dark(x, y) {
				fmt.Fprintf(&b, "M%d %dh1v1h-1z", x+qrQuiet, y+qrQuiet)
			}
		}
	}
	b.WriteString(`"/></svg>`)
	return b.Bytes()
}

// Preview answers a certificate's page rendered as PNG from its snapshot.
func (s *Service) Preview(ctx context.Context, code, ifNoneMatch string) (Asset, error) {
	c, err := s.findFile(ctx, code)
	if err != nil {
		return Asset{}, err
	}
	if c.Kind != KindCertificate {
		return Asset{}, noSuchAsset("A badge has no certificate preview; its image is badge.png.")
	}
	a := Asset{ContentType: "image/png", ETag: etag.Of("preview", render.Version, c.version(), s.links.Root())}
	if a.NotModified = etag.Matches(ifNoneMatch, a.ETag); a.NotModified {
		return a, nil
	}
	a.Body, err = s.render(ctx, c, "png")
	return a, err
}

// shareLabels are the catalog's lines over a share card's name, by status and kind.
var shareLabels = map[Status]map[Kind]string{
	Valid:   {KindCertificate: "share.certificate", KindBadge: "share.badge"},
	Revoked: {KindCertificate: "share.revokedCertificate", KindBadge: "share.revokedBadge"},
	Expired: {KindCertificate: "share.expiredCertificate", KindBadge: "share.expiredBadge"},
}

// shareLabel is the line over c's name on its share card, in c's language.
func shareLabel(c Credential) string {
	return locale.Text(locale.Or(c.Locale, locale.Default), shareLabels[c.Status][c.Kind], nil)
}

// ShareCard answers the card that social networks show for a credential's link (1200x630 PNG):
// a certificate's page or a badge's image, with its name and issuer, on the issuer's colour.
// A revoked or expired credential says so above its name, so that a link shared before keeps
// no valid look. The card speaks the credential's language (its event's): a network shows the
// same card to everyone, so no reader's language can choose it.
func (s *Service) ShareCard(ctx context.Context, code, ifNoneMatch string) (Asset, error) {
	c, err := s.findFile(ctx, code)
	if err != nil {
		return Asset{}, err
	}
	label := shareLabel(c)
	a := Asset{ContentType: "image/png", ETag: etag.Of("share", render.Version, c.version(), label, c.Issuer.Name, c.Issuer.Color, s.links.Root())}
	if a.NotModified = etag.Matches(ifNoneMatch, a.ETag); a.NotModified {
		return a, nil
	}
	key := "share:" + c.version() + ":" + label + ":" + c.Issuer.Name + ":" + c.Issuer.Color
	a.Body, err = s.renders.get(ctx, key, func() ([]byte, error) {
		if c.Kind == KindCertificate {
			cert, err := s.certificates.GetWithSnapshot(ctx, c.AccountID, c.ID)
			if err != nil {
				return nil, err
			}
			return s.certificates.ShareCard(cert, label)
		}
		img, err := s.badges.BakedPNG(ctx, c.Code)
		if err != nil {
			return nil, err
		}
		return render.ShareCard(render.ShareCardInput{PicturePNG: img, Label: label, Name: c.Name, Issuer: c.Issuer.Name,
			BrandColor: c.Issuer.Color})
	})
	return a, err
}

// Download answers a certificate's PDF, counted as a download. With the recipient's token,
// certificate.downloaded is written to the outbox. A revalidated copy (304) is not a download.
func (s *Service) Download(ctx context.Context, code, token, ifNoneMatch string, v Visitor) (Asset, error) {
	c, err := s.findFile(ctx, code)
	if err != nil {
		return Asset{}, err
	}
	if c.Kind != KindCertificate {
		return Asset{}, noSuchAsset("A badge has no PDF.")
	}
	a := Asset{ContentType: "application/pdf", ETag: etag.Of("pdf", render.Version, c.version(), s.links.Root()), Filename: c.Number + ".pdf"}
	if a.NotModified = etag.Matches(ifNoneMatch, a.ETag); a.NotModified {
		return a, nil
	}
	if a.Body, err = s.render(ctx, c, "pdf"); err != nil {
		return Asset{}, err
	}
	if !v.counted() {
		return a, nil
	}
	now := s.now()
	s.Activity.record(c, now, downloaded)
	if tokenMatches(c, token) {
		_, err := store.InTx(ctx, s.store, func(tx *store.Tx) (struct{}, error) {
			return struct{}{}, tx.Outbox(ctx, c.AccountID, "certificate.downloaded", now, eventBody("certificate.downloaded", now, c, "downloadedAt"))
		})
		if err != nil {
			return Asset{}, err
		}
	}
	return a, nil
}

// render returns a certificate rendered as "png" or "pdf", from the cache when it holds it.
func (s *Service) render(ctx context.Context, c Credential, format string) ([]byte, error) {
	return s.renders.get(ctx, format+":"+c.version(), func() ([]byte, error) {
		cert, err := s.certificates.GetWithSnapshot(ctx, c.AccountID, c.ID)
		if err != nil {
			return nil, err
		}
		if format == "pdf" {
			return s.certificates.PDF(cert)
		}
		return s.certificates.PNG(cert)
	})
}

// IssuerLogo answers the logo of the credential's issuer, decoded from its data URI.
// The logo is the organisation's, never the holder's: an erased holder's page keeps it.
func (s *Service) IssuerLogo(ctx context.Context, code, ifNoneMatch string) (Asset, error) {
	c, err := s.find(ctx, code)
	if err != nil {
		return Asset{}, err
	}
	uri, err := s.store.IssuerLogo(ctx, c.AccountID)
	if errors.Is(err, store.ErrNotFound) {
		return Asset{}, noSuchAsset("The issuer has no logo.")
	} else if err != nil {
		return Asset{}, err
	}
	media, data, ok := strings.Cut(strings.TrimPrefix(uri, "data:"), ";base64,")
	raw, derr := base64.StdEncoding.DecodeString(data)
	if !ok || derr != nil || (media != "image/png" && media != "image/svg+xml") {
		return Asset{}, fmt.Errorf("logo of account %s is not a PNG or SVG data URI", c.AccountID)
	}
	a := Asset{ContentType: media, ETag: etag.Of("logo", uri)}
	if a.NotModified = etag.Matches(ifNoneMatch, a.ETag); !a.NotModified {
		a.Body = raw
	}
	return a, nil
}

// BadgeImage answers a badge assertion's image, a PNG or an SVG when svg is set, with the
// Open Badges 2.0 assertion baked in, or with version 3 its signed Open Badges 3.0 credential;
// a certificate has none.
func (s *Service) BadgeImage(ctx context.Context, code string, svg bool, version int) (Asset, error) {
	if version != 2 && version != 3 {
		return Asset{}, apperr.Invalid("version", "must be 2 or 3")
	}
	c, err := s.findFile(ctx, code)
	if err != nil {
		return Asset{}, err
	}
	if c.Kind == KindCertificate {
		return Asset{}, noSuchAsset("A certificate has no badge image; its image is preview.png.")
	}
	media := map[bool]string{false: "image/png", true: "image/svg+xml"}[svg]
	if version == 3 {
		signed, err := s.signer.Credential(ctx, c.ref(), credentials.FormDataIntegrity, "")
		if err != nil {
			return Asset{}, err
		}
		b, err := s.badges.BakedCredential(ctx, c.Code, svg, signed.Body)
		return Asset{ContentType: media, Body: b}, err
	}
	if svg {
		b, err := s.badges.BakedSVG(ctx, c.Code)
		return Asset{ContentType: "image/svg+xml", Body: b}, err
	}
	b, err := s.badges.BakedPNG(ctx, c.Code)
	return Asset{ContentType: "image/png", Body: b}, err
}

// SignedCredential answers a credential's signed form: credential.json (application/vc) or
// credential.jwt (application/vc+jwt). A revoked or expired credential is answered too: its
// status list and validUntil say so, as a verifier must read them.
func (s *Service) SignedCredential(ctx context.Context, code string, form credentials.Form, ifNoneMatch string) (Asset, error) {
	c, err := s.findFile(ctx, code)
	if err != nil {
		return Asset{}, err
	}
	signed, err := s.signer.Credential(ctx, c.ref(), form, ifNoneMatch)
	if err != nil {
		return Asset{}, err
	}
	a := Asset{ContentType: "application/vc", Body: signed.Body, ETag: signed.ETag, NotModified: signed.NotModified}
	if form == credentials.FormJWT {
		a.ContentType = "application/vc+jwt"
	}
	return a, nil
}

// ref names the credential for signing.
func (c Credential) ref() credentials.Ref {
	return credentials.Ref{Kind: c.storeKind, ID: c.ID, AccountID: c.AccountID, VerificationCode: c.Code}
}

func noSuchAsset(message string) error {
	e := apperr.New(apperr.NotFound, "%s", message)
	e.Details = []apperr.Detail{{Field: "code", Message: "names a credential without this asset"}}
	return e
}
