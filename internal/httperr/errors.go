// Package httperr is where an error becomes an HTTP answer: the status of each of the
// contract's error codes, the envelope `{ "error": { "code", "message", ... } }`, and the one
// Echo error handler that writes it and logs the failure.
package httperr

import (
	"errors"
	"log/slog"
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/certhub/credentiald/gen/api"
	"github.com/certhub/credentiald/internal/apperr"
)

// httpErrorCodes maps Echo's own errors (routing, body limits, binding) to contract codes.
var httpErrorCodes = map[int]apperr.Code{
	http.StatusBadRequest:            apperr.ValidationError,
	http.StatusNotFound:              apperr.NotFound,
	http.StatusMethodNotAllowed:      apperr.MethodNotAllowed,
	http.StatusRequestEntityTooLarge: apperr.PayloadTooLarge,
	http.StatusUnauthorized:          apperr.InvalidAPIKey,
	http.StatusTooManyRequests:       apperr.RateLimited,
}

var httpErrorMessages = map[apperr.Code]string{
	apperr.ValidationError:  "The request is not valid.",
	apperr.NotFound:         "No such resource.",
	apperr.MethodNotAllowed: "This method is not allowed on this path.",
	apperr.PayloadTooLarge:  "The request body is too large.",
	apperr.InvalidAPIKey:    "The key or token is missing, wrong, expired or revoked.",
	apperr.RateLimited:      "Too many requests.",
	apperr.Internal:         "Internal error.",
}

// From turns any error a handler or middleware returned into an application error.
// Unexpected errors become INTERNAL; their cause is kept for the log only.
func From(err error) *apperr.Error {
	if e, ok := apperr.As(err); ok {
		return e
	}
	var he *echo.HTTPError
	if errors.As(err, &he) {
		if e, ok := apperr.As(he.Internal); ok {
			return e
		}
		if he.Code == http.StatusUnsupportedMediaType {
			// Echo's binding of a body of a type the operation does not take.
			e := apperr.Invalid("header.Content-Type", "This operation does not take a body of this type; send the Content-Type the contract names for it (application/json, unless it says otherwise).")
			e.Cause = err
			return e
		}
		if _, ok := httpErrorCodes[he.Code]; ok {
			return FromStatus(he.Code, err)
		}
	}
	return &apperr.Error{Code: apperr.Internal, Message: httpErrorMessages[apperr.Internal], Cause: err}
}

// FromStatus is the application error for an HTTP error of Echo's or of the request
// validator's own (routing, body limits, binding): its contract code, or INTERNAL.
func FromStatus(status int, cause error) *apperr.Error {
	code, ok := httpErrorCodes[status]
	if !ok {
		code = apperr.Internal
	}
	return &apperr.Error{Code: code, Message: httpErrorMessages[code], Cause: cause}
}

// Handler writes every failure in the contract's envelope and logs it: 5xx as errors
// with their cause, 4xx as warnings.
func Handler(logger *slog.Logger) echo.HTTPErrorHandler {
	return func(err error, c echo.Context) {
		e := From(err)
		status := Status(e.Code)
		ctx := c.Request().Context()
		if status >= 500 && e.Code != apperr.NotImplemented {
			logger.ErrorContext(ctx, "request failed", "status", status, "code", e.Code, "error", err)
		} else {
			logger.WarnContext(ctx, "request refused", "status", status, "code", e.Code, "message", e.Message)
		}
		if c.Response().Committed {
			return
		}
		if e.Location != "" {
			c.Response().Header().Set(echo.HeaderLocation, e.Location)
		}
		if status == http.StatusMethodNotAllowed && c.Response().Header().Get(echo.HeaderAllow) == "" {
			// RFC 9110: a 405 lists the methods the path takes. Echo's router found them
			// before any middleware ran; the request validator refuses first for API paths.
			if allow, _ := c.Get(echo.ContextKeyHeaderAllow).(string); allow != "" {
				c.Response().Header().Set(echo.HeaderAllow, allow)
			}
		}
		if c.Request().Method == http.MethodHead {
			_ = c.NoContent(status)
			return
		}
		if werr := c.JSON(status, Envelope(e)); werr != nil {
			logger.ErrorContext(ctx, "writing error response", "error", werr)
		}
	}
}

// Envelope renders an application error as the contract's error body.
func Envelope(e *apperr.Error) api.Error {
	body := api.ErrorBody{Code: api.ErrorCode(e.Code), Message: e.Message}
	if len(e.Details) > 0 {
		details := make([]api.ErrorDetail, len(e.Details))
		for i, d := range e.Details {
			details[i] = api.ErrorDetail{Field: d.Field, Message: d.Message}
		}
		body.Details = &details
	}
	if e.Required != "" {
		r := e.Required
		body.Required = &r
	}
	if c := e.Credits; c != nil {
		body.Credits = &api.CreditFigures{Limit: c.Limit, Used: c.Used, Remaining: c.Remaining, ResetsAt: c.ResetsAt.UTC()}
	}
	if x := e.Existing; x != nil {
		body.Existing = &api.ExistingCertificate{CertificateNumber: x.CertificateNumber, VerificationCode: x.VerificationCode}
		_ = body.Existing.Id.UnmarshalText([]byte(x.ID))
	}
	return api.Error{Error: body}
}
