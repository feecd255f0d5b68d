package httpapi_test

import (
	"encoding/json"
	"net/http"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/certhub/credentiald/internal/spec"
	"github.com/certhub/credentiald/internal/testkit"
	"github.com/certhub/credentiald/internal/testkit/contract"
)

// notAudited names the operations that need credentials and are not GET yet write no entry of
// the audit log, each with why.
var notAudited = map[string]string{
	"previewTemplate": "renders a preview and changes nothing",
}

// auditedOperations derives from the document which operations must write one entry: every
// operation that needs this service's credentials and is not GET or HEAD, but notAudited; and
// the public ones that name an action (an invitation accepted). Each must name its action in
// x-audit-action.
func auditedOperations(t *testing.T) map[string]string {
	t.Helper()
	doc := spec.MustLoad()
	out := map[string]string{}
	for _, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			action, _ := op.Extensions["x-audit-action"].(string)
			credentialed := op.Security == nil || slices.ContainsFunc(*op.Security, func(r openapi3.SecurityRequirement) bool {
				_, ok := r["bearerAuth"]
				return ok
			})
			if credentialed && method != http.MethodGet && method != http.MethodHead {
				if _, ok := notAudited[op.OperationID]; ok {
					require.Empty(t, action, "%s is listed as not audited but names an action", op.OperationID)
					continue
				}
				require.NotEmpty(t, action, "%s changes the account: it must name its x-audit-action", op.OperationID)
			}
			if action != "" {
				out[op.OperationID] = action
			}
		}
	}
	return out
}

type auditRow struct {
	Action, ActorType, ActorName string
	ActorID                      *uuid.UUID
	ResourceType, ResourceID     *string
	Summary                      string
}

