package httpapi

import (
	"context"
	"time"

	openapi_types "github.com/oapi-codegen/runtime/types"

	"github.com/certhub/credentiald/gen/api"
	"github.com/certhub/credentiald/internal/analytics"
)

func (s *Server) GetAnalyticsDashboard(ctx context.Context, req api.GetAnalyticsDashboardRequestObject) (api.GetAnalyticsDashboardResponseObject, error) {
	d, err := s.analytics.Dashboard(ctx, principal(ctx).AccountID, dateOf(req.Params.From), dateOf(req.Params.To))
	if err != nil {
		return nil, err
	}
	return api.GetAnalyticsDashboard200JSONResponse{Body: api.DashboardAnalyticsEnvelope{Data: api.DashboardAnalytics{
		From: openapi_types.Date{Time: d.From}, To: openapi_types.Date{Time: d.To},
		CredentialsIssued: d.CredentialsIssued(), CertificatesIssued: d.CertificatesIssued, BadgesIssued: d.BadgesIssued,
		Views: d.Views, Shares: d.Shares, Downloads: d.Downloads, Verifications: d.Verifications, Claims: d.Claims, VerificationRate: d.VerificationRate,
		Days: analyticsDays(d.Days),
	}}}, nil
}

func analyticsDays(days []analytics.Day) []api.EventAnalyticsDay {
	out := make([]api.EventAnalyticsDay, len(days))
	for i, d := range days {
		out[i] = api.EventAnalyticsDay{Date: openapi_types.Date{Time: d.Date}, Issued: d.Issued(), CertificatesIssued: d.CertificatesIssued,
			BadgesIssued: d.BadgesIssued, Views: d.Views,
			Shares: d.Shares, Downloads: d.Downloads, Verifications: d.Verifications, Claims: d.Claims}
	}
	return out
}

func (s *Server) GetEventAnalytics(ctx context.Context, req api.GetEventAnalyticsRequestObject) (api.GetEventAnalyticsResponseObject, error) {
	days, err := s.analytics.Event(ctx, principal(ctx).AccountID, req.EventId, dateOf(req.Params.From), dateOf(req.Params.To))
	if err != nil {
		return nil, err
	}
	return api.GetEventAnalytics200JSONResponse{Body: api.EventAnalyticsDayListEnvelope{Data: analyticsDays(days)}}, nil
}

func dateOf(d *openapi_types.Date) *time.Time {
	if d == nil {
		return nil
	}
	return &d.Time
}
