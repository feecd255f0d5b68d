package httpapi_test

import (
	"fmt"
	"net/http"
	"net/netip"
	"regexp"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/certhub/credentiald/internal/auth"
	"github.com/certhub/credentiald/internal/config"
	"github.com/certhub/credentiald/internal/spec"
	"github.com/certhub/credentiald/internal/testkit"
	"github.com/certhub/credentiald/internal/testkit/contract"
)

// team is an account whose owner invites colleagues through the API, their invitations read
// from the messages a real SMTP server received.
type team struct {
	env   *testkit.Env
	smtp  *testkit.SMTP
	owner *testkit.Account
	seen  int // messages of smtp already read
}

func newTeam(t *testing.T, opts ...testkit.Option) *team {
	t.Helper()
	smtp := testkit.SMTPServer(t)
	opts = append(opts, testkit.WithConfig(func(c *config.Config) { c.SMTPURL = smtp.URL() }))
	env := testkit.NewServer(t, opts...)
	return &team{env: env, smtp: smtp, owner: testkit.SignUp(t, env)}
}

// colleague is a member signed in through an accepted invitation.
type colleague struct {
	ID     uuid.UUID
	Email  string
	Client *contract.Client
	// Refresh is the session's refresh token.
	Refresh string
}

var colleagueSeq atomic.Int64

// invite has by invite email with role, and returns the token of the link the email carries.
func (tm *team) invite(t *testing.T, by *contract.Client, email, role string) string {
	t.Helper()
	res := by.Post("/api/v1/members/invitations", map[string]any{"email": email, "role": role})
	require.Equal(t, http.StatusCreated, res.StatusCode, "invite: %s", res.Body)
	text := tm.messageTo(t, strings.ToLower(email))
	m := regexp.MustCompile(`/app/#invite=([A-Za-z0-9_-]{43})`).FindStringSubmatch(text)
	require.NotNil(t, m, "the invitation's link in:\n%s", text)
	return m[1]
}

// messageTo runs the email worker and returns the plain text of the one new message to addr.
func (tm *team) messageTo(t *testing.T, addr string) string {
	t.Helper()
	_, err := runEmail(t, tm.env)
	require.NoError(t, err, "email worker")
	msgs := tm.smtp.Messages()
	var found []string
	for _, m := range msgs[tm.seen:] {
		if slices.Contains(m.To, addr) {
			found = append(found, plainText(t, string(m.Data)))
		}
	}
	tm.seen = len(msgs)
	require.Equal(t, 1, len(found), "new messages to %s", addr)
	return found[0]
}

// join invites a new address with role and accepts the invitation.
func (tm *team) join(t *testing.T, role string) colleague {
	t.Helper()
	email := fmt.Sprintf("colleague%d@example.org", colleagueSeq.Add(1))
	token := tm.invite(t, tm.owner.Client, email, role)
	return tm.accept(t, token, email)
}

func (tm *team) accept(t *testing.T, token, email string) colleague {
	t.Helper()
	res := tm.env.Client.Post("/api/v1/auth/invitations/accept", map[string]any{"token": token, "name": "Grace " + role(email), "password": testkit.Password})
	require.Equal(t, http.StatusCreated, res.StatusCode, "accept: %s", res.Body)
	var tokens tokens
	res.JSON(t, &tokens)
	c := colleague{Email: email, Client: tm.env.Client.WithBearer(tokens.Data.AccessToken), Refresh: tokens.Data.RefreshToken}
	var me struct{ Data struct{ ID uuid.UUID } }
	c.Client.Get("/api/v1/auth/me").JSON(t, &me)
	c.ID = me.Data.ID
	return c
}

func role(email string) string { return strings.TrimSuffix(email, "@example.org") }

func TestAnInvitationMakesAMemberWithItsRoleOnce(t *testing.T) {
	t.Parallel()
	tm := newTeam(t)
	token := tm.invite(t, tm.owner.Client, "Ada@Example.org", "viewer")

	// The recorded message holds a marker where the link's token goes, never the token.
	var body string
	testkit.QueryRow(t, tm.env, `SELECT body_text FROM email_deliveries WHERE kind = 'invitation'`, nil, &body)
	require.NotContains(t, body, token, "the recorded body")
	require.Contains(t, body, "[[invitation-link:", "the recorded body")

	res := tm.owner.Client.Get("/api/v1/members/invitations")
	require.Equal(t, 200, res.StatusCode, "%s", res.Body)
	require.Contains(t, string(res.Body), `"email":"ada@example.org"`)

	ada := tm.accept(t, token, "ada@example.org")
	var me struct{ Data struct{ Role, Email string } }
	ada.Client.Get("/api/v1/auth/me").JSON(t, &me)
	require.Equal(t, "viewer", me.Data.Role)
	require.Equal(t, "ada@example.org", me.Data.Email)

	again := tm.env.Client.Post("/api/v1/auth/invitations/accept", map[string]any{"token": token, "name": "Eve", "password": testkit.Password})
	wantError(t, again, 410, again.StatusCode, "INVITATION_GONE")

	var members struct {
		Data []struct{ Email, Role string }
		Meta struct{ Total int }
	}
	res = ada.Client.Get("/api/v1/members")
	require.Equal(t, 200, res.StatusCode, "a viewer lists the members: %s", res.Body)
	res.JSON(t, &members)
	require.Equal(t, 2, members.Meta.Total)
	roles := map[string]string{}
	for _, m := range members.Data {
		roles[m.Email] = m.Role
	}
	require.Equal(t, map[string]string{tm.owner.Email: "owner", "ada@example.org": "viewer"}, roles)

	// Pending no more.
	var pending struct{ Meta struct{ Total int } }
	tm.owner.Client.Get("/api/v1/members/invitations").JSON(t, &pending)
	require.Zero(t, pending.Meta.Total, "pending invitations after acceptance")
}

