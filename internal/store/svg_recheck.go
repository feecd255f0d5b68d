package store

import (
	"context"
	"encoding/json"
	"time"

	"github.com/google/uuid"

	"github.com/certhub/credentiald/gen/db"
	"github.com/certhub/credentiald/internal/store/changefeed"
)

// The stored images that may hold SVGs, for the job that checks them again after the upload
// check became stricter: read in batches by key, written back only when the row still holds
// what was read (a change made meanwhile went through the upload check of its day).

// BrandingImages are the images of an account's branding: its logo and its signatories (a
// JSON array whose items may hold a signatureImage).
type BrandingImages struct {
	AccountID   uuid.UUID
	Logo        *string
	Signatories json.RawMessage
}

// BadgeImage is a badge's own image.
type BadgeImage struct {
	ID    uuid.UUID
	Image string
}

// TemplateLayout is a template's layout (JSON), whose contents and background may hold images.
type TemplateLayout struct {
	ID     uuid.UUID
	Layout json.RawMessage
}

// BrandingImagesAfter returns up to n brandings that hold an SVG, as a logo or a signature,
// after the account after in key order (uuid.Nil: from the first).
func (d queries) BrandingImagesAfter(ctx context.Context, after uuid.UUID, n int) ([]BrandingImages, error) {
	rows, err := d.q.BrandingImagesAfter(ctx, db.BrandingImagesAfterParams{After: after, Batch: int32(n)})
	if err != nil {
		return nil, mapError(err)
	}
	out := make([]BrandingImages, len(rows))
	for i, r := range rows {
		out[i] = BrandingImages{AccountID: r.AccountID, Logo: r.Logo, Signatories: r.Signatories}
	}
	return out, nil
}

// ReplaceBrandingImages writes next's logo and signatories over old's, at now, if the branding
// still holds old's; it reports whether it did.
func (d queries) ReplaceBrandingImages(ctx context.Context, old, next BrandingImages, now time.Time) (bool, error) {
	n, err := d.q.ReplaceBrandingImages(ctx, db.ReplaceBrandingImagesParams{AccountID: old.AccountID, OldLogo: old.Logo,
		OldSignatories: old.Signatories, NewLogo: next.Logo, NewSignatories: next.Signatories, Now: now})
	if err != nil {
		return false, mapError(err)
	}
	if n > 0 {
		d.changed(changefeed.Change{Account: old.AccountID})
	}
	return n > 0, nil
}

// BadgeImagesAfter returns up to n badges whose own image is an SVG, after the badge after in
// key order (uuid.Nil: from the first).
func (d queries) BadgeImagesAfter(ctx context.Context, after uuid.UUID, n int) ([]BadgeImage, error) {
	rows, err := d.q.BadgeImagesAfter(ctx, db.BadgeImagesAfterParams{After: after, Batch: int32(n)})
	if err != nil {
		return nil, mapError(err)
	}
	out := make([]BadgeImage, len(rows))
	for i, r := range rows {
		out[i] = BadgeImage{ID: r.ID, Image: r.Image}
	}
	return out, nil
}

// ReplaceBadgeImage writes next over the badge's image, at now, if it still is old; it reports
// whether it did.
func (d queries) ReplaceBadgeImage(ctx context.Context, id uuid.UUID, old, next string, now time.Time) (bool, error) {
	n, err := d.q.ReplaceBadgeImage(ctx, db.ReplaceBadgeImageParams{ID: id, OldImage: old, NewImage: next, Now: now})
	if err != nil {
		return false, mapError(err)
	}
	return n > 0, nil
}

// TemplateLayoutsAfter returns up to n templates (the system ones included) whose layout holds
// an SVG, after the template after in key order (uuid.Nil: from the first).
func (d queries) TemplateLayoutsAfter(ctx context.Context, after uuid.UUID, n int) ([]TemplateLayout, error) {
	rows, err := d.q.TemplateLayoutsAfter(ctx, db.TemplateLayoutsAfterParams{After: after, Batch: int32(n)})
	if err != nil {
		return nil, mapError(err)
	}
	out := make([]TemplateLayout, len(rows))
	for i, r := range rows {
		out[i] = TemplateLayout{ID: r.ID, Layout: r.Layout}
	}
	return out, nil
}

// ReplaceTemplateLayout writes next over the template's layout, at now, if it still is old (as
// JSON values); it reports whether it did.
func (d queries) ReplaceTemplateLayout(ctx context.Context, id uuid.UUID, old, next json.RawMessage, now time.Time) (bool, error) {
	n, err := d.q.ReplaceTemplateLayout(ctx, db.ReplaceTemplateLayoutParams{ID: id, OldLayout: old, NewLayout: next, Now: now})
	if err != nil {
		return false, mapError(err)
	}
	return n > 0, nil
}

// SVGRecheckFinished reports whether the recheck of the stored SVGs under the check's version
// went through every stored image.
func (d queries) SVGRecheckFinished(ctx context.Context, version int) (bool, error) {
	done, err := d.q.SVGRecheckFinished(ctx, int32(version))
	return done, mapError(err)
}

// FinishSVGRecheck records that the recheck under version went through every stored image.
func (d queries) FinishSVGRecheck(ctx context.Context, version int, now time.Time) error {
	return mapError(d.q.FinishSVGRecheck(ctx, db.FinishSVGRecheckParams{CheckVersion: int32(version), Now: now}))
}
