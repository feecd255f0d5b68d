package store

import (
	"context"
	"time"

	"github.com/google/uuid"
	"github.com/riverqueue/river"

	"github.com/certhub/credentiald/gen/db"
	"github.com/certhub/credentiald/internal/domain"
	"github.com/certhub/credentiald/internal/jobs"
)

// NewWebhookSubscription is what creating a subscription stores. The id is the caller's, since
// the sealed secret is bound to it.
type NewWebhookSubscription struct {
	ID, AccountID uuid.UUID
	URL           string
	Events        []string
	Description   *string
	SecretSealed  []byte
}

// WebhookSubscriptionState is the changeable state of a subscription, written whole.
type WebhookSubscriptionState struct {
	URL                 string
	Events              []string
	Description         *string
	Active              bool
	ConsecutiveFailures int
	DisabledAt          *time.Time
}

// NewWebhookDelivery is a delivery to record, due at once.
type NewWebhookDelivery struct {
	AccountID, SubscriptionID uuid.UUID
	OutboxEventID             *uuid.UUID
	EventType                 string
	Payload                   []byte
}

// WebhookAttempt is a delivery whose attempt began, with where and how to sign it.
type WebhookAttempt struct {
	Delivery     domain.WebhookDelivery
	URL          string
	SecretSealed []byte
	// PreviousAttempts is how many attempts had begun before this one; PreviousInFlight says
	// that the last of them never recorded an outcome (its process stopped while sending).
	PreviousAttempts int
	PreviousInFlight bool
	// QueuedAt is when the delivery's event occurred (when the delivery was made, for one
	// without an event): its wait is measured from it.
	QueuedAt time.Time
}

// WebhookOutcome is what one attempt came to. Status pending means: try again at NextAttemptAt.
type WebhookOutcome struct {
	Status         domain.WebhookDeliveryStatus
	NextAttemptAt  *time.Time
	ResponseStatus *int
	ResponseBody   *string
	Error          *string
	DurationMs     *int
}

// FanOut is one delivery the fan-out of an event writes.
type FanOut struct {
	AccountID, SubscriptionID, OutboxEventID uuid.UUID
	EventType                                string
	Payload                                  []byte
}

// OutboxSubscriber pairs an outbox event with a subscription that receives it.
type OutboxSubscriber struct {
	OutboxEventID, SubscriptionID, AccountID uuid.UUID
}

// SealedSecret is a sealed value and the id of the row holding it.
type SealedSecret struct {
	ID     uuid.UUID
	Sealed []byte
}

// LockAccountWebhooks serialises, until the transaction ends, the changes that count the
// account's subscriptions.
func (t *Tx) LockAccountWebhooks(ctx context.Context, accountID uuid.UUID) error {
	return mapError(t.q.LockAccountWebhooks(ctx, accountID))
}

// CountWebhookSubscriptions counts the account's subscriptions.
func (d queries) CountWebhookSubscriptions(ctx context.Context, accountID uuid.UUID) (int, error) {
	n, err := d.q.CountWebhookSubscriptions(ctx, accountID)
	return int(n), mapError(err)
}

// InsertWebhookSubscription stores a new, active subscription.
func (d queries) InsertWebhookSubscription(ctx context.Context, s NewWebhookSubscription, now time.Time) (domain.WebhookSubscription, error) {
	r, err := d.q.InsertWebhookSubscription(ctx, db.InsertWebhookSubscriptionParams{ID: s.ID, AccountID: s.AccountID,
		Url: s.URL, Events: s.Events, Description: s.Description, SecretSealed: s.SecretSealed, Now: now})
	if err != nil {
		return domain.WebhookSubscription{}, mapError(err)
	}
	return webhookSubscriptionFrom(r), nil
}

// ListWebhookSubscriptions returns the account's subscriptions, newest first.
func (d queries) ListWebhookSubscriptions(ctx context.Context, accountID uuid.UUID) ([]domain.WebhookSubscription, error) {
	rows, err := d.q.ListWebhookSubscriptions(ctx, accountID)
	if err != nil {
		return nil, mapError(err)
	}
	return convert(rows, webhookSubscriptionFrom), nil
}

// FindWebhookSubscription returns a subscription of the account.
func (d queries) FindWebhookSubscription(ctx context.Context, accountID, id uuid.UUID) (domain.WebhookSubscription, error) {
	r, err := d.q.GetWebhookSubscription(ctx, db.GetWebhookSubscriptionParams{AccountID: accountID, ID: id})
	if err != nil {
		return domain.WebhookSubscription{}, mapError(err)
	}
	return webhookSubscriptionFrom(r), nil
}

