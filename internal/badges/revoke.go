package badges

import (
	"cmp"
	"context"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/certhub/credentiald/internal/credentials"
	"github.com/certhub/credentiald/internal/domain"
	"github.com/certhub/credentiald/internal/store"
)

// RevokeParams asks for one assertion of a badge of the account to be revoked.
type RevokeParams struct {
	AccountID, BadgeID, AssertionID uuid.UUID
	Reason                          *string // nil or blank: none given
	ReasonCode                      string  // the certificates' codes; "" is "other"
}

// RevokeErased revokes, in tx, an assertion of a person erased at their request (reason code
// erased), whatever its badge's state, and reports whether it did (not when revoked already).
func (s *Service) RevokeErased(ctx context.Context, tx *store.Tx, accountID, badgeID, id uuid.UUID, at time.Time) (bool, error) {
	cur, err := tx.LockBadgeAssertion(ctx, accountID, badgeID, id)
	if err != nil {
		return false, err
	}
	if cur.Revoked {
		return false, nil
	}
	a, err := tx.RevokeBadgeAssertion(ctx, cur.ID, store.Revocation{At: at, ReasonCode: "erased"})
	if err != nil {
		return false, err
	}
	if err := credentials.RevokeStatus(ctx, tx, at, a.ID); err != nil {
		return false, err
	}
	return true, outboxAssertions(ctx, tx, "badge.revoked", at, []domain.BadgeAssertion{a})
}

// RevokeAssertion revokes one assertion without retiring its badge, in one transaction: the
// assertion is marked revoked with the reason, its credential's status list bit is set, and a
// badge.revoked event is written. Revoking a revoked assertion (by itself or by its badge's
// retirement) answers it unchanged, with no second event. The credit is not returned. An
// assertion of another badge or account is NOT_FOUND.
//
// Locks: the assertion, then its status list entry (as a certificate's revocation takes its
// certificate, then the entry); an issuance of the same badge locks the badge first and never
// an existing assertion, so the two never wait on each other in opposite orders.
func (s *Service) RevokeAssertion(ctx context.Context, p RevokeParams) (Assertion, error) {
	if p.Reason != nil && strings.TrimSpace(*p.Reason) == "" {
		p.Reason = nil
	}
	r := store.Revocation{At: s.now().UTC(), Reason: p.Reason, ReasonCode: cmp.Or(p.ReasonCode, "other")}
	return store.InTx(ctx, s.store, func(tx *store.Tx) (Assertion, error) {
		cur, err := tx.LockBadgeAssertion(ctx, p.AccountID, p.BadgeID, p.AssertionID)
		if err != nil {
			return Assertion{}, noSuchAssertion(err)
		}
		b, err := tx.FindBadge(ctx, p.AccountID, p.BadgeID)
		if err != nil {
			return Assertion{}, noSuchBadge(err)
		}
		if cur.Revoked || b.Status == domain.BadgeRetired {
			return s.assertionView(cur, b, r.At), nil
		}
		a, err := tx.RevokeBadgeAssertion(ctx, cur.ID, r)
		if err != nil {
			return Assertion{}, err
		}
		if err := credentials.RevokeStatus(ctx, tx, r.At, a.ID); err != nil {
			return Assertion{}, err
		}
		if err := outboxAssertions(ctx, tx, "badge.revoked", r.At, []domain.BadgeAssertion{a}); err != nil {
			return Assertion{}, err
		}
		return s.assertionView(a, b, r.At), nil
	})
}

// outboxAssertions writes one event of kind (badge.issued or badge.revoked) per assertion, at
// at, in one statement: an issuance of 100 attendees, or a retired badge's thousands of
// assertions, cost one round trip.
func outboxAssertions(ctx context.Context, tx *store.Tx, kind string, at time.Time, list []domain.BadgeAssertion) error {
	if len(list) == 0 {
		return nil
	}
	bodies := make([]any, len(list))
	for i, a := range list {
		bodies[i] = assertionEvent(kind, at, a)
	}
	return tx.OutboxMany(ctx, list[0].AccountID, kind, at, bodies)
}

// assertionEvent is the payload of an assertion's event of kind (badge.issued, badge.revoked).
func assertionEvent(kind string, at time.Time, a domain.BadgeAssertion) any {
	data := map[string]any{"assertionId": a.ID, "badgeId": a.BadgeID, "attendeeId": a.AttendeeID,
		"verificationCode": a.VerificationCode, "status": "active", "issuedAt": a.IssuedAt.UTC().Format(time.RFC3339)}
	if a.Revoked {
		data["status"], data["revokedAt"], data["reason"], data["reasonCode"] =
			"revoked", a.RevokedAt.UTC().Format(time.RFC3339), a.RevocationReason, store.Deref(a.RevocationReasonCode)
	}
	return map[string]any{"eventType": kind, "timestamp": at.UTC().Format(time.RFC3339), "data": data}
}
