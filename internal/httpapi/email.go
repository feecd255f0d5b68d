package httpapi

import (
	"context"

	"github.com/google/uuid"

	"github.com/certhub/credentiald/gen/api"
	"github.com/certhub/credentiald/internal/domain"
)

func (s *Server) ListEmailDeliveries(ctx context.Context, req api.ListEmailDeliveriesRequestObject) (api.ListEmailDeliveriesResponseObject, error) {
	page := pageOf(req.Params.Page, req.Params.PageSize, req.Params.Sort, nil)
	f := domain.EmailFilter{EventID: req.Params.EventId, CertificateID: req.Params.CertificateId}
	if req.Params.Status != nil {
		st := domain.EmailDeliveryStatus(*req.Params.Status)
		f.Status = &st
	}
	list, total, err := s.certificates.Deliveries(ctx, principal(ctx).AccountID, f, page)
	if err != nil {
		return nil, err
	}
	return api.ListEmailDeliveries200JSONResponse{Body: api.EmailDeliveryPage{Data: convertAll(list, emailDelivery), Meta: pageMeta(page, total)}}, nil
}

func (s *Server) SendBulkEmail(ctx context.Context, req api.SendBulkEmailRequestObject) (api.SendBulkEmailResponseObject, error) {
	b := req.Body
	var ids []uuid.UUID
	if b.CertificateIds != nil {
		ids = *b.CertificateIds
	}
	queued, skipped, err := s.certificates.SendBulk(ctx, principal(ctx).AccountID, b.EventId, ids, b.OnlyUnsent == nil || *b.OnlyUnsent)
	if err != nil {
		return nil, err
	}
	return api.SendBulkEmail202JSONResponse{Body: api.SendBulkEmailResultEnvelope{Data: api.SendBulkEmailResult{Queued: queued, Skipped: skipped}}}, nil
}