// Every audited operation, called as an organiser would, writes exactly one entry, with its
// action, its actor and (where the operation names one) its resource, in the transaction of
// its change: none is ever written apart.
func TestEveryAuditedOperationWritesOneEntryInTheTransactionOfItsChange(t *testing.T) {
	t.Parallel()
	audited := auditedOperations(t)
	dns := testkit.DNSServer(t)
	tm := newTeam(t, ssoOptions(dns)...)
	env, owner := tm.env, tm.owner
	var ownerID uuid.UUID
	var me struct{ Data struct{ ID uuid.UUID } }
	owner.Client.Get("/api/v1/auth/me").JSON(t, &me)
	ownerID = me.Data.ID

	count := func() int {
		var n int
		testkit.QueryRow(t, env, `SELECT count(*) FROM audit_log`, nil, &n)
		return n
	}
	done := map[string]bool{}
	// call sends a request of the operation and checks the one entry it wrote; it returns the
	// answer's data.
	call := func(c *contract.Client, actor uuid.UUID, op, method, path string, body any, resourceID string) map[string]any {
		t.Helper()
		before := count()
		var res *contract.Response
		if send, ok := body.(func() *contract.Response); ok {
			res = send()
		} else {
			res = c.Do(c.Request(method, path, body))
		}
		require.Less(t, res.StatusCode, 300, "%s: %s", op, res.Body)
		require.Equal(t, before+1, count(), "%s: entries written", op)
		var row auditRow
		testkit.QueryRow(t, env, `SELECT action, actor_type, actor_name, actor_id, resource_type, resource_id, summary
			FROM audit_log ORDER BY at DESC, id DESC LIMIT 1`, nil,
			&row.Action, &row.ActorType, &row.ActorName, &row.ActorID, &row.ResourceType, &row.ResourceID, &row.Summary)
		require.Equal(t, audited[op], row.Action, "%s: action", op)
		if actor != uuid.Nil {
			require.NotNil(t, row.ActorID, "%s: actor", op)
			require.Equal(t, actor, *row.ActorID, "%s: actor", op)
		}
		if resourceID != "" {
			require.NotNil(t, row.ResourceID, "%s: resource", op)
			require.Equal(t, resourceID, *row.ResourceID, "%s: resource", op)
		}
		done[op] = true
		var out struct{ Data map[string]any }
		if len(res.Body) > 0 && strings.HasPrefix(res.Header.Get("Content-Type"), "application/json") {
			_ = json.Unmarshal(res.Body, &out)
		}
		return out.Data
	}
	id := func(m map[string]any) string { return m["id"].(string) }
	o := owner.Client

	tmpl := call(o, ownerID, "createTemplate", "POST", "/api/v1/templates", example(t, "createTemplate"), "")
	call(o, ownerID, "updateTemplate", "PUT", "/api/v1/templates/"+id(tmpl), example(t, "updateTemplate"), id(tmpl))
	dup := call(o, ownerID, "duplicateTemplate", "POST", "/api/v1/templates/"+id(tmpl)+"/duplicate", nil, "")
	call(o, ownerID, "deleteTemplate", "DELETE", "/api/v1/templates/"+id(dup), nil, id(dup))

	evBody := example(t, "createEvent")
	evBody["templateId"] = id(tmpl)
	ev := call(o, ownerID, "createEvent", "POST", "/api/v1/events", evBody, "")
	requireResource(t, env, "event.created", id(ev))
	call(o, ownerID, "updateEvent", "PUT", "/api/v1/events/"+id(ev), evBody, id(ev))
	call(o, ownerID, "updateEventRegistration", "PUT", "/api/v1/events/"+id(ev)+"/registration", example(t, "updateEventRegistration"), id(ev))

	gone := call(o, ownerID, "createEvent", "POST", "/api/v1/events", evBody, "")
	call(o, ownerID, "deleteEvent", "DELETE", "/api/v1/events/"+id(gone), nil, id(gone))

	at := call(o, ownerID, "createAttendee", "POST", "/api/v1/attendees", map[string]any{"eventId": id(ev), "firstName": "Ada",
		"lastName": "Lovelace", "email": "ada@example.org"}, "")
	requireResource(t, env, "attendee.created", id(at))
	call(o, ownerID, "updateAttendee", "PUT", "/api/v1/attendees/"+id(at), map[string]any{"email": "ada.lovelace@example.org"}, id(at))
	upload := func() *contract.Response {
		return o.Upload("/api/v1/attendees/import?eventId="+id(ev), "file", "attendees.csv",
			[]byte("firstName,lastName,email\nGrace,Hopper,grace@example.org\nAlan,Turing,alan@example.org\n"))
	}
	call(o, ownerID, "importAttendees", "", "", upload, "")
	spare := call(o, ownerID, "createAttendee", "POST", "/api/v1/attendees", map[string]any{"eventId": id(ev), "firstName": "Spare",
		"lastName": "Person", "email": "spare@example.org"}, "")
	call(o, ownerID, "deleteAttendee", "DELETE", "/api/v1/attendees/"+id(spare), nil, id(spare))
	leaving := call(o, ownerID, "createAttendee", "POST", "/api/v1/attendees", map[string]any{"eventId": id(ev), "firstName": "Leaving",
		"lastName": "Person", "email": "leaving@example.org"}, "")
	call(o, ownerID, "eraseAttendee", "POST", "/api/v1/attendees/"+id(leaving)+"/erase", nil, id(leaving))
	call(o, ownerID, "erasePerson", "POST", "/api/v1/privacy/erasures", map[string]any{"email": "grace@example.org"}, "")

	cert := call(o, ownerID, "generateCertificate", "POST", "/api/v1/certificates/generate", map[string]any{"templateId": id(tmpl),
		"eventId": id(ev), "attendeeId": id(at), "sendEmail": false}, "")
	requireResource(t, env, "certificate.generated", id(cert))
	call(o, ownerID, "regenerateCertificate", "POST", "/api/v1/certificates/"+id(cert)+"/regenerate", nil, id(cert))
	call(o, ownerID, "sendCertificate", "POST", "/api/v1/certificates/"+id(cert)+"/send", nil, id(cert))
	call(o, ownerID, "createCertificateWalletOffer", "POST", "/api/v1/certificates/"+id(cert)+"/wallet-offers", nil, "")
	call(o, ownerID, "sendBulkEmail", "POST", "/api/v1/email/send-bulk", map[string]any{"eventId": id(ev), "onlyUnsent": false}, "")
	call(o, ownerID, "revokeCertificate", "POST", "/api/v1/certificates/"+id(cert)+"/revoke", example(t, "revokeCertificate"), id(cert))
	call(o, ownerID, "bulkGenerateCertificates", "POST", "/api/v1/events/"+id(ev)+"/certificates/generate", map[string]any{"sendEmail": false}, "")
	call(o, ownerID, "createBulkGenerationJob", "POST", "/api/v1/events/"+id(ev)+"/certificates/generate/jobs", map[string]any{"sendEmail": false}, "")
	var certs struct{ Data []struct{ ID, Status string } }
	o.Get("/api/v1/events/"+id(ev)+"/certificates").JSON(t, &certs)
	for _, c := range certs.Data {
		if c.Status == "valid" {
			call(o, ownerID, "deleteCertificate", "DELETE", "/api/v1/certificates/"+c.ID, nil, c.ID)
			break
		}
	}

	badge := call(o, ownerID, "createBadge", "POST", "/api/v1/badges", example(t, "createBadge"), "")
	call(o, ownerID, "updateBadge", "PUT", "/api/v1/badges/"+id(badge), example(t, "updateBadge"), id(badge))
	issued := call(o, ownerID, "issueBadge", "POST", "/api/v1/badges/"+id(badge)+"/issue", map[string]any{"attendeeIds": []string{id(at)}, "sendEmail": false}, "")
	_ = issued
	var assertions struct{ Data []struct{ ID string } }
	o.Get("/api/v1/badges/"+id(badge)+"/assertions").JSON(t, &assertions)
	require.NotEmpty(t, assertions.Data)
	as := assertions.Data[0].ID
	call(o, ownerID, "createBadgeAssertionWalletOffer", "POST", "/api/v1/badges/"+id(badge)+"/assertions/"+as+"/wallet-offers", nil, "")
	call(o, ownerID, "revokeBadgeAssertion", "POST", "/api/v1/badges/"+id(badge)+"/assertions/"+as+"/revoke", example(t, "revokeBadgeAssertion"), as)
	other := call(o, ownerID, "createBadge", "POST", "/api/v1/badges", example(t, "createBadge"), "")
	call(o, ownerID, "deleteBadge", "DELETE", "/api/v1/badges/"+id(other), nil, id(other))

	hook := call(o, ownerID, "createWebhook", "POST", "/api/v1/webhooks", example(t, "createWebhook"), "")
	requireResource(t, env, "webhook.created", id(hook))
	call(o, ownerID, "updateWebhook", "PUT", "/api/v1/webhooks/"+id(hook), example(t, "updateWebhook"), id(hook))
	call(o, ownerID, "testWebhook", "POST", "/api/v1/webhooks/"+id(hook)+"/test", nil, id(hook))
	call(o, ownerID, "deleteWebhook", "DELETE", "/api/v1/webhooks/"+id(hook), nil, id(hook))
	call(o, ownerID, "updateBranding", "PUT", "/api/v1/branding", map[string]any{"issuerName": "Analytical Society"}, "")
	call(o, ownerID, "updateRetention", "PUT", "/api/v1/account/retention", map[string]any{"emailBodiesDays": 30,
		"webhookPayloadsDays": 14, "auditLogDays": 400}, owner.ID.String())

	key := call(o, ownerID, "createApiKey", "POST", "/api/v1/api-keys", map[string]any{"name": "CRM", "scopes": []string{"events:read"}}, "")
	call(o, ownerID, "deleteApiKey", "DELETE", "/api/v1/api-keys/"+id(key), nil, id(key))

	var setup struct{ Data struct{ Secret string } }
	setupRes := call(o, ownerID, "setupTwoFactor", "POST", "/api/v1/auth/two-factor/setup", nil, "")
	setup.Data.Secret = setupRes["secret"].(string)
	call(o, ownerID, "enableTwoFactor", "POST", "/api/v1/auth/two-factor/enable", map[string]any{"code": totp(t, setup.Data.Secret, time.Now())}, "")
	call(o, ownerID, "disableTwoFactor", "POST", "/api/v1/auth/two-factor/disable", map[string]any{"currentPassword": testkit.Password,
		"code": totp(t, setup.Data.Secret, time.Now().Add(30*time.Second))}, "") // the next step's code: the one above works once

	// Single sign-on: set up, a domain verified by its TXT record, a sign-in through the
	// provider (the new member's own act), taken down.
	w := ssoWorldOf(t, tm, dns)
	call(o, ownerID, "putSingleSignOn", "PUT", "/api/v1/account/sso", map[string]any{"issuer": w.provider.Issuer,
		"clientId": w.provider.ClientID, "clientSecret": w.provider.ClientSecret, "defaultRole": "viewer", "enforced": false}, owner.ID.String())
	dom := call(o, ownerID, "addSsoDomain", "POST", "/api/v1/account/sso/domains", map[string]any{"domain": w.acmeDomain}, w.acmeDomain)
	dns.Publish(w.acmeDomain, dom["verificationRecord"].(string))
	call(o, ownerID, "verifySsoDomain", "POST", "/api/v1/account/sso/domains/"+w.acmeDomain+"/verify", nil, w.acmeDomain)
	call(env.Client, uuid.Nil, "exchangeSingleSignOnCode", "", "", func() *contract.Response {
		return w.signIn(t, "ada@"+w.acmeDomain, "ada", nil)
	}, "")
	call(o, ownerID, "deleteSsoDomain", "DELETE", "/api/v1/account/sso/domains/"+w.acmeDomain, nil, w.acmeDomain)
	call(o, ownerID, "deleteSingleSignOn", "DELETE", "/api/v1/account/sso", nil, owner.ID.String())

	// Members: the invitation accepted is the new member's own act.
	call(o, ownerID, "createInvitation", "POST", "/api/v1/members/invitations", map[string]any{"email": "kept@example.org", "role": "issuer"}, "")
	token := tm.messageTo(t, "kept@example.org")
	token = inviteToken(t, token)
	joined := call(env.Client, uuid.Nil, "acceptInvitation", "POST", "/api/v1/auth/invitations/accept",
		map[string]any{"token": token, "name": "Kept Member", "password": testkit.Password}, "")
	_ = joined
	var members struct{ Data []struct{ ID, Email string } }
	o.Get("/api/v1/members").JSON(t, &members)
	var kept string
	for _, m := range members.Data {
		if m.Email == "kept@example.org" {
			kept = m.ID
		}
	}
	require.NotEmpty(t, kept)
	var actor uuid.UUID
	testkit.QueryRow(t, env, `SELECT actor_id FROM audit_log WHERE action = 'member.joined'`, nil, &actor)
	require.Equal(t, kept, actor.String(), "the accepted invitation's actor is the new member")
	call(o, ownerID, "updateMember", "PUT", "/api/v1/members/"+kept, map[string]any{"role": "admin"}, kept)
	inv := call(o, ownerID, "createInvitation", "POST", "/api/v1/members/invitations", map[string]any{"email": "gone@example.org", "role": "viewer"}, "")
	call(o, ownerID, "revokeInvitation", "DELETE", "/api/v1/members/invitations/"+id(inv), nil, id(inv))
	call(o, ownerID, "transferOwnership", "POST", "/api/v1/account/owner", map[string]any{"memberId": kept, "currentPassword": testkit.Password}, kept)
	dropped := tm.join(t, "viewer")
	call(o, ownerID, "deleteMember", "DELETE", "/api/v1/members/"+dropped.ID.String(), nil, dropped.ID.String())
	// The sign-in lifecycle.
	call(env.Client, uuid.Nil, "register", "POST", "/api/v1/auth/register", map[string]any{"email": "newcomer@example.org",
		"password": testkit.Password, "name": "Newcomer", "accountName": "Newcomers"}, "")
	tm.messageTo(t, "newcomer@example.org")
	call(env.Client, ownerID, "login", "POST", "/api/v1/auth/login", map[string]any{"email": owner.Email, "password": testkit.Password}, "")
	testkit.SQL(t, env, `UPDATE users SET email_verified_at = NULL WHERE email = $1`, owner.Email) // the fixture verified it
	call(o, ownerID, "resendVerificationEmail", "POST", "/api/v1/auth/email/resend", nil, ownerID.String())
	call(o, ownerID, "changePassword", "POST", "/api/v1/auth/password/change", map[string]any{"currentPassword": testkit.Password,
		"newPassword": "a brand new passphrase"}, ownerID.String())
	second, _ := signIn(t, env, owner.Email, "a brand new passphrase")
	var mine struct {
		Data []struct {
			ID      string
			Current bool
		}
	}
	second.Get("/api/v1/auth/sessions").JSON(t, &mine)
	for _, s := range mine.Data {
		if s.Current {
			call(o, ownerID, "endSession", "DELETE", "/api/v1/auth/sessions/"+s.ID, nil, s.ID)
		}
	}
	require.Equal(t, 202, env.Client.Post("/api/v1/auth/password/forgot", map[string]any{"email": owner.Email}).StatusCode)
	texts := ""
	_, err := runEmail(t, env)
	require.NoError(t, err)
	for _, m := range tm.smtp.Messages()[tm.seen:] {
		texts += plainText(t, string(m.Data))
	}
	tm.seen = len(tm.smtp.Messages())
	call(env.Client, ownerID, "resetPassword", "POST", "/api/v1/auth/password/reset", map[string]any{"token": linkToken(t, "reset", texts),
		"password": testkit.Password}, ownerID.String())
	o, fresh := signIn(t, env, owner.Email, testkit.Password)
	call(o, ownerID, "logout", "POST", "/api/v1/auth/logout", map[string]any{"refreshToken": fresh.Data.RefreshToken}, "")

	var missing []string
	for op := range audited {
		if !done[op] {
			missing = append(missing, op)
		}
	}
	sort.Strings(missing)
	require.Empty(t, missing, "audited operations this test did not call")
	require.NotContains(t, env.Logs(), "audit entry written apart", "an entry was not written in the transaction of its change")
}

