// Package templates holds the rules of certificate templates: an account's own, which it may
// change, and the read-only system templates every account may use or copy.
package templates

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/google/uuid"

	"github.com/certhub/credentiald/internal/apperr"
	"github.com/certhub/credentiald/internal/audit"
	"github.com/certhub/credentiald/internal/domain"
	"github.com/certhub/credentiald/internal/links"
	"github.com/certhub/credentiald/internal/render"
	"github.com/certhub/credentiald/internal/store"
)

// Service applies the template rules.
type Service struct {
	store *store.Store
	links links.Site
	now   func() time.Time
}

// New returns the service; siteURL roots the verification links of previews.
func New(s *store.Store, siteURL string, now func() time.Time) *Service {
	if now == nil {
		now = time.Now
	}
	return &Service{store: s, links: links.New(siteURL), now: now}
}

// Fields are what creating or replacing a template sets.
type Fields struct {
	Name        string
	Description *string
	Active      *bool
	PageSize    string // "" means A4
	Orientation string // "" means landscape
	Layout      json.RawMessage
}

// Missing is NOT_FOUND for a template that an input (templateId) named but the account may
// not use. The field is the domain's name; the HTTP edge says where the operation takes it.
func Missing() *apperr.Error {
	return apperr.NoSuch("template").At("templateId", "names no template of this account and no system template")
}

// UsableChecker tells whether an account may use a template: a *store.Store, or a *store.Tx.
type UsableChecker interface {
	TemplateUsable(ctx context.Context, accountID, templateID uuid.UUID) (bool, error)
}

// RequireUsable answers NOT_FOUND, naming templateId, unless the account may use the template
// (one of its own, or a system template).
func RequireUsable(ctx context.Context, c UsableChecker, accountID, templateID uuid.UUID) error {
	ok, err := c.TemplateUsable(ctx, accountID, templateID)
	if err != nil {
		return err
	}
	if !ok {
		return Missing()
	}
	return nil
}

// Create validates f and stores a template in the account.
func (s *Service) Create(ctx context.Context, accountID uuid.UUID, f Fields) (domain.Template, error) {
	n, err := check(f)
	if err != nil {
		return domain.Template{}, err
	}
	n.AccountID = &accountID
	return s.insert(ctx, n)
}

// insert stores a new template of an account, named in the request's audit entry.
func (s *Service) insert(ctx context.Context, n store.NewTemplate) (domain.Template, error) {
	return store.InTx(ctx, s.store, func(tx *store.Tx) (domain.Template, error) {
		t, err := tx.InsertTemplate(ctx, n, s.now())
		if err == nil {
			audit.Describe(ctx, "template", t.ID.String(), "")
		}
		return t, err
	})
}

// Get returns one of the account's templates or a system template.
func (s *Service) Get(ctx context.Context, accountID, id uuid.UUID) (domain.Template, error) {
	t, err := s.store.FindTemplate(ctx, accountID, id)
	return t, noSuchTemplate(err)
}

func noSuchTemplate(err error) error {
	return apperr.When(err, store.ErrNotFound, apperr.NoSuch("template"))
}

// List returns a page of the account's own templates and their total.
func (s *Service) List(ctx context.Context, accountID uuid.UUID, active *bool, p domain.Page) ([]domain.Template, int, error) {
	return s.store.ListTemplates(ctx, accountID, active, p)
}

// ListSystem returns the read-only system templates.
func (s *Service) ListSystem(ctx context.Context) ([]domain.Template, error) {
	return s.store.ListSystemTemplates(ctx)
}

// Replace validates f and replaces one of the account's templates with it.
func (s *Service) Replace(ctx context.Context, accountID, id uuid.UUID, f Fields) (domain.Template, error) {
	n, err := check(f)
	if err != nil {
		return domain.Template{}, err
	}
	now := s.now()
	return store.InTx(ctx, s.store, func(tx *store.Tx) (domain.Template, error) {
		cur, err := tx.LockTemplate(ctx, accountID, id)
		if err != nil {
			return domain.Template{}, noSuchTemplate(err)
		}
		if cur.System() {
			return domain.Template{}, apperr.New(apperr.Conflict, "System templates are read-only; duplicate it to make your own.")
		}
		return tx.UpdateTemplate(ctx, accountID, id, n, now)
	})
}

// Delete removes one of the account's templates that no event or certificate uses; a system
// template answers 409.
func (s *Service) Delete(ctx context.Context, accountID, id uuid.UUID) error {
	_, err := store.InTx(ctx, s.store, func(tx *store.Tx) (struct{}, error) {
		cur, err := tx.LockTemplate(ctx, accountID, id)
		if err != nil {
			return struct{}{}, noSuchTemplate(err)
		}
		if cur.System() {
			return struct{}{}, apperr.New(apperr.Conflict, "System templates are read-only and cannot be deleted.")
		}
		uses, err := tx.TemplateUses(ctx, id)
		if err != nil {
			return struct{}{}, err
		}
		if users := usesOf(uses); users != "" {
			return struct{}{}, apperr.New(apperr.Conflict, "The template is used by %s, and what used it is kept; set active to false instead.", users)
		}
		return struct{}{}, tx.DeleteTemplate(ctx, accountID, id)
	})
	return err
}

