package httpapi

import (
	"context"

	"github.com/certhub/credentiald/gen/api"
	"github.com/certhub/credentiald/internal/domain"
)

func retentionOf(r domain.Retention) api.Retention {
	return api.Retention{EmailBodiesDays: r.EmailBodiesDays, WebhookPayloadsDays: r.WebhookPayloadsDays, AuditLogDays: r.AuditLogDays,
		PendingAuditLogDays: r.PendingAuditLogDays, PendingFrom: utc(r.PendingFrom), UpdatedAt: utc(r.UpdatedAt)}
}

func (s *Server) GetRetention(ctx context.Context, _ api.GetRetentionRequestObject) (api.GetRetentionResponseObject, error) {
	r, err := s.retention.Get(ctx, principal(ctx))
	if err != nil {
		return nil, err
	}
	return api.GetRetention200JSONResponse{Body: api.RetentionEnvelope{Data: retentionOf(r)}}, nil
}

func (s *Server) UpdateRetention(ctx context.Context, req api.UpdateRetentionRequestObject) (api.UpdateRetentionResponseObject, error) {
	b := req.Body
	r, err := s.retention.Put(ctx, principal(ctx), domain.Retention{EmailBodiesDays: b.EmailBodiesDays,
		WebhookPayloadsDays: b.WebhookPayloadsDays, AuditLogDays: b.AuditLogDays})
	if err != nil {
		return nil, err
	}
	return api.UpdateRetention200JSONResponse{Body: api.RetentionEnvelope{Data: retentionOf(r)}}, nil
}
