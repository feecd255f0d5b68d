package webhooks

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/certhub/credentiald/internal/apperr"
	"github.com/certhub/credentiald/internal/audit"
	"github.com/certhub/credentiald/internal/domain"
	"github.com/certhub/credentiald/internal/secretbox"
	"github.com/certhub/credentiald/internal/store"
)

// Kinds are the event kinds a subscription may choose; webhook.test goes to the subscription
// it was asked for, whatever it chose.
var Kinds = []string{"certificate.issued", "certificate.sent", "certificate.viewed", "certificate.downloaded", "certificate.revoked",
	"certificate.claimed", "badge.issued", "badge.revoked", "badge.claimed", "job.completed"}

// Patterns are what a subscription may choose beside Kinds: every kind ("*"), or every kind of
// one family. A delivery's eventType is always a concrete kind.
var Patterns = []string{"*", "certificate.*", "badge.*"}

// TestKind is the kind of the event POST /webhooks/{id}/test sends.
const TestKind = "webhook.test"

// MaxSubscriptions bounds an account's subscriptions: each multiplies the deliveries of every
// event, and the list is not paginated.
const MaxSubscriptions = 20

// Service applies the rules of subscriptions; the Dispatcher delivers.
type Service struct {
	store   *store.Store
	secrets *secretbox.Box
	policy  Policy
	now     func() time.Time
}

// NewService returns the service. secrets seals the signing secrets; policy checks URLs.
func NewService(st *store.Store, secrets *secretbox.Box, policy Policy, now func() time.Time) *Service {
	if now == nil {
		now = time.Now
	}
	return &Service{store: st, secrets: secrets, policy: policy, now: now}
}

// Fields are the parts of a subscription a client sets. On update, nil leaves a part as it
// is; a blank description clears it.
type Fields struct {
	URL         *string
	Events      []string
	Description *string
	Active      *bool
}

// associated binds a sealed signing secret to its subscription.
func associated(id uuid.UUID) []byte { return []byte("webhook:" + id.String()) }

func noSuchSubscription(err error) error {
	return apperr.When(err, store.ErrNotFound, apperr.NoSuch("webhook subscription"))
}

// List returns the account's subscriptions, newest first.
func (s *Service) List(ctx context.Context, accountID uuid.UUID) ([]domain.WebhookSubscription, error) {
	return s.store.ListWebhookSubscriptions(ctx, accountID)
}

// Create checks f and subscribes its URL; it returns the subscription and its signing secret,
// which is never shown again.
func (s *Service) Create(ctx context.Context, accountID uuid.UUID, f Fields) (domain.WebhookSubscription, string, error) {
	if f.URL == nil {
		return domain.WebhookSubscription{}, "", apperr.Invalid("url", "is required")
	}
	if err := s.check(ctx, f); err != nil {
		return domain.WebhookSubscription{}, "", err
	}
	secret, err := NewSecret()
	if err != nil {
		return domain.WebhookSubscription{}, "", err
	}
	id, err := uuid.NewV7()
	if err != nil {
		return domain.WebhookSubscription{}, "", err
	}
	sealed, err := s.secrets.Seal([]byte(secret), associated(id))
	if err != nil {
		return domain.WebhookSubscription{}, "", err
	}
	now := s.now()
	sub, err := store.InTx(ctx, s.store, func(tx *store.Tx) (domain.WebhookSubscription, error) {
		if err := tx.LockAccountWebhooks(ctx, accountID); err != nil {
			return domain.WebhookSubscription{}, err
		}
		if n, err := tx.CountWebhookSubscriptions(ctx, accountID); err != nil {
			return domain.WebhookSubscription{}, err
		} else if n >= MaxSubscriptions {
			return domain.WebhookSubscription{}, apperr.New(apperr.Conflict,
				"An account has at most %d webhook subscriptions; delete one, or let one subscription receive more event kinds.", MaxSubscriptions)
		}
		audit.Describe(ctx, "webhook", id.String(), "")
		return tx.InsertWebhookSubscription(ctx, store.NewWebhookSubscription{ID: id, AccountID: accountID, URL: *f.URL,
			Events: f.Events, Description: description(f.Description), SecretSealed: sealed}, now)
	})
	if err != nil {
		return domain.WebhookSubscription{}, "", err
	}
	return sub, secret, nil
}

