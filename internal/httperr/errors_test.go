package httperr

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/certhub/credentiald/internal/apperr"
	"github.com/certhub/credentiald/internal/spec"
)

// The extra members of CREDIT_LIMIT and ALREADY_ISSUED reach the body, in the contract's shape.
func TestEnvelopeCarriesCreditsAndExisting(t *testing.T) {
	limit, remaining := 12, 0
	e := &apperr.Error{Code: apperr.CreditLimit, Message: "No credits left.",
		Credits:  &apperr.Credits{Limit: &limit, Used: 12, Remaining: &remaining, ResetsAt: time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)},
		Existing: &apperr.Existing{ID: "0192f5a0-7c1e-7d3a-9b2e-4f5a6b7c8d91", CertificateNumber: "CERT-2026-000042", VerificationCode: "7K2M9QXRT4VZ"}}
	raw, err := json.Marshal(Envelope(e))
	if err != nil {
		t.Fatal(err)
	}
	var v map[string]any
	_ = json.Unmarshal(raw, &v)
	if err := spec.MustLoad().Components.Schemas["Error"].Value.VisitJSON(v); err != nil {
		t.Fatalf("%s does not match the Error schema: %v", raw, err)
	}
	body := v["error"].(map[string]any)
	credits, _ := body["credits"].(map[string]any)
	existing, _ := body["existing"].(map[string]any)
	if credits["used"] != 12.0 || credits["resetsAt"] != "2026-12-01T00:00:00Z" || existing["id"] != "0192f5a0-7c1e-7d3a-9b2e-4f5a6b7c8d91" {
		t.Fatalf("%s", raw)
	}
}
