package httpapi_test

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/google/uuid"
	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/certhub/credentiald/internal/config"
	"github.com/certhub/credentiald/internal/spec"
	"github.com/certhub/credentiald/internal/testkit"
	"github.com/certhub/credentiald/internal/webhooks"
)

// hookReceiver is a real HTTPS endpoint on loopback, trusted by the service of the test only.
type hookReceiver struct {
	srv    *httptest.Server
	mu     sync.Mutex
	got    []hookRequest
	status int
}

type hookRequest struct {
	Header http.Header
	Body   []byte
}

func newHookReceiver(t *testing.T) *hookReceiver {
	r := &hookReceiver{status: http.StatusNoContent}
	r.srv = httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(req.Body)
		r.mu.Lock()
		r.got = append(r.got, hookRequest{Header: req.Header.Clone(), Body: body})
		status := r.status
		r.mu.Unlock()
		w.WriteHeader(status)
	}))
	t.Cleanup(r.srv.Close)
	return r
}

func (r *hookReceiver) answer(status int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.status = status
}

func (r *hookReceiver) requests() []hookRequest {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]hookRequest(nil), r.got...)
}

// hookEnv is a service whose webhook client trusts the receiver's CA and, by the test-only
// setting (not the unsafe switch), reaches it on loopback; the clock is stopped.
type hookEnv struct {
	issuing
	recv  *hookReceiver
	clock *testkit.Clock
}

func newHookEnv(t *testing.T, opts ...testkit.Option) hookEnv {
	recv := newHookReceiver(t)
	clock := &testkit.Clock{}
	clock.Stop()
	roots := recv.srv.Client().Transport.(*http.Transport).TLSClientConfig.RootCAs
	opts = append([]testkit.Option{testkit.WithClock(clock.Now),
		testkit.WithWebhookPolicy(webhooks.Policy{RootCAs: roots, AllowLoopbackTLS: true}, 2*time.Second)}, opts...)
	return hookEnv{issuing: newIssuing(t, opts...), recv: recv, clock: clock}
}

func (h hookEnv) dispatch(t *testing.T) {
	t.Helper()
	if _, err := runWebhooks(t, h.env); err != nil {
		t.Fatal(err)
	}
}

type subscriptionData struct {
	ID, URL, Secret     string
	Events              []string
	Description         *string
	Active              bool
	ConsecutiveFailures int
	DisabledAt          *time.Time
}

type subscriptionBody struct{ Data subscriptionData }

type deliveryBody struct {
	ID, EventType, Status        string
	Attempts                     int
	LastAttemptAt, NextAttemptAt *time.Time
	ResponseStatus, DurationMs   *int
	ResponseBody, Error          *string
}

func (h hookEnv) subscribe(t *testing.T, url string, kinds ...string) subscriptionBody {
	t.Helper()
	res := h.acct.Client.Post("/api/v1/webhooks", map[string]any{"url": url, "events": kinds, "description": "CRM"})
	var sub subscriptionBody
	res.JSON(t, &sub)
	require.Equal(t, http.StatusCreated, res.StatusCode, "create: status (body %s)", res.Body)
	require.Equal(t, "/api/v1/webhooks/"+sub.Data.ID, res.Header.Get("Location"), "create: Location")
	return sub
}

// subscription finds a subscription in the account's list.
func (h hookEnv) subscription(t *testing.T, id string) subscriptionData {
	t.Helper()
	var list struct{ Data []subscriptionData }
	h.acct.Client.Get("/api/v1/webhooks").JSON(t, &list)
	for _, s := range list.Data {
		if s.ID == id {
			return s
		}
	}
	t.Fatalf("no subscription %s in the list", id)
	return subscriptionData{}
}