// usesOf names what uses a template in words ("2 events and 1 bulk job"), or "" for nothing.
func usesOf(u store.TemplateUses) string {
	var parts []string
	for _, c := range []struct {
		n         int
		one, many string
	}{{u.Events, "event", "events"}, {u.Certificates, "certificate", "certificates"}, {u.BulkJobs, "bulk job", "bulk jobs"}} {
		switch {
		case c.n == 1:
			parts = append(parts, "1 "+c.one)
		case c.n > 1:
			parts = append(parts, strconv.Itoa(c.n)+" "+c.many)
		}
	}
	switch len(parts) {
	case 0:
		return ""
	case 1:
		return parts[0]
	}
	return strings.Join(parts[:len(parts)-1], ", ") + " and " + parts[len(parts)-1]
}

// Duplicate copies one of the account's templates, or a system template, into the account.
func (s *Service) Duplicate(ctx context.Context, accountID, id uuid.UUID) (domain.Template, error) {
	src, err := s.Get(ctx, accountID, id)
	if err != nil {
		return domain.Template{}, err
	}
	name := []rune(src.Name + " (copy)")
	if len(name) > 200 {
		name = name[:200]
	}
	active := true
	return s.insert(ctx, store.NewTemplate{AccountID: &accountID, Name: string(name), Description: src.Description,
		Active: &active, PageSize: src.PageSize, Orientation: src.Orientation, Layout: src.Layout})
}

// Sample is the data a preview fills the placeholders with; empty fields take defaults.
type Sample struct {
	FirstName, LastName, Email string
	EventName, EventLocation   string
	EventDate                  *time.Time
	Metadata                   map[string]string
}

// Format is what a preview renders to.
type Format int

// The preview formats.
const (
	PDF Format = iota
	PNG
)

// Preview renders a template with sample data.
func (s *Service) Preview(ctx context.Context, accountID, id uuid.UUID, sample Sample, format Format) ([]byte, error) {
	t, err := s.Get(ctx, accountID, id)
	if err != nil {
		return nil, err
	}
	b, err := s.store.FindBranding(ctx, accountID)
	if err != nil {
		return nil, err
	}
	issuerName := store.Deref(b.IssuerName)
	if issuerName == "" {
		acct, err := s.store.FindAccountByID(ctx, accountID)
		if err != nil {
			return nil, err
		}
		issuerName = acct.Name
	}
	tmpl, err := ForRendering(t)
	if err != nil {
		return nil, err
	}
	now := s.now().UTC()
	d := render.Data{
		Recipient:       render.Recipient{FirstName: or(sample.FirstName, "Ada"), LastName: or(sample.LastName, "Lovelace"), Email: or(sample.Email, "ada@example.org")},
		Event:           render.Event{Name: or(sample.EventName, "Sample Event"), Date: now, Location: or(sample.EventLocation, "")},
		Certificate:     render.Certificate{Number: fmt.Sprintf("CERT-%d-000001", now.Year()), IssuedAt: now},
		IssuerName:      issuerName,
		IssuerLogo:      store.Deref(b.Logo),
		BrandColor:      store.Deref(b.PrimaryColor),
		VerificationURL: s.links.Verification("SAMPLE0000000"),
		Metadata:        sampleMetadata(tmpl.Layout, sample.Metadata),
	}
	for _, sg := range b.Signatories {
		d.Signatories = append(d.Signatories, render.Signatory{Name: sg.Name, Title: sg.Title, Image: store.Deref(sg.SignatureImage)})
	}
	if sample.EventDate != nil {
		d.Event.Date = *sample.EventDate
	}
	if format == PNG {
		return render.PNG(tmpl, d, render.PreviewDPI)
	}
	return render.PDF(tmpl, d)
}

// ForRendering turns a stored template into what the renderer draws.
func ForRendering(t domain.Template) (render.Template, error) {
	layout, err := render.ParseLayout(t.Layout)
	if err != nil {
		return render.Template{}, err
	}
	return render.Template{Page: render.PageOf(t.PageSize, t.Orientation), Layout: layout}, nil
}

// sampleMetadata shows each metadata placeholder the sample does not fill as [KEY].
func sampleMetadata(l render.Layout, given map[string]string) map[string]string {
	out := map[string]string{}
	for _, key := range render.MetadataKeys(l) {
		out[key] = "[" + key + "]"
	}
	for k, v := range given {
		out[k] = v
	}
	return out
}

// check validates f and applies the defaults.
func check(f Fields) (store.NewTemplate, error) {
	var details []apperr.Detail
	name := strings.TrimSpace(f.Name)
	if name == "" {
		details = append(details, apperr.Detail{Field: "name", Message: "must not be blank"})
	} else if strings.IndexFunc(name, unicode.IsControl) >= 0 {
		details = append(details, apperr.Detail{Field: "name", Message: "must not contain control characters"})
	}
	if f.Description != nil && strings.TrimSpace(*f.Description) == "" {
		f.Description = nil
	}
	n := store.NewTemplate{Name: name, Description: f.Description, Active: f.Active, PageSize: or(f.PageSize, "A4"),
		Orientation: or(f.Orientation, "landscape"), Layout: f.Layout}
	layout, err := render.ParseLayout(f.Layout)
	if err != nil {
		details = append(details, apperr.Detail{Field: "layout", Message: "is not a valid layout"})
	} else {
		for _, p := range render.Check(render.Template{Page: render.PageOf(n.PageSize, n.Orientation), Layout: layout}) {
			details = append(details, apperr.Detail{Field: "layout." + p.Path, Message: p.Message})
		}
	}
	if len(details) > 0 {
		return n, &apperr.Error{Code: apperr.ValidationError, Message: "The template is not valid.", Details: details}
	}
	return n, nil
}

func or(v, def string) string {
	if strings.TrimSpace(v) == "" {
		return def
	}
	return v
}
