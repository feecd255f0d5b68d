package issuance_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/certhub/credentiald/internal/apperr"
	"github.com/certhub/credentiald/internal/issuance"
)

// The operator's contact ends a CREDIT_LIMIT message, wrapped or not, on a copy of the error;
// without a contact, and on any other error, nothing changes.
func TestNameOperatorContactEndsOnlyCreditLimitMessages(t *testing.T) {
	t.Parallel()
	const refused = "No credits left this month: the free plan has 12; they renew on 1 December 2026."
	for _, c := range []struct {
		name, contact string
		err           error
		want          string // the message after; empty: err comes back as it is
	}{
		{"credit limit", "billing@example.org", apperr.New(apperr.CreditLimit, refused),
			refused + " For a larger plan, ask billing@example.org."},
		{"credit limit, wrapped", "https://example.org/plans", fmt.Errorf("issuing: %w", apperr.New(apperr.CreditLimit, refused)),
			refused + " For a larger plan, ask https://example.org/plans."},
		{"a contact ending its own sentence", "ACME Billing Ltd.", apperr.New(apperr.CreditLimit, refused),
			refused + " For a larger plan, ask ACME Billing Ltd."},
		{"no contact", "", apperr.New(apperr.CreditLimit, refused), ""},
		{"another code", "billing@example.org", apperr.New(apperr.Conflict, "The badge is retired."), ""},
		{"not an application error", "billing@example.org", errors.New("connection reset"), ""},
		{"no error", "billing@example.org", nil, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := issuance.NameOperatorContact(c.err, c.contact)
			if c.want == "" {
				require.Equal(t, c.err, got)
				return
			}
			e, ok := apperr.As(got)
			require.True(t, ok, "an application error")
			require.Equal(t, apperr.CreditLimit, e.Code)
			require.Equal(t, c.want, e.Message)
			original, _ := apperr.As(c.err)
			require.Equal(t, refused, original.Message, "the original error's message")
		})
	}
}
