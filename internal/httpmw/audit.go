package httpmw

import (
	"context"
	"log/slog"
	"net/netip"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/certhub/credentiald/internal/audit"
	"github.com/certhub/credentiald/internal/auth"
	"github.com/certhub/credentiald/internal/ratelimit"
)

// AuditWriter writes an audit entry on its own (store.Store).
type AuditWriter interface {
	InsertAuditEntry(ctx context.Context, e audit.Entry) error
}

// maxUserAgent bounds the User-Agent an entry keeps.
const maxUserAgent = 300

// Audit starts the audit entry of every operation that names one (x-audit-action): who acts
// (the principal), from where, on what (the path's resource, which the service may name
// better with audit.Describe). The transaction that commits the request's change writes it
// (store.InTx). A request that succeeds without any transaction taking it (nothing it
// changed was transactional) has it written on its own, and logged, so that every change has
// its entry. It runs after Idempotency: a replayed answer writes no second entry.
func Audit(ops Operations, w AuditWriter, trusted []netip.Prefix, logger *slog.Logger) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			op, ok := ops[routeKey(c.Request().Method, c.Path())]
			if !ok || op.AuditAction == "" {
				return next(c)
			}
			req := c.Request()
			e := audit.Entry{Action: op.AuditAction, IP: ratelimit.ClientAddr(req, trusted).String(),
				UserAgent: truncate(req.UserAgent(), maxUserAgent), Resource: resourceOf(c, op.AuditAction)}
			if p, ok := auth.PrincipalFrom(req.Context()); ok {
				e.AccountID = p.AccountID
				e.Actor = audit.Actor{Type: audit.ActorAPIKey, ID: p.KeyID, Name: p.Name}
				if p.IsSession() {
					e.Actor = audit.Actor{Type: audit.ActorUser, ID: p.UserID, Name: p.Name}
				}
			}
			ctx, pending := audit.Begin(req.Context(), e)
			c.SetRequest(req.WithContext(ctx))
			err := next(c)
			if err != nil || c.Response().Status >= 300 || pending.Written() {
				return err
			}
			// Succeeded, and no transaction wrote it: write it now.
			if entry, ok := pending.Take(time.Now()); ok {
				logger.WarnContext(ctx, "audit entry written apart from its change", "action", entry.Action)
				if werr := w.InsertAuditEntry(context.WithoutCancel(ctx), entry); werr != nil {
					logger.ErrorContext(ctx, "audit entry not written", "action", entry.Action, "error", werr)
				}
			}
			return nil
		}
	}
}

// resourceOf is what an operation acts on by its path: the identifier that follows the plural
// of the resource its action names (/certificates/:id/revoke for certificate.revoked,
// /badges/:id/assertions/:assertionId/revoke for badgeAssertion.revoked). An action on
// something the path does not name yet (a credential issued, an offer made) has none until
// its service names it (audit.Describe).
func resourceOf(c echo.Context, action string) audit.Resource {
	typ, _, _ := strings.Cut(action, ".")
	noun := typ
	for i := len(typ) - 1; i > 0; i-- {
		if typ[i] >= 'A' && typ[i] <= 'Z' {
			noun = typ[i:]
			break
		}
	}
	plural := strings.ToLower(noun) + "s"
	segs := strings.Split(strings.Trim(c.Path(), "/"), "/")
	for i := len(segs) - 1; i > 0; i-- {
		name, ok := strings.CutPrefix(segs[i], ":")
		if !ok {
			continue
		}
		if prev := segs[i-1]; prev == plural || strings.HasSuffix(prev, "-"+plural) {
			return audit.Resource{Type: typ, ID: c.Param(name)}
		}
	}
	return audit.Resource{}
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return strings.ToValidUTF8(s[:n], "")
}
