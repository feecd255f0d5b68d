package webhooks

import (
	"context"
	"fmt"

	"github.com/google/uuid"

	"github.com/certhub/credentiald/internal/secretbox"
	"github.com/certhub/credentiald/internal/store"
)

// ResealSecrets seals again, under the box's current key, every signing secret sealed under
// another key the box holds (a key rotation), and returns how many it sealed. A secret
// changed meanwhile is left as it is now.
func ResealSecrets(ctx context.Context, st *store.Store, box *secretbox.Box) (int, error) {
	n := 0
	after := uuid.Nil
	for {
		batch, err := st.WebhookSecrets(ctx, after, 500)
		if err != nil || len(batch) == 0 {
			return n, err
		}
		for _, s := range batch {
			after = s.ID
			if box.Current(s.Sealed) {
				continue
			}
			plain, err := box.Open(s.Sealed, associated(s.ID))
			if err != nil {
				return n, fmt.Errorf("the signing secret of webhook subscription %s: %w (is its key in SECRETS_KEY_PREVIOUS?)", s.ID, err)
			}
			sealed, err := box.Seal(plain, associated(s.ID))
			if err != nil {
				return n, err
			}
			if ok, err := st.ReplaceWebhookSecret(ctx, s.ID, s.Sealed, sealed); err != nil {
				return n, err
			} else if ok {
				n++
			}
		}
	}
}
