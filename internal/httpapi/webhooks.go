package httpapi

import (
	"context"

	"github.com/certhub/credentiald/gen/api"
	"github.com/certhub/credentiald/internal/domain"
	"github.com/certhub/credentiald/internal/links"
	"github.com/certhub/credentiald/internal/webhooks"
)

func (s *Server) ListWebhooks(ctx context.Context, _ api.ListWebhooksRequestObject) (api.ListWebhooksResponseObject, error) {
	list, err := s.webhooks.List(ctx, principal(ctx).AccountID)
	if err != nil {
		return nil, err
	}
	return api.ListWebhooks200JSONResponse{Body: api.WebhookSubscriptionListEnvelope{Data: convertAll(list, webhookSubscription)}}, nil
}

func (s *Server) CreateWebhook(ctx context.Context, req api.CreateWebhookRequestObject) (api.CreateWebhookResponseObject, error) {
	b := req.Body
	sub, secret, err := s.webhooks.Create(ctx, principal(ctx).AccountID, webhooks.Fields{URL: &b.Url,
		Events: b.Events, Description: b.Description})
	if err != nil {
		return nil, err
	}
	v := webhookSubscription(sub)
	return api.CreateWebhook201JSONResponse{Body: api.CreatedWebhookSubscriptionEnvelope{Data: api.CreatedWebhookSubscription{
		Id: v.Id, Url: v.Url, Events: v.Events, Description: v.Description, Active: v.Active, ConsecutiveFailures: v.ConsecutiveFailures,
		DisabledAt: v.DisabledAt, CreatedAt: v.CreatedAt, UpdatedAt: v.UpdatedAt, Secret: secret,
	}}, Headers: api.CreateWebhook201ResponseHeaders{Location: links.Webhook(sub.ID)}}, nil
}

func (s *Server) UpdateWebhook(ctx context.Context, req api.UpdateWebhookRequestObject) (api.UpdateWebhookResponseObject, error) {
	b := req.Body
	f := webhooks.Fields{URL: b.Url, Description: b.Description, Active: b.Active}
	if b.Events != nil {
		f.Events = *b.Events
	}
	sub, err := s.webhooks.Update(ctx, principal(ctx).AccountID, req.Id, f)
	if err != nil {
		return nil, err
	}
	return api.UpdateWebhook200JSONResponse{Body: api.WebhookSubscriptionEnvelope{Data: webhookSubscription(sub)}}, nil
}

func (s *Server) DeleteWebhook(ctx context.Context, req api.DeleteWebhookRequestObject) (api.DeleteWebhookResponseObject, error) {
	if err := s.webhooks.Delete(ctx, principal(ctx).AccountID, req.Id); err != nil {
		return nil, err
	}
	return api.DeleteWebhook204Response{}, nil
}

func (s *Server) ListWebhookDeliveries(ctx context.Context, req api.ListWebhookDeliveriesRequestObject) (api.ListWebhookDeliveriesResponseObject, error) {
	page := pageOf(req.Params.Page, req.Params.PageSize, req.Params.Sort, nil)
	list, total, err := s.webhooks.Deliveries(ctx, principal(ctx).AccountID, req.Id, page)
	if err != nil {
		return nil, err
	}
	return api.ListWebhookDeliveries200JSONResponse{Body: api.WebhookDeliveryPage{Data: convertAll(list, webhookDelivery), Meta: pageMeta(page, total)}}, nil
}

func (s *Server) TestWebhook(ctx context.Context, req api.TestWebhookRequestObject) (api.TestWebhookResponseObject, error) {
	d, err := s.webhooks.Test(ctx, principal(ctx).AccountID, req.Id)
	if err != nil {
		return nil, err
	}
	return api.TestWebhook202JSONResponse{Body: api.WebhookDeliveryEnvelope{Data: webhookDelivery(d)}}, nil
}

func webhookSubscription(w domain.WebhookSubscription) api.WebhookSubscription {
	return api.WebhookSubscription{Id: w.ID, Url: w.URL, Events: w.Events,
		Description: w.Description, Active: w.Active, ConsecutiveFailures: w.ConsecutiveFailures, DisabledAt: utc(w.DisabledAt),
		CreatedAt: w.CreatedAt.UTC(), UpdatedAt: w.UpdatedAt.UTC()}
}

func webhookDelivery(d domain.WebhookDelivery) api.WebhookDelivery {
	return api.WebhookDelivery{Id: d.ID, EventType: api.WebhookEventType(d.EventType), Status: api.WebhookDeliveryStatus(d.Status),
		Attempts: d.Attempts, LastAttemptAt: utc(d.LastAttemptAt), NextAttemptAt: utc(d.NextAttemptAt), ResponseStatus: d.ResponseStatus,
		ResponseBody: d.ResponseBody, Error: d.Error, DurationMs: d.DurationMs, CreatedAt: d.CreatedAt.UTC()}
}
