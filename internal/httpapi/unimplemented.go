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

func (s *Server) ListBadges(context.Context, api.ListBadgesRequestObject) (api.ListBadgesResponseObject, error) {
	return nil, errNotImplemented
}

func (s *Server) CreateBadge(context.Context, api.CreateBadgeRequestObject) (api.CreateBadgeResponseObject, error) {
	return nil, errNotImplemented
}

func (s *Server) DeleteBadge(context.Context, api.DeleteBadgeRequestObject) (api.DeleteBadgeResponseObject, error) {
	return nil, errNotImplemented
}

func (s *Server) GetBadge(context.Context, api.GetBadgeRequestObject) (api.GetBadgeResponseObject, error) {
	return nil, errNotImplemented
}

func (s *Server) UpdateBadge(context.Context, api.UpdateBadgeRequestObject) (api.UpdateBadgeResponseObject, error) {
	return nil, errNotImplemented
}

func (s *Server) ListBadgeAssertions(context.Context, api.ListBadgeAssertionsRequestObject) (api.ListBadgeAssertionsResponseObject, error) {
	return nil, errNotImplemented
}

func (s *Server) IssueBadge(context.Context, api.IssueBadgeRequestObject) (api.IssueBadgeResponseObject, error) {
	return nil, errNotImplemented
}
