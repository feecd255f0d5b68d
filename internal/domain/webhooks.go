package domain

import (
	"time"

	"github.com/google/uuid"
)

// WebhookSubscription is an endpoint of an account and the event kinds it receives. Its
// signing secret is kept sealed; the webhooks service opens it.
type WebhookSubscription struct {
	ID, AccountID       uuid.UUID
	URL                 string
	Events              []string
	Description         *string
	SecretSealed        []byte
	Active              bool
	ConsecutiveFailures int
	DisabledAt          *time.Time
	CreatedAt           time.Time
	UpdatedAt           time.Time
}

// WebhookDelivery is one event on its way to one subscription, and how its attempts went.
type WebhookDelivery struct {
	ID, AccountID, SubscriptionID uuid.UUID
	OutboxEventID                 *uuid.UUID
	EventType                     string
	Payload                       []byte // the exact bytes every attempt sends
	Status                        WebhookDeliveryStatus
	Attempts                      int
	LastAttemptAt                 *time.Time
	NextAttemptAt                 *time.Time
	ResponseStatus                *int
	ResponseBody                  *string
	Error                         *string
	DurationMs                    *int
	CreatedAt                     time.Time
}

// WebhookDeliveryStatus is where a webhook delivery is.
type WebhookDeliveryStatus string

// A delivery is pending (attempts left) until it succeeds or fails for good.
const (
	WebhookPending   WebhookDeliveryStatus = "pending"
	WebhookSucceeded WebhookDeliveryStatus = "succeeded"
	WebhookFailed    WebhookDeliveryStatus = "failed"
)
