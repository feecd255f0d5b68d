package store

import (
	"context"
	"time"

	"github.com/google/uuid"

	"github.com/certhub/credentiald/gen/db"
	"github.com/certhub/credentiald/internal/domain"
)

// NewBadgeAssertion is an assertion to insert for one attendee.
type NewBadgeAssertion struct {
	AttendeeID       uuid.UUID
	VerificationCode string
	Recipient        domain.Recipient
	RecipientSalt    string
	Locale           string // its attendee's event's
}

// BadgeIssuance is what the assertions of one issuance share.
type BadgeIssuance struct {
	AccountID, BadgeID uuid.UUID
	IssuedAt           time.Time
	ExpiresAt          *time.Time
}

// AssertionOfBadge is an assertion with its badge (whose IssuedCount is not read).
type AssertionOfBadge struct {
	Assertion domain.BadgeAssertion
	Badge     domain.Badge
	// EventID is the event of the assertion's attendee (read by FindBadgeAssertionByCode only):
	// uuid.Nil once an erased attendee was deleted (migration 00044).
	EventID uuid.UUID
}

// BadgeRecipient is an attendee as a badge is made out to them.
type BadgeRecipient struct {
	AttendeeID uuid.UUID
	EventID    uuid.UUID
	Recipient  domain.Recipient
	// EventLocale is the locale of the attendee's event, which the assertion speaks.
	EventLocale string
	// Erased says the attendee was erased at their request: nothing is issued to them.
	Erased bool
}

// InsertBadge stores a new active badge, created at now.
func (d queries) InsertBadge(ctx context.Context, accountID uuid.UUID, f domain.BadgeFields, now time.Time) (domain.Badge, error) {
	r, err := d.q.InsertBadge(ctx, db.InsertBadgeParams{ID: newID(), AccountID: accountID, Name: f.Name, Description: f.Description,
		CriteriaNarrative: f.CriteriaNarrative, CriteriaUrl: f.CriteriaURL, Image: f.Image, Tags: tagsOf(f.Tags),
		ValidityDays: int32Ptr(f.ValidityDays), Now: now})
	if err != nil {
		return domain.Badge{}, mapError(err)
	}
	return badgeFrom(r, 0), nil
}

// FindBadge returns a badge of the account, active or retired.
func (d queries) FindBadge(ctx context.Context, accountID, id uuid.UUID) (domain.Badge, error) {
	r, err := d.q.GetBadge(ctx, db.GetBadgeParams{AccountID: accountID, ID: id})
	if err != nil {
		return domain.Badge{}, mapError(err)
	}
	return badgeFrom(r.Badge, r.IssuedCount), nil
}

// FindBadgeByID returns a badge of any account, for its public documents (IssuedCount is not
// read).
func (d queries) FindBadgeByID(ctx context.Context, id uuid.UUID) (domain.Badge, error) {
	r, err := d.q.GetBadgeByID(ctx, id)
	if err != nil {
		return domain.Badge{}, mapError(err)
	}
	return badgeFrom(r, 0), nil
}

// LockBadge returns a badge of the account, holding it until the transaction ends.
func (d queries) LockBadge(ctx context.Context, accountID, id uuid.UUID) (domain.Badge, error) {
	r, err := d.q.LockBadge(ctx, db.LockBadgeParams{AccountID: accountID, ID: id})
	if err != nil {
		return domain.Badge{}, mapError(err)
	}
	return badgeFrom(r.Badge, r.IssuedCount), nil
}

// ListActiveBadges returns a page of the account's active badges, in p's order and matching
// its search, and how many match.
func (d queries) ListActiveBadges(ctx context.Context, accountID uuid.UUID, p domain.Page) ([]domain.Badge, int, error) {
	q, err := d.list(badgeOrders, p.Sort)
	if err != nil {
		return nil, 0, err
	}
	pattern := containsPattern(p.Q)
	rows, err := q.ListActiveBadges(ctx, db.ListActiveBadgesParams{AccountID: accountID, Pattern: pattern, PageSize: pageLimit(p), PageOffset: pageOffset(p)})
	if err != nil {
		return nil, 0, mapError(err)
	}
	total, err := q.CountActiveBadges(ctx, db.CountActiveBadgesParams{AccountID: accountID, Pattern: pattern})
	if err != nil {
		return nil, 0, mapError(err)
	}
	return convert(rows, func(r db.ListActiveBadgesRow) domain.Badge { return badgeFrom(r.Badge, r.IssuedCount) }), int(total), nil
}

// AccountHasBadges reports whether the account ever created a badge that still exists.
func (d queries) AccountHasBadges(ctx context.Context, accountID uuid.UUID) (bool, error) {
	ok, err := d.q.AccountHasBadges(ctx, accountID)
	return ok, mapError(err)
}

