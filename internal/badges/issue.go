package badges

import (
	"bytes"
	"cmp"
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"slices"
	"time"

	"github.com/google/uuid"

	"github.com/certhub/credentiald/internal/apperr"
	"github.com/certhub/credentiald/internal/attendees"
	"github.com/certhub/credentiald/internal/audit"
	"github.com/certhub/credentiald/internal/credentials"
	"github.com/certhub/credentiald/internal/domain"
	"github.com/certhub/credentiald/internal/issuance"
	"github.com/certhub/credentiald/internal/locale"
	"github.com/certhub/credentiald/internal/render"
	"github.com/certhub/credentiald/internal/store"
	"github.com/certhub/credentiald/internal/wallet"
)

// MaxIssue is the most attendees one request issues a badge to.
const MaxIssue = 100

// IssueParams asks for a badge to be issued to attendees of the account.
type IssueParams struct {
	AccountID, BadgeID uuid.UUID
	AttendeeIDs        []uuid.UUID
	SendEmail          bool
}

// Assertion is an assertion as clients see it.
type Assertion struct {
	domain.BadgeAssertion
	// Status is active, expired (past ExpiresAt) or revoked (itself, or its badge retired).
	Status domain.AssertionStatus
	// VerificationURL is its public verification page.
	VerificationURL string
}

// Issued is one attendee's assertion in the answer to an issuance.
type Issued struct {
	Assertion
	AlreadyIssued bool // the attendee held the badge already: nothing new, no credit
}

// Issue issues a badge to attendees of the account, all or nothing, in one transaction:
//
//   - The badge is locked first, so issuances of one badge run one after the other; a retired
//     badge answers 409.
//   - Every attendee must be the account's (404 naming the first that is not).
//   - An attendee who holds the badge (an assertion not revoked, expired or not) gets their
//     assertion back, marked AlreadyIssued, and costs nothing. The others, those whose
//     assertion was revoked included, get a new assertion each, written in one statement that
//     leaves out whoever holds the badge by then (the unique key on the badge and attendee of
//     active assertions).
//   - The new assertions cost one credit each, taken in one statement or not at all: when
//     fewer are left, CREDIT_LIMIT (with the figures) rolls everything back.
//   - The day's analytics counter of badges issued for each attendee's event grows by the
//     new ones (written at the commit); each new assertion writes a badge.issued event; when
//     asked, each new recipient's email is recorded.
//
// The assertions, credits, entries, events, counts and emails are issuance.Issue's, the path
// every kind of credential takes. Locks are taken in one order (badge, attendees by id through
// the assertions' foreign key, then issuance's: credits, status list entries, analytics rows in
// key order), the order certificate issuance also follows (attendee, then the account's hot
// rows, then status list entries), so concurrent issuances wait for each other but never
// deadlock.
func (s *Service) Issue(ctx context.Context, p IssueParams) ([]Issued, error) {
	if err := checkAttendeeIDs(p.AttendeeIDs); err != nil {
		return nil, err
	}
	now := s.now().UTC()
	type result struct {
		issued []Issued
		fresh  int
	}
	r, err := store.InTx(ctx, s.store, func(tx *store.Tx) (result, error) {
		b, err := tx.LockBadge(ctx, p.AccountID, p.BadgeID)
		if err != nil {
			return result{}, noSuchBadge(err)
		}
		if b.Status == domain.BadgeRetired {
			return result{}, apperr.New(apperr.Conflict, "The badge is retired; a retired badge is not issued.")
		}
		recipients, err := recipientsOf(ctx, tx, p.AccountID, p.AttendeeIDs)
		if err != nil {
			return result{}, err
		}
		held, err := tx.FindBadgeAssertionsOf(ctx, b.ID, p.AttendeeIDs)
		if err != nil {
			return result{}, err
		}
		byAttendee := map[uuid.UUID]domain.BadgeAssertion{}
		for _, a := range held {
			byAttendee[a.AttendeeID] = a
		}
		fresh, err := s.issue(ctx, tx, p, b, recipients, byAttendee, now)
		if err != nil {
			return result{}, err
		}
		isNew := map[uuid.UUID]bool{}
		for _, a := range fresh {
			byAttendee[a.AttendeeID], isNew[a.AttendeeID] = a, true
		}
		out := make([]Issued, len(p.AttendeeIDs))
		for i, id := range p.AttendeeIDs {
			out[i] = Issued{Assertion: s.assertionView(byAttendee[id], b, now), AlreadyIssued: !isNew[id]}
		}
		// The entry names the badge (its path's) and counts, by id only: no recipient's data.
		audit.Describe(ctx, "badge", b.ID.String(), fmt.Sprintf("%d assertions issued, %d already held", len(fresh), len(out)-len(fresh)))
		return result{issued: out, fresh: len(fresh)}, nil
	})
	if err != nil {
		return nil, err
	}
	return r.issued, nil
}

