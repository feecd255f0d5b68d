package httpapi

import (
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"regexp"
	"runtime/debug"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/labstack/echo/v4"

	"github.com/certhub/credentiald/internal/apperr"
	"github.com/certhub/credentiald/internal/logging"
)

const headerRequestID = "X-Request-Id"

var validRequestID = regexp.MustCompile(`^[A-Za-z0-9._:-]{1,128}$`)

// requestID takes a well-formed X-Request-Id from the client or makes one, answers it, and
// puts it in the request context so every log line of the request carries it.
func requestID(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		id := c.Request().Header.Get(headerRequestID)
		if !validRequestID.MatchString(id) {
			id = uuid.Must(uuid.NewV7()).String()
		}
		c.Response().Header().Set(headerRequestID, id)
		ctx := logging.WithRequestID(c.Request().Context(), id)
		c.SetRequest(c.Request().WithContext(withAccept(ctx, c.Request().Header.Get("Accept"))))
		return next(c)
	}
}

// accessLog renders the outcome (so it knows the status) and logs one line per request.
func accessLog(logger *slog.Logger) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			start := time.Now()
			if err := next(c); err != nil {
				c.Error(err)
			}
			req, res := c.Request(), c.Response()
			// Typed attributes: no value is boxed on the way to the handler.
			logger.LogAttrs(req.Context(), slog.LevelInfo, "request",
				slog.String("method", req.Method), slog.String("path", req.URL.Path), slog.String("route", c.Path()),
				slog.Int("status", res.Status), slog.Int64("bytes", res.Size),
				slog.Float64("duration_ms", float64(time.Since(start).Microseconds())/1000), slog.String("peer", req.RemoteAddr))
			return nil
		}
	}
}

// recoverPanics turns a panic into an error, which the error handler answers as 500 INTERNAL
// and logs with the stack. Nothing of it reaches the client.
func recoverPanics(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) (err error) {
		defer func() {
			if r := recover(); r != nil {
				if r == http.ErrAbortHandler {
					panic(r)
				}
				err = fmt.Errorf("panic: %v\n%s", r, debug.Stack())
			}
		}()
		return next(c)
	}
}

// Body limits: 1 MiB for JSON, 10 MiB (plus multipart framing) for a CSV import.
const (
	jsonBodyLimit   = 1 << 20
	importBodyLimit = 10<<20 + 64<<10
)

const ctxBodyTooLarge = "bodyTooLarge"

func bodyLimitFor(path string) int64 {
	if path == apiPrefix+"/attendees/import" {
		return importBodyLimit
	}
	return jsonBodyLimit
}

// limitBody answers 413 for a declared length over the limit, and caps the reader for bodies
// of unknown length: whoever reads past the limit fails, and the error handler then answers 413.
func limitBody(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		req := c.Request()
		limit := bodyLimitFor(req.URL.Path)
		if req.ContentLength > limit {
			return apperr.New(apperr.PayloadTooLarge, "The request body is larger than %d bytes.", limit)
		}
		if req.Body != nil && req.Body != http.NoBody {
			req.Body = &cappedBody{ReadCloser: req.Body, left: limit, c: c}
		}
		err := next(c)
		if tooLarge, _ := c.Get(ctxBodyTooLarge).(bool); tooLarge && err != nil {
			return &apperr.Error{Code: apperr.PayloadTooLarge, Message: fmt.Sprintf("The request body is larger than %d bytes.", limit), Cause: err}
		}
		return err
	}
}

type cappedBody struct {
	io.ReadCloser
	left int64
	c    echo.Context
}

func (b *cappedBody) Read(p []byte) (int, error) {
	if b.left <= 0 {
		// Probe one byte: a body of exactly the limit is fine.
		var one [1]byte
		if n, _ := b.ReadCloser.Read(one[:]); n > 0 {
			b.c.Set(ctxBodyTooLarge, true)
			return 0, fmt.Errorf("request body too large")
		}
		return 0, io.EOF
	}
	if int64(len(p)) > b.left {
		p = p[:b.left]
	}
	n, err := b.ReadCloser.Read(p)
	b.left -= int64(n)
	return n, err
}

// isAPIPath reports whether path is under /api/v1.
func isAPIPath(path string) bool { return strings.HasPrefix(path, apiPrefix+"/") }

// openBadgesPrefix roots the Open Badges documents, which the contract serves at the site root
// (their path items name the server "/").
const openBadgesPrefix = "/ob/"

// issuersPrefix roots the issuers' DID documents, JWK Sets and status lists, which the contract
// serves at the site root (did:web resolves there).
const issuersPrefix = "/issuers/"

// isPublicDocumentPath reports whether path is that of an Open Badges document or an issuer's
// verifiable-credential document: public documents that verifiers fetch from anywhere.
func isPublicDocumentPath(path string) bool {
	return strings.HasPrefix(path, openBadgesPrefix) || strings.HasPrefix(path, issuersPrefix)
}

// isContractPath reports whether path belongs to the contract's operations: under /api/v1, or
// an Open Badges or issuer document.
func isContractPath(path string) bool { return isAPIPath(path) || isPublicDocumentPath(path) }
