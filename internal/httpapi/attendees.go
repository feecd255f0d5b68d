package httpapi

import (
	"context"
	"errors"
	"io"
	"mime/multipart"
	"net/url"

	openapi_types "github.com/oapi-codegen/runtime/types"

	"github.com/certhub/credentiald/gen/api"
	"github.com/certhub/credentiald/internal/apperr"
	"github.com/certhub/credentiald/internal/domain"
	"github.com/certhub/credentiald/internal/links"
)

func (s *Server) ListAttendees(ctx context.Context, req api.ListAttendeesRequestObject) (api.ListAttendeesResponseObject, error) {
	page := pageOf(req.Params.Page, req.Params.PageSize, req.Params.Sort, req.Params.Q)
	f := domain.AttendeeFilter{EventID: req.Params.EventId}
	if e := req.Params.Email; e != nil {
		v := string(*e)
		f.Email = &v
	}
	list, total, err := s.attendees.List(ctx, principal(ctx).AccountID, f, page)
	if err != nil {
		return nil, err
	}
	return api.ListAttendees200JSONResponse{Body: api.AttendeePage{Data: convertAll(list, attendee), Meta: pageMeta(page, total)}}, nil
}

func (s *Server) ListEventAttendees(ctx context.Context, req api.ListEventAttendeesRequestObject) (api.ListEventAttendeesResponseObject, error) {
	page := pageOf(req.Params.Page, req.Params.PageSize, req.Params.Sort, req.Params.Q)
	list, total, err := s.attendees.ListOfEvent(ctx, principal(ctx).AccountID, req.Id, page)
	if err != nil {
		return nil, err
	}
	return api.ListEventAttendees200JSONResponse{Body: api.AttendeePage{Data: convertAll(list, attendee), Meta: pageMeta(page, total)}}, nil
}

func (s *Server) CountAttendees(ctx context.Context, req api.CountAttendeesRequestObject) (api.CountAttendeesResponseObject, error) {
	n, err := s.attendees.Count(ctx, principal(ctx).AccountID, req.Params.EventId)
	if err != nil {
		return nil, err
	}
	return api.CountAttendees200JSONResponse{Body: api.CountEnvelope{Data: n}}, nil
}

func (s *Server) CreateAttendee(ctx context.Context, req api.CreateAttendeeRequestObject) (api.CreateAttendeeResponseObject, error) {
	b := req.Body
	a, err := s.attendees.Create(ctx, principal(ctx).AccountID, b.EventId, domain.AttendeeFields{
		FirstName: b.FirstName, LastName: b.LastName, Email: string(b.Email), Metadata: deref(b.Metadata)})
	if err != nil {
		return nil, err
	}
	return api.CreateAttendee201JSONResponse{Body: api.AttendeeEnvelope{Data: attendee(a)},
		Headers: api.CreateAttendee201ResponseHeaders{Location: links.Attendee(a.ID)}}, nil
}

func (s *Server) GetAttendee(ctx context.Context, req api.GetAttendeeRequestObject) (api.GetAttendeeResponseObject, error) {
	a, err := s.attendees.Get(ctx, principal(ctx).AccountID, req.Id)
	if err != nil {
		return nil, err
	}
	return api.GetAttendee200JSONResponse{Body: api.AttendeeEnvelope{Data: attendee(a)}}, nil
}

func (s *Server) UpdateAttendee(ctx context.Context, req api.UpdateAttendeeRequestObject) (api.UpdateAttendeeResponseObject, error) {
	b := req.Body
	c := domain.AttendeeChanges{FirstName: b.FirstName, LastName: b.LastName, Metadata: deref(b.Metadata)}
	if b.Metadata != nil && c.Metadata == nil {
		c.Metadata = map[string]string{}
	}
	if b.Email != nil {
		e := string(*b.Email)
		c.Email = &e
	}
	a, err := s.attendees.Update(ctx, principal(ctx).AccountID, req.Id, c)
	if err != nil {
		return nil, err
	}
	return api.UpdateAttendee200JSONResponse{Body: api.AttendeeEnvelope{Data: attendee(a)}}, nil
}

func (s *Server) DeleteAttendee(ctx context.Context, req api.DeleteAttendeeRequestObject) (api.DeleteAttendeeResponseObject, error) {
	if err := s.attendees.Delete(ctx, principal(ctx).AccountID, req.Id); err != nil {
		return nil, err
	}
	return api.DeleteAttendee204Response{}, nil
}

func (s *Server) ImportAttendees(ctx context.Context, req api.ImportAttendeesRequestObject) (api.ImportAttendeesResponseObject, error) {
	file, err := filePart(req.Body)
	if err != nil {
		return nil, err
	}
	skip := req.Params.SkipDuplicates == nil || *req.Params.SkipDuplicates
	res, err := s.attendees.Import(ctx, principal(ctx).AccountID, req.Params.EventId, file, skip)
	if err != nil {
		return nil, err
	}
	out := api.ImportResult{Added: res.Added, Skipped: res.Skipped, Rejected: make([]api.ImportRejection, len(res.Rejected))}
	for i, r := range res.Rejected {
		out.Rejected[i] = api.ImportRejection{Row: r.Row, Field: r.Field, Email: r.Email, Reason: api.ImportRejectionReason(r.Reason), Message: r.Message}
	}
	return api.ImportAttendees200JSONResponse{Body: api.ImportResultEnvelope{Data: out}}, nil
}

// filePart finds the form's `file` part; the contract's validator has already refused a form
// without it, but a handler does not rely on that.
func filePart(r *multipart.Reader) (io.Reader, error) {
	for {
		p, err := r.NextPart()
		if errors.Is(err, io.EOF) {
			return nil, apperr.Invalid("file", "the form has no file field named \"file\"")
		}
		if err != nil {
			return nil, apperr.Invalid("file", "the multipart body could not be read")
		}
		if p.FormName() == "file" {
			return p, nil
		}
	}
}

func (s *Server) ExportEventAttendees(ctx context.Context, req api.ExportEventAttendeesRequestObject) (api.ExportEventAttendeesResponseObject, error) {
	// The generated handler copies the stream into the answer and closes it when done.
	csv, err := s.attendees.ExportStream(ctx, principal(ctx).AccountID, req.EventId, req.Params.Bom != nil && *req.Params.Bom)
	if err != nil {
		return nil, err
	}
	name := "attendees-" + req.EventId.String() + ".csv"
	disposition := "attachment; filename=\"" + name + "\"; filename*=UTF-8''" + url.PathEscape(name)
	return api.ExportEventAttendees200TextcsvResponse{Body: csv,
		Headers: api.ExportEventAttendees200ResponseHeaders{ContentDisposition: &disposition}}, nil
}

func attendee(a domain.Attendee) api.Attendee {
	m := a.Metadata
	if m == nil {
		m = map[string]string{}
	}
	return api.Attendee{Id: a.ID, EventId: a.EventID, FirstName: a.FirstName, LastName: a.LastName, Email: openapi_types.Email(a.Email),
		Metadata: m, CreatedAt: a.CreatedAt.UTC(), UpdatedAt: a.UpdatedAt.UTC(), ErasedAt: utc(a.ErasedAt)}
}

func convertAll[T, U any](in []T, f func(T) U) []U {
	out := make([]U, len(in))
	for i, v := range in {
		out[i] = f(v)
	}
	return out
}
