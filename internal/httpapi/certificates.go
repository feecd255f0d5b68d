package httpapi

import (
	"bytes"
	"context"

	openapi_types "github.com/oapi-codegen/runtime/types"

	"github.com/certhub/credentiald/gen/api"
	"github.com/certhub/credentiald/internal/certificates"
	"github.com/certhub/credentiald/internal/domain"
)

func (s *Server) GenerateCertificate(ctx context.Context, req api.GenerateCertificateRequestObject) (api.GenerateCertificateResponseObject, error) {
	b := req.Body
	c, err := s.certificates.Generate(ctx, certificates.GenerateParams{AccountID: principal(ctx).AccountID, EventID: b.EventId,
		AttendeeID: b.AttendeeId, TemplateID: b.TemplateId, SendEmail: b.SendEmail == nil || *b.SendEmail, ExpiresAt: b.ExpiresAt})
	if err != nil {
		return nil, err
	}
	return api.GenerateCertificate200JSONResponse{Body: api.CertificateEnvelope{Data: s.certificate(c)}}, nil
}

func (s *Server) GetCertificate(ctx context.Context, req api.GetCertificateRequestObject) (api.GetCertificateResponseObject, error) {
	c, err := s.certificates.Get(ctx, principal(ctx).AccountID, req.Id)
	if err != nil {
		return nil, err
	}
	return api.GetCertificate200JSONResponse{Body: api.CertificateEnvelope{Data: s.certificate(c)}}, nil
}

func (s *Server) ListEventCertificates(ctx context.Context, req api.ListEventCertificatesRequestObject) (api.ListEventCertificatesResponseObject, error) {
	page := pageOf(req.Params.Page, req.Params.PageSize, req.Params.Sort, req.Params.Q)
	f := domain.CertificateFilter{Status: (*domain.CertificateStatus)(req.Params.Status)}
	list, total, err := s.certificates.ListOfEvent(ctx, principal(ctx).AccountID, req.Id, f, page)
	if err != nil {
		return nil, err
	}
	return api.ListEventCertificates200JSONResponse{Body: api.CertificatePage{Data: convertAll(list, s.certificate), Meta: pageMeta(page, total)}}, nil
}

func (s *Server) ListCertificates(ctx context.Context, req api.ListCertificatesRequestObject) (api.ListCertificatesResponseObject, error) {
	q := req.Params
	page := pageOf(q.Page, q.PageSize, q.Sort, q.Q)
	f := domain.CertificateFilter{EventID: q.EventId, AttendeeID: q.AttendeeId, TemplateID: q.TemplateId,
		Status: (*domain.CertificateStatus)(q.Status), IssuedFrom: dateOf(q.IssuedFrom), IssuedTo: dateOf(q.IssuedTo)}
	list, total, err := s.certificates.List(ctx, principal(ctx).AccountID, f, page)
	if err != nil {
		return nil, err
	}
	return api.ListCertificates200JSONResponse{Body: api.CertificatePage{Data: convertAll(list, s.certificate), Meta: pageMeta(page, total)}}, nil
}

func (s *Server) GetCredits(ctx context.Context, _ api.GetCreditsRequestObject) (api.GetCreditsResponseObject, error) {
	c, err := s.certificates.Credits(ctx, principal(ctx).AccountID)
	if err != nil {
		return nil, err
	}
	return api.GetCredits200JSONResponse{Body: api.CreditsEnvelope{Data: api.Credits{Period: c.Period.Format("2006-01"),
		Plan: api.Plan(c.Plan), Limit: c.Limit, Used: c.Used, Remaining: c.Remaining, ResetsAt: c.ResetsAt}}}, nil
}

func (s *Server) certificate(c domain.Certificate) api.Certificate {
	out := api.Certificate{Id: c.ID, CertificateNumber: c.Number, VerificationCode: c.VerificationCode,
		Status: api.CertificateStatus(c.Status), EventId: c.EventID, AttendeeId: c.AttendeeID, TemplateId: c.TemplateID,
		Recipient: api.Recipient{FirstName: c.FirstName, LastName: c.LastName, Email: openapi_types.Email(c.Email)},
		IssuedAt:  utc(c.IssuedAt), ExpiresAt: utc(c.ExpiresAt), RevokedAt: utc(c.RevokedAt), RevocationReason: c.RevocationReason,
		VerificationUrl: s.links.Verification(c.VerificationCode), CreatedAt: c.CreatedAt.UTC(), UpdatedAt: c.UpdatedAt.UTC()}
	if c.RevocationReasonCode != nil {
		code := string(*c.RevocationReasonCode)
		out.RevocationReasonCode = &code
	}
	return out
}

func (s *Server) RevokeCertificate(ctx context.Context, req api.RevokeCertificateRequestObject) (api.RevokeCertificateResponseObject, error) {
	var reason *string
	code := ""
	if b := req.Body; b != nil {
		reason = b.Reason
		if b.ReasonCode != nil {
			code = string(*b.ReasonCode)
		}
	}
	c, err := s.certificates.Revoke(ctx, principal(ctx).AccountID, req.Id, reason, code)
	if err != nil {
		return nil, err
	}
	return api.RevokeCertificate200JSONResponse{Body: api.CertificateEnvelope{Data: s.certificate(c)}}, nil
}

func (s *Server) DeleteCertificate(ctx context.Context, req api.DeleteCertificateRequestObject) (api.DeleteCertificateResponseObject, error) {
	if err := s.certificates.Delete(ctx, principal(ctx).AccountID, req.Id); err != nil {
		return nil, err
	}
	return api.DeleteCertificate204Response{}, nil
}

func (s *Server) RegenerateCertificate(ctx context.Context, req api.RegenerateCertificateRequestObject) (api.RegenerateCertificateResponseObject, error) {
	c, err := s.certificates.Regenerate(ctx, principal(ctx).AccountID, req.Id)
	if err != nil {
		return nil, err
	}
	return api.RegenerateCertificate200JSONResponse{Body: api.CertificateEnvelope{Data: s.certificate(c)}}, nil
}

func (s *Server) DownloadCertificate(ctx context.Context, req api.DownloadCertificateRequestObject) (api.DownloadCertificateResponseObject, error) {
	c, pdf, err := s.certificates.Download(ctx, principal(ctx).AccountID, req.Id)
	if err != nil {
		return nil, err
	}
	disposition := `attachment; filename="` + c.Number + `.pdf"`
	return api.DownloadCertificate200ApplicationpdfResponse{Body: bytes.NewReader(pdf), ContentLength: int64(len(pdf)),
		Headers: api.DownloadCertificate200ResponseHeaders{ContentDisposition: &disposition}}, nil
}

func (s *Server) SendCertificate(ctx context.Context, req api.SendCertificateRequestObject) (api.SendCertificateResponseObject, error) {
	d, err := s.certificates.Send(ctx, principal(ctx).AccountID, req.Id)
	if err != nil {
		return nil, err
	}
	return api.SendCertificate202JSONResponse{Body: api.EmailDeliveryEnvelope{Data: emailDelivery(d)}}, nil
}

func emailDelivery(d domain.EmailDelivery) api.EmailDelivery {
	return api.EmailDelivery{Id: d.ID, CertificateId: d.CertificateID, BadgeAssertionId: d.BadgeAssertionID,
		To: openapi_types.Email(d.ToAddress), Subject: d.Subject, Status: api.EmailDeliveryStatus(d.Status), Attempts: d.Attempts,
		LastError: d.LastError, SentAt: utc(d.SentAt), CreatedAt: d.CreatedAt.UTC()}
}