// Update changes the parts f sets. Switching a subscription on resets its failure count and
// its disabledAt; switching it off gives up its pending deliveries.
func (s *Service) Update(ctx context.Context, accountID, id uuid.UUID, f Fields) (domain.WebhookSubscription, error) {
	if err := s.check(ctx, f); err != nil {
		return domain.WebhookSubscription{}, err
	}
	now := s.now()
	return store.InTx(ctx, s.store, func(tx *store.Tx) (domain.WebhookSubscription, error) {
		cur, err := tx.LockWebhookSubscription(ctx, accountID, id)
		if err != nil {
			return domain.WebhookSubscription{}, noSuchSubscription(err)
		}
		next := store.WebhookSubscriptionState{URL: cur.URL, Events: cur.Events, Description: cur.Description,
			Active: cur.Active, ConsecutiveFailures: cur.ConsecutiveFailures, DisabledAt: cur.DisabledAt}
		if f.URL != nil {
			next.URL = *f.URL
		}
		if f.Events != nil {
			next.Events = f.Events
		}
		if f.Description != nil {
			next.Description = description(f.Description)
		}
		if f.Active != nil && *f.Active != cur.Active {
			next.Active = *f.Active
			if next.Active {
				next.ConsecutiveFailures, next.DisabledAt = 0, nil
			} else if err := tx.FailPendingWebhookDeliveries(ctx, id, "not delivered: the subscription was switched off (PUT active: false)", now); err != nil {
				return domain.WebhookSubscription{}, err
			}
		}
		return tx.UpdateWebhookSubscription(ctx, accountID, id, next, now)
	})
}

// Delete removes a subscription with its deliveries; nothing more is sent to it.
func (s *Service) Delete(ctx context.Context, accountID, id uuid.UUID) error {
	_, err := store.InTx(ctx, s.store, func(tx *store.Tx) (struct{}, error) {
		return struct{}{}, tx.DeleteWebhookSubscription(ctx, accountID, id)
	})
	return noSuchSubscription(err)
}

// Deliveries returns a page of a subscription's deliveries, newest first, and their total.
func (s *Service) Deliveries(ctx context.Context, accountID, id uuid.UUID, p domain.Page) ([]domain.WebhookDelivery, int, error) {
	if _, err := s.store.FindWebhookSubscription(ctx, accountID, id); err != nil {
		return nil, 0, noSuchSubscription(err)
	}
	return s.store.ListWebhookDeliveries(ctx, accountID, id, p)
}

// TestMessage is the message of every webhook.test event.
const TestMessage = "A test event from credentiald: this endpoint receives the subscription's deliveries."

// Test records a webhook.test delivery to the subscription, due at once, and returns it. It is
// sent like any delivery, also to a switched-off subscription (to try the endpoint before
// switching it on again), and its attempts count in the subscription's failures.
func (s *Service) Test(ctx context.Context, accountID, id uuid.UUID) (domain.WebhookDelivery, error) {
	if _, err := s.store.FindWebhookSubscription(ctx, accountID, id); err != nil {
		return domain.WebhookDelivery{}, noSuchSubscription(err)
	}
	now := s.now()
	payload, err := json.Marshal(map[string]any{"eventType": TestKind, "timestamp": now.UTC().Format(time.RFC3339),
		"data": map[string]any{"subscriptionId": id, "message": TestMessage}})
	if err != nil {
		return domain.WebhookDelivery{}, err
	}
	d, err := s.store.InsertWebhookDelivery(ctx, store.NewWebhookDelivery{AccountID: accountID, SubscriptionID: id,
		EventType: TestKind, Payload: payload}, now)
	if err != nil {
		return domain.WebhookDelivery{}, apperr.When(err, store.Conflict("webhook_deliveries_account_id_subscription_id_fkey"),
			apperr.NoSuch("webhook subscription"))
	}
	return d, nil
}

// check validates the parts f sets: a URL the policy allows, known event kinds, each once.
func (s *Service) check(ctx context.Context, f Fields) error {
	if f.URL != nil {
		if err := s.policy.CheckURL(ctx, *f.URL); err != nil {
			msg := err.Error()
			if errors.Is(err, ErrUnsafeTarget) {
				msg = strings.TrimPrefix(msg, ErrUnsafeTarget.Error()+": ")
			}
			return apperr.Invalid("url", msg)
		}
	}
	if f.Events != nil {
		if len(f.Events) == 0 {
			return apperr.Invalid("events", "must name at least one event kind")
		}
		for i, k := range f.Events {
			if !slices.Contains(Kinds, k) && !slices.Contains(Patterns, k) {
				return apperr.Invalid("events", "names an unknown event kind: "+k+"; the kinds are "+strings.Join(Kinds, ", ")+
					", and the patterns "+strings.Join(Patterns, ", "))
			}
			if slices.Contains(f.Events[:i], k) {
				return apperr.Invalid("events", "names "+k+" twice")
			}
		}
	}
	return nil
}

// description is an optional description as stored: trimmed, nil when blank.
func description(d *string) *string {
	if d == nil || strings.TrimSpace(*d) == "" {
		return nil
	}
	t := strings.TrimSpace(*d)
	return &t
}