// LockWebhookSubscription returns a subscription of the account, locked until the transaction
// ends.
func (t *Tx) LockWebhookSubscription(ctx context.Context, accountID, id uuid.UUID) (domain.WebhookSubscription, error) {
	r, err := t.q.LockWebhookSubscription(ctx, db.LockWebhookSubscriptionParams{AccountID: accountID, ID: id})
	if err != nil {
		return domain.WebhookSubscription{}, mapError(err)
	}
	return webhookSubscriptionFrom(r), nil
}

// LockWebhookSubscriptionByID returns a subscription, whatever its account, locked until the
// transaction ends.
func (t *Tx) LockWebhookSubscriptionByID(ctx context.Context, id uuid.UUID) (domain.WebhookSubscription, error) {
	r, err := t.q.LockWebhookSubscriptionByID(ctx, id)
	if err != nil {
		return domain.WebhookSubscription{}, mapError(err)
	}
	return webhookSubscriptionFrom(r), nil
}

// UpdateWebhookSubscription writes a subscription's state at now.
func (d queries) UpdateWebhookSubscription(ctx context.Context, accountID, id uuid.UUID, s WebhookSubscriptionState, now time.Time) (domain.WebhookSubscription, error) {
	r, err := d.q.UpdateWebhookSubscription(ctx, db.UpdateWebhookSubscriptionParams{AccountID: accountID, ID: id, Url: s.URL,
		Events: s.Events, Description: s.Description, Active: s.Active, ConsecutiveFailures: int32(s.ConsecutiveFailures),
		DisabledAt: s.DisabledAt, Now: now})
	if err != nil {
		return domain.WebhookSubscription{}, mapError(err)
	}
	return webhookSubscriptionFrom(r), nil
}

// SetWebhookFailures sets a subscription's count of failed attempts in a row.
func (d queries) SetWebhookFailures(ctx context.Context, id uuid.UUID, n int) error {
	return mapError(d.q.SetWebhookFailures(ctx, db.SetWebhookFailuresParams{ID: id, ConsecutiveFailures: int32(n)}))
}

// ResetWebhookFailures sets a subscription's count of failed attempts in a row to 0.
func (d queries) ResetWebhookFailures(ctx context.Context, id uuid.UUID) error {
	return mapError(d.q.ResetWebhookFailures(ctx, id))
}

// SwitchOffWebhookSubscription marks a subscription inactive, disabled at now.
func (d queries) SwitchOffWebhookSubscription(ctx context.Context, id uuid.UUID, now time.Time) error {
	return mapError(d.q.SwitchOffWebhookSubscription(ctx, db.SwitchOffWebhookSubscriptionParams{ID: id, Now: now}))
}

// DeleteWebhookSubscription removes a subscription of the account with its deliveries.
func (d queries) DeleteWebhookSubscription(ctx context.Context, accountID, id uuid.UUID) error {
	n, err := d.q.DeleteWebhookSubscription(ctx, db.DeleteWebhookSubscriptionParams{AccountID: accountID, ID: id})
	if err != nil {
		return mapError(err)
	}
	if n == 0 {
		return ErrNotFound
	}
	return nil
}

// FailPendingWebhookDeliveries records as failed, with reason, a subscription's pending
// deliveries that no dispatcher holds under a live lease at now.
func (d queries) FailPendingWebhookDeliveries(ctx context.Context, subscriptionID uuid.UUID, reason string, now time.Time) error {
	return mapError(d.q.FailPendingWebhookDeliveries(ctx, db.FailPendingWebhookDeliveriesParams{SubscriptionID: subscriptionID,
		Error: &reason, Now: now}))
}

// InsertWebhookDelivery records a delivery, due at now, and queues its job.
func (t *Tx) InsertWebhookDelivery(ctx context.Context, w NewWebhookDelivery, now time.Time) (domain.WebhookDelivery, error) {
	r, err := t.q.InsertWebhookDelivery(ctx, db.InsertWebhookDeliveryParams{ID: newID(), AccountID: w.AccountID,
		SubscriptionID: w.SubscriptionID, OutboxEventID: w.OutboxEventID, EventType: w.EventType, Payload: w.Payload, Now: now})
	if err != nil {
		return domain.WebhookDelivery{}, mapError(err)
	}
	return webhookDeliveryFrom(r), t.InsertJob(ctx, jobs.DeliverWebhook{DeliveryID: r.ID})
}

