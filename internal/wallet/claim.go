package wallet

import (
	"context"
	"errors"
	"time"

	"github.com/certhub/credentiald/internal/credentials"
	"github.com/certhub/credentiald/internal/store"
)

// claim signs the offer's credential bound to holder in form and, in one transaction, spends
// the claim's single-use secrets (spend), marks the offer claimed, writes the claimed event and
// counts the claim. The credential is signed first, so that a claim that commits always has its
// credential to answer; a concurrent claim of the same offer finds it claimed and gets 410.
func (s *Service) claim(ctx context.Context, o store.WalletOfferFound, holder, protocol string, form credentials.Form,
	spend func(tx *store.Tx, now time.Time) error) ([]byte, error) {
	ref := credentials.Ref{Kind: store.KindCertificate, AccountID: o.AccountID, VerificationCode: o.VerificationCode}
	if o.CertificateID != nil {
		ref.ID = *o.CertificateID
	} else {
		ref.Kind, ref.ID = store.KindBadgeAssertion, *o.BadgeAssertionID
	}
	signed, err := s.creds.Bound(ctx, ref, holder, form)
	if err != nil {
		return nil, err
	}
	now := s.now().UTC()
	_, err = store.InTx(ctx, s.store, func(tx *store.Tx) (struct{}, error) {
		if err := spend(tx, now); err != nil {
			return struct{}{}, err
		}
		claimed, err := tx.ClaimWalletOffer(ctx, o.ID, holder, protocol, now)
		if errors.Is(err, store.ErrNotFound) {
			return struct{}{}, claimedAlready()
		} else if err != nil {
			return struct{}{}, err
		}
		eventType, data := "certificate.claimed", map[string]any{}
		if o.CertificateID != nil {
			data["certificateId"] = *o.CertificateID
		} else {
			eventType = "badge.claimed"
			data["badgeAssertionId"] = *o.BadgeAssertionID
		}
		data["offerId"], data["holder"], data["protocol"] = o.ID, holder, protocol
		data["claimedAt"] = claimed.ClaimedAt.UTC().Format(time.RFC3339)
		body := map[string]any{"eventType": eventType, "timestamp": now.Format(time.RFC3339), "data": data}
		if err := tx.Outbox(ctx, o.AccountID, eventType, now, body); err != nil {
			return struct{}{}, err
		}
		return struct{}{}, tx.CountClaim(ctx, o.AccountID, o.EventID, ref.Kind, now)
	})
	if err != nil {
		return nil, err
	}
	return signed, nil
}
