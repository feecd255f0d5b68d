package httpapi

import (
	"context"

	"github.com/certhub/credentiald/gen/api"
	"github.com/certhub/credentiald/internal/domain"
	"github.com/certhub/credentiald/internal/links"
)

func (s *Server) ListEvents(ctx context.Context, req api.ListEventsRequestObject) (api.ListEventsResponseObject, error) {
	page := pageOf(req.Params.Page, req.Params.PageSize, req.Params.Sort, req.Params.Q)
	list, total, err := s.events.List(ctx, principal(ctx).AccountID, page)
	if err != nil {
		return nil, err
	}
	out := make([]api.Event, len(list))
	for i, e := range list {
		out[i] = event(e)
	}
	return api.ListEvents200JSONResponse{Body: api.EventPage{Data: out, Meta: pageMeta(page, total)}}, nil
}

func (s *Server) CreateEvent(ctx context.Context, req api.CreateEventRequestObject) (api.CreateEventResponseObject, error) {
	b := req.Body
	e, err := s.events.Create(ctx, principal(ctx).AccountID, domain.EventFields{Name: b.Name, Description: b.Description,
		EventDate: b.EventDate, Location: b.Location, TemplateID: b.TemplateId, CertificateValidityDays: b.CertificateValidityDays,
		Locale: string(deref(b.Locale))})
	if err != nil {
		return nil, err
	}
	return api.CreateEvent201JSONResponse{Body: api.EventEnvelope{Data: event(e)},
		Headers: api.CreateEvent201ResponseHeaders{Location: links.Event(e.ID)}}, nil
}

func (s *Server) GetEvent(ctx context.Context, req api.GetEventRequestObject) (api.GetEventResponseObject, error) {
	e, err := s.events.Get(ctx, principal(ctx).AccountID, req.Id)
	if err != nil {
		return nil, err
	}
	return api.GetEvent200JSONResponse{Body: api.EventEnvelope{Data: event(e)}}, nil
}

func (s *Server) UpdateEvent(ctx context.Context, req api.UpdateEventRequestObject) (api.UpdateEventResponseObject, error) {
	b := req.Body
	e, err := s.events.Replace(ctx, principal(ctx).AccountID, req.Id, domain.EventFields{Name: b.Name, Description: b.Description,
		EventDate: b.EventDate, Location: b.Location, TemplateID: b.TemplateId, CertificateValidityDays: b.CertificateValidityDays,
		Locale: string(deref(b.Locale))})
	if err != nil {
		return nil, err
	}
	return api.UpdateEvent200JSONResponse{Body: api.EventEnvelope{Data: event(e)}}, nil
}

func (s *Server) DeleteEvent(ctx context.Context, req api.DeleteEventRequestObject) (api.DeleteEventResponseObject, error) {
	if err := s.events.Delete(ctx, principal(ctx).AccountID, req.Id); err != nil {
		return nil, err
	}
	return api.DeleteEvent204Response{}, nil
}

func (s *Server) GetEventRegistration(ctx context.Context, req api.GetEventRegistrationRequestObject) (api.GetEventRegistrationResponseObject, error) {
	e, err := s.events.Get(ctx, principal(ctx).AccountID, req.Id)
	if err != nil {
		return nil, err
	}
	return api.GetEventRegistration200JSONResponse{Body: api.RegistrationSettingsEnvelope{Data: registration(e.Registration)}}, nil
}

func (s *Server) UpdateEventRegistration(ctx context.Context, req api.UpdateEventRegistrationRequestObject) (api.UpdateEventRegistrationResponseObject, error) {
	b := req.Body
	e, err := s.events.SetRegistration(ctx, principal(ctx).AccountID, req.Id, domain.Registration{
		Enabled: b.Enabled, OpensAt: b.OpensAt, ClosesAt: b.ClosesAt, Capacity: b.Capacity, Message: b.Message})
	if err != nil {
		return nil, err
	}
	return api.UpdateEventRegistration200JSONResponse{Body: api.RegistrationSettingsEnvelope{Data: registration(e.Registration)}}, nil
}

func event(e domain.Event) api.Event {
	return api.Event{Id: e.ID, Name: e.Name, Description: e.Description, EventDate: e.EventDate.UTC(), Location: e.Location,
		TemplateId: e.TemplateID, CertificateValidityDays: e.CertificateValidityDays, Locale: api.Locale(e.Locale),
		CreatedAt: e.CreatedAt.UTC(), UpdatedAt: e.UpdatedAt.UTC()}
}

func registration(r domain.Registration) api.RegistrationSettings {
	return api.RegistrationSettings{Enabled: r.Enabled, OpensAt: utc(r.OpensAt), ClosesAt: utc(r.ClosesAt),
		Capacity: r.Capacity, Message: r.Message}
}

// pageOf applies the contract's defaults: page 1, 20 items, the list's default order (an
// empty Sort), no search.
func pageOf[S ~string](page, size *int, sort *S, q *string) domain.Page {
	p := domain.Page{Number: 1, Size: 20, Q: q}
	if sort != nil {
		p.Sort = string(*sort)
	}
	if page != nil {
		p.Number = *page
	}
	if size != nil {
		p.Size = *size
	}
	return p
}

func pageMeta(p domain.Page, total int) api.PageMeta {
	return api.PageMeta{Page: p.Number, PageSize: p.Size, Total: total}
}
