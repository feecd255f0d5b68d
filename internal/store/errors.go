package store

import (
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// ErrNotFound reports that no row matched: the service decides what was missing and how to say
// so.
var ErrNotFound = errors.New("store: not found")

// ErrNoPrivilege reports that the database role may not do what was asked (PostgreSQL's
// insufficient_privilege): an object's owner alone may, say, and the service runs as another
// role than the one that ran the migrations.
var ErrNoPrivilege = errors.New("store: the database role lacks the privilege")

// ConflictError reports a write that a constraint of the schema refused: a unique key already
// taken, a row referenced by another, or a reference to a row that does not exist.
type ConflictError struct {
	Constraint string // the constraint's name in db/migrations
	Err        error  // the driver's error
}

func (e *ConflictError) Error() string {
	return "store: conflict on " + e.Constraint + ": " + e.Err.Error()
}
func (e *ConflictError) Unwrap() error { return e.Err }

// Is matches a conflict on the same constraint, so that errors.Is(err, Conflict(name)) asks
// which constraint fired.
func (e *ConflictError) Is(target error) bool {
	t, ok := target.(*ConflictError)
	return ok && t.Constraint == e.Constraint
}

// Conflict is the target for errors.Is that matches a conflict on constraint.
func Conflict(constraint string) error { return &ConflictError{Constraint: constraint} }

// The constraints whose conflicts the services turn into answers of their own.
const (
	// UniqueUserEmail: one user per email address.
	UniqueUserEmail = "users_email_key"
	// AccountPlanExists: an account's plan is one of the plans.
	AccountPlanExists = "accounts_plan_fkey"
	// BadgeAssertionAttendee: an attendee who holds a badge assertion cannot be deleted (but for
	// an erased one, whose assertions were released first); nor can one be issued to an
	// attendee deleted meanwhile.
	BadgeAssertionAttendee = "badge_assertions_attendee_link_fkey"
	// CertificateAttendee: an attendee who holds a certificate cannot be deleted (but for an
	// erased one, whose certificates were released first).
	CertificateAttendee = "certificates_attendee_link_fkey"
)

// PostgreSQL's codes of the constraint violations that become a ConflictError.
var conflictCodes = map[string]bool{
	"23505": true, // unique_violation
	"23503": true, // foreign_key_violation
	"23P01": true, // exclusion_violation
}

// mapError is the one place where driver errors become the store's errors: a missing row is
// ErrNotFound, a refused constraint a ConflictError naming it, a refused privilege
// ErrNoPrivilege (with the driver's error); anything else is returned as it is (an unexpected
// failure, for the caller's log).
func mapError(err error) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, pgx.ErrNoRows) {
		return ErrNotFound
	}
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && conflictCodes[pgErr.Code] && pgErr.ConstraintName != "" {
		return &ConflictError{Constraint: pgErr.ConstraintName, Err: err}
	}
	if errors.As(err, &pgErr) && pgErr.Code == "42501" {
		return fmt.Errorf("%w: %w", ErrNoPrivilege, err)
	}
	return err
}

// Retryable says whether err ended a transaction that may simply run again: PostgreSQL chose it
// to break a deadlock (40P01) or could not serialize it (40001). Nothing of it was committed.
func Retryable(err error) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && (pgErr.Code == "40P01" || pgErr.Code == "40001")
}