func (h hookEnv) deliveries(t *testing.T, sub string) []deliveryBody {
	t.Helper()
	var page struct {
		Data []deliveryBody
		Meta struct{ Total int }
	}
	res := h.acct.Client.Get("/api/v1/webhooks/" + sub + "/deliveries?pageSize=100")
	res.JSON(t, &page)
	if res.StatusCode != 200 {
		t.Fatalf("deliveries: %d %s", res.StatusCode, res.Body)
	}
	return page.Data
}

func TestWebhookSubscriptionsCanBeCreatedListedChangedAndDeleted(t *testing.T) {
	t.Parallel()
	h := newHookEnv(t)
	sub := h.subscribe(t, h.recv.srv.URL+"/hook", "certificate.issued", "certificate.revoked")
	require.Regexp(t, regexp.MustCompile(`^whsec_[A-Za-z0-9+/]{43}=$`), sub.Data.Secret, "created: sub.Data.Secret")
	require.True(t, sub.Data.Active, "created: sub.Data.Active")
	require.Equal(t, 0, sub.Data.ConsecutiveFailures, "created: sub.Data.ConsecutiveFailures")
	require.Nil(t, sub.Data.DisabledAt, "created: sub.Data.DisabledAt")
	require.Equal(t, "CRM", strOf(sub.Data.Description), "created: description")
	path := "/api/v1/webhooks/" + sub.Data.ID

	res := h.acct.Client.Get("/api/v1/webhooks")
	require.Equal(t, 200, res.StatusCode, "list: status (body %s)", res.Body)
	require.Contains(t, string(res.Body), sub.Data.ID, "list: body")
	require.NotContains(t, string(res.Body), sub.Data.Secret, "list: body")
	require.NotContains(t, string(res.Body), `"secret"`, "list: body")

	var changed subscriptionBody
	res = h.acct.Client.Put(path, map[string]any{"events": []string{"certificate.sent"}, "description": " "})
	res.JSON(t, &changed)
	require.Equal(t, 200, res.StatusCode, "update: status (body %s)", res.Body)
	require.Equal(t, "certificate.sent", strings.Join(changed.Data.Events, ","), "update: events")
	require.Nil(t, changed.Data.Description, "update: changed.Data.Description")
	require.Equal(t, sub.Data.URL, changed.Data.URL, "update: changed.Data.URL")

	for range 3 {
		res := h.acct.Client.Post(path+"/test", nil)
		require.Equal(t, http.StatusAccepted, res.StatusCode, "test: status (body %s)", res.Body)
		require.Contains(t, string(res.Body), `"eventType":"webhook.test"`, "test: body")
		require.Contains(t, string(res.Body), `"status":"pending"`, "test: body")
	}
	var page struct {
		Data []deliveryBody
		Meta struct{ Page, PageSize, Total int }
	}
	h.acct.Client.Get(path+"/deliveries?page=2&pageSize=2").JSON(t, &page)
	require.Len(t, page.Data, 1, "page 2: page.Data")
	require.Equal(t, 3, page.Meta.Total, "page 2: page.Meta.Total")
	require.Equal(t, 2, page.Meta.Page, "page 2: page.Meta.Page")

	other := testkit.SignUp(t, h.env)
	for _, res := range []int{
		other.Client.Put(path, map[string]any{"active": false}).StatusCode, other.Client.Get(path + "/deliveries").StatusCode,
		other.Client.Post(path+"/test", nil).StatusCode, other.Client.Delete(path).StatusCode,
	} {
		if res != 404 {
			t.Fatalf("another account's subscription: %d", res)
		}
	}

	if res := h.acct.Client.Delete(path); res.StatusCode != 204 {
		t.Fatalf("delete: %d %s", res.StatusCode, res.Body)
	}
	for _, res := range []int{h.acct.Client.Delete(path).StatusCode, h.acct.Client.Get(path + "/deliveries").StatusCode,
		h.acct.Client.Post(path+"/test", nil).StatusCode} {
		if res != 404 {
			t.Fatalf("after delete: %d", res)
		}
	}
	h.dispatch(t)
	if n := len(h.recv.requests()); n != 0 {
		t.Fatalf("a deleted subscription received %d requests", n)
	}
}

