// Package auditlog reads an account's audit log (the entries are written by the transactions
// of the changes they record: see package audit).
package auditlog

import (
	"context"

	"github.com/certhub/credentiald/internal/apperr"
	"github.com/certhub/credentiald/internal/audit"
	"github.com/certhub/credentiald/internal/auth"
	"github.com/certhub/credentiald/internal/domain"
	"github.com/certhub/credentiald/internal/store"
)

// Service reads the audit log.
type Service struct{ store *store.Store }

// New returns the service.
func New(st *store.Store) *Service { return &Service{store: st} }

// List returns a page of the principal's account's entries, newest first, narrowed by f.
func (s *Service) List(ctx context.Context, p auth.Principal, f domain.AuditFilter, page domain.Page) ([]audit.Entry, int, error) {
	if f.From != nil && f.To != nil && !f.From.Before(*f.To) {
		return nil, 0, apperr.Invalid("to", "must be after from")
	}
	return s.store.ListAuditEntries(ctx, p.AccountID, f, page)
}
