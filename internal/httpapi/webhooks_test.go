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
	if res.StatusCode != http.StatusCreated || res.Header.Get("Location") != "/api/v1/webhooks/"+sub.Data.ID {
		t.Fatalf("create: %d %s", res.StatusCode, res.Body)
	}
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
	if !regexp.MustCompile(`^whsec_[A-Za-z0-9+/]{43}=$`).MatchString(sub.Data.Secret) || !sub.Data.Active ||
		sub.Data.ConsecutiveFailures != 0 || sub.Data.DisabledAt != nil || strOf(sub.Data.Description) != "CRM" {
		t.Fatalf("created: %+v", sub.Data)
	}
	path := "/api/v1/webhooks/" + sub.Data.ID

	res := h.acct.Client.Get("/api/v1/webhooks")
	if res.StatusCode != 200 || !strings.Contains(string(res.Body), sub.Data.ID) || strings.Contains(string(res.Body), sub.Data.Secret) ||
		strings.Contains(string(res.Body), `"secret"`) {
		t.Fatalf("list: %d %s", res.StatusCode, res.Body)
	}

	var changed subscriptionBody
	res = h.acct.Client.Put(path, map[string]any{"events": []string{"certificate.sent"}, "description": " "})
	res.JSON(t, &changed)
	if res.StatusCode != 200 || strings.Join(changed.Data.Events, ",") != "certificate.sent" || changed.Data.Description != nil ||
		changed.Data.URL != sub.Data.URL {
		t.Fatalf("update: %d %s", res.StatusCode, res.Body)
	}

	for range 3 {
		if res := h.acct.Client.Post(path+"/test", nil); res.StatusCode != http.StatusAccepted ||
			!strings.Contains(string(res.Body), `"eventType":"webhook.test"`) || !strings.Contains(string(res.Body), `"status":"pending"`) {
			t.Fatalf("test: %d %s", res.StatusCode, res.Body)
		}
	}
	var page struct {
		Data []deliveryBody
		Meta struct{ Page, PageSize, Total int }
	}
	h.acct.Client.Get(path+"/deliveries?page=2&pageSize=2").JSON(t, &page)
	if len(page.Data) != 1 || page.Meta.Total != 3 || page.Meta.Page != 2 {
		t.Fatalf("page 2: %+v", page)
	}

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
		if e := decodeError(t, res); res.StatusCode != 400 || e.Error.Code != "VALIDATION_ERROR" || !hasDetail(e, "body.url", "") {
			t.Errorf("%s: %d %s", u, res.StatusCode, res.Body)
		}
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
	if e := decodeError(t, res); res.StatusCode != 400 || !hasDetail(e, "body.url", "not a public address") {
		t.Fatalf("update to link-local: %d %s", res.StatusCode, res.Body)
	}
}

func TestWebhookEventKindsAreValidated(t *testing.T) {
	t.Parallel()
	env := testkit.NewServer(t)
	acct := testkit.SignUp(t, env)
	for _, kinds := range [][]string{{}, {"certificate.burned"}, {"webhook.test"}, {"certificate.issued", "certificate.issued"}} {
		res := acct.Client.Post("/api/v1/webhooks", map[string]any{"url": "https://93.184.216.34/hook", "events": kinds})
		e := decodeError(t, res)
		if res.StatusCode != 400 || len(e.Error.Details) == 0 || !strings.HasPrefix(e.Error.Details[0].Field, "body.events") {
			t.Errorf("%v: %d %s", kinds, res.StatusCode, res.Body)
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
	if e := decodeError(t, res); res.StatusCode != 403 || e.Error.Code != "INSUFFICIENT_SCOPE" {
		t.Fatalf("without webhooks:manage: %d %s", res.StatusCode, res.Body)
	}
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
		if d.Status != "succeeded" || d.Attempts != 1 || strOf(d.Error) != "" {
			t.Fatalf("delivery %+v", d)
		}
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
	if d.Attempts != 1 || d.ResponseStatus != nil || !strings.Contains(strOf(d.Error), "refused before connecting") ||
		!strings.Contains(strOf(d.Error), "127.0.0.1") {
		t.Fatalf("delivery %+v (%s)", d, strOf(d.Error))
	}
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
	if got := h.subscription(t, sub.Data.ID); got.Active || got.DisabledAt == nil || got.ConsecutiveFailures != 1 {
		t.Fatalf("after 410: %+v", got)
	}
	h.recv.answer(http.StatusOK)
	h.acct.Client.Post(path+"/test", nil)
	h.dispatch(t)
	if got := h.subscription(t, sub.Data.ID); got.Active || got.ConsecutiveFailures != 0 {
		t.Fatalf("a test switched the subscription on: %+v", got)
	}

	var got subscriptionBody
	res := h.acct.Client.Put(path, map[string]any{"active": true})
	res.JSON(t, &got)
	if res.StatusCode != 200 || !got.Data.Active || got.Data.DisabledAt != nil || got.Data.ConsecutiveFailures != 0 {
		t.Fatalf("re-enable: %d %s", res.StatusCode, res.Body)
	}
	ada := h.acct.Attendee(t, h.event, "Ada", "Lovelace", "ada@example.org")
	if res := h.acct.Client.Post("/api/v1/certificates/generate", h.generate(ada, nil)); res.StatusCode != 200 {
		t.Fatalf("generate: %d %s", res.StatusCode, res.Body)
	}
	h.dispatch(t)
	list := h.deliveries(t, sub.Data.ID)
	if len(list) != 3 || list[0].EventType != "certificate.issued" || list[0].Status != "succeeded" {
		t.Fatalf("deliveries %+v", list)
	}
	if len(h.recv.requests()) != 3 {
		t.Fatalf("requests %d", len(h.recv.requests()))
	}

	// Switching it off by hand gives up what is pending.
	h.recv.answer(http.StatusInternalServerError)
	h.acct.Client.Post(path+"/test", nil)
	h.dispatch(t)
	res = h.acct.Client.Put(path, map[string]any{"active": false})
	res.JSON(t, &got)
	if got.Data.Active || got.Data.DisabledAt != nil {
		t.Fatalf("switched off by hand: %s", res.Body)
	}
	if d := h.deliveries(t, sub.Data.ID)[0]; d.Status != "failed" || d.NextAttemptAt != nil || !strings.Contains(strOf(d.Error), "switched off") {
		t.Fatalf("the pending delivery: %+v", d)
	}
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
