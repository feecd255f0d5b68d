package httpapi_test

import (
	"encoding/json"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/certhub/credentiald/internal/spec"
	"github.com/certhub/credentiald/internal/store"
)

// outboxSchemas maps an event type to the contract's schema of its webhook body.
var outboxSchemas = map[string]string{
	"certificate.issued":     "CertificateIssuedEvent",
	"certificate.revoked":    "CertificateRevokedEvent",
	"certificate.sent":       "CertificateSentEvent",
	"certificate.viewed":     "CertificateViewedEvent",
	"certificate.downloaded": "CertificateDownloadedEvent",
	"badge.revoked":          "BadgeRevokedEvent",
	"badge.issued":           "BadgeIssuedEvent",
	"job.completed":          "JobCompletedEvent",
	"certificate.claimed":    "CertificateClaimedEvent",
	"badge.claimed":          "BadgeClaimedEvent",
}

// checkOutbox validates every outbox event of the account against the contract's webhook
// body schemas, so that what a later delivery sends is what the contract documents.
func checkOutbox(t *testing.T, events []store.OutboxEvent) {
	t.Helper()
	doc := spec.MustLoad()
	for _, e := range events {
		name := outboxSchemas[e.EventType]
		ref := doc.Components.Schemas[name]
		if ref == nil {
			t.Fatalf("no schema for %s", e.EventType)
		}
		var v any
		if err := json.Unmarshal(e.Payload, &v); err != nil {
			t.Fatal(err)
		}
		if err := ref.Value.VisitJSON(v, openapi3.MultiErrors()); err != nil {
			t.Errorf("%s does not match %s: %v\n%s", e.EventType, name, err, e.Payload)
		}
	}
}
