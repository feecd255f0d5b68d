// Package receiverexample is the webhook receiver docs/api.md shows integrators, kept here so
// that a test runs it against real deliveries: the block of docs/api.md is this file's code between
// the markers, checked by TestReadmeShowsTheReceiverExample.
package receiverexample

// receiver:begin
import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"net/http"
	"strconv"
	"sync"
	"time"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"
)

// Handler receives credentiald's webhooks: it checks both signatures over the exact bytes
// received, refuses timestamps older than five minutes, and hands each delivery to handle
// once, even when a retry brings it again (same X-Service-Delivery id).
func Handler(secret string, handle func(eventType string, body []byte)) http.Handler {
	wh, err := standardwebhooks.NewWebhook(secret) // checks webhook-signature and its timestamp
	if err != nil {
		panic(err)
	}
	var mu sync.Mutex
	seen := map[string]bool{} // a real receiver keeps these ids in its database
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
		if err != nil {
			http.Error(w, "unreadable body", http.StatusBadRequest)
			return
		}
		// X-Service-Signature: "sha256=" + hex HMAC-SHA256 of "<timestamp>.<body>", keyed
		// with the whole secret string.
		ts := r.Header.Get("X-Service-Timestamp")
		mac := hmac.New(sha256.New, []byte(secret))
		mac.Write([]byte(ts + "."))
		mac.Write(body)
		want := "sha256=" + hex.EncodeToString(mac.Sum(nil))
		sent, err := strconv.ParseInt(ts, 10, 64)
		if err != nil || !hmac.Equal([]byte(want), []byte(r.Header.Get("X-Service-Signature"))) {
			http.Error(w, "bad signature", http.StatusUnauthorized)
			return
		}
		if age := time.Since(time.Unix(sent, 0)); age > 5*time.Minute || age < -5*time.Minute {
			http.Error(w, "stale timestamp", http.StatusBadRequest)
			return
		}
		// The same check through the Standard Webhooks library (webhook-* headers).
		if err := wh.Verify(body, r.Header); err != nil {
			http.Error(w, "bad webhook-signature", http.StatusUnauthorized)
			return
		}
		id := r.Header.Get("X-Service-Delivery")
		mu.Lock()
		dup := seen[id]
		seen[id] = true
		mu.Unlock()
		if !dup {
			handle(r.Header.Get("X-Service-Event"), body)
		}
		w.WriteHeader(http.StatusNoContent) // any 2xx: a duplicate is acknowledged, not redone
	})
}

// receiver:end
