package store

import (
	"context"

	"github.com/google/uuid"

	"github.com/certhub/credentiald/gen/db"
	"github.com/certhub/credentiald/internal/audit"
	"github.com/certhub/credentiald/internal/domain"
)

// InsertAuditEntry writes one entry of the audit log.
func (d queries) InsertAuditEntry(ctx context.Context, e audit.Entry) error {
	return mapError(d.q.InsertAuditEntry(ctx, db.InsertAuditEntryParams{ID: newID(), AccountID: e.AccountID, At: e.At,
		ActorType: e.Actor.Type, ActorID: uuidOrNil(e.Actor.ID), ActorName: e.Actor.Name, Action: e.Action,
		ResourceType: stringOrNil(e.Resource.Type), ResourceID: stringOrNil(e.Resource.ID),
		Ip: stringOrNil(e.IP), UserAgent: stringOrNil(e.UserAgent), Summary: e.Summary}))
}

// ListAuditEntries returns a page of the account's audit log, newest first, and its number.
func (d queries) ListAuditEntries(ctx context.Context, accountID uuid.UUID, f domain.AuditFilter, p domain.Page) ([]audit.Entry, int, error) {
	rows, err := d.q.ListAuditEntries(ctx, db.ListAuditEntriesParams{AccountID: accountID, Action: f.Action, ActorID: f.ActorID,
		ResourceType: f.ResourceType, ResourceID: f.ResourceID, FromAt: f.From, ToAt: f.To,
		PageSize: pageLimit(p), PageOffset: pageOffset(p)})
	if err != nil {
		return nil, 0, mapError(err)
	}
	total, err := d.q.CountAuditEntries(ctx, db.CountAuditEntriesParams{AccountID: accountID, Action: f.Action, ActorID: f.ActorID,
		ResourceType: f.ResourceType, ResourceID: f.ResourceID, FromAt: f.From, ToAt: f.To})
	if err != nil {
		return nil, 0, mapError(err)
	}
	return convert(rows, auditEntryFrom), int(total), nil
}

func auditEntryFrom(r db.AuditLog) audit.Entry {
	e := audit.Entry{ID: r.ID, AccountID: r.AccountID, At: r.At, Action: r.Action, Summary: r.Summary,
		Actor: audit.Actor{Type: r.ActorType, Name: r.ActorName}}
	if r.ActorID != nil {
		e.Actor.ID = *r.ActorID
	}
	e.Resource.Type, e.Resource.ID = deref(r.ResourceType), deref(r.ResourceID)
	e.IP, e.UserAgent = deref(r.Ip), deref(r.UserAgent)
	return e
}

func uuidOrNil(id uuid.UUID) *uuid.UUID {
	if id == uuid.Nil {
		return nil
	}
	return &id
}

func stringOrNil(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