func TestARevokedOrExpiredInvitationIsGone(t *testing.T) {
	t.Parallel()
	clock := &testkit.Clock{}
	tm := newTeam(t, testkit.WithClock(clock.Now))
	token := tm.invite(t, tm.owner.Client, "revoked@example.org", "issuer")
	var list struct{ Data []struct{ ID uuid.UUID } }
	tm.owner.Client.Get("/api/v1/members/invitations").JSON(t, &list)
	require.Len(t, list.Data, 1)
	res := tm.owner.Client.Delete("/api/v1/members/invitations/" + list.Data[0].ID.String())
	require.Equal(t, 204, res.StatusCode, "%s", res.Body)
	res = tm.env.Client.Post("/api/v1/auth/invitations/accept", map[string]any{"token": token, "name": "Eve", "password": testkit.Password})
	wantError(t, res, 410, res.StatusCode, "INVITATION_GONE")

	token = tm.invite(t, tm.owner.Client, "late@example.org", "issuer")
	clock.Advance(7*24*time.Hour + time.Minute)
	res = tm.env.Client.Post("/api/v1/auth/invitations/accept", map[string]any{"token": token, "name": "Late", "password": testkit.Password})
	wantError(t, res, 410, res.StatusCode, "INVITATION_GONE")
}

// An invitation answers alike whether or not its address has a user; the address that has one
// is told so by email, and accepting answers EMAIL_IN_USE.
func TestInvitingAnAddressWithAUserAnswersAlike(t *testing.T) {
	t.Parallel()
	tm := newTeam(t)
	other := testkit.SignUp(t, tm.env)
	known := tm.owner.Client.Post("/api/v1/members/invitations", map[string]any{"email": other.Email, "role": "issuer"})
	unknown := tm.owner.Client.Post("/api/v1/members/invitations", map[string]any{"email": "nobody@example.org", "role": "issuer"})
	require.Equal(t, unknown.StatusCode, known.StatusCode)
	shape := func(r *contract.Response) []string {
		var m map[string]map[string]any
		r.JSON(t, &m)
		keys := []string{}
		for k := range m["data"] {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		return keys
	}
	require.Equal(t, shape(unknown), shape(known), "the answers' fields")

	existing := tm.messageTo(t, other.Email)
	require.Contains(t, existing, "already belongs to a user")
	require.NotContains(t, existing, "#invite=", "no link that could be accepted")

	// Accepting an invitation whose address has a user by now: EMAIL_IN_USE.
	token := tm.invite(t, tm.owner.Client, "soon@example.org", "viewer")
	third := testkit.SignUp(t, tm.env) // another account registers the address meanwhile
	_ = third
	testkit.SQL(t, tm.env, `UPDATE users SET email = 'soon@example.org' WHERE email = $1`, third.Email)
	res := tm.env.Client.Post("/api/v1/auth/invitations/accept", map[string]any{"token": token, "name": "Soon", "password": testkit.Password})
	wantError(t, res, 409, res.StatusCode, "EMAIL_IN_USE")
}

func TestAViewersWriteAnswersInsufficientRoleNamingTheRole(t *testing.T) {
	t.Parallel()
	tm := newTeam(t)
	viewer := tm.join(t, "viewer")
	before := testkit.Fingerprint(t, tm.env)
	res := viewer.Client.Post("/api/v1/events", map[string]any{"name": "Not allowed", "eventDate": "2026-11-12T09:00:00Z"})
	e := wantError(t, res, 403, res.StatusCode, "INSUFFICIENT_ROLE")
	require.Equal(t, "issuer", e.Error.Required)
	require.Contains(t, e.Error.Message, "viewer")
	require.Equal(t, before, testkit.Fingerprint(t, tm.env), "a refused write changed the database")

	res = viewer.Client.Get("/api/v1/events")
	require.Equal(t, 200, res.StatusCode, "a viewer reads: %s", res.Body)
	res = viewer.Client.Post("/api/v1/members/invitations", map[string]any{"email": "x@example.org", "role": "viewer"})
	e = wantError(t, res, 403, res.StatusCode, "INSUFFICIENT_ROLE")
	require.Equal(t, "admin", e.Error.Required)
}

// Every operation's x-required-role is what the decision's table of roles and scopes says,
// and a session of a role below it is refused with INSUFFICIENT_ROLE naming it.
func TestEveryOperationsRequiredRoleFollowsTheRolesTable(t *testing.T) {
	t.Parallel()
	sessionOnly := map[string]string{
		"listApiKeys": "viewer", "createApiKey": "issuer", "deleteApiKey": "issuer", "logout": "viewer", "getMe": "viewer",
		"setupTwoFactor": "viewer", "enableTwoFactor": "viewer", "disableTwoFactor": "viewer",
		"getBranding": "viewer", "updateBranding": "admin", "getCredits": "viewer",
		"listMembers": "viewer", "updateMember": "admin", "deleteMember": "admin", "createInvitation": "admin",
		"listInvitations": "admin", "revokeInvitation": "admin", "transferOwnership": "owner",
		"listSessions": "viewer", "endSession": "viewer", "changePassword": "viewer", "resendVerificationEmail": "viewer",
		"getSingleSignOn": "admin", "putSingleSignOn": "admin", "deleteSingleSignOn": "admin", "listSsoDomains": "admin",
		"addSsoDomain": "admin", "verifySsoDomain": "admin", "deleteSsoDomain": "admin",
		"getRetention": "admin", "updateRetention": "admin",
	}
	tm := newTeam(t, testkit.WithConfig(func(c *config.Config) {
		c.TrustedProxies = []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")}
	}))
	below := map[string]*contract.Client{"issuer": tm.join(t, "viewer").Client, "admin": tm.join(t, "issuer").Client,
		"owner": tm.join(t, "admin").Client}
	doc := spec.MustLoad()
	n := 0
	for path, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			if op.Security != nil && !slices.ContainsFunc(*op.Security, func(r openapi3.SecurityRequirement) bool { _, ok := r["bearerAuth"]; return ok }) {
				require.Nil(t, op.Extensions["x-required-role"], "%s is public but names a role", op.OperationID)
				continue
			}
			n++
			got, _ := op.Extensions["x-required-role"].(string)
			var want string
			if so, _ := op.Extensions["x-session-only"].(bool); so {
				want = sessionOnly[op.OperationID]
				require.NotEmpty(t, want, "%s is session only: add it to this test's table from the decision", op.OperationID)
			} else {
				var scopes []string
				for _, s := range op.Extensions["x-required-scopes"].([]any) {
					scopes = append(scopes, s.(string))
				}
				want = auth.LeastRoleFor(scopes)
			}
			require.Equal(t, want, got, "x-required-role of %s", op.OperationID)
			c := below[got]
			if c == nil {
				continue // viewer: nobody is below
			}
			addr := fmt.Sprintf("198.51.100.%d", n)
			t.Run(op.OperationID, func(t *testing.T) {
				before := testkit.Fingerprint(t, tm.env)
				req := sampleRequest(t, tm.env, method, spec.FullPath(path, item), op)
				req.Header.Set("X-Forwarded-For", addr)
				res := c.Do(req)
				e := wantError(t, res, 403, res.StatusCode, "INSUFFICIENT_ROLE")
				require.Equal(t, got, e.Error.Required)
				require.Equal(t, before, testkit.Fingerprint(t, tm.env), "a refused request changed the database")
			})
		}
	}
}

