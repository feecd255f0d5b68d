package webhooks

import "github.com/certhub/credentiald/internal/outbound"

// Policy decides which webhook targets are allowed (see the outbound package).
type Policy = outbound.Policy

// ErrUnsafeTarget says a webhook URL is refused; its message says why.
var ErrUnsafeTarget = outbound.ErrUnsafeTarget
