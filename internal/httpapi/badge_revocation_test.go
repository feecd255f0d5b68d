package httpapi_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

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
	if got.Data.ID != a.ID || got.Data.Status != "revoked" || got.Data.RevokedAt == nil ||
		deref(got.Data.RevocationReason) != "Did not give the talk" || deref(got.Data.RevocationReasonCode) != "issued_in_error" ||
		got.Data.VerificationURL != b.env.Config.SiteURL.String()+"/verify/"+a.VerificationCode {
		t.Fatalf("revoked: %s", res.Body)
	}
	again := c.Post(path, map[string]any{"reasonCode": "fraud"})
	var second assertionBody
	again.JSON(t, &second)
	if again.StatusCode != 200 || mustJSON(t, second) != mustJSON(t, got) {
		t.Fatalf("revoking again: %d %s, want it unchanged", again.StatusCode, again.Body)
	}

	var v struct {
		Data struct {
			Status                                 string
			RevocationReason, RevocationReasonCode *string
		}
	}
	public.Get("/api/v1/verify/"+a.VerificationCode).JSON(t, &v)
	if v.Data.Status != "revoked" || deref(v.Data.RevocationReason) != "Did not give the talk" || deref(v.Data.RevocationReasonCode) != "issued_in_error" {
		t.Fatalf("verification: %+v", v.Data)
	}
	if res := public.Get("/ob/v2/assertions/" + a.ID); res.StatusCode != 410 || !strings.Contains(string(res.Body), `"revocationReason":"Did not give the talk"`) {
		t.Fatalf("hosted assertion: %d %s", res.StatusCode, res.Body)
	}
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
	if bd.Data.Status != "active" || b.creditsUsed(t) != used {
		t.Fatalf("badge %s, credits used %d (was %d)", bd.Data.Status, b.creditsUsed(t), used)
	}

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
	if len(revocations) != 1 || revocations[0]["assertionId"] != a.ID || revocations[0]["reasonCode"] != "issued_in_error" ||
		revocations[0]["verificationCode"] != a.VerificationCode {
		t.Fatalf("badge.revoked events: %v", revocations)
	}
	checkOutbox(t, events)

	res, reissued := b.issue(t, c, badge, ids(ada, grace))
	if res.StatusCode != 200 {
		t.Fatalf("reissue: %d %s", res.StatusCode, res.Body)
	}
	fresh, held := reissued.Data[0], reissued.Data[1]
	if fresh.AlreadyIssued || fresh.ID == a.ID || fresh.VerificationCode == a.VerificationCode || fresh.Status != "active" ||
		!held.AlreadyIssued || held.ID != other.ID || b.creditsUsed(t) != used+1 {
		t.Fatalf("reissue: %s (credits used %d, was %d)", res.Body, b.creditsUsed(t), used)
	}
	var list struct {
		Data []struct{ ID, AttendeeID, Status string }
		Meta struct{ Total int }
	}
	c.Get("/api/v1/badges/"+badge+"/assertions").JSON(t, &list)
	statuses := map[string]string{}
	for _, x := range list.Data {
		statuses[x.ID] = x.Status
	}
	if list.Meta.Total != 3 || statuses[a.ID] != "revoked" || statuses[fresh.ID] != "active" || statuses[other.ID] != "active" {
		t.Fatalf("assertions after reissue: %+v", list)
	}
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
	if len(count) != 3 || count[first] != 1 || count[issued.Data[1].ID] != 1 || count[issued.Data[2].ID] != 1 {
		t.Fatalf("badge.revoked per assertion: %v", count)
	}
	checkOutbox(t, events)
	var got assertionBody
	res := c.Post("/api/v1/badges/"+badge+"/assertions/"+issued.Data[1].ID+"/revoke", map[string]any{"reasonCode": "fraud"})
	res.JSON(t, &got)
	if res.StatusCode != 200 || got.Data.Status != "revoked" || deref(got.Data.RevocationReasonCode) != "other" ||
		deref(got.Data.RevocationReason) != "The issuer retired this badge." {
		t.Fatalf("revoking an assertion of a retired badge: %d %s", res.StatusCode, res.Body)
	}
	var first2 assertionBody
	c.Post("/api/v1/badges/"+badge+"/assertions/"+first+"/revoke", nil).JSON(t, &first2)
	if first2.Data.RevocationReason != nil || deref(first2.Data.RevocationReasonCode) != "other" {
		t.Fatalf("the assertion revoked before retirement: %+v", first2.Data)
	}
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
	if e := wantError(t, res, 400, res.StatusCode, "VALIDATION_ERROR"); len(e.Error.Details) == 0 || e.Error.Details[0].Field != "path.assertionId" {
		t.Errorf("malformed id: %s", res.Body)
	}
	res = c.Post("/api/v1/badges/"+badge+"/assertions/"+a.ID+"/revoke", map[string]any{"reasonCode": "lost"})
	if e := wantError(t, res, 400, res.StatusCode, "VALIDATION_ERROR"); len(e.Error.Details) == 0 || e.Error.Details[0].Field != "body.reasonCode" {
		t.Errorf("unknown reason code: %s", res.Body)
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
	if issuer.URL != site.String() || issuer.Email != "no-reply@"+site.Hostname() {
		t.Fatalf("issuer without branding: %+v", issuer)
	}
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
	if res.StatusCode != 200 || !strings.Contains(string(res.Body), `"publicEmail":"badges@events.example.org"`) {
		t.Fatalf("branding: %d %s", res.StatusCode, res.Body)
	}
	public.Get("/ob/v2/issuers/"+b.acct.ID.String()).JSON(t, &issuer)
	if issuer.URL != "https://events.example.org" || issuer.Email != "badges@events.example.org" {
		t.Fatalf("issuer with branding: %+v", issuer)
	}
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
