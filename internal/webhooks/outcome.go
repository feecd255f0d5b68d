package webhooks

import "time"

// Outcome is what one attempt at a delivery came to, as the operator's metrics count it.
type Outcome string

// The outcomes of an attempt. Each attempt has exactly one: a failure is retrying, failed or
// disabled by what the dispatcher decided for the delivery.
const (
	// OutcomeDelivered: the receiver answered 2xx.
	OutcomeDelivered Outcome = "delivered"
	// OutcomeRetrying: the attempt failed and another is scheduled (RetryDelays).
	OutcomeRetrying Outcome = "retrying"
	// OutcomeFailed: the attempt failed and the delivery is given up (its last attempt, or a
	// failure not worth retrying, such as a secret the service cannot open).
	OutcomeFailed Outcome = "failed"
	// OutcomeDisabled: the attempt failed and the delivery is given up because its subscription
	// is switched off (by this failure: 410 Gone or the SwitchOffAfter-th in a row; or before).
	OutcomeDisabled Outcome = "disabled"
)

// Outcomes are every Outcome, for metrics that show each from the start.
var Outcomes = []Outcome{OutcomeDelivered, OutcomeRetrying, OutcomeFailed, OutcomeDisabled}

// Observer is told of each attempt the dispatcher made: its outcome, and how long the delivery
// had waited since its event occurred (retries included, so it grows with the backoff). The
// operator's metrics implement it (metrics.Registry.WebhookObserver).
type Observer interface {
	Attempted(outcome Outcome, waited time.Duration)
}
