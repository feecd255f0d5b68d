// Package jobs names the River jobs the service queues: the arguments of each kind, the queue
// it runs in and how many attempts River allows it. The store inserts them in the transaction
// of their cause; the packages that do the work (email, webhooks, bulk, idempotency) register
// their workers for them on the process's one River client (see app).
package jobs

import (
	"github.com/google/uuid"
	"github.com/riverqueue/river"
)

// The queues, one per kind of work, so that a burst of one (a bulk job's emails, a badge
// revocation's webhooks) does not hold up the others.
const (
	QueueBulk        = "bulk"
	QueueEmail       = "email"
	QueueWebhooks    = "webhooks"
	QueueMaintenance = "maintenance"
)

// Queues are all of them (the metrics show each, empty or not).
var Queues = []string{QueueBulk, QueueEmail, QueueWebhooks, QueueMaintenance}

// EmailAttempts is how many times a message is tried before it is given up.
const EmailAttempts = 8

// WebhookAttempts is how many times a delivery is tried (the contract's five).
const WebhookAttempts = 5

// SendEmail sends one recorded message (an email_deliveries row).
type SendEmail struct {
	DeliveryID uuid.UUID `json:"deliveryId"`
}

// Kind is the job's kind in River.
func (SendEmail) Kind() string { return "email_send" }

// InsertOpts allows one attempt beyond the cap: when the last allowed attempt lapses (the
// process died while sending), River rescues the job once more, and that attempt only records
// the message failed instead of leaving it queued for ever.
func (SendEmail) InsertOpts() river.InsertOpts {
	return river.InsertOpts{Queue: QueueEmail, MaxAttempts: EmailAttempts + 1}
}

// FanOutEvents turns outbox events into webhook deliveries, one per subscription that chose
// each event's kind.
type FanOutEvents struct {
	OutboxEventIDs []uuid.UUID `json:"outboxEventIds"`
}

// Kind is the job's kind in River.
func (FanOutEvents) Kind() string { return "webhook_fan_out" }

// InsertOpts: a fan-out that fails (the database was away) is retried on River's schedule.
func (FanOutEvents) InsertOpts() river.InsertOpts {
	return river.InsertOpts{Queue: QueueWebhooks, MaxAttempts: 25}
}

// DeliverWebhook makes the attempts of one webhook delivery (a webhook_deliveries row).
type DeliverWebhook struct {
	DeliveryID uuid.UUID `json:"deliveryId"`
}

// Kind is the job's kind in River.
func (DeliverWebhook) Kind() string { return "webhook_deliver" }

// InsertOpts allows one attempt beyond the contract's five, for the same reason as SendEmail's.
func (DeliverWebhook) InsertOpts() river.InsertOpts {
	return river.InsertOpts{Queue: QueueWebhooks, MaxAttempts: WebhookAttempts + 1}
}

// BackfillIssuerKeys gives the accounts that have no issuer key their first one (those created
// by a release that made keys on first need, while a newer one ran beside it); a periodic job.
type BackfillIssuerKeys struct{}

// Kind is the job's kind in River.
func (BackfillIssuerKeys) Kind() string { return "issuer_key_backfill" }

// InsertOpts: a failed backfill is not retried; the next one does what it left.
func (BackfillIssuerKeys) InsertOpts() river.InsertOpts {
	return river.InsertOpts{Queue: QueueMaintenance, MaxAttempts: 1}
}

// PurgeIdempotencyKeys deletes the idempotency keys whose answers are no longer replayed; a
// periodic job.
type PurgeIdempotencyKeys struct{}

// Kind is the job's kind in River.
func (PurgeIdempotencyKeys) Kind() string { return "idempotency_purge" }

// InsertOpts: a failed purge is not retried; the next hour's purges what it left.
func (PurgeIdempotencyKeys) InsertOpts() river.InsertOpts {
	return river.InsertOpts{Queue: QueueMaintenance, MaxAttempts: 1}
}

// PasswordReset is a request for a password reset link: its worker finds the user of the
// address and emails them (package auth). The request only queues it, the same whether or not
// the address has a user, so that its timing tells nobody who has an account; the address is
// sealed with SECRETS_KEY, never kept plain in the job.
type PasswordReset struct {
	AddressSealed []byte `json:"addressSealed"`
}

// Kind is the job's kind in River.
func (PasswordReset) Kind() string { return "auth_password_reset" }

// InsertOpts puts the job in the email queue.
func (PasswordReset) InsertOpts() river.InsertOpts {
	return river.InsertOpts{Queue: QueueEmail, MaxAttempts: 5}
}

// PurgeRetention purges what is past each account's retention; a periodic job (package
// retention).
type PurgeRetention struct{}

// Kind is the job's kind in River.
func (PurgeRetention) Kind() string { return "retention_purge" }

// InsertOpts: a failed purge is not retried; the next pass purges what it left.
func (PurgeRetention) InsertOpts() river.InsertOpts {
	return river.InsertOpts{Queue: QueueMaintenance, MaxAttempts: 1}
}

// EraseEmailFiles deletes the files an erasure's emails left in the outbox folder (queued in
// the erasure's transaction: see package privacy).
type EraseEmailFiles struct {
	DeliveryIDs []uuid.UUID `json:"deliveryIds"`
}

// Kind is the job's kind in River.
func (EraseEmailFiles) Kind() string { return "privacy_erase_email_files" }

// InsertOpts puts the job in the maintenance queue.
func (EraseEmailFiles) InsertOpts() river.InsertOpts {
	return river.InsertOpts{Queue: QueueMaintenance, MaxAttempts: 10}
}