// UpdateBadge replaces a badge's fields, at now; issuedCount is carried over as the caller read
// it (under LockBadge).
func (d queries) UpdateBadge(ctx context.Context, id uuid.UUID, f domain.BadgeFields, issuedCount int, now time.Time) (domain.Badge, error) {
	r, err := d.q.UpdateBadge(ctx, db.UpdateBadgeParams{ID: id, Name: f.Name, Description: f.Description,
		CriteriaNarrative: f.CriteriaNarrative, CriteriaUrl: f.CriteriaURL, Image: f.Image, Tags: tagsOf(f.Tags),
		ValidityDays: int32Ptr(f.ValidityDays), Now: now})
	if err != nil {
		return domain.Badge{}, mapError(err)
	}
	return badgeFrom(r, int32(issuedCount)), nil
}

// RetireBadge marks an active badge retired at now; issuedCount is carried over as the caller
// read it. ErrNotFound: it is not active.
func (d queries) RetireBadge(ctx context.Context, id uuid.UUID, issuedCount int, now time.Time) (domain.Badge, error) {
	r, err := d.q.RetireBadge(ctx, db.RetireBadgeParams{ID: id, Now: now})
	if err != nil {
		return domain.Badge{}, mapError(err)
	}
	return badgeFrom(r, int32(issuedCount)), nil
}

// DeleteBadge removes a badge; one with assertions is refused by the schema (a ConflictError).
func (d queries) DeleteBadge(ctx context.Context, id uuid.UUID) error {
	return mapError(d.q.DeleteBadge(ctx, id))
}

// RevokeAssertionsOfBadge revokes the badge's active assertions as r says, and returns them.
func (d queries) RevokeAssertionsOfBadge(ctx context.Context, badgeID uuid.UUID, r Revocation) ([]domain.BadgeAssertion, error) {
	rows, err := d.q.RevokeAssertionsOfBadge(ctx, db.RevokeAssertionsOfBadgeParams{BadgeID: badgeID, Reason: r.Reason,
		ReasonCode: &r.ReasonCode, Now: r.At})
	if err != nil {
		return nil, mapError(err)
	}
	return convert(rows, badgeAssertionFrom), nil
}

// LockBadgeAssertion reads an assertion of the account's badge and holds it until the
// transaction ends. ErrNotFound: the badge has no such assertion in the account.
func (d queries) LockBadgeAssertion(ctx context.Context, accountID, badgeID, id uuid.UUID) (domain.BadgeAssertion, error) {
	r, err := d.q.LockBadgeAssertion(ctx, db.LockBadgeAssertionParams{AccountID: accountID, BadgeID: badgeID, ID: id})
	if err != nil {
		return domain.BadgeAssertion{}, mapError(err)
	}
	return badgeAssertionFrom(r), nil
}

// RevokeBadgeAssertion revokes an active assertion as r says. ErrNotFound: it is not active.
func (d queries) RevokeBadgeAssertion(ctx context.Context, id uuid.UUID, r Revocation) (domain.BadgeAssertion, error) {
	row, err := d.q.RevokeBadgeAssertion(ctx, db.RevokeBadgeAssertionParams{ID: id, Reason: r.Reason, ReasonCode: &r.ReasonCode, Now: r.At})
	if err != nil {
		return domain.BadgeAssertion{}, mapError(err)
	}
	return badgeAssertionFrom(row), nil
}

// BadgeRecipients returns the attendees of the account among ids (in no order); ids of no
// attendee of the account are left out.
func (d queries) BadgeRecipients(ctx context.Context, accountID uuid.UUID, ids []uuid.UUID) ([]BadgeRecipient, error) {
	rows, err := d.q.BadgeRecipients(ctx, db.BadgeRecipientsParams{AccountID: accountID, Ids: ids})
	if err != nil {
		return nil, mapError(err)
	}
	return convert(rows, func(r db.BadgeRecipientsRow) BadgeRecipient {
		return BadgeRecipient{AttendeeID: r.ID, EventID: r.EventID, Recipient: domain.Recipient{FirstName: r.FirstName, LastName: r.LastName, Email: r.Email},
			EventLocale: r.EventLocale, Erased: r.ErasedAt != nil}
	}), nil
}

// FindBadgeAssertionsOf returns the badge's active assertions of any of the attendees (those
// that hold the badge: a revoked one does not).
func (d queries) FindBadgeAssertionsOf(ctx context.Context, badgeID uuid.UUID, attendeeIDs []uuid.UUID) ([]domain.BadgeAssertion, error) {
	rows, err := d.q.FindBadgeAssertionsOf(ctx, db.FindBadgeAssertionsOfParams{BadgeID: badgeID, AttendeeIds: attendeeIDs})
	if err != nil {
		return nil, mapError(err)
	}
	return convert(rows, badgeAssertionFrom), nil
}

// RegisterVerificationCodes reserves codes for credentials of kind and returns those it
// reserved; a code left out was taken already.
func (d queries) RegisterVerificationCodes(ctx context.Context, codes []string, kind string, now time.Time) (map[string]bool, error) {
	got, err := d.q.RegisterVerificationCodes(ctx, db.RegisterVerificationCodesParams{Codes: codes, Kind: kind, Now: now})
	if err != nil {
		return nil, mapError(err)
	}
	out := make(map[string]bool, len(got))
	for _, c := range got {
		out[c] = true
	}
	return out, nil
}

