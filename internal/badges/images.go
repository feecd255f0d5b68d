package badges

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"image/png"
	"strings"
	"sync"

	"github.com/google/uuid"

	"github.com/certhub/credentiald/internal/domain"
	"github.com/certhub/credentiald/internal/memory"
	"github.com/certhub/credentiald/internal/openbadges"
	"github.com/certhub/credentiald/internal/render"
	"github.com/certhub/credentiald/internal/store"
)

// A badge without an image of its own shows a generated one, drawn from its name and the
// issuer's name and colour as they are now: nothing generated is stored, so a new name or
// branding shows at once. Drawing costs milliseconds (the PNG tens of them), so what was drawn
// is kept in memory, keyed by what it was drawn from.

// generatedPNGSide is the side, in pixels, of a generated badge's PNG.
const generatedPNGSide = 600

// issuer is how an account presents itself on its badges.
type issuer struct {
	AccountID                   uuid.UUID
	Name                        string // branding issuerName, else the account's name
	URL, Logo, Color            string // branding website, logo (data URI), primaryColor; "" when unset
	EmailFromName, EmailReplyTo string
	PublicEmail                 string // branding publicEmail, or ""
}

// issuerReader reads branding and accounts: a *store.Store, or a *store.Tx.
type issuerReader interface {
	FindBranding(ctx context.Context, accountID uuid.UUID) (domain.Branding, error)
	FindAccountByID(ctx context.Context, id uuid.UUID) (domain.Account, error)
}

func issuerOf(ctx context.Context, r issuerReader, accountID uuid.UUID) (issuer, error) {
	b, err := r.FindBranding(ctx, accountID)
	if err != nil {
		return issuer{}, err
	}
	a, err := r.FindAccountByID(ctx, accountID)
	if err != nil {
		return issuer{}, err
	}
	name := store.Deref(b.IssuerName)
	if name == "" {
		name = a.Name
	}
	return issuer{AccountID: accountID, Name: name, URL: store.Deref(b.Website), Logo: store.Deref(b.Logo),
		Color: store.Deref(b.PrimaryColor), EmailFromName: store.Deref(b.EmailFromName), EmailReplyTo: store.Deref(b.EmailReplyTo),
		PublicEmail: store.Deref(b.PublicEmail)}, nil
}

func (s *Service) view(ctx context.Context, r issuerReader, b domain.Badge) (Badge, error) {
	iss, err := issuerOf(ctx, r, b.AccountID)
	if err != nil {
		return Badge{}, err
	}
	return s.viewFor(b, iss)
}

// viewFor is b as clients see it, its image generated unless it has its own.
func (s *Service) viewFor(b domain.Badge, iss issuer) (Badge, error) {
	if b.Image != nil {
		return Badge{Badge: b, ImageURI: *b.Image}, nil
	}
	svg, err := s.images.get("svg", art(b, iss), func() ([]byte, error) { return render.BadgeSVG(art(b, iss)) })
	if err != nil {
		return Badge{}, err
	}
	return Badge{Badge: b, ImageURI: "data:image/svg+xml;base64," + base64.StdEncoding.EncodeToString(svg)}, nil
}

func art(b domain.Badge, iss issuer) render.BadgeArt {
	return render.BadgeArt{Name: b.Name, Issuer: iss.Name, Color: iss.Color}
}

// picture is an image's bytes, PNG or SVG.
type picture struct {
	data []byte
	svg  bool
}

// decodeImage reads a base64 PNG or SVG data URI.
func decodeImage(uri string) (picture, error) {
	meta, payload, ok := strings.Cut(strings.TrimPrefix(uri, "data:"), ";base64,")
	if !ok {
		return picture{}, errors.New("must be a base64 data URI")
	}
	raw, err := base64.StdEncoding.DecodeString(payload)
	if err != nil {
		return picture{}, errors.New("is not valid base64")
	}
	switch meta {
	case "image/png":
		return picture{data: raw}, nil
	case "image/svg+xml":
		return picture{data: raw, svg: true}, nil
	}
	return picture{}, errors.New("must be a PNG or SVG image")
}

