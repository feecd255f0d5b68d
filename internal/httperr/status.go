package httperr

import (
	"net/http"

	"github.com/certhub/credentiald/internal/apperr"
)

// statuses is the HTTP status of each of the contract's error codes. It lives at the edge,
// beside the handler that writes the envelope, so that the domain packages and apperr name
// what went wrong without knowing how HTTP says it.
var statuses = map[apperr.Code]int{
	apperr.ValidationError:       http.StatusBadRequest,
	apperr.InvalidAPIKey:         http.StatusUnauthorized,
	apperr.InvalidCredentials:    http.StatusUnauthorized,
	apperr.TwoFactorRequired:     http.StatusUnauthorized,
	apperr.CreditLimit:           http.StatusPaymentRequired,
	apperr.InsufficientScope:     http.StatusForbidden,
	apperr.APIKeyNotAllowed:      http.StatusForbidden,
	apperr.NotFound:              http.StatusNotFound,
	apperr.MethodNotAllowed:      http.StatusMethodNotAllowed,
	apperr.AlreadyIssued:         http.StatusConflict,
	apperr.IdempotencyInProgress: http.StatusConflict,
	apperr.Conflict:              http.StatusConflict,
	apperr.AttendeeHasCerts:      http.StatusConflict,
	apperr.AttendeeHasBadges:     http.StatusConflict,
	apperr.RequestTimeout:        http.StatusRequestTimeout,
	apperr.PayloadTooLarge:       http.StatusRequestEntityTooLarge,
	apperr.IdempotencyKeyReused:  http.StatusUnprocessableEntity,
	apperr.RateLimited:           http.StatusTooManyRequests,
	apperr.Internal:              http.StatusInternalServerError,
	apperr.NotImplemented:        http.StatusNotImplemented,
	apperr.OfferGone:             http.StatusGone,
	apperr.InsufficientRole:      http.StatusForbidden,
	apperr.EmailInUse:            http.StatusConflict,
	apperr.InvitationGone:        http.StatusGone,
	apperr.TokenGone:             http.StatusGone,
	apperr.EmailNotVerified:      http.StatusForbidden,
	apperr.SSORequired:           http.StatusUnauthorized,
	apperr.SSORefused:            http.StatusForbidden,
	apperr.SSOLinkRequired:       http.StatusConflict,
	apperr.DomainRecordNotFound:  http.StatusConflict,
	apperr.Erased:                http.StatusGone,
}

// Status is the HTTP status of a code; an unknown code is an internal error.
func Status(c apperr.Code) int {
	if s, ok := statuses[c]; ok {
		return s
	}
	return http.StatusInternalServerError
}
