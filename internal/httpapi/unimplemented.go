package httpapi

import (
	"context"

	"github.com/certhub/credentiald/gen/api"
)

// The operations below are in the contract but not built yet: each answers 501
// NOT_IMPLEMENTED in the error envelope. An operation leaves this file when it is built,
// and the README's status table follows.

func (s *Server) GetAnalyticsDashboard(context.Context, api.GetAnalyticsDashboardRequestObject) (api.GetAnalyticsDashboardResponseObject, error) {
	return nil, errNotImplemented
}

func (s *Server) GetEventAnalytics(context.Context, api.GetEventAnalyticsRequestObject) (api.GetEventAnalyticsResponseObject, error) {
	return nil, errNotImplemented
}
