package httpapi_test

import (
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/certhub/credentiald/internal/testkit"
	"github.com/certhub/credentiald/internal/testkit/contract"
)

type assertionBody struct {
	Data struct {
		ID, BadgeID, AttendeeID, VerificationCode, VerificationURL, Status string
		RevokedAt                                                          *time.Time
		RevocationReason, RevocationReasonCode                             *string
	}
}

// One assertion is revoked without retiring its badge: the answer says so with the reason and
// its code; its verification answers revoked, its Open Badges 2.0 URL 410, its credential's
// status bit is set, one badge.revoked event is written (matching the contract's webhook
// body); revoking it again answers it unchanged with no second event; the other assertion of
// the badge is untouched; the credit is not returned; and issuing the badge to the same
// attendee again makes a new assertion, with a new code, for a credit.
func TestRevokingOneBadgeAssertionLeavesTheBadgeAndAllowsReissue(t *testing.T) {
	t.Parallel()
	b := newBadging(t)
	c := b.acct.Client
	badge := b.badge(t, map[string]any{"name": "Speaker"}).Data.ID
	ada, grace := b.attendee(t, "Ada"), b.attendee(t, "Grace")
	_, issued := b.issue(t, c, badge, ids(ada, grace))
	a, other := issued.Data[0], issued.Data[1]
	public := b.env.Client
	issuer := fetchIssuer(t, public, b.acct.ID.String())
	cred := signedCredential(t, public, a.VerificationCode, issuer)
	if revoked(t, public, cred, issuer) {
		t.Fatal("a valid assertion's bit is set")
	}
	used := b.creditsUsed(t)

	path := "/api/v1/badges/" + badge + "/assertions/" + a.ID + "/revoke"
	res := c.Post(path, map[string]any{"reason": "Did not give the talk", "reasonCode": "issued_in_error"})
	if res.StatusCode != 200 {
		t.Fatalf("revoke: %d %s", res.StatusCode, res.Body)
	}
	var got assertionBody
	res.JSON(t, &got)
	require.Equal(t, a.ID, got.Data.ID, "revoked: got.Data.ID")
	require.Equal(t, "revoked", got.Data.Status, "revoked: got.Data.Status")
	require.NotNil(t, got.Data.RevokedAt, "revoked: got.Data.RevokedAt")
	require.Equal(t, "Did not give the talk", deref(got.Data.RevocationReason), "revoked: deref(got.Data.RevocationReason)")
	require.Equal(t, "issued_in_error", deref(got.Data.RevocationReasonCode), "revoked: deref(got.Data.RevocationReasonCode)")
	require.Equal(t, b.env.Config.SiteURL.String()+"/verify/"+a.VerificationCode, got.Data.VerificationURL, "revoked: got.Data.VerificationURL")
	again := c.Post(path, map[string]any{"reasonCode": "fraud"})
	var second assertionBody
	again.JSON(t, &second)
	require.Equal(t, 200, again.StatusCode, "revoking again: status (body %s)", again.Body)
	require.Equal(t, mustJSON(t, got), mustJSON(t, second), "revoking again: the assertion, want it unchanged")

	var v struct {
		Data struct {
			Status                                 string
			RevocationReason, RevocationReasonCode *string
		}
	}
	public.Get("/api/v1/verify/"+a.VerificationCode).JSON(t, &v)
	require.Equal(t, "revoked", v.Data.Status, "verification: v.Data.Status")
	require.Equal(t, "Did not give the talk", deref(v.Data.RevocationReason), "verification: deref(v.Data.RevocationReason)")
	require.Equal(t, "issued_in_error", deref(v.Data.RevocationReasonCode), "verification: deref(v.Data.RevocationReasonCode)")
	res = public.Get("/ob/v2/assertions/" + a.ID)
	require.Equal(t, 410, res.StatusCode, "hosted assertion: status (body %s)", res.Body)
	require.Contains(t, string(res.Body), `"revocationReason":"Did not give the talk"`, "hosted assertion: body")
	if res := public.Get("/ob/v2/assertions/" + other.ID); res.StatusCode != 200 {
		t.Fatalf("the other assertion's hosted document: %d %s", res.StatusCode, res.Body)
	}
	if !revoked(t, public, cred, issuer) {
		t.Fatal("the revoked assertion's bit is clear")
	}
	if revoked(t, public, signedCredential(t, public, other.VerificationCode, issuer), issuer) {
		t.Fatal("the other assertion's bit is set")
	}
	var bd badgeBody
	c.Get("/api/v1/badges/"+badge).JSON(t, &bd)
	require.Equal(t, "active", bd.Data.Status, "badge status after a revocation")
	require.Equal(t, used, b.creditsUsed(t), "credits used after a revocation")

	events, err := b.env.Store.OutboxEvents(t.Context(), b.acct.ID)
	if err != nil {
		t.Fatal(err)
	}
	var revocations []map[string]any
	for _, e := range events {
		if e.EventType == "badge.revoked" {
			var body struct{ Data map[string]any }
			if err := json.Unmarshal(e.Payload, &body); err != nil {
				t.Fatal(err)
			}
			revocations = append(revocations, body.Data)
		}
	}
	require.Len(t, revocations, 1, "badge.revoked events: revocations")
	require.Equal(t, a.ID, revocations[0]["assertionId"], `badge.revoked events: revocations[0]["assertionId"]`)
	require.Equal(t, "issued_in_error", revocations[0]["reasonCode"], `badge.revoked events: revocations[0]["reasonCode"]`)
	require.Equal(t, a.VerificationCode, revocations[0]["verificationCode"], `badge.revoked events: revocations[0]["verificationCode"]`)
	checkOutbox(t, events)

	res, reissued := b.issue(t, c, badge, ids(ada, grace))
	if res.StatusCode != 200 {
		t.Fatalf("reissue: %d %s", res.StatusCode, res.Body)
	}
	fresh, held := reissued.Data[0], reissued.Data[1]
	require.False(t, fresh.AlreadyIssued, "reissue: fresh.AlreadyIssued")
	require.NotEqual(t, a.ID, fresh.ID, "reissue: fresh.ID")
	require.NotEqual(t, a.VerificationCode, fresh.VerificationCode, "reissue: fresh.VerificationCode")
	require.Equal(t, "active", fresh.Status, "reissue: fresh.Status")
	require.True(t, held.AlreadyIssued, "reissue: held.AlreadyIssued")
	require.Equal(t, other.ID, held.ID, "reissue: held.ID")
	require.Equal(t, used+1, b.creditsUsed(t), "reissue: credits used")
	var list struct {
		Data []struct{ ID, AttendeeID, Status string }
		Meta struct{ Total int }
	}
	c.Get("/api/v1/badges/"+badge+"/assertions").JSON(t, &list)
	statuses := map[string]string{}
	for _, x := range list.Data {
		statuses[x.ID] = x.Status
	}
	require.Equal(t, 3, list.Meta.Total, "assertions after reissue: list.Meta.Total")
	require.Equal(t, "revoked", statuses[a.ID], "assertions after reissue: statuses[a.ID]")
	require.Equal(t, "active", statuses[fresh.ID], "assertions after reissue: statuses[fresh.ID]")
	require.Equal(t, "active", statuses[other.ID], "assertions after reissue: statuses[other.ID]")
}