// InsertWebhookDelivery records a delivery and its job in a transaction of their own.
func (s *Store) InsertWebhookDelivery(ctx context.Context, w NewWebhookDelivery, now time.Time) (domain.WebhookDelivery, error) {
	return InTx(ctx, s, func(tx *Tx) (domain.WebhookDelivery, error) { return tx.InsertWebhookDelivery(ctx, w, now) })
}

// ListWebhookDeliveries returns a page of a subscription's deliveries, in p's order, and their
// total.
func (d queries) ListWebhookDeliveries(ctx context.Context, accountID, subscriptionID uuid.UUID, p domain.Page) ([]domain.WebhookDelivery, int, error) {
	q, err := d.list(createdOrders, p.Sort)
	if err != nil {
		return nil, 0, err
	}
	rows, err := q.ListWebhookDeliveries(ctx, db.ListWebhookDeliveriesParams{AccountID: accountID, SubscriptionID: subscriptionID,
		PageSize: pageLimit(p), PageOffset: pageOffset(p)})
	if err != nil {
		return nil, 0, mapError(err)
	}
	n, err := q.CountWebhookDeliveries(ctx, db.CountWebhookDeliveriesParams{AccountID: accountID, SubscriptionID: subscriptionID})
	if err != nil {
		return nil, 0, mapError(err)
	}
	return convert(rows, webhookDeliveryFrom), int(n), nil
}

// LockOutboxEvents returns those of the events not yet dispatched, oldest first, locked until
// the transaction ends.
func (t *Tx) LockOutboxEvents(ctx context.Context, ids []uuid.UUID) ([]OutboxEvent, error) {
	rows, err := t.q.LockOutboxEvents(ctx, ids)
	if err != nil {
		return nil, mapError(err)
	}
	return convert(rows, func(r db.OutboxEvent) OutboxEvent {
		return OutboxEvent{ID: r.ID, EventType: r.EventType, Payload: r.Payload, OccurredAt: r.OccurredAt}
	}), nil
}

// OutboxSubscribers pairs each of the events with the active subscriptions of its account that
// chose its kind.
func (d queries) OutboxSubscribers(ctx context.Context, eventIDs []uuid.UUID) ([]OutboxSubscriber, error) {
	rows, err := d.q.OutboxSubscribers(ctx, eventIDs)
	if err != nil {
		return nil, mapError(err)
	}
	return convert(rows, func(r db.OutboxSubscribersRow) OutboxSubscriber {
		return OutboxSubscriber{OutboxEventID: r.OutboxEventID, SubscriptionID: r.SubscriptionID, AccountID: r.AccountID}
	}), nil
}

// InsertFannedOutDeliveries records the deliveries, due at now, and queues a job for each; a
// (subscription, event) pair that has one already is skipped. It returns how many it recorded.
func (t *Tx) InsertFannedOutDeliveries(ctx context.Context, fs []FanOut, now time.Time) (int, error) {
	if len(fs) == 0 {
		return 0, nil
	}
	p := db.InsertFannedOutDeliveriesParams{Now: now}
	for _, f := range fs {
		p.Ids = append(p.Ids, newID())
		p.AccountIds = append(p.AccountIds, f.AccountID)
		p.SubscriptionIds = append(p.SubscriptionIds, f.SubscriptionID)
		p.OutboxEventIds = append(p.OutboxEventIds, f.OutboxEventID)
		p.EventTypes = append(p.EventTypes, f.EventType)
		p.Payloads = append(p.Payloads, f.Payload)
	}
	ids, err := t.q.InsertFannedOutDeliveries(ctx, p)
	if err != nil {
		return 0, mapError(err)
	}
	deliveries := make([]river.JobArgs, len(ids))
	for i, id := range ids {
		deliveries[i] = jobs.DeliverWebhook{DeliveryID: id}
	}
	return len(ids), t.InsertJobs(ctx, deliveries)
}

// MarkOutboxDispatched records the events as dispatched at now.
func (d queries) MarkOutboxDispatched(ctx context.Context, ids []uuid.UUID, now time.Time) error {
	return mapError(d.q.MarkOutboxDispatched(ctx, db.MarkOutboxDispatchedParams{Ids: ids, Now: now}))
}