func strOf(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

// URLs that name or are a non-public address are refused at creation and at update, naming
// body.url; nothing is stored.
func TestWebhookURLsThatAreNotPublicAreRefused(t *testing.T) {
	t.Parallel()
	env := testkit.NewServer(t)
	acct := testkit.SignUp(t, env)
	before := testkit.Fingerprint(t, env)
	for _, u := range []string{
		"https://127.0.0.1/hook", "https://[::1]/hook", "https://10.0.0.1/hook", "https://169.254.169.254/latest/meta-data",
		"https://[::ffff:127.0.0.1]/hook", "https://2130706433/hook", "https://0x7f000001/hook", "https://localhost:8443/hook",
		"http://hooks.example.org/hook", "https://user:secret@hooks.example.org/hook",
	} {
		res := acct.Client.Post("/api/v1/webhooks", map[string]any{"url": u, "events": []string{"certificate.issued"}})
		e := decodeError(t, res)
		assert.Equal(t, 400, res.StatusCode, "%s: status (body %s)", u, res.Body)
		assert.Equal(t, "VALIDATION_ERROR", e.Error.Code, "%s: e.Error.Code", u)
		assert.True(t, hasDetail(e, "body.url", ""), "%s: no detail for body.url in %+v", u, e.Error.Details)
	}
	if after := testkit.Fingerprint(t, env); after != before {
		t.Fatal("a refused URL changed the database")
	}
	res := acct.Client.Post("/api/v1/webhooks", map[string]any{"url": "https://93.184.216.34/hook", "events": []string{"certificate.issued"}})
	var sub subscriptionBody
	res.JSON(t, &sub)
	if res.StatusCode != 201 {
		t.Fatalf("a public address: %d %s", res.StatusCode, res.Body)
	}
	res = acct.Client.Put("/api/v1/webhooks/"+sub.Data.ID, map[string]any{"url": "https://[fe80::1]/hook"})
	e := decodeError(t, res)
	require.Equal(t, 400, res.StatusCode, "update to link-local: status (body %s)", res.Body)
	require.True(t, hasDetail(e, "body.url", "not a public address"), "update to link-local: no detail for body.url saying 'not a public address' in %+v", e.Error.Details)
}

func TestWebhookEventKindsAreValidated(t *testing.T) {
	t.Parallel()
	env := testkit.NewServer(t)
	acct := testkit.SignUp(t, env)
	for _, kinds := range [][]string{{}, {"certificate.burned"}, {"webhook.test"}, {"certificate.issued", "certificate.issued"}} {
		res := acct.Client.Post("/api/v1/webhooks", map[string]any{"url": "https://93.184.216.34/hook", "events": kinds})
		e := decodeError(t, res)
		assert.Equal(t, 400, res.StatusCode, "%v: status (body %s)", kinds, res.Body)
		if assert.NotEmpty(t, e.Error.Details, "%v: details", kinds) {
			assert.True(t, strings.HasPrefix(e.Error.Details[0].Field, "body.events"), "%v: %q should start with %q", kinds, e.Error.Details[0].Field, "body.events")
		}
	}
}

func TestAnAccountHasAtMostTwentySubscriptions(t *testing.T) {
	t.Parallel()
	env := testkit.NewServer(t)
	acct := testkit.SignUp(t, env)
	_, key := acct.APIKey(t, "webhooks:manage")
	for i := range webhooks.MaxSubscriptions {
		if res := key.Post("/api/v1/webhooks", map[string]any{"url": fmt.Sprintf("https://93.184.216.34/hook/%d", i),
			"events": []string{"certificate.issued"}}); res.StatusCode != 201 {
			t.Fatalf("subscription %d: %d %s", i+1, res.StatusCode, res.Body)
		}
	}
	res := key.Post("/api/v1/webhooks", map[string]any{"url": "https://93.184.216.34/hook/21", "events": []string{"certificate.issued"}})
	wantError(t, res, 409, res.StatusCode, "CONFLICT")
	_, reader := acct.APIKey(t, "events:read")
	res = reader.Get("/api/v1/webhooks")
	e := decodeError(t, res)
	require.Equal(t, 403, res.StatusCode, "without webhooks:manage: status (body %s)", res.Body)
	require.Equal(t, "INSUFFICIENT_SCOPE", e.Error.Code, "without webhooks:manage: e.Error.Code")
}

// Every kind is delivered in the body the contract documents for it, with the documented
// headers, signed so that independent code verifies it; each comes from the operation that
// causes it: issuing, emailing, the recipient's first view and download through the portal
// link, revoking, and the test.
func TestDeliveriesCarryTheDocumentedBodyAndHeadersOfEveryKind(t *testing.T) {
	t.Parallel()
	h := newHookEnv(t)
	sub := h.subscribe(t, h.recv.srv.URL+"/hook", webhooks.Kinds...)
	ada := h.acct.Attendee(t, h.event, "Ada", "Lovelace", "ada@example.org")
	res := h.acct.Client.Post("/api/v1/certificates/generate", h.generate(ada, map[string]any{"sendEmail": true}))
	var c certificateBody
	res.JSON(t, &c)
	if res.StatusCode != 200 {
		t.Fatalf("generate: %d %s", res.StatusCode, res.Body)
	}
	if _, err := runEmail(t, h.env); err != nil {
		t.Fatal(err)
	}
	const token = "portal-token-of-the-delivery-email"
	hash := sha256.Sum256([]byte(token))
	if err := h.env.Store.SetRecipientToken(t.Context(), uuid.MustParse(c.Data.ID), hash[:]); err != nil {
		t.Fatal(err)
	}
	if res := h.env.Client.Get("/verify/" + c.Data.VerificationCode + "?t=" + token); res.StatusCode != 200 {
		t.Fatalf("portal: %d", res.StatusCode)
	}
	if res := h.env.Client.Get("/api/v1/verify/" + c.Data.VerificationCode + "/certificate.pdf?t=" + token); res.StatusCode != 200 {
		t.Fatalf("portal download: %d", res.StatusCode)
	}
	if res := h.acct.Client.Post("/api/v1/certificates/"+c.Data.ID+"/revoke", map[string]any{"reason": "Wrong name", "reasonCode": "issued_in_error"}); res.StatusCode != 200 {
		t.Fatalf("revoke: %d %s", res.StatusCode, res.Body)
	}
	if res := h.acct.Client.Post("/api/v1/webhooks/"+sub.Data.ID+"/test", nil); res.StatusCode != 202 {
		t.Fatalf("test: %d %s", res.StatusCode, res.Body)
	}
	h.dispatch(t)

	doc := spec.MustLoad()
	kinds := map[string]bool{}
	for _, r := range h.recv.requests() {
		kind := r.Header.Get("X-Service-Event")
		kinds[kind] = true
		op := doc.Webhooks[kind].Post
		var body any
		if err := json.Unmarshal(r.Body, &body); err != nil {
			t.Fatal(err)
		}
		if err := op.RequestBody.Value.Content.Get("application/json").Schema.Value.VisitJSON(body, openapi3.MultiErrors()); err != nil {
			t.Errorf("%s: the body does not match the contract: %v\n%s", kind, err, r.Body)
		}
		for _, p := range op.Parameters {
			v := r.Header.Get(p.Value.Name)
			if v == "" {
				t.Errorf("%s: no %s header", kind, p.Value.Name)
				continue
			}
			if err := p.Value.Schema.Value.VisitJSON(v); err != nil {
				t.Errorf("%s: header %s %q: %v", kind, p.Value.Name, v, err)
			}
		}
		if err := verifyBoth(sub.Data.Secret, r); err != nil {
			t.Errorf("%s: %v", kind, err)
		}
	}
	if len(kinds) != 6 {
		t.Fatalf("kinds delivered: %v", kinds)
	}
	for _, d := range h.deliveries(t, sub.Data.ID) {
		require.Equal(t, "succeeded", d.Status, "delivery: status")
		require.Equal(t, 1, d.Attempts, "delivery: attempts")
		require.Equal(t, "", strOf(d.Error), "delivery: error")
	}
}

// verifyBoth checks a request's signatures with independent code: the Standard Webhooks
// library, and the specification's recipe for X-Service-Signature.
func verifyBoth(secret string, r hookRequest) error {
	wh, err := standardwebhooks.NewWebhook(secret)
	if err != nil {
		return err
	}
	if err := wh.VerifyIgnoringTimestamp(r.Body, r.Header); err != nil {
		return fmt.Errorf("Standard Webhooks: %w", err)
	}
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write([]byte(r.Header.Get("X-Service-Timestamp") + "." + string(r.Body)))
	if want := "sha256=" + hex.EncodeToString(mac.Sum(nil)); r.Header.Get("X-Service-Signature") != want {
		return fmt.Errorf("X-Service-Signature %s, want %s", r.Header.Get("X-Service-Signature"), want)
	}
	return nil
}

// A subscription whose host's name comes to resolve to loopback (it resolved elsewhere when it
// was made) is refused at connect time: the delivery is recorded failed, the receiver gets
// nothing.
func TestADeliveryToANameResolvingToLoopbackIsRecordedFailed(t *testing.T) {
	t.Parallel()
	recv := newHookReceiver(t)
	roots := recv.srv.Client().Transport.(*http.Transport).TLSClientConfig.RootCAs
	env := testkit.NewServer(t, testkit.WithWebhookPolicy(webhooks.Policy{RootCAs: roots}, 2*time.Second))
	acct := testkit.SignUp(t, env)
	res := acct.Client.Post("/api/v1/webhooks", map[string]any{"url": "https://93.184.216.34/hook", "events": []string{"certificate.issued"}})
	var sub subscriptionBody
	res.JSON(t, &sub)
	testkit.SQL(t, env, "UPDATE webhook_subscriptions SET url = $1 WHERE id = $2",
		strings.Replace(recv.srv.URL, "127.0.0.1", "localhost", 1)+"/hook", sub.Data.ID)
	if res := acct.Client.Post("/api/v1/webhooks/"+sub.Data.ID+"/test", nil); res.StatusCode != 202 {
		t.Fatalf("test: %d %s", res.StatusCode, res.Body)
	}
	if _, err := runWebhooks(t, env); err != nil {
		t.Fatal(err)
	}
	if n := len(recv.requests()); n != 0 {
		t.Fatalf("the receiver got %d requests", n)
	}
	var page struct{ Data []deliveryBody }
	acct.Client.Get("/api/v1/webhooks/"+sub.Data.ID+"/deliveries").JSON(t, &page)
	d := page.Data[0]
	require.Equal(t, 1, d.Attempts, "delivery: attempts")
	require.Nil(t, d.ResponseStatus, "delivery: response status")
	require.Contains(t, strOf(d.Error), "refused before connecting", "delivery: error")
	require.Contains(t, strOf(d.Error), "127.0.0.1", "delivery: error")
}

// 410 Gone switches a subscription off; PUT active: true switches it on again with its count
// reset, and it receives events again. A test goes to a switched-off subscription once.
func TestASwitchedOffSubscriptionIsSwitchedOnAgainByPut(t *testing.T) {
	t.Parallel()
	h := newHookEnv(t)
	sub := h.subscribe(t, h.recv.srv.URL+"/hook", "certificate.issued")
	path := "/api/v1/webhooks/" + sub.Data.ID
	h.recv.answer(http.StatusGone)
	h.acct.Client.Post(path+"/test", nil)
	h.dispatch(t)
	state := h.subscription(t, sub.Data.ID)
	require.False(t, state.Active, "after 410: active")
	require.NotNil(t, state.DisabledAt, "after 410: disabledAt")
	require.Equal(t, 1, state.ConsecutiveFailures, "after 410: consecutiveFailures")
	h.recv.answer(http.StatusOK)
	h.acct.Client.Post(path+"/test", nil)
	h.dispatch(t)
	state = h.subscription(t, sub.Data.ID)
	require.False(t, state.Active, "a test switched the subscription on: active")
	require.Equal(t, 0, state.ConsecutiveFailures, "a test switched the subscription on: consecutiveFailures")

	var got subscriptionBody
	res := h.acct.Client.Put(path, map[string]any{"active": true})
	res.JSON(t, &got)
	require.Equal(t, 200, res.StatusCode, "re-enable: status (body %s)", res.Body)
	require.True(t, got.Data.Active, "re-enable: got.Data.Active")
	require.Nil(t, got.Data.DisabledAt, "re-enable: got.Data.DisabledAt")
	require.Equal(t, 0, got.Data.ConsecutiveFailures, "re-enable: got.Data.ConsecutiveFailures")
	ada := h.acct.Attendee(t, h.event, "Ada", "Lovelace", "ada@example.org")
	if res := h.acct.Client.Post("/api/v1/certificates/generate", h.generate(ada, nil)); res.StatusCode != 200 {
		t.Fatalf("generate: %d %s", res.StatusCode, res.Body)
	}
	h.dispatch(t)
	list := h.deliveries(t, sub.Data.ID)
	require.Len(t, list, 3, "deliveries")
	require.Equal(t, "certificate.issued", list[0].EventType, "deliveries[0]: event type")
	require.Equal(t, "succeeded", list[0].Status, "deliveries[0]: status")
	if len(h.recv.requests()) != 3 {
		t.Fatalf("requests %d", len(h.recv.requests()))
	}

	// Switching it off by hand gives up what is pending.
	h.recv.answer(http.StatusInternalServerError)
	h.acct.Client.Post(path+"/test", nil)
	h.dispatch(t)
	res = h.acct.Client.Put(path, map[string]any{"active": false})
	res.JSON(t, &got)
	require.False(t, got.Data.Active, "switched off by hand: got.Data.Active (body %s)", res.Body)
	require.Nil(t, got.Data.DisabledAt, "switched off by hand: got.Data.DisabledAt")
	d := h.deliveries(t, sub.Data.ID)[0]
	require.Equal(t, "failed", d.Status, "the pending delivery: d.Status")
	require.Nil(t, d.NextAttemptAt, "the pending delivery: d.NextAttemptAt")
	require.Contains(t, strOf(d.Error), "switched off", "the pending delivery: error")
}

// The unsafe development switch lets http and loopback through, and the service says so when
// it starts.
func TestTheUnsafeSwitchAllowsHTTPAndLoopbackAndWarns(t *testing.T) {
	t.Parallel()
	env := testkit.NewServer(t, testkit.WithConfig(func(c *config.Config) { c.WebhookAllowInsecureTargets = true }))
	acct := testkit.SignUp(t, env)
	res := acct.Client.Post("/api/v1/webhooks", map[string]any{"url": "http://127.0.0.1:9/hook", "events": []string{"certificate.issued"}})
	if res.StatusCode != 201 {
		t.Fatalf("with the switch on: %d %s", res.StatusCode, res.Body)
	}
	if logs := env.Logs(); !strings.Contains(logs, `"level":"WARN","msg":"WEBHOOK_ALLOW_INSECURE_TARGETS is on`) {
		t.Fatalf("no warning at start:\n%s", logs)
	}
	if logs := testkit.NewServer(t).Logs(); strings.Contains(logs, "WEBHOOK_ALLOW_INSECURE_TARGETS") {
		t.Fatal("a warning without the switch")
	}
}