// inviteToken finds the token of an invitation's link in its email's text.
func inviteToken(t *testing.T, text string) string {
	t.Helper()
	_, after, ok := strings.Cut(text, "/app/#invite=")
	require.True(t, ok, "no invitation link in:\n%s", text)
	return strings.Fields(after)[0]
}

// example is a copy of the example of an operation's JSON request body.
func example(t *testing.T, opID string) map[string]any {
	t.Helper()
	doc := spec.MustLoad()
	for _, item := range doc.Paths.Map() {
		for _, op := range item.Operations() {
			if op.OperationID != opID {
				continue
			}
			raw, err := json.Marshal(op.RequestBody.Value.Content.Get("application/json").Schema.Value.Example)
			require.NoError(t, err)
			var out map[string]any
			require.NoError(t, json.Unmarshal(raw, &out))
			return out
		}
	}
	t.Fatalf("no operation %s", opID)
	return nil
}

// requireResource checks that the newest entry of action names the resource id (a creation
// names what it created).
func requireResource(t *testing.T, env *testkit.Env, action, id string) {
	t.Helper()
	var got *string
	testkit.QueryRow(t, env, `SELECT resource_id FROM audit_log WHERE action = $1 ORDER BY at DESC, id DESC LIMIT 1`, []any{action}, &got)
	require.NotNil(t, got, "%s names no resource", action)
	require.Equal(t, id, *got, "%s's resource", action)
}

