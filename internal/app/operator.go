package app

import (
	"slices"

	"github.com/labstack/echo/v4"

	"github.com/certhub/credentiald/gen/api"
	"github.com/certhub/credentiald/internal/issuance"
)

// withOperatorContact adds to middlewares, when contact (OPERATOR_CONTACT) is set, one that
// ends the message of every CREDIT_LIMIT an operation answers (402) with whom to ask for a
// larger plan (issuance.NameOperatorContact). It wraps the operations, not the services that
// refuse: a certificate's issuance, a badge's and a bulk job refused before it starts all
// answer through it, and no service needs to know the installation's contact. middlewares
// itself is not changed (they are the tests' own).
func withOperatorContact(middlewares []api.StrictMiddlewareFunc, contact string) []api.StrictMiddlewareFunc {
	if contact == "" {
		return middlewares
	}
	return append(slices.Clip(middlewares), func(f api.StrictHandlerFunc, _ string) api.StrictHandlerFunc {
		return func(c echo.Context, request any) (any, error) {
			res, err := f(c, request)
			return res, issuance.NameOperatorContact(err, contact)
		}
	})
}
