package httpmw

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"time"

	"github.com/google/uuid"
	"github.com/labstack/echo/v4"

	"github.com/certhub/credentiald/internal/auth"
	"github.com/certhub/credentiald/internal/domain"
)

const (
	headerIdempotencyKey = "Idempotency-Key"
	headerReplayed       = "Idempotent-Replayed"
	// idempotencyLease is how long a running request holds its key: longer than the server's
	// WriteTimeout (120 s), so a live request never loses it. A process that dies mid-request
	// leaves the key to lapse after it, and a retry then runs.
	idempotencyLease = 150 * time.Second
)

// IdempotencyKeys claims Idempotency-Keys and keeps answers (*idempotency.Service).
type IdempotencyKeys interface {
	Claim(ctx context.Context, accountID uuid.UUID, key string, fingerprint []byte, lease time.Duration) (*domain.StoredResponse, error)
	Complete(ctx context.Context, accountID uuid.UUID, key string, fingerprint []byte, r domain.StoredResponse) error
	Release(ctx context.Context, accountID uuid.UUID, key string, fingerprint []byte) error
}

// Idempotency makes the operations that declare the Idempotency-Key header safe to retry: the
// first request with a key runs and its successful answer is remembered for 24 hours; a replay
// with the same method, path and body gets that answer with Idempotent-Replayed: true; the same
// key with another request answers 422, and while the first still runs, 409. A request that
// fails is forgotten, so it can be retried with the same key.
func Idempotency(ops Operations, keys IdempotencyKeys, logger *slog.Logger) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			key := c.Request().Header.Get(headerIdempotencyKey)
			if key == "" || !ops[routeKey(c.Request().Method, c.Path())].Idempotent {
				return next(c)
			}
			p, ok := auth.PrincipalFrom(c.Request().Context())
			if !ok {
				return next(c)
			}
			req := c.Request()
			body, err := io.ReadAll(req.Body)
			if err != nil {
				return err
			}
			req.Body = io.NopCloser(bytes.NewReader(body))
			fp := fingerprint(req.Method, req.URL.Path, body)
			ctx := req.Context()

			stored, err := keys.Claim(ctx, p.AccountID, key, fp, idempotencyLease)
			if err != nil {
				return err
			}
			if stored != nil {
				h := c.Response().Header()
				for k, vs := range stored.Header {
					h[k] = vs
				}
				h.Set(headerReplayed, "true")
				c.Response().WriteHeader(stored.Status)
				_, err := c.Response().Write(stored.Body)
				return err
			}

			rec := &recorder{ResponseWriter: c.Response().Writer}
			c.Response().Writer = rec
			herr := next(c)
			c.Response().Writer = rec.ResponseWriter
			// Record the outcome even when the client has gone.
			done, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
			defer cancel()
			status := c.Response().Status
			if herr == nil && c.Response().Committed && status >= 200 && status < 300 {
				keep := http.Header{}
				for _, name := range []string{echo.HeaderContentType, echo.HeaderLocation} {
					if v := c.Response().Header().Get(name); v != "" {
						keep.Set(name, v)
					}
				}
				if err := keys.Complete(done, p.AccountID, key, fp, domain.StoredResponse{Status: status, Header: keep, Body: rec.body.Bytes()}); err != nil {
					logger.ErrorContext(ctx, "remembering an idempotent answer", "error", err)
				}
				return nil
			}
			if err := keys.Release(done, p.AccountID, key, fp); err != nil {
				logger.ErrorContext(ctx, "releasing an idempotency key", "error", err)
			}
			return herr
		}
	}
}

// fingerprint identifies a request: method, path and its JSON body in canonical form (keys
// sorted, no insignificant space), so that a re-encoded but equal body is the same request.
func fingerprint(method, path string, body []byte) []byte {
	canonical := body
	var v any
	if len(bytes.TrimSpace(body)) > 0 && json.Unmarshal(body, &v) == nil {
		if b, err := json.Marshal(v); err == nil {
			canonical = b
		}
	}
	h := sha256.New()
	h.Write([]byte(method + "\n" + path + "\n"))
	h.Write(canonical)
	return h.Sum(nil)
}

// recorder passes an answer through and keeps a copy of its body.
type recorder struct {
	http.ResponseWriter
	body bytes.Buffer
}

func (r *recorder) Write(b []byte) (int, error) {
	r.body.Write(b)
	return r.ResponseWriter.Write(b)
}