// checkAttendeeIDs holds what the contract says of the list (the service may be called
// without it): 1 to MaxIssue attendees, none twice.
func checkAttendeeIDs(ids []uuid.UUID) error {
	if len(ids) == 0 || len(ids) > MaxIssue {
		return apperr.Invalid("attendeeIds", fmt.Sprintf("must name 1 to %d attendees", MaxIssue))
	}
	seen := make(map[uuid.UUID]bool, len(ids))
	for i, id := range ids {
		if seen[id] {
			return apperr.Invalid(fmt.Sprintf("attendeeIds[%d]", i), "names an attendee named earlier in the list")
		}
		seen[id] = true
	}
	return nil
}

// recipientsOf reads the attendees, sorted by id; one that is not the account's is 404.
func recipientsOf(ctx context.Context, tx *store.Tx, accountID uuid.UUID, ids []uuid.UUID) ([]store.BadgeRecipient, error) {
	found, err := tx.BadgeRecipients(ctx, accountID, ids)
	if err != nil {
		return nil, err
	}
	if len(found) != len(ids) {
		have := map[uuid.UUID]bool{}
		for _, r := range found {
			have[r.AttendeeID] = true
		}
		for i, id := range ids {
			if !have[id] {
				return nil, apperr.NoSuch("attendee").At(fmt.Sprintf("attendeeIds[%d]", i), "names no attendee of this account")
			}
		}
	}
	for _, r := range found {
		if r.Erased {
			return nil, attendees.Erased().At(fmt.Sprintf("attendeeIds[%d]", slices.Index(ids, r.AttendeeID)), "names an attendee erased at their request")
		}
	}
	slices.SortFunc(found, func(a, b store.BadgeRecipient) int { return bytes.Compare(a.AttendeeID[:], b.AttendeeID[:]) })
	return found, nil
}

// issue issues the badge to each recipient who does not hold it (issuance.Issue: a fresh code
// and salt each, one credit each, their entries, badge.issued events, the day's counts and,
// when asked, their emails) and returns the assertions written. Whoever came to hold the badge
// meanwhile (not possible while the badge is locked, but the insert does not rely on it) is
// read back into held instead. The issuer is read before: its name and logo go into the
// credentials' frozen claims and the emails.
func (s *Service) issue(ctx context.Context, tx *store.Tx, p IssueParams, b domain.Badge, recipients []store.BadgeRecipient,
	held map[uuid.UUID]domain.BadgeAssertion, now time.Time) ([]domain.BadgeAssertion, error) {
	var todo []store.NewBadgeAssertion
	eventOf := map[uuid.UUID]uuid.UUID{}
	for _, r := range recipients {
		eventOf[r.AttendeeID] = r.EventID
		if _, ok := held[r.AttendeeID]; ok {
			continue
		}
		salt, err := newSalt()
		if err != nil {
			return nil, err
		}
		todo = append(todo, store.NewBadgeAssertion{AttendeeID: r.AttendeeID, Recipient: r.Recipient, RecipientSalt: salt, Locale: r.EventLocale})
	}
	if len(todo) == 0 {
		return nil, nil
	}
	iss, err := issuerOf(ctx, tx, b.AccountID)
	if err != nil {
		return nil, err
	}
	var expires *time.Time
	if b.ValidityDays != nil {
		e := now.AddDate(0, 0, *b.ValidityDays)
		expires = &e
	}
	req := &issuance.Badge{Issuance: store.BadgeIssuance{AccountID: b.AccountID, BadgeID: b.ID, IssuedAt: now, ExpiresAt: expires},
		Assertions: todo, EventOf: eventOf, Claims: credentials.BadgeClaimsOf(b, iss.Name, iss.URL, iss.Logo != ""),
		Event: func(a domain.BadgeAssertion) any { return assertionEvent("badge.issued", now, a) }}
	if p.SendEmail {
		req.Email = func(a domain.BadgeAssertion) domain.OutboundEmail { return s.composeEmail(a, b, iss) }
	}
	out, err := issuance.Issue(ctx, tx, issuance.Request{AccountID: p.AccountID, Now: now, Badge: req})
	if err != nil {
		return nil, err
	}
	written := out.Assertions
	if len(written) < len(todo) {
		ids := make([]uuid.UUID, len(todo))
		for i, t := range todo {
			ids[i] = t.AttendeeID
		}
		meanwhile, err := tx.FindBadgeAssertionsOf(ctx, b.ID, ids)
		if err != nil {
			return nil, err
		}
		mine := map[uuid.UUID]bool{}
		for _, a := range written {
			mine[a.ID] = true
		}
		for _, a := range meanwhile {
			if !mine[a.ID] {
				held[a.AttendeeID] = a
			}
		}
	}
	return written, nil
}