// pngOf is the badge's image as a PNG: its own PNG, its own SVG rasterised, or the generated
// one.
func (s *Service) pngOf(b domain.Badge, iss issuer) ([]byte, error) {
	if b.Image == nil {
		a := art(b, iss)
		return s.images.get("png", a, func() ([]byte, error) { return render.BadgePNG(a, generatedPNGSide) })
	}
	pic, err := decodeImage(*b.Image)
	if err != nil || !pic.svg {
		return pic.data, err
	}
	return s.images.get("raster", sha256.Sum256(pic.data), func() ([]byte, error) { return render.SVGToPNG(pic.data) })
}

// svgOf is the badge's image as an SVG: its own SVG, its own PNG inside an SVG, or the
// generated one.
func (s *Service) svgOf(b domain.Badge, iss issuer) ([]byte, error) {
	if b.Image == nil {
		a := art(b, iss)
		return s.images.get("svg", a, func() ([]byte, error) { return render.BadgeSVG(a) })
	}
	pic, err := decodeImage(*b.Image)
	if err != nil || pic.svg {
		return pic.data, err
	}
	return svgAround(pic.data)
}

// svgAround returns an SVG that shows a PNG at its own size.
func svgAround(pngData []byte) ([]byte, error) {
	cfg, err := png.DecodeConfig(bytes.NewReader(pngData))
	if err != nil {
		return nil, fmt.Errorf("badge image: %w", err)
	}
	return fmt.Appendf(nil, `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 %d %d" width="%d" height="%d">`+
		`<image width="%d" height="%d" href="data:image/png;base64,%s"/></svg>`+"\n",
		cfg.Width, cfg.Height, cfg.Width, cfg.Height, cfg.Width, cfg.Height, base64.StdEncoding.EncodeToString(pngData)), nil
}

// bake puts an Open Badges 2.0 assertion into pic: one iTXt chunk openbadges in a PNG, an
// <openbadges:assertion verify="assertionURL"> element in an SVG.
func bake(pic picture, assertion []byte, assertionURL string) ([]byte, error) {
	if pic.svg {
		return openbadges.BakeSVG(pic.data, openbadges.SVGElementAssertion, assertionURL, assertion)
	}
	return openbadges.BakePNG(pic.data, openbadges.PNGKeywordAssertion, assertion)
}

// imageCache keeps drawn images by what they were drawn from, up to imageCacheBytes; it
// forgets everything when full, which is rare and costs one drawing per badge.
type imageCache struct {
	mu    sync.Mutex
	m     map[[32]byte][]byte
	bytes int // the size of what m holds
}

// imageCacheBytes bounds what the cache holds by size, not count: a badge's own image may be
// 256 KiB, and its rasterised or baked forms larger.
const imageCacheBytes = 32 << 20

func newImageCache() *imageCache { return &imageCache{m: map[[32]byte][]byte{}} }

// get returns the image of kind drawn from source, drawing it with draw when it is not kept.
// When what it holds would pass imageCacheBytes it forgets everything first; an image larger
// than the whole budget is not kept.
func (c *imageCache) get(kind string, source any, draw func() ([]byte, error)) ([]byte, error) {
	key := sha256.Sum256(fmt.Appendf(nil, "%s\x00%#v", kind, source))
	c.mu.Lock()
	img, ok := c.m[key]
	c.mu.Unlock()
	if ok {
		return img, nil
	}
	img, err := draw()
	if err != nil {
		return nil, err
	}
	if len(img) > imageCacheBytes {
		return img, nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.m[key]; ok {
		return img, nil
	}
	if c.bytes+len(img) > imageCacheBytes {
		clear(c.m)
		memory.Hold(-int64(c.bytes))
		c.bytes = 0
	}
	c.m[key] = img
	c.bytes += len(img)
	memory.Hold(int64(len(img)))
	return img, nil
}
