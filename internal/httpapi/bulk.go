package httpapi

import (
	"context"

	"github.com/google/uuid"

	"github.com/certhub/credentiald/gen/api"
	"github.com/certhub/credentiald/internal/bulk"
	"github.com/certhub/credentiald/internal/domain"
	"github.com/certhub/credentiald/internal/links"
)

func (s *Server) BulkGenerateCertificates(ctx context.Context, req api.BulkGenerateCertificatesRequestObject) (api.BulkGenerateCertificatesResponseObject, error) {
	b := deref(req.Body)
	r := bulkRequest(ctx, req.Id, b.AttendeeIds, b.TemplateId, b.SendEmail, b.Draft)
	res, err := s.bulk.Generate(ctx, r)
	if err != nil {
		return nil, err
	}
	out := api.BulkGenerateResult{Issued: convertAll(res.Issued, s.certificate), Skipped: make([]api.BulkSkipped, len(res.Skipped)),
		Failed: make([]api.BulkFailed, len(res.Failed))}
	for i, sk := range res.Skipped {
		out.Skipped[i] = api.BulkSkipped{AttendeeId: sk.AttendeeID, Existing: api.ExistingCertificate{
			Id: uuid.MustParse(sk.Existing.ID), CertificateNumber: sk.Existing.CertificateNumber, VerificationCode: sk.Existing.VerificationCode}}
	}
	for i, f := range res.Failed {
		out.Failed[i] = api.BulkFailed{AttendeeId: f.AttendeeID, Error: api.BulkFailureError{Code: api.ErrorCode(f.Code), Message: f.Message}}
	}
	return api.BulkGenerateCertificates200JSONResponse{Body: api.BulkGenerateResultEnvelope{Data: out}}, nil
}

func (s *Server) CreateBulkGenerationJob(ctx context.Context, req api.CreateBulkGenerationJobRequestObject) (api.CreateBulkGenerationJobResponseObject, error) {
	b := deref(req.Body)
	r := bulkRequest(ctx, req.Id, b.AttendeeIds, b.TemplateId, b.SendEmail, b.Draft)
	r.AllowPartial = b.AllowPartial != nil && *b.AllowPartial
	j, err := s.bulk.CreateJob(ctx, r)
	if err != nil {
		return nil, err
	}
	return api.CreateBulkGenerationJob202JSONResponse{Body: api.BulkJobEnvelope{Data: bulkJob(j)},
		Headers: api.CreateBulkGenerationJob202ResponseHeaders{Location: jobLocation(j)}}, nil
}

func (s *Server) GetBulkGenerationJob(ctx context.Context, req api.GetBulkGenerationJobRequestObject) (api.GetBulkGenerationJobResponseObject, error) {
	j, err := s.bulk.Job(ctx, principal(ctx).AccountID, req.Id, req.JobId)
	if err != nil {
		return nil, err
	}
	return api.GetBulkGenerationJob200JSONResponse{Body: api.BulkJobEnvelope{Data: bulkJob(j)}}, nil
}

func (s *Server) ListBulkGenerationJobs(ctx context.Context, req api.ListBulkGenerationJobsRequestObject) (api.ListBulkGenerationJobsResponseObject, error) {
	page := pageOf(req.Params.Page, req.Params.PageSize, req.Params.Sort, nil)
	list, total, err := s.bulk.Jobs(ctx, principal(ctx).AccountID, req.Id, page)
	if err != nil {
		return nil, err
	}
	return api.ListBulkGenerationJobs200JSONResponse{Body: api.BulkJobPage{Data: convertAll(list, bulkJob), Meta: pageMeta(page, total)}}, nil
}

// bulkRequest applies the contract's defaults to the fields both bulk bodies share: sendEmail
// true, draft false, the attendees without a valid certificate, the event's template.
func bulkRequest(ctx context.Context, eventID uuid.UUID, attendeeIDs *[]uuid.UUID, templateID *uuid.UUID, sendEmail, draft *bool) bulk.Request {
	return bulk.Request{AccountID: principal(ctx).AccountID, EventID: eventID, AttendeeIDs: deref(attendeeIDs),
		TemplateID: templateID, SendEmail: sendEmail == nil || *sendEmail, Draft: draft != nil && *draft}
}

func jobLocation(j domain.BulkJob) string {
	return links.BulkJob(j.EventID, j.ID)
}

func bulkJob(j domain.BulkJob) api.BulkJob {
	errs := make([]api.BulkJobError, len(j.Errors))
	for i, e := range j.Errors {
		errs[i] = api.BulkJobError{AttendeeId: e.AttendeeID, Code: api.ErrorCode(e.Code), Message: e.Message}
	}
	return api.BulkJob{Id: j.ID, EventId: j.EventID, Status: api.BulkJobStatus(j.Status), Total: j.Total, Processed: j.Processed,
		Issued: j.Issued, Skipped: j.Skipped, Failed: j.Failed, Errors: errs, CreatedAt: j.CreatedAt.UTC(),
		StartedAt: utc(j.StartedAt), FinishedAt: utc(j.FinishedAt)}
}
