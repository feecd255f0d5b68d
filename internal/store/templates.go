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
	"github.com/certhub/credentiald/internal/apperr"
)

// Template is a certificate template: an account's own, or a read-only system template.
type Template struct {
	ID          uuid.UUID
	AccountID   *uuid.UUID // nil: a system template
	Name        string
	Description *string
	Active      bool
	PageSize    string
	Orientation string
	Layout      json.RawMessage
	CreatedAt   time.Time
	UpdatedAt   time.Time
}

// System reports whether the template is a read-only system template.
func (t Template) System() bool { return t.AccountID == nil }

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

// InsertTemplate stores a template and returns it.
func (s *Store) InsertTemplate(ctx context.Context, t NewTemplate) (Template, error) {
	active := t.Active == nil || *t.Active
	row, err := s.q.CreateTemplate(ctx, db.CreateTemplateParams{ID: newID(), AccountID: t.AccountID, Name: t.Name,
		Description: t.Description, Active: active, PageSize: t.PageSize, Orientation: t.Orientation, Layout: t.Layout})
	if err != nil {
		return Template{}, mapError(err)
	}
	return templateFrom(row), nil
}

// FindTemplate returns one of the account's templates or a system template.
func (s *Store) FindTemplate(ctx context.Context, accountID, id uuid.UUID) (Template, error) {
	row, err := s.q.GetTemplate(ctx, db.GetTemplateParams{AccountID: accountID, ID: id})
	if err != nil {
		return Template{}, notFoundAs(err, "template")
	}
	return templateFrom(row), nil
}

// ListTemplates returns a page of the account's own templates, newest first, optionally only
// the active or inactive ones, and how many there are.
func (s *Store) ListTemplates(ctx context.Context, accountID uuid.UUID, active *bool, p Page) ([]Template, int, error) {
	rows, err := s.q.ListTemplates(ctx, db.ListTemplatesParams{AccountID: &accountID, Active: active, PageSize: p.limit(), PageOffset: p.offset()})
	if err != nil {
		return nil, 0, mapError(err)
	}
	total, err := s.q.CountTemplates(ctx, db.CountTemplatesParams{AccountID: &accountID, Active: active})
	if err != nil {
		return nil, 0, mapError(err)
	}
	return convert(rows, templateFrom), int(total), nil
}

// ListSystemTemplates returns the read-only templates, by name.
func (s *Store) ListSystemTemplates(ctx context.Context) ([]Template, error) {
	rows, err := s.q.ListSystemTemplates(ctx)
	if err != nil {
		return nil, mapError(err)
	}
	return convert(rows, templateFrom), nil
}

// UpdateTemplate replaces one of the account's templates; a system template answers 409.
func (s *Store) UpdateTemplate(ctx context.Context, accountID, id uuid.UUID, t NewTemplate) (Template, error) {
	var row db.Template
	err := s.WithTx(ctx, func(q *db.Queries) error {
		cur, err := q.LockTemplate(ctx, db.LockTemplateParams{AccountID: accountID, ID: id})
		if err != nil {
			return notFoundAs(err, "template")
		}
		if cur.AccountID == nil {
			return apperr.New(apperr.Conflict, "System templates are read-only; duplicate it to make your own.")
		}
		row, err = q.UpdateTemplate(ctx, db.UpdateTemplateParams{AccountID: &accountID, ID: id, Name: t.Name, Description: t.Description,
			Active: t.Active == nil || *t.Active, PageSize: t.PageSize, Orientation: t.Orientation, Layout: t.Layout})
		return err
	})
	return templateFrom(row), err
}

// DeleteTemplate removes one of the account's templates that no event or certificate uses.
func (s *Store) DeleteTemplate(ctx context.Context, accountID, id uuid.UUID) error {
	return s.WithTx(ctx, func(q *db.Queries) error {
		cur, err := q.LockTemplate(ctx, db.LockTemplateParams{AccountID: accountID, ID: id})
		if err != nil {
			return notFoundAs(err, "template")
		}
		if cur.AccountID == nil {
			return apperr.New(apperr.Conflict, "System templates are read-only and cannot be deleted.")
		}
		uses, err := q.TemplateUses(ctx, id)
		if err != nil {
			return err
		}
		if uses.Events > 0 || uses.Certificates > 0 {
			return apperr.New(apperr.Conflict, "The template is used by %d events and %d certificates; set active to false instead.", uses.Events, uses.Certificates)
		}
		return q.DeleteTemplate(ctx, db.DeleteTemplateParams{AccountID: &accountID, ID: id})
	})
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
func SystemTemplate(path string) (Template, error) {
	b, err := dbfiles.SystemTemplates.ReadFile(path)
	if err != nil {
		return Template{}, err
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
		return Template{}, fmt.Errorf("system template %s: %w", path, err)
	}
	return Template{ID: t.ID, Name: t.Name, Description: &t.Description, Active: true, PageSize: t.PageSize,
		Orientation: t.Orientation, Layout: t.Layout}, nil
}

func templateFrom(r db.Template) Template {
	return Template{ID: r.ID, AccountID: r.AccountID, Name: r.Name, Description: r.Description, Active: r.Active,
		PageSize: r.PageSize, Orientation: r.Orientation, Layout: r.Layout, CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt}
}
