package auth

import (
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/certhub/credentiald/internal/domain"
	"github.com/certhub/credentiald/internal/email"
	"github.com/certhub/credentiald/internal/store"
)

// The new-key notice, as recorded, becomes the branded email's detail rows: every line of its
// block is "Label: value" (a sentence among them had left the block one run-on paragraph).
func TestTheKeyNoticeDetailsBecomeRows(t *testing.T) {
	at := time.Date(2026, 11, 23, 9, 30, 0, 0, time.UTC)
	for expires, want := range map[*time.Time]string{nil: "never", &at: "23 November 2026, 09:30 UTC"} {
		k := domain.APIKey{ID: uuid.New(), Name: "ci", Prefix: "ck_live_abcd", Scopes: []string{"events:read", "events:write"},
			CreatedAt: at, ExpiresAt: expires}
		n := newKeyNotice(domain.User{Name: "Ada", Email: "ada@example.org"},
			store.Profile{User: domain.User{Email: "grace@example.org"}, Account: domain.Account{Name: "Academy"}}, k)
		b := email.FromText(domain.EmailDelivery{OutboundEmail: n}, email.Brand{Name: "Academy"})
		if len(b.Details) != 6 || b.Details[2] != [2]string{"Scopes", "events:read, events:write"} || b.Details[5] != [2]string{"Expires", want} {
			t.Fatalf("details %q", b.Details)
		}
		// Written for the owner, a person: what to do names the key, not an API call.
		words := strings.Join(append(b.Paragraphs, b.Closing...), " ")
		if strings.Contains(n.BodyText, "/api/") || strings.Contains(n.BodyText, "DELETE") || !strings.Contains(words, `delete the key named "ci"`) {
			t.Fatalf("the notice's words:\n%s", n.BodyText)
		}
	}
}