// newSalt is 128 random bits in hex, the salt of one recipient's hashed email.
func newSalt() (string, error) {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	return hex.EncodeToString(b[:]), nil
}

// assertionView is a as clients see it at now, an assertion of badge b.
func (s *Service) assertionView(a domain.BadgeAssertion, b domain.Badge, now time.Time) Assertion {
	return Assertion{BadgeAssertion: a, Status: a.StatusAt(b, now), VerificationURL: s.links.Verification(a.VerificationCode)}
}

// Assertions returns a page of a badge's assertions, newest first, of an active or a retired
// badge, and their total.
func (s *Service) Assertions(ctx context.Context, accountID, badgeID uuid.UUID, p domain.Page) ([]Assertion, int, error) {
	b, err := s.store.FindBadge(ctx, accountID, badgeID)
	if err != nil {
		return nil, 0, noSuchBadge(err)
	}
	list, total, err := s.store.ListBadgeAssertions(ctx, accountID, badgeID, p)
	if err != nil {
		return nil, 0, err
	}
	now := s.now()
	out := make([]Assertion, len(list))
	for i, a := range list {
		out[i] = s.assertionView(a, b, now)
	}
	return out, total, nil
}

// composeEmail is the email that tells a new recipient about their badge, with the link to
// its verification page, in the assertion's language (its attendee's event's).
func (s *Service) composeEmail(a domain.BadgeAssertion, b domain.Badge, iss issuer) domain.OutboundEmail {
	lang := locale.Or(a.Locale, locale.Default)
	// The user's words (names, the badge's and issuer's names) are data of the catalog's text,
	// never part of it.
	fields := map[string]any{"FirstName": a.Recipient.FirstName, "FullName": render.FullName(a.Recipient.FirstName, a.Recipient.LastName),
		"Badge": b.Name, "Issuer": iss.Name, "Link": s.links.Verification(a.VerificationCode), "Wallet": wallet.EmailParagraphIn(lang)}
	m := domain.OutboundEmail{AccountID: a.AccountID, Kind: "badge", BadgeAssertionID: &a.ID, ToAddress: a.Recipient.Email,
		ToName: render.FullName(a.Recipient.FirstName, a.Recipient.LastName), FromName: cmp.Or(iss.EmailFromName, iss.Name),
		Subject: locale.Text(lang, "email.badge.subject", fields), BodyText: locale.Text(lang, "email.badge.body", fields), Locale: lang}
	if iss.EmailReplyTo != "" {
		rt := iss.EmailReplyTo
		m.ReplyTo = &rt
	}
	return m
}

// AssertionsOfAttendee returns every assertion issued to an attendee of the account, newest
// first (a person's export).
func (s *Service) AssertionsOfAttendee(ctx context.Context, accountID, attendeeID uuid.UUID) ([]Assertion, error) {
	list, err := s.store.AssertionsOfAttendee(ctx, accountID, attendeeID)
	if err != nil {
		return nil, err
	}
	now := s.now()
	byID := map[uuid.UUID]domain.Badge{}
	out := make([]Assertion, len(list))
	for i, a := range list {
		b, ok := byID[a.BadgeID]
		if !ok {
			if b, err = s.store.FindBadge(ctx, accountID, a.BadgeID); err != nil {
				return nil, err
			}
			byID[a.BadgeID] = b
		}
		out[i] = s.assertionView(a, b, now)
	}
	return out, nil
}
