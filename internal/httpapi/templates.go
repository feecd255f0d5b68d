package httpapi

import (
	"bytes"
	"context"
	"encoding/json"

	"github.com/certhub/credentiald/gen/api"
	"github.com/certhub/credentiald/internal/domain"
	"github.com/certhub/credentiald/internal/links"
	"github.com/certhub/credentiald/internal/templates"
)

func (s *Server) ListTemplates(ctx context.Context, req api.ListTemplatesRequestObject) (api.ListTemplatesResponseObject, error) {
	page := pageOf(req.Params.Page, req.Params.PageSize, req.Params.Sort, req.Params.Q)
	list, total, err := s.templates.List(ctx, principal(ctx).AccountID, req.Params.Active, page)
	if err != nil {
		return nil, err
	}
	out, err := templatesOut(list)
	if err != nil {
		return nil, err
	}
	return api.ListTemplates200JSONResponse{Body: api.TemplatePage{Data: out, Meta: pageMeta(page, total)}}, nil
}

func (s *Server) ListSystemTemplates(ctx context.Context, _ api.ListSystemTemplatesRequestObject) (api.ListSystemTemplatesResponseObject, error) {
	list, err := s.templates.ListSystem(ctx)
	if err != nil {
		return nil, err
	}
	out, err := templatesOut(list)
	if err != nil {
		return nil, err
	}
	return api.ListSystemTemplates200JSONResponse{Body: api.TemplateListEnvelope{Data: out}}, nil
}

func (s *Server) CreateTemplate(ctx context.Context, req api.CreateTemplateRequestObject) (api.CreateTemplateResponseObject, error) {
	b := req.Body
	f, err := templateFields(b.Name, b.Description, b.Active, b.PageSize, b.Orientation, b.Layout)
	if err != nil {
		return nil, err
	}
	t, err := s.templates.Create(ctx, principal(ctx).AccountID, f)
	if err != nil {
		return nil, err
	}
	out, err := templateOut(t)
	if err != nil {
		return nil, err
	}
	return api.CreateTemplate201JSONResponse{Body: api.TemplateEnvelope{Data: out},
		Headers: api.CreateTemplate201ResponseHeaders{Location: links.Template(t.ID)}}, nil
}

func (s *Server) GetTemplate(ctx context.Context, req api.GetTemplateRequestObject) (api.GetTemplateResponseObject, error) {
	t, err := s.templates.Get(ctx, principal(ctx).AccountID, req.Id)
	if err != nil {
		return nil, err
	}
	out, err := templateOut(t)
	if err != nil {
		return nil, err
	}
	return api.GetTemplate200JSONResponse{Body: api.TemplateEnvelope{Data: out}}, nil
}

func (s *Server) UpdateTemplate(ctx context.Context, req api.UpdateTemplateRequestObject) (api.UpdateTemplateResponseObject, error) {
	b := req.Body
	f, err := templateFields(b.Name, b.Description, b.Active, b.PageSize, b.Orientation, b.Layout)
	if err != nil {
		return nil, err
	}
	t, err := s.templates.Replace(ctx, principal(ctx).AccountID, req.Id, f)
	if err != nil {
		return nil, err
	}
	out, err := templateOut(t)
	if err != nil {
		return nil, err
	}
	return api.UpdateTemplate200JSONResponse{Body: api.TemplateEnvelope{Data: out}}, nil
}

func (s *Server) DeleteTemplate(ctx context.Context, req api.DeleteTemplateRequestObject) (api.DeleteTemplateResponseObject, error) {
	if err := s.templates.Delete(ctx, principal(ctx).AccountID, req.Id); err != nil {
		return nil, err
	}
	return api.DeleteTemplate204Response{}, nil
}

func (s *Server) DuplicateTemplate(ctx context.Context, req api.DuplicateTemplateRequestObject) (api.DuplicateTemplateResponseObject, error) {
	t, err := s.templates.Duplicate(ctx, principal(ctx).AccountID, req.Id)
	if err != nil {
		return nil, err
	}
	out, err := templateOut(t)
	if err != nil {
		return nil, err
	}
	return api.DuplicateTemplate201JSONResponse{Body: api.TemplateEnvelope{Data: out},
		Headers: api.DuplicateTemplate201ResponseHeaders{Location: links.Template(t.ID)}}, nil
}

func (s *Server) PreviewTemplate(ctx context.Context, req api.PreviewTemplateRequestObject) (api.PreviewTemplateResponseObject, error) {
	var sample templates.Sample
	if req.Body != nil && req.Body.Sample != nil {
		in := req.Body.Sample
		if r := in.Recipient; r != nil {
			sample.FirstName, sample.LastName = deref(r.FirstName), deref(r.LastName)
			if r.Email != nil {
				sample.Email = string(*r.Email)
			}
		}
		if e := in.Event; e != nil {
			sample.EventName, sample.EventLocation, sample.EventDate = deref(e.Name), deref(e.Location), e.Date
		}
		sample.Metadata = deref(in.Metadata)
	}
	format := templates.PDF
	if prefers(ctx, "image/png", "application/pdf") {
		format = templates.PNG
	}
	b, err := s.templates.Preview(ctx, principal(ctx).AccountID, req.Id, sample, format)
	if err != nil {
		return nil, err
	}
	if format == templates.PNG {
		return api.PreviewTemplate200ImagepngResponse{Body: bytes.NewReader(b), ContentLength: int64(len(b))}, nil
	}
	return api.PreviewTemplate200ApplicationpdfResponse{Body: bytes.NewReader(b), ContentLength: int64(len(b))}, nil
}

func templateFields(name string, description *string, active *bool, size *api.PaperSize, orientation *api.Orientation, layout api.TemplateLayout) (templates.Fields, error) {
	raw, err := json.Marshal(layout)
	if err != nil {
		return templates.Fields{}, err
	}
	f := templates.Fields{Name: name, Description: description, Active: active, Layout: raw}
	if size != nil {
		f.PageSize = string(*size)
	}
	if orientation != nil {
		f.Orientation = string(*orientation)
	}
	return f, nil
}

func templateOut(t domain.Template) (api.Template, error) {
	var layout api.TemplateLayout
	if err := json.Unmarshal(t.Layout, &layout); err != nil {
		return api.Template{}, err
	}
	return api.Template{Id: t.ID, Name: t.Name, Description: t.Description, Active: t.Active, System: t.System(),
		PageSize: api.PaperSize(t.PageSize), Orientation: api.Orientation(t.Orientation), Layout: layout,
		CreatedAt: t.CreatedAt.UTC(), UpdatedAt: t.UpdatedAt.UTC()}, nil
}

func templatesOut(list []domain.Template) ([]api.Template, error) {
	out := make([]api.Template, len(list))
	for i, t := range list {
		var err error
		if out[i], err = templateOut(t); err != nil {
			return nil, err
		}
	}
	return out, nil
}
