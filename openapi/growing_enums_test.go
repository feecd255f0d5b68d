package openapi_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/certhub/credentiald/openapi"
)

// The decision "Growing enums": the values of answers and webhooks that may grow within v1 are
// published as x-extensible-enum (no enum, no const), and what requests may send stays a
// closed enum, so an unknown value in a request is still refused by the request validator.
func TestGrowingEnumsArePublishedAsExtensibleAndRequestsStayClosed(t *testing.T) {
	var doc map[string]any
	require.NoError(t, json.Unmarshal(openapi.Document, &doc))
	at := func(path string) map[string]any {
		t.Helper()
		var cur any = doc
		for _, p := range strings.Split(path, "/") {
			m, ok := cur.(map[string]any)
			require.True(t, ok, "%s: %s is not an object", path, p)
			cur = m[p]
		}
		m, ok := cur.(map[string]any)
		require.True(t, ok, "%s is not an object", path)
		return m
	}
	growing := []string{
		"components/schemas/ErrorCode",
		"components/schemas/CertificateStatus",
		"components/schemas/RevocationReasonCode",
		"components/schemas/UserRole",
		"components/schemas/Scope",
		"components/schemas/WebhookEventType",
		"components/schemas/WebhookSubscriptionEvent",
		"components/schemas/VerificationResult/properties/status",
		"components/schemas/BadgeAssertion/properties/status",
		"components/schemas/IssuedBadgeAssertion/properties/status",
		"components/schemas/VerificationResult/properties/revocationReasonCode",
		"components/schemas/Certificate/properties/revocationReasonCode",
		"components/schemas/BadgeAssertion/properties/revocationReasonCode",
		"components/schemas/IssuedBadgeAssertion/properties/revocationReasonCode",
		"components/schemas/BadgeRevokedEventData/properties/reasonCode",
		"components/schemas/ErrorBody/properties/required",
		"components/schemas/BitstringStatusListEntry/properties/statusPurpose",
		"components/schemas/BitstringStatusListCredential/properties/credentialSubject/properties/statusPurpose",
		"components/schemas/TemplateLayout/properties/locale",
	}
	for _, path := range growing {
		s := at(path)
		require.NotContains(t, s, "enum", "%s: a growing enum must not be closed", path)
		require.NotContains(t, s, "const", "%s: a growing enum must not be a const", path)
		known, ok := s["x-extensible-enum"].([]any)
		require.True(t, ok, "%s: no x-extensible-enum", path)
		require.NotEmpty(t, known, "%s: x-extensible-enum lists no value", path)
	}
	closed := []string{
		"components/schemas/CertificateStatusFilter",
		"components/schemas/RequestedScope",
		"components/schemas/WebhookEventKind",
		"components/schemas/WebhookEventPattern",
	}
	for _, path := range closed {
		require.NotEmpty(t, at(path)["enum"], "%s: a request's values stay a closed enum", path)
	}
	require.Equal(t, "#/components/schemas/RequestedScope",
		at("components/schemas/ApiKeyCreateRequest/properties/scopes/items")["$ref"], "an API key is created with closed scopes")
	for _, req := range []string{"WebhookCreateRequest", "WebhookUpdateRequest"} {
		require.Equal(t, "#/components/schemas/WebhookSubscriptionEventRequest",
			at("components/schemas/" + req + "/properties/events/items")["$ref"], "%s: a subscription is made of closed kinds and patterns", req)
	}
}
