// Package httpmw is the middleware of the HTTP edge: request ids, access logs, panic recovery,
// rate and body limits, authentication, the JSON text checks, the contract's request
// validator, idempotency, conditional GETs, the metrics, and what public requests need. Each
// part of the service (internal/httpapi mounts them) takes the ones it needs, route by route.
package httpmw

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net"
	"net/http"
	"os"
	"regexp"
	"runtime/debug"
	"time"

	"github.com/google/uuid"
	"github.com/labstack/echo/v4"

	"github.com/certhub/credentiald/internal/apperr"
	"github.com/certhub/credentiald/internal/logging"
	"github.com/certhub/credentiald/internal/spec"
)

const headerRequestID = "X-Request-Id"

// apiPrefix roots the account API and public verification (the contract's server).
const apiPrefix = spec.APIPrefix

var validRequestID = regexp.MustCompile(`^[A-Za-z0-9._:-]{1,128}$`)

// RequestID takes a well-formed X-Request-Id from the client or makes one, answers it, and
// puts it in the request context so every log line of the request carries it.
func RequestID(next echo.HandlerFunc) echo.HandlerFunc {
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

// AccessLog renders the outcome (so it knows the status) and logs one line per request. The
// line's path is the telemetry path (a route with a secret in its path gives its route), and
// it holds no query string: the logs never carry a secret.
func AccessLog(logger *slog.Logger) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			start := time.Now()
			if err := next(c); err != nil {
				c.Error(err)
			}
			req, res := c.Request(), c.Response()
			// Typed attributes: no value is boxed on the way to the handler.
			logger.LogAttrs(req.Context(), slog.LevelInfo, "request",
				slog.String("method", req.Method), slog.String("path", telemetryPath(c)), slog.String("route", c.Path()),
				slog.Int("status", res.Status), slog.Int64("bytes", res.Size),
				slog.Float64("duration_ms", float64(time.Since(start).Microseconds())/1000), slog.String("peer", req.RemoteAddr))
			return nil
		}
	}
}

// RecoverPanics turns a panic into an error, which the error handler answers as 500 INTERNAL
// and logs with the stack. Nothing of it reaches the client.
func RecoverPanics(next echo.HandlerFunc) echo.HandlerFunc {
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

// Body limits (the contract's Conventions): 1 MiB for a JSON body; 4 MiB for a template's,
// room for the largest background image (2 MiB) in base64; 10 MiB plus the multipart framing
// for a CSV import.
const (
	jsonBodyLimit     = 1 << 20
	templateBodyLimit = 4 << 20
	importBodyLimit   = 10<<20 + 64<<10
)

// bodyLimits are the operations, by method and Echo route, whose body may be larger than
// jsonBodyLimit.
var bodyLimits = map[string]int64{
	routeKey(http.MethodPost, apiPrefix+"/templates"):        templateBodyLimit, // createTemplate
	routeKey(http.MethodPut, apiPrefix+"/templates/:id"):     templateBodyLimit, // updateTemplate
	routeKey(http.MethodPost, apiPrefix+"/attendees/import"): importBodyLimit,   // importAttendees
}

// LimitBody answers 413 for a declared length over the operation's limit, and caps the reader
// for bodies of unknown length: whoever reads past the limit fails, and the answer is then
// 413. A body that stops arriving fails its reader when the server's read deadline passes,
// wherever it is read (the text check, the validator, a multipart parser); the answer is then
// 408 REQUEST_TIMEOUT, whatever the reader made of the failure, and nothing was done.
func LimitBody(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		req := c.Request()
		limit, ok := bodyLimits[routeKey(req.Method, c.Path())]
		if !ok {
			limit = jsonBodyLimit
		}
		if req.ContentLength > limit {
			return apperr.New(apperr.PayloadTooLarge, "The request body is larger than %d bytes.", limit)
		}
		if req.Body == nil || req.Body == http.NoBody {
			return next(c)
		}
		body := &cappedBody{ReadCloser: req.Body, left: limit}
		req.Body = body
		err := next(c)
		switch {
		case err == nil:
			return nil
		case body.stalled:
			return &apperr.Error{Code: apperr.RequestTimeout, Cause: err,
				Message: "The request body stopped arriving before it was complete; nothing was written. Send the request again."}
		case body.tooLarge:
			return &apperr.Error{Code: apperr.PayloadTooLarge, Message: fmt.Sprintf("The request body is larger than %d bytes.", limit), Cause: err}
		}
		return err
	}
}

var errBodyTooLarge = errors.New("request body too large")

// cappedBody reads a request body up to a limit, and notes why reading it failed.
type cappedBody struct {
	io.ReadCloser
	left     int64
	tooLarge bool // a byte came past the limit
	stalled  bool // the read deadline passed before the body was complete
}

func (b *cappedBody) Read(p []byte) (int, error) {
	if b.left <= 0 {
		// Probe one byte: a body of exactly the limit is fine.
		var one [1]byte
		n, err := b.ReadCloser.Read(one[:])
		if n > 0 {
			b.tooLarge = true
			return 0, errBodyTooLarge
		}
		if b.noteStall(err) {
			return 0, err
		}
		return 0, io.EOF
	}
	if int64(len(p)) > b.left {
		p = p[:b.left]
	}
	n, err := b.ReadCloser.Read(p)
	b.left -= int64(n)
	b.noteStall(err)
	return n, err
}

// noteStall reports whether err is the read deadline passing (net/http's body read fails
// with the connection's timeout then), and notes it.
func (b *cappedBody) noteStall(err error) bool {
	var ne net.Error
	if err != nil && (errors.Is(err, os.ErrDeadlineExceeded) || errors.As(err, &ne) && ne.Timeout()) {
		b.stalled = true
	}
	return b.stalled
}

// SVGPolicy is the Content-Security-Policy of every SVG the service answers, and of the
// issuer's logo whatever its type. An SVG opened by itself is a document of the service's
// origin, and one an issuer stored may hold script: none runs, nothing loads, and the
// document is sandboxed into an origin of its own. Inline styles, which SVGs draw with, stay.
const SVGPolicy = "default-src 'none'; style-src 'unsafe-inline'; sandbox"

// SandboxSVG sends SVGPolicy and X-Content-Type-Options: nosniff with every image/svg+xml
// answer, whichever handler wrote it: the badge image, the QR code, the issuer's logo.
func SandboxSVG(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		res := c.Response()
		res.Before(func() {
			h := res.Header()
			if mt, _, _ := mime.ParseMediaType(h.Get(echo.HeaderContentType)); mt == "image/svg+xml" {
				h.Set("Content-Security-Policy", SVGPolicy)
				h.Set("X-Content-Type-Options", "nosniff")
			}
		})
		return next(c)
	}
}