// StartWebhookAttempt records, at now, that the attempt numbered attempt of a pending delivery
// begins and may run until leasedUntil, and returns it with what it was before; ErrNotFound
// when the delivery is no longer pending.
func (d queries) StartWebhookAttempt(ctx context.Context, id uuid.UUID, attempt int, now, leasedUntil time.Time) (WebhookAttempt, error) {
	r, err := d.q.StartWebhookAttempt(ctx, db.StartWebhookAttemptParams{ID: id, Attempt: int32(attempt), Now: now, LeasedUntil: leasedUntil})
	if err != nil {
		return WebhookAttempt{}, mapError(err)
	}
	return WebhookAttempt{URL: r.Url, SecretSealed: r.SecretSealed, PreviousAttempts: int(r.PreviousAttempts),
		PreviousInFlight: r.PreviousInFlight, QueuedAt: r.QueuedAt, Delivery: webhookDeliveryFrom(db.WebhookDelivery{
			ID: r.ID, AccountID: r.AccountID, SubscriptionID: r.SubscriptionID, OutboxEventID: r.OutboxEventID, EventType: r.EventType,
			Payload: r.Payload, Status: r.Status, Attempts: r.Attempts, LastAttemptAt: r.LastAttemptAt, NextAttemptAt: r.NextAttemptAt,
			ResponseStatus: r.ResponseStatus, ResponseBody: r.ResponseBody, Error: r.Error, DurationMs: r.DurationMs, CreatedAt: r.CreatedAt})}, nil
}

// FinishWebhookAttempt records the outcome of a delivery's attempt numbered attempt; false when
// the delivery moved on without it (it was closed meanwhile).
func (d queries) FinishWebhookAttempt(ctx context.Context, id uuid.UUID, attempt int, o WebhookOutcome) (bool, error) {
	n, err := d.q.FinishWebhookAttempt(ctx, db.FinishWebhookAttemptParams{ID: id, Attempt: int32(attempt), Status: string(o.Status),
		NextAttemptAt: o.NextAttemptAt, ResponseStatus: int32Ptr(o.ResponseStatus), ResponseBody: o.ResponseBody, Error: o.Error,
		DurationMs: int32Ptr(o.DurationMs)})
	return n == 1, mapError(err)
}

// WebhookSecrets returns up to batch subscriptions' sealed secrets after the id afterID, in id
// order.
func (d queries) WebhookSecrets(ctx context.Context, afterID uuid.UUID, batch int) ([]SealedSecret, error) {
	rows, err := d.q.ListWebhookSecrets(ctx, db.ListWebhookSecretsParams{AfterID: afterID, BatchSize: int32(batch)})
	if err != nil {
		return nil, mapError(err)
	}
	return convert(rows, func(r db.ListWebhookSecretsRow) SealedSecret { return SealedSecret{ID: r.ID, Sealed: r.SecretSealed} }), nil
}

// ReplaceWebhookSecret swaps a subscription's sealed secret for another; false when it is no
// longer old.
func (d queries) ReplaceWebhookSecret(ctx context.Context, id uuid.UUID, old, sealed []byte) (bool, error) {
	n, err := d.q.ReplaceWebhookSecret(ctx, db.ReplaceWebhookSecretParams{ID: id, OldSealed: old, NewSealed: sealed})
	return n == 1, mapError(err)
}

func webhookSubscriptionFrom(r db.WebhookSubscription) domain.WebhookSubscription {
	return domain.WebhookSubscription{ID: r.ID, AccountID: r.AccountID, URL: r.Url, Events: r.Events, Description: r.Description,
		SecretSealed: r.SecretSealed, Active: r.Active, ConsecutiveFailures: int(r.ConsecutiveFailures), DisabledAt: r.DisabledAt,
		CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt}
}

func webhookDeliveryFrom(r db.WebhookDelivery) domain.WebhookDelivery {
	return domain.WebhookDelivery{ID: r.ID, AccountID: r.AccountID, SubscriptionID: r.SubscriptionID, OutboxEventID: r.OutboxEventID,
		EventType: r.EventType, Payload: r.Payload, Status: domain.WebhookDeliveryStatus(r.Status), Attempts: int(r.Attempts), LastAttemptAt: r.LastAttemptAt,
		NextAttemptAt: r.NextAttemptAt, ResponseStatus: intPtr(r.ResponseStatus), ResponseBody: r.ResponseBody, Error: r.Error,
		DurationMs: intPtr(r.DurationMs), CreatedAt: r.CreatedAt}
}

// WebhookSubscribed says whether an active subscription of the account takes events of
// eventType (an issuance's plan records its events pending, and queues their fan-out, or not).
func (d queries) WebhookSubscribed(ctx context.Context, accountID uuid.UUID, eventType string) (bool, error) {
	ok, err := d.q.WebhookSubscribed(ctx, db.WebhookSubscribedParams{AccountID: accountID, EventType: eventType})
	return ok, mapError(err)
}