func TestRemovingAMemberEndsTheirSessionsAndRevokesTheirKeys(t *testing.T) {
	t.Parallel()
	tm := newTeam(t)
	issuer := tm.join(t, "issuer")
	res := issuer.Client.Post("/api/v1/api-keys", map[string]any{"name": "mine", "scopes": []string{"events:read"}})
	require.Equal(t, 200, res.StatusCode, "%s", res.Body)
	var key struct{ Data struct{ Key string } }
	res.JSON(t, &key)
	keyClient := tm.env.Client.WithBearer(key.Data.Key)
	require.Equal(t, 200, keyClient.Get("/api/v1/events").StatusCode)

	// The owner sees the key with its creator.
	var keys struct {
		Data []struct {
			CreatedBy struct {
				ID   *uuid.UUID
				Name string
			}
		}
	}
	tm.owner.Client.Get("/api/v1/api-keys").JSON(t, &keys)
	require.Len(t, keys.Data, 1)
	require.Equal(t, issuer.ID, *keys.Data[0].CreatedBy.ID)

	res = tm.owner.Client.Delete("/api/v1/members/" + issuer.ID.String())
	require.Equal(t, 204, res.StatusCode, "%s", res.Body)
	wantError(t, issuer.Client.Get("/api/v1/events"), 401, issuer.Client.Get("/api/v1/events").StatusCode, "INVALID_API_KEY")
	refreshed := tm.env.Client.Post("/api/v1/auth/refresh", map[string]any{"refreshToken": issuer.Refresh})
	require.Equal(t, 401, refreshed.StatusCode, "the removed member's refresh token: %s", refreshed.Body)
	require.Equal(t, 401, keyClient.Get("/api/v1/events").StatusCode, "the removed member's key")

	// The key stays listed as revoked nowhere, its creator's name kept in the database.
	var name string
	testkit.QueryRow(t, tm.env, `SELECT created_by_name FROM api_keys`, nil, &name)
	require.Equal(t, "Grace "+role(issuer.Email), name)

	// The address is free again.
	again := tm.accept(t, tm.invite(t, tm.owner.Client, issuer.Email, "viewer"), issuer.Email)
	require.NotEqual(t, issuer.ID, again.ID)

	// The owner cannot be removed, nor have their role changed.
	var me struct{ Data struct{ ID uuid.UUID } }
	tm.owner.Client.Get("/api/v1/auth/me").JSON(t, &me)
	admin := tm.join(t, "admin")
	res = admin.Client.Delete("/api/v1/members/" + me.Data.ID.String())
	wantError(t, res, 409, res.StatusCode, "CONFLICT")
	res = admin.Client.Put("/api/v1/members/"+me.Data.ID.String(), map[string]any{"role": "viewer"})
	wantError(t, res, 409, res.StatusCode, "CONFLICT")
	res = admin.Client.Put("/api/v1/members/"+again.ID.String(), map[string]any{"role": "owner"})
	wantError(t, res, 400, res.StatusCode, "VALIDATION_ERROR")
}

