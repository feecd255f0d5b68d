// Package privacy erases a person at their request: one transaction replaces their data in
// every copy and revokes their credentials (reason code erased), and a River job deletes the
// files of their emails. docs/privacy.md lists every column that holds personal data and what
// erasure does to it.
package privacy

import (
	"context"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/certhub/credentiald/internal/apperr"
	"github.com/certhub/credentiald/internal/audit"
	"github.com/certhub/credentiald/internal/jobs"
	"github.com/certhub/credentiald/internal/spec"
	"github.com/certhub/credentiald/internal/store"
)

// Revokers revoke, in a transaction, the credentials of an erased person (certificates and
// badges).
type Revokers interface {
	RevokeErasedCertificate(ctx context.Context, tx *store.Tx, accountID, id uuid.UUID, at time.Time) (bool, error)
	RevokeErasedAssertion(ctx context.Context, tx *store.Tx, accountID, badgeID, id uuid.UUID, at time.Time) (bool, error)
}

// Service erases people.
type Service struct {
	store    *store.Store
	revokers Revokers
	sources  Sources
	now      func() time.Time
}

// New returns the service: r revokes an erased person's credentials, src gathers a person's
// export; now is its clock (nil: the system's).
func New(st *store.Store, r Revokers, src Sources, now func() time.Time) *Service {
	if now == nil {
		now = time.Now
	}
	return &Service{store: st, revokers: r, sources: src, now: now}
}

// Result is what an erasure did: zeros when the attendee was erased already.
type Result struct {
	AttendeeID         uuid.UUID
	CredentialsRevoked int
	RowsErased         int
}

// EraseAttendee erases one attendee of the account.
func (s *Service) EraseAttendee(ctx context.Context, accountID, id uuid.UUID) (Result, error) {
	audit.Describe(ctx, "attendee", id.String(), "")
	now := s.now().UTC()
	r, err := store.InTx(ctx, s.store, func(tx *store.Tx) (Result, error) {
		r, d, err := s.erase(ctx, tx, accountID, id, "", now)
		if err != nil {
			return r, err
		}
		return r, queueFiles(ctx, tx, d, now)
	})
	return r, apperr.When(err, store.ErrNotFound, apperr.NoSuch("attendee"))
}

// ErasePerson erases every attendee of the account with the address, in one transaction.
func (s *Service) ErasePerson(ctx context.Context, accountID uuid.UUID, email string) ([]Result, error) {
	email = strings.ToLower(strings.TrimSpace(email))
	if !spec.IsEmail(email) {
		return nil, apperr.Invalid("email", "is not a valid email address")
	}
	now := s.now().UTC()
	return store.InTx(ctx, s.store, func(tx *store.Tx) ([]Result, error) {
		ids, err := tx.AttendeesOfEmail(ctx, accountID, email)
		if err != nil {
			return nil, err
		}
		out := make([]Result, 0, len(ids))
		var deliveries []store.ErasedDelivery
		for _, id := range ids {
			r, d, err := s.erase(ctx, tx, accountID, id, email, now)
			if err != nil {
				return nil, err
			}
			deliveries = append(deliveries, d...)
			out = append(out, r)
		}
		audit.Describe(ctx, "attendee", "", summary(out))
		return out, queueFiles(ctx, tx, deliveries, now)
	})
}

// summary names the erased attendees by id only: the audit log holds nothing of the person.
func summary(rs []Result) string {
	ids := make([]string, len(rs))
	for i, r := range rs {
		ids[i] = r.AttendeeID.String()
	}
	return "attendees " + strings.Join(ids, " ")
}

// erase erases one attendee in tx: their data, then their credentials' revocation (whose
// events carry the erased data only).
func (s *Service) erase(ctx context.Context, tx *store.Tx, accountID, id uuid.UUID, byAddress string, now time.Time) (Result, []store.ErasedDelivery, error) {
	a, err := tx.LockAttendeeForErasure(ctx, accountID, id)
	if err != nil {
		return Result{}, nil, err
	}
	if a.ErasedAt != nil {
		return Result{AttendeeID: id}, nil, nil
	}
	e, err := tx.ErasePerson(ctx, accountID, a, byAddress, now)
	if err != nil {
		return Result{}, nil, err
	}
	r := Result{AttendeeID: id, RowsErased: e.Rows}
	for _, c := range e.Certificates {
		revoked, err := s.revokers.RevokeErasedCertificate(ctx, tx, accountID, c.ID, now)
		if err != nil {
			return Result{}, nil, err
		}
		if revoked {
			r.CredentialsRevoked++
		}
	}
	for _, b := range e.Assertions {
		revoked, err := s.revokers.RevokeErasedAssertion(ctx, tx, accountID, b.BadgeID, b.ID, now)
		if err != nil {
			return Result{}, nil, err
		}
		if revoked {
			r.CredentialsRevoked++
		}
	}
	return r, e.Deliveries, nil
}

// sendingLasts bounds how long an email's attempt that began before an erasure may still write
// its file: the email worker's attempt timeout (3 minutes), and a minute more.
const sendingLasts = 4 * time.Minute

// queueFiles queues, in the erasure's transaction, the jobs that delete the files of the
// erased emails: one that runs once the erasure has committed (never without it), and one
// sendingLasts later, for the file of an email whose sending had begun, with the person's
// data read before the erasure, and ends after it.
func queueFiles(ctx context.Context, tx *store.Tx, deliveries []store.ErasedDelivery, now time.Time) error {
	if len(deliveries) == 0 {
		return nil
	}
	ids := make([]uuid.UUID, len(deliveries))
	for i, d := range deliveries {
		ids[i] = d.ID
	}
	if err := tx.InsertJob(ctx, jobs.EraseEmailFiles{DeliveryIDs: ids}); err != nil {
		return err
	}
	return tx.InsertJobAt(ctx, jobs.EraseEmailFiles{DeliveryIDs: ids}, now.Add(sendingLasts))
}
