package store

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"time"

	"github.com/google/uuid"

	dbfiles "github.com/certhub/credentiald/db"
	"github.com/certhub/credentiald/gen/db"
	"github.com/certhub/credentiald/internal/domain"
)

// NewTemplate is a template to store.
type NewTemplate struct {
	AccountID   *uuid.UUID // nil: a system template
	Name        string
	Description *string
	Active      *bool // nil: active
	PageSize    string
	Orientation string
	Layout      json.RawMessage
}

// InsertTemplate stores a template, created at now, and returns it.
func (d queries) InsertTemplate(ctx context.Context, t NewTemplate, now time.Time) (domain.Template, error) {
	active := t.Active == nil || *t.Active
	row, err := d.q.CreateTemplate(ctx, db.CreateTemplateParams{ID: newID(), AccountID: t.AccountID, Name: t.Name,
		Description: t.Description, Active: active, PageSize: t.PageSize, Orientation: t.Orientation, Layout: t.Layout, Now: now})
	if err != nil {
		return domain.Template{}, mapError(err)
	}
	return templateFrom(row), nil
}

// FindTemplate returns one of the account's templates or a system template.
func (d queries) FindTemplate(ctx context.Context, accountID, id uuid.UUID) (domain.Template, error) {
	row, err := d.q.GetTemplate(ctx, db.GetTemplateParams{AccountID: accountID, ID: id})
	if err != nil {
		return domain.Template{}, mapError(err)
	}
	return templateFrom(row), nil
}

// ListTemplates returns a page of the account's own templates, in p's order and matching its
// search, optionally only the active or inactive ones, and how many match.
func (d queries) ListTemplates(ctx context.Context, accountID uuid.UUID, active *bool, p domain.Page) ([]domain.Template, int, error) {
	q, err := d.list(templateOrders, p.Sort)
	if err != nil {
		return nil, 0, err
	}
	pattern := containsPattern(p.Q)
	rows, err := q.ListTemplates(ctx, db.ListTemplatesParams{AccountID: &accountID, Active: active, Pattern: pattern,
		PageSize: pageLimit(p), PageOffset: pageOffset(p)})
	if err != nil {
		return nil, 0, mapError(err)
	}
	total, err := q.CountTemplates(ctx, db.CountTemplatesParams{AccountID: &accountID, Active: active, Pattern: pattern})
	if err != nil {
		return nil, 0, mapError(err)
	}
	return convert(rows, templateFrom), int(total), nil
}

// ListSystemTemplates returns the read-only templates, by name.
func (d queries) ListSystemTemplates(ctx context.Context) ([]domain.Template, error) {
	rows, err := d.q.ListSystemTemplates(ctx)
	if err != nil {
		return nil, mapError(err)
	}
	return convert(rows, templateFrom), nil
}

// LockTemplate returns one of the account's templates or a system template, holding it until
// the transaction ends.
func (d queries) LockTemplate(ctx context.Context, accountID, id uuid.UUID) (domain.Template, error) {
	row, err := d.q.LockTemplate(ctx, db.LockTemplateParams{AccountID: accountID, ID: id})
	if err != nil {
		return domain.Template{}, mapError(err)
	}
	return templateFrom(row), nil
}

// UpdateTemplate replaces one of the account's own templates, at now.
func (d queries) UpdateTemplate(ctx context.Context, accountID, id uuid.UUID, t NewTemplate, now time.Time) (domain.Template, error) {
	row, err := d.q.UpdateTemplate(ctx, db.UpdateTemplateParams{AccountID: &accountID, ID: id, Name: t.Name, Description: t.Description,
		Active: t.Active == nil || *t.Active, PageSize: t.PageSize, Orientation: t.Orientation, Layout: t.Layout, Now: now})
	if err != nil {
		return domain.Template{}, mapError(err)
	}
	return templateFrom(row), nil
}

// TemplateUses counts the events, certificates and bulk jobs (finished ones too) that use a
// template.
type TemplateUses struct{ Events, Certificates, BulkJobs int }

// TemplateUses counts what uses a template.
func (d queries) TemplateUses(ctx context.Context, id uuid.UUID) (TemplateUses, error) {
	u, err := d.q.TemplateUses(ctx, id)
	if err != nil {
		return TemplateUses{}, mapError(err)
	}
	return TemplateUses{Events: int(u.Events), Certificates: int(u.Certificates), BulkJobs: int(u.BulkJobs)}, nil
}

// DeleteTemplate removes one of the account's own templates.
func (d queries) DeleteTemplate(ctx context.Context, accountID, id uuid.UUID) error {
	return mapError(d.q.DeleteTemplate(ctx, db.DeleteTemplateParams{AccountID: &accountID, ID: id}))
}

// seedSystemTemplates writes the embedded system templates under their fixed ids.
func seedSystemTemplates(ctx context.Context, q *db.Queries) error {
	files, err := fs.Glob(dbfiles.SystemTemplates, "system-templates/*.json")
	if err != nil {
		return err
	}
	for _, f := range files {
		t, err := SystemTemplate(f)
		if err != nil {
			return err
		}
		if err := q.UpsertSystemTemplate(ctx, db.UpsertSystemTemplateParams{ID: t.ID, Name: t.Name, Description: t.Description,
			PageSize: t.PageSize, Orientation: t.Orientation, Layout: t.Layout}); err != nil {
			return fmt.Errorf("system template %s: %w", f, err)
		}
	}
	return nil
}

// SystemTemplate reads one embedded system template file.
func SystemTemplate(path string) (domain.Template, error) {
	b, err := dbfiles.SystemTemplates.ReadFile(path)
	if err != nil {
		return domain.Template{}, err
	}
	var t struct {
		ID          uuid.UUID       `json:"id"`
		Name        string          `json:"name"`
		Description string          `json:"description"`
		PageSize    string          `json:"pageSize"`
		Orientation string          `json:"orientation"`
		Layout      json.RawMessage `json:"layout"`
	}
	if err := json.Unmarshal(b, &t); err != nil {
		return domain.Template{}, fmt.Errorf("system template %s: %w", path, err)
	}
	return domain.Template{ID: t.ID, Name: t.Name, Description: &t.Description, Active: true, PageSize: t.PageSize,
		Orientation: t.Orientation, Layout: t.Layout}, nil
}

func templateFrom(r db.Template) domain.Template {
	return domain.Template{ID: r.ID, AccountID: r.AccountID, Name: r.Name, Description: r.Description, Active: r.Active,
		PageSize: r.PageSize, Orientation: r.Orientation, Layout: r.Layout, CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt}
}
