// Package webhooks delivers the outbox's events to the subscriptions that asked for them:
// signed, over an outbound client that cannot be turned against the service's own network.
package webhooks

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// SecretPrefix starts every signing secret, as the Standard Webhooks specification writes them.
const SecretPrefix = "whsec_"

// NewSecret returns a signing secret: "whsec_" and the base64 of 32 random bytes.
func NewSecret() (string, error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return SecretPrefix + base64.StdEncoding.EncodeToString(b), nil
}

// Headers returns the headers that sign one attempt at a delivery, computed over the exact
// bytes sent:
//   - X-Service-Event, X-Service-Delivery, X-Service-Timestamp (Unix seconds) and
//     X-Service-Signature: "sha256=" and the hex HMAC-SHA256 of "<timestamp>.<body>" keyed
//     with the whole secret string, as the specification says;
//   - webhook-id, webhook-timestamp and webhook-signature: "v1," and the base64 HMAC-SHA256 of
//     "<id>.<timestamp>.<body>" keyed with the base64-decoded part of the secret after
//     "whsec_", so that receivers can use the Standard Webhooks libraries.
func Headers(secret, eventType, deliveryID string, at time.Time, body []byte) (http.Header, error) {
	key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, SecretPrefix))
	if err != nil || !strings.HasPrefix(secret, SecretPrefix) {
		return nil, fmt.Errorf("webhooks: the signing secret is not whsec_ and base64")
	}
	ts := strconv.FormatInt(at.Unix(), 10)

	service := hmac.New(sha256.New, []byte(secret))
	service.Write([]byte(ts + "."))
	service.Write(body)

	standard := hmac.New(sha256.New, key)
	standard.Write([]byte(deliveryID + "." + ts + "."))
	standard.Write(body)

	h := http.Header{}
	h.Set("X-Service-Event", eventType)
	h.Set("X-Service-Delivery", deliveryID)
	h.Set("X-Service-Timestamp", ts)
	h.Set("X-Service-Signature", "sha256="+hex.EncodeToString(service.Sum(nil)))
	h.Set("webhook-id", deliveryID)
	h.Set("webhook-timestamp", ts)
	h.Set("webhook-signature", "v1,"+base64.StdEncoding.EncodeToString(standard.Sum(nil)))
	return h, nil
}