// A failed sign-in of an address that has a user is in that account's audit log, written by
// the service, naming the user and holding the address only as a hash; a failure for an
// unknown address is in no account's log.
func TestAFailedSignInIsAuditedWithTheAddressHashed(t *testing.T) {
	t.Parallel()
	env := testkit.NewServer(t)
	acct := testkit.SignUp(t, env)
	var me struct{ Data struct{ ID string } }
	acct.Client.Get("/api/v1/auth/me").JSON(t, &me)
	wantError(t, env.Client.Post("/api/v1/auth/login", map[string]any{"email": acct.Email, "password": "not the password"}),
		401, 401, "INVALID_CREDENTIALS")
	wantError(t, env.Client.Post("/api/v1/auth/login", map[string]any{"email": "nobody-here@example.org", "password": "whatever it is"}),
		401, 401, "INVALID_CREDENTIALS")
	res := acct.Client.Get("/api/v1/audit-log?action=user.sign_in_failed")
	require.Equal(t, http.StatusOK, res.StatusCode, "%s", res.Body)
	var log struct {
		Data []struct {
			Actor    struct{ Type string }
			Resource struct{ Type, ID string }
			Summary  string
		}
	}
	res.JSON(t, &log)
	require.Len(t, log.Data, 1)
	e := log.Data[0]
	require.Equal(t, "system", e.Actor.Type)
	require.Equal(t, "user", e.Resource.Type)
	require.Equal(t, me.Data.ID, e.Resource.ID)
	require.Contains(t, e.Summary, "address sha256:")
	require.NotContains(t, string(res.Body), acct.Email)
	var total int
	testkit.QueryRow(t, env, `SELECT count(*) FROM audit_log WHERE action = 'user.sign_in_failed'`, nil, &total)
	require.Equal(t, 1, total, "the unknown address is in no account's log")
}