// Retiring a badge revokes each active assertion with a badge.revoked event; one revoked
// before keeps its own reason and sends no second event, and revoking any of them afterwards
// answers it unchanged.
func TestRetiringABadgeSendsOneRevocationPerActiveAssertion(t *testing.T) {
	t.Parallel()
	b := newBadging(t)
	c := b.acct.Client
	badge := b.badge(t, map[string]any{"name": "Speaker"}).Data.ID
	_, issued := b.issue(t, c, badge, ids(b.attendee(t, "Ada"), b.attendee(t, "Grace"), b.attendee(t, "Alan")))
	first := issued.Data[0].ID
	if res := c.Post("/api/v1/badges/"+badge+"/assertions/"+first+"/revoke", nil); res.StatusCode != 200 {
		t.Fatalf("revoke: %d %s", res.StatusCode, res.Body)
	}
	if res := c.Delete("/api/v1/badges/" + badge); res.StatusCode != 204 {
		t.Fatalf("retire: %d %s", res.StatusCode, res.Body)
	}
	events, err := b.env.Store.OutboxEvents(t.Context(), b.acct.ID)
	if err != nil {
		t.Fatal(err)
	}
	count := map[string]int{}
	for _, e := range events {
		if e.EventType == "badge.revoked" {
			var body struct {
				Data struct{ AssertionID, ReasonCode string }
			}
			if err := json.Unmarshal(e.Payload, &body); err != nil {
				t.Fatal(err)
			}
			count[body.Data.AssertionID]++
			if body.Data.AssertionID != first && body.Data.ReasonCode != "other" {
				t.Errorf("retirement's reason code: %s", body.Data.ReasonCode)
			}
		}
	}
	require.Len(t, count, 3, "badge.revoked per assertion: count")
	require.Equal(t, 1, count[first], "badge.revoked per assertion: count[first]")
	require.Equal(t, 1, count[issued.Data[1].ID], "badge.revoked per assertion: count[issued.Data[1].ID]")
	require.Equal(t, 1, count[issued.Data[2].ID], "badge.revoked per assertion: count[issued.Data[2].ID]")
	checkOutbox(t, events)
	var got assertionBody
	res := c.Post("/api/v1/badges/"+badge+"/assertions/"+issued.Data[1].ID+"/revoke", map[string]any{"reasonCode": "fraud"})
	res.JSON(t, &got)
	require.Equal(t, 200, res.StatusCode, "revoking an assertion of a retired badge: status (body %s)", res.Body)
	require.Equal(t, "revoked", got.Data.Status, "revoking an assertion of a retired badge: got.Data.Status")
	require.Equal(t, "other", deref(got.Data.RevocationReasonCode), "revoking an assertion of a retired badge: deref(got.Data.RevocationReasonCode)")
	require.Equal(t, "The issuer retired this badge.", deref(got.Data.RevocationReason), "revoking an assertion of a retired badge: deref(got.Data.RevocationReason)")
	var first2 assertionBody
	c.Post("/api/v1/badges/"+badge+"/assertions/"+first+"/revoke", nil).JSON(t, &first2)
	require.Nil(t, first2.Data.RevocationReason, "the assertion revoked before retirement: first2.Data.RevocationReason")
	require.Equal(t, "other", deref(first2.Data.RevocationReasonCode), "the assertion revoked before retirement: deref(first2.Data.RevocationReasonCode)")
}

