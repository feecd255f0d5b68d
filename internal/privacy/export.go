package privacy

import (
	"context"

	"github.com/google/uuid"

	"github.com/certhub/credentiald/internal/badges"
	"github.com/certhub/credentiald/internal/domain"
	"github.com/certhub/credentiald/internal/wallet"
)

// Sources are the services whose views of a person an export gathers, so that each part is
// what the API shows of it elsewhere.
type Sources struct {
	Attendees interface {
		Get(ctx context.Context, accountID, id uuid.UUID) (domain.Attendee, error)
	}
	Certificates interface {
		List(ctx context.Context, accountID uuid.UUID, f domain.CertificateFilter, p domain.Page) ([]domain.Certificate, int, error)
		DeliveriesOfAttendee(ctx context.Context, accountID, attendeeID uuid.UUID) ([]domain.EmailDelivery, error)
	}
	Badges interface {
		AssertionsOfAttendee(ctx context.Context, accountID, attendeeID uuid.UUID) ([]badges.Assertion, error)
	}
	Wallet interface {
		List(ctx context.Context, c wallet.Credential, p domain.Page) ([]wallet.Offer, int, error)
	}
}

// Export is what the account holds about one attendee.
type Export struct {
	Attendee        domain.Attendee
	Certificates    []domain.Certificate
	Assertions      []badges.Assertion
	EmailDeliveries []domain.EmailDelivery
	WalletOffers    []wallet.Offer
}

// exportPage is the page size the export reads lists with, page after page.
const exportPage = 100

// Export gathers what the account holds about an attendee (a person's request to see their
// data). NOT_FOUND: no such attendee in the account.
func (s *Service) Export(ctx context.Context, accountID, attendeeID uuid.UUID) (Export, error) {
	src := s.sources
	var out Export
	var err error
	if out.Attendee, err = src.Attendees.Get(ctx, accountID, attendeeID); err != nil {
		return Export{}, err
	}
	if out.Certificates, err = all(func(p domain.Page) ([]domain.Certificate, int, error) {
		return src.Certificates.List(ctx, accountID, domain.CertificateFilter{AttendeeID: &attendeeID}, p)
	}); err != nil {
		return Export{}, err
	}
	if out.Assertions, err = src.Badges.AssertionsOfAttendee(ctx, accountID, attendeeID); err != nil {
		return Export{}, err
	}
	if out.EmailDeliveries, err = src.Certificates.DeliveriesOfAttendee(ctx, accountID, attendeeID); err != nil {
		return Export{}, err
	}
	out.WalletOffers = []wallet.Offer{}
	for _, c := range out.Certificates {
		offers, err := all(func(p domain.Page) ([]wallet.Offer, int, error) {
			return src.Wallet.List(ctx, wallet.Credential{AccountID: accountID, CertificateID: &c.ID}, p)
		})
		if err != nil {
			return Export{}, err
		}
		out.WalletOffers = append(out.WalletOffers, offers...)
	}
	for _, a := range out.Assertions {
		offers, err := all(func(p domain.Page) ([]wallet.Offer, int, error) {
			return src.Wallet.List(ctx, wallet.Credential{AccountID: accountID, BadgeID: a.BadgeID, AssertionID: &a.ID}, p)
		})
		if err != nil {
			return Export{}, err
		}
		out.WalletOffers = append(out.WalletOffers, offers...)
	}
	return out, nil
}

// all reads every page of a list.
func all[T any](list func(domain.Page) ([]T, int, error)) ([]T, error) {
	out := []T{}
	for page := 1; ; page++ {
		items, total, err := list(domain.Page{Number: page, Size: exportPage})
		if err != nil {
			return nil, err
		}
		out = append(out, items...)
		if len(items) == 0 || len(out) >= total {
			return out, nil
		}
	}
}