func TestLoweringARoleEndsSessionsAndRevokesTheKeysBeyondIt(t *testing.T) {
	t.Parallel()
	tm := newTeam(t)
	issuer := tm.join(t, "issuer")
	mk := func(scope string) *contract.Client {
		res := issuer.Client.Post("/api/v1/api-keys", map[string]any{"name": scope, "scopes": []string{scope}})
		require.Equal(t, 200, res.StatusCode, "%s", res.Body)
		var key struct{ Data struct{ Key string } }
		res.JSON(t, &key)
		return tm.env.Client.WithBearer(key.Data.Key)
	}
	reader, writer := mk("events:read"), mk("events:write")

	// A key beyond the role is refused at creation, naming the scope.
	res := issuer.Client.Post("/api/v1/api-keys", map[string]any{"name": "hooks", "scopes": []string{"webhooks:manage"}})
	e := wantError(t, res, 400, res.StatusCode, "VALIDATION_ERROR")
	require.Equal(t, "body.scopes[0]", e.Error.Details[0].Field)

	res = tm.owner.Client.Put("/api/v1/members/"+issuer.ID.String(), map[string]any{"role": "viewer"})
	require.Equal(t, 200, res.StatusCode, "%s", res.Body)
	require.Contains(t, string(res.Body), `"role":"viewer"`)
	require.Equal(t, 401, issuer.Client.Get("/api/v1/events").StatusCode, "the lowered member's session")
	require.Equal(t, 200, reader.Get("/api/v1/events").StatusCode, "a key within the new role")
	require.Equal(t, 401, writer.Get("/api/v1/events").StatusCode, "a key beyond the new role")
}

func TestOwnershipIsTransferredWithThePassword(t *testing.T) {
	t.Parallel()
	tm := newTeam(t)
	admin := tm.join(t, "admin")
	res := tm.owner.Client.Post("/api/v1/account/owner", map[string]any{"memberId": admin.ID, "currentPassword": "wrong password"})
	wantError(t, res, 401, res.StatusCode, "INVALID_CREDENTIALS")
	res = admin.Client.Post("/api/v1/account/owner", map[string]any{"memberId": admin.ID, "currentPassword": testkit.Password})
	e := wantError(t, res, 403, res.StatusCode, "INSUFFICIENT_ROLE")
	require.Equal(t, "owner", e.Error.Required)

	res = tm.owner.Client.Post("/api/v1/account/owner", map[string]any{"memberId": admin.ID, "currentPassword": testkit.Password})
	require.Equal(t, 204, res.StatusCode, "%s", res.Body)
	var me struct{ Data struct{ Role string } }
	tm.owner.Client.Get("/api/v1/auth/me").JSON(t, &me)
	require.Equal(t, "admin", me.Data.Role, "the old owner")
	admin.Client.Get("/api/v1/auth/me").JSON(t, &me)
	require.Equal(t, "owner", me.Data.Role, "the new owner")
}