// An assertion is reached only through its own badge of the caller's account: another
// account's, another badge's or an unknown one is 404, and nothing is revoked; an API key
// needs badges:write; a malformed id or reason code is 400 naming the field.
func TestRevokingAnAssertionIsScopedToItsBadgeAndAccount(t *testing.T) {
	t.Parallel()
	b := newBadging(t)
	c := b.acct.Client
	badge := b.badge(t, map[string]any{"name": "Speaker"}).Data.ID
	otherBadge := b.badge(t, map[string]any{"name": "Organiser"}).Data.ID
	_, issued := b.issue(t, c, badge, ids(b.attendee(t, "Ada")))
	a := issued.Data[0]
	stranger := testkit.SignUp(t, b.env)
	for name, tc := range map[string]struct {
		client *contract.Client
		path   string
	}{
		"another account":  {stranger.Client, "/api/v1/badges/" + badge + "/assertions/" + a.ID + "/revoke"},
		"another badge":    {c, "/api/v1/badges/" + otherBadge + "/assertions/" + a.ID + "/revoke"},
		"unknown":          {c, "/api/v1/badges/" + badge + "/assertions/" + uuid.NewString() + "/revoke"},
		"unknown badge id": {c, "/api/v1/badges/" + uuid.NewString() + "/assertions/" + a.ID + "/revoke"},
	} {
		res := tc.client.Post(tc.path, nil)
		if res.StatusCode != http.StatusNotFound {
			t.Errorf("%s: %d %s", name, res.StatusCode, res.Body)
		}
	}
	res := c.Post("/api/v1/badges/"+badge+"/assertions/not-a-uuid/revoke", nil)
	e := wantError(t, res, 400, res.StatusCode, "VALIDATION_ERROR")
	if assert.NotEmpty(t, e.Error.Details, "malformed id: e.Error.Details") {
		assert.Equal(t, "path.assertionId", e.Error.Details[0].Field, "malformed id: e.Error.Details[0].Field")
	}
	res = c.Post("/api/v1/badges/"+badge+"/assertions/"+a.ID+"/revoke", map[string]any{"reasonCode": "lost"})
	e = wantError(t, res, 400, res.StatusCode, "VALIDATION_ERROR")
	if assert.NotEmpty(t, e.Error.Details, "unknown reason code: e.Error.Details") {
		assert.Equal(t, "body.reasonCode", e.Error.Details[0].Field, "unknown reason code: e.Error.Details[0].Field")
	}
	_, reader := b.acct.APIKey(t, "badges:read")
	res = reader.Post("/api/v1/badges/"+badge+"/assertions/"+a.ID+"/revoke", nil)
	wantError(t, res, 403, res.StatusCode, "INSUFFICIENT_SCOPE")
	var v struct{ Data struct{ Status string } }
	b.env.Client.Get("/api/v1/verify/"+a.VerificationCode).JSON(t, &v)
	if v.Data.Status != "valid" {
		t.Fatalf("after refused revocations the assertion is %s", v.Data.Status)
	}
	_, writer := b.acct.APIKey(t, "badges:write")
	if res := writer.Post("/api/v1/badges/"+badge+"/assertions/"+a.ID+"/revoke", nil); res.StatusCode != 200 {
		t.Fatalf("with badges:write: %d %s", res.StatusCode, res.Body)
	}
}