// InsertBadgeAssertions stores one assertion per entry of list, in its order, in one
// statement, and returns those it wrote: an attendee who holds the badge already is left out.
func (d queries) InsertBadgeAssertions(ctx context.Context, in BadgeIssuance, list []NewBadgeAssertion) ([]domain.BadgeAssertion, error) {
	p := db.InsertBadgeAssertionsParams{AccountID: in.AccountID, BadgeID: in.BadgeID, IssuedAt: in.IssuedAt, ExpiresAt: in.ExpiresAt}
	for _, a := range list {
		p.Ids = append(p.Ids, newID())
		p.AttendeeIds = append(p.AttendeeIds, a.AttendeeID)
		p.Codes = append(p.Codes, a.VerificationCode)
		p.FirstNames = append(p.FirstNames, a.Recipient.FirstName)
		p.LastNames = append(p.LastNames, a.Recipient.LastName)
		p.Emails = append(p.Emails, a.Recipient.Email)
		p.Salts = append(p.Salts, a.RecipientSalt)
		p.Locales = append(p.Locales, a.Locale)
	}
	rows, err := d.q.InsertBadgeAssertions(ctx, p)
	if err != nil {
		return nil, mapError(err)
	}
	return convert(rows, badgeAssertionFrom), nil
}

// ListBadgeAssertions returns a page of a badge's assertions, in p's order, and their total.
func (d queries) ListBadgeAssertions(ctx context.Context, accountID, badgeID uuid.UUID, p domain.Page) ([]domain.BadgeAssertion, int, error) {
	q, err := d.list(assertionOrders, p.Sort)
	if err != nil {
		return nil, 0, err
	}
	rows, err := q.ListBadgeAssertions(ctx, db.ListBadgeAssertionsParams{AccountID: accountID, BadgeID: badgeID,
		PageSize: pageLimit(p), PageOffset: pageOffset(p)})
	if err != nil {
		return nil, 0, mapError(err)
	}
	total, err := q.CountBadgeAssertions(ctx, db.CountBadgeAssertionsParams{AccountID: accountID, BadgeID: badgeID})
	if err != nil {
		return nil, 0, mapError(err)
	}
	return convert(rows, badgeAssertionFrom), int(total), nil
}

// FindBadgeAssertion returns an assertion of any account with its badge.
func (d queries) FindBadgeAssertion(ctx context.Context, id uuid.UUID) (AssertionOfBadge, error) {
	r, err := d.q.GetBadgeAssertionByID(ctx, id)
	if err != nil {
		return AssertionOfBadge{}, mapError(err)
	}
	return AssertionOfBadge{Assertion: badgeAssertionFrom(r.BadgeAssertion), Badge: badgeFrom(r.Badge, 0)}, nil
}

// FindBadgeAssertionByCode returns the assertion a verification code names (in any case),
// with its badge and its attendee's event.
func (d queries) FindBadgeAssertionByCode(ctx context.Context, code string) (AssertionOfBadge, error) {
	r, err := d.q.GetBadgeAssertionByCode(ctx, code)
	if err != nil {
		return AssertionOfBadge{}, mapError(err)
	}
	out := AssertionOfBadge{Assertion: badgeAssertionFrom(r.BadgeAssertion), Badge: badgeFrom(r.Badge, 0)}
	if r.EventID != nil {
		out.EventID = *r.EventID
	}
	return out, nil
}

func tagsOf(tags []string) []string {
	if tags == nil {
		return []string{}
	}
	return tags
}

func badgeFrom(r db.Badge, issued int32) domain.Badge {
	return domain.Badge{ID: r.ID, AccountID: r.AccountID, Name: r.Name, Description: r.Description, CriteriaNarrative: r.CriteriaNarrative,
		CriteriaURL: r.CriteriaUrl, Image: r.Image, Tags: tagsOf(r.Tags), ValidityDays: intPtr(r.ValidityDays), Status: domain.BadgeStatus(r.Status),
		RetiredAt: r.RetiredAt, IssuedCount: int(issued), CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt}
}

func badgeAssertionFrom(r db.BadgeAssertion) domain.BadgeAssertion {
	return domain.BadgeAssertion{ID: r.ID, AccountID: r.AccountID, BadgeID: r.BadgeID, AttendeeID: r.AttendeeID,
		VerificationCode: r.VerificationCode, Recipient: domain.Recipient{FirstName: r.RecipientFirstName, LastName: r.RecipientLastName,
			Email: r.RecipientEmail}, RecipientSalt: deref(r.RecipientSalt), Revoked: r.Status == "revoked", IssuedAt: r.IssuedAt,
		ExpiresAt: r.ExpiresAt, RevokedAt: r.RevokedAt, RevocationReason: r.RevocationReason,
		RevocationReasonCode: r.RevocationReasonCode, Locale: r.Locale, CreatedAt: r.CreatedAt}
}