// Open Badges 2.0 requires an issuer's url and email, a BadgeClass description and criteria
// with an id or a narrative (IMS Global's openbadges-validator-core, tasks/validation.py): on
// an account without branding, the site's address, the service's sender address and generated
// sentences stand in; branding's website and publicEmail replace them.
func TestOpenBadges2IssuerAndBadgeClassCarryWhatTheStandardRequires(t *testing.T) {
	t.Parallel()
	b := newBadging(t)
	badge := b.badge(t, map[string]any{"name": "Speaker"}).Data.ID
	b.issue(t, b.acct.Client, badge, ids(b.attendee(t, "Ada")))
	public := b.env.Client
	site := b.env.Config.SiteURL
	var issuer struct{ Name, URL, Email string }
	public.Get("/ob/v2/issuers/"+b.acct.ID.String()).JSON(t, &issuer)
	require.Equal(t, site.String(), issuer.URL, "issuer without branding: issuer.URL")
	require.Equal(t, "no-reply@"+site.Hostname(), issuer.Email, "issuer without branding: issuer.Email")
	var class struct {
		Description string
		Criteria    struct{ ID, Narrative string }
	}
	public.Get("/ob/v2/badges/"+badge).JSON(t, &class)
	if class.Description != "The Speaker badge, awarded by "+issuer.Name+"." {
		t.Fatalf("generated description: %q", class.Description)
	}
	// openbadges-validator-core's criteria rule: an external id or a narrative.
	if class.Criteria.ID == "" && class.Criteria.Narrative == "" {
		t.Fatalf("criteria without id or narrative: %+v", class.Criteria)
	}
	res := b.acct.Client.Put("/api/v1/branding", map[string]any{"website": "https://events.example.org", "publicEmail": "badges@events.example.org"})
	require.Equal(t, 200, res.StatusCode, "branding: status (body %s)", res.Body)
	require.Contains(t, string(res.Body), `"publicEmail":"badges@events.example.org"`, "branding: body")
	public.Get("/ob/v2/issuers/"+b.acct.ID.String()).JSON(t, &issuer)
	require.Equal(t, "https://events.example.org", issuer.URL, "issuer with branding: issuer.URL")
	require.Equal(t, "badges@events.example.org", issuer.Email, "issuer with branding: issuer.Email")
	res = b.acct.Client.Put("/api/v1/branding", map[string]any{"publicEmail": "not an address"})
	if e := wantError(t, res, 400, res.StatusCode, "VALIDATION_ERROR"); e.Error.Details[0].Field != "body.publicEmail" {
		t.Fatalf("bad publicEmail: %s", res.Body)
	}
}

func deref(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}
