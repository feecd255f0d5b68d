package httpapi_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/certhub/credentiald/internal/testkit"
	"github.com/certhub/credentiald/internal/testkit/contract"
)

// otherInstance is a session of the service's database outside this process: what another
// instance of the service commits. Quiet, its changes are not told (triggers off for the
// session): what only a cache would keep answering.
func otherInstance(t *testing.T, env *testkit.Env, quiet bool) *pgx.Conn {
	t.Helper()
	conn, err := pgx.Connect(t.Context(), env.Config.DatabaseURL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close(context.Background()) })
	if quiet {
		if _, err := conn.Exec(t.Context(), "SET session_replication_role = replica"); err != nil {
			t.Fatal(err)
		}
	}
	return conn
}

// waitForLog waits until the service's log holds its n-th line containing text.
func waitForLog(t *testing.T, env *testkit.Env, text string, n int) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); strings.Count(env.Logs(), text) < n; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the log never said %q %d times:\n%s", text, n, env.Logs())
		}
	}
}

// The lookups keep an issued certificate in memory while the service listens for changes:
// a change no one is told of goes unseen, which proves the lookup answered from memory. Any
// change told (another instance's revocation, through PostgreSQL's notices) is seen within
// moments, and while the listening connection is lost, nothing is kept.
func TestVerificationLookupsKeepCertificatesUntilTheyChange(t *testing.T) {
	t.Parallel()
	s := newIssuing(t)
	waitForLog(t, s.env, "listening for credential changes: the lookups keep", 1)
	c := s.issue(t, "Ada", "Lovelace", nil)
	code := c.Data.VerificationCode
	name := func() string {
		t.Helper()
		v, res := verify(t, s.env.Client, code)
		if res.StatusCode != http.StatusOK {
			t.Fatalf("verify: %d %s", res.StatusCode, res.Body)
		}
		return v.Data.Recipient.Name + " " + v.Data.Status
	}
	if got := name(); got != "Ada Lovelace valid" {
		t.Fatalf("first lookup: %s", got)
	}

	quiet := otherInstance(t, s.env, true)
	if _, err := quiet.Exec(t.Context(), "UPDATE certificates SET recipient_last_name = 'Byron' WHERE verification_code = $1", code); err != nil {
		t.Fatal(err)
	}
	if got := name(); got != "Ada Lovelace valid" {
		t.Fatalf("a change told to no one is seen at once (%s): the lookup did not answer from memory", got)
	}

	told := otherInstance(t, s.env, false)
	if _, err := told.Exec(t.Context(), `UPDATE certificates SET status = 'revoked', revoked_at = now(), revocation_reason_code = 'fraud',
		updated_at = now() WHERE verification_code = $1`, code); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(5 * time.Second); name() != "Ada Byron revoked"; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("another instance's revocation is not seen after 5 s: %s", name())
		}
	}

	// The listening connection lost: what was kept is forgotten, and nothing is kept until it
	// listens again, so a change told to no one is seen at once.
	if _, err := told.Exec(t.Context(), "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query = 'LISTEN credential_changes' AND datname = current_database()"); err != nil {
		t.Fatal(err)
	}
	waitForLog(t, s.env, "listening for credential changes failed", 1)
	if _, err := quiet.Exec(t.Context(), "UPDATE certificates SET recipient_first_name = 'Augusta' WHERE verification_code = $1", code); err != nil {
		t.Fatal(err)
	}
	if got := name(); got != "Augusta Byron revoked" {
		t.Fatalf("once the listening connection was lost, a lookup answered from memory: %s", got)
	}
	waitForLog(t, s.env, "listening for credential changes: the lookups keep", 2)
}

// This instance's own changes are seen by the very next lookup, without waiting for their
// notice (withheld here): its branding, a revocation, on the JSON lookup and on the page.
func TestThisInstancesOwnChangesAreSeenByTheNextLookup(t *testing.T) {
	t.Parallel()
	s := newIssuing(t, testkit.WithChangeNoticesWithheld())
	c := s.issue(t, "Grace", "Hopper", nil)
	code := c.Data.VerificationCode
	quiet := otherInstance(t, s.env, true)
	v, _ := verify(t, s.env.Client, code)
	require.Equal(t, "valid", v.Data.Status, "first lookup: v.Data.Status")
	require.True(t, strings.HasPrefix(v.Data.Issuer.Name, "Account "), "first lookup: %q should start with %q", v.Data.Issuer.Name, "Account ")
	if _, err := quiet.Exec(t.Context(), "UPDATE certificates SET recipient_last_name = 'Murray' WHERE verification_code = $1", code); err != nil {
		t.Fatal(err)
	}
	if v, _ := verify(t, s.env.Client, code); v.Data.Recipient.Name != "Grace Hopper" {
		t.Fatalf("a change told to no one is seen at once (%s): the lookup did not answer from memory", v.Data.Recipient.Name)
	}
	if res := s.acct.Client.Put("/api/v1/branding", map[string]any{"issuerName": "Gophers e.V."}); res.StatusCode != http.StatusOK {
		t.Fatalf("branding: %d %s", res.StatusCode, res.Body)
	}
	v, _ = verify(t, s.env.Client, code)
	require.Equal(t, "Gophers e.V.", v.Data.Issuer.Name, "the lookup after this instance changed its branding: v.Data.Issuer.Name")
	require.Equal(t, "Grace Murray", v.Data.Recipient.Name, "the lookup after this instance changed its branding: v.Data.Recipient.Name")
	if res := s.acct.Client.Post("/api/v1/certificates/"+c.Data.ID+"/revoke", map[string]any{"reason": "Issued by mistake"}); res.StatusCode != http.StatusOK {
		t.Fatalf("revoke: %d %s", res.StatusCode, res.Body)
	}
	if v, _ := verify(t, s.env.Client, code); v.Data.Status != "revoked" {
		t.Fatalf("the lookup after this instance revoked: %s", v.Data.Status)
	}
	req := s.env.Client.Request(http.MethodGet, "/verify/"+code, nil)
	req.Header.Set("Accept", "text/html")
	if page := s.env.Client.Do(req); !strings.Contains(string(page.Body), "Issued by mistake") {
		t.Fatalf("the page after this instance revoked does not say why: %d %s", page.StatusCode, page.Body)
	}
}

// GET /certificates/{id} keeps what it read as the lookups do, and every change this instance
// makes to a certificate is seen by the next read without its notice (withheld here): a
// revocation, a draft issued, a draft deleted (alone, or with its attendee), a certificate made
// out again. Another account's certificate is not found, kept or not; an expiry comes at its
// time.
func TestCertificateReadsKeepRecordsUntilTheyChange(t *testing.T) {
	t.Parallel()
	clock := &testkit.Clock{}
	s := newIssuing(t, testkit.WithChangeNoticesWithheld(), testkit.WithClock(clock.Now))
	_, reader := s.acct.APIKey(t, "certificates:read") // a year on, the session is gone; a key is not
	get := func(id string) certificateBody {
		t.Helper()
		var c certificateBody
		if res := reader.Get("/api/v1/certificates/" + id); res.StatusCode != http.StatusOK {
			c.Data.Status = "HTTP " + res.Header.Get("Content-Type") + " " + http.StatusText(res.StatusCode)
		} else {
			res.JSON(t, &c)
		}
		return c
	}
	gone := "HTTP application/json " + http.StatusText(http.StatusNotFound)
	c := s.issue(t, "Ada", "Lovelace", nil)
	got := get(c.Data.ID)
	require.Equal(t, "valid", got.Data.Status, "first read: got.Data.Status")
	require.Equal(t, c.Data.Recipient.Email, got.Data.Recipient.Email, "first read: got.Data.Recipient.Email")
	quiet := otherInstance(t, s.env, true)
	if _, err := quiet.Exec(t.Context(), "UPDATE certificates SET recipient_email = 'elsewhere@example.org' WHERE id = $1", c.Data.ID); err != nil {
		t.Fatal(err)
	}
	if got := get(c.Data.ID); got.Data.Recipient.Email != c.Data.Recipient.Email {
		t.Fatalf("a change told to no one is seen at once (%s): the read did not answer from memory", got.Data.Recipient.Email)
	}
	other := testkit.SignUp(t, s.env)
	if res := other.Client.Get("/api/v1/certificates/" + c.Data.ID); res.StatusCode != http.StatusNotFound {
		t.Fatalf("another account read a kept certificate: %d %s", res.StatusCode, res.Body)
	}
	if res := s.acct.Client.Post("/api/v1/certificates/"+c.Data.ID+"/revoke", map[string]any{"reason": "Issued by mistake"}); res.StatusCode != http.StatusOK {
		t.Fatalf("revoke: %d %s", res.StatusCode, res.Body)
	}
	got = get(c.Data.ID)
	require.Equal(t, "revoked", got.Data.Status, "after this instance revoked: got.Data.Status")
	require.Equal(t, "elsewhere@example.org", got.Data.Recipient.Email, "after this instance revoked: got.Data.Recipient.Email")

	drafts := map[string]string{}
	path := "/api/v1/events/" + s.event.String() + "/certificates/generate"
	for _, name := range []string{"Issued", "Deleted", "Leaving"} {
		a := s.acct.Attendee(t, s.event, name, "Draft", strings.ToLower(name)+"@example.org")
		var out bulkResult
		s.acct.Client.Post(path, map[string]any{"attendeeIds": []string{a.String()}, "draft": true, "sendEmail": false}).JSON(t, &out)
		if len(out.Data.Issued) != 1 {
			t.Fatalf("draft for %s: %+v", name, out.Data)
		}
		drafts[name] = out.Data.Issued[0].ID
		if got := get(drafts[name]); got.Data.Status != "draft" {
			t.Fatalf("draft %s: %+v", name, got.Data)
		}
		if name == "Issued" {
			var issued certificateBody
			s.acct.Client.Post("/api/v1/certificates/generate", s.generate(a, nil)).JSON(t, &issued)
			if issued.Data.ID != drafts[name] {
				t.Fatalf("the draft was not issued: %+v", issued.Data)
			}
		}
		if name == "Deleted" {
			if res := s.acct.Client.Delete("/api/v1/certificates/" + drafts[name]); res.StatusCode != http.StatusNoContent {
				t.Fatalf("delete the draft: %d %s", res.StatusCode, res.Body)
			}
		}
		if name == "Leaving" {
			if res := s.acct.Client.Delete("/api/v1/attendees/" + a.String()); res.StatusCode != http.StatusNoContent {
				t.Fatalf("delete the attendee: %d %s", res.StatusCode, res.Body)
			}
		}
	}
	got = get(drafts["Issued"])
	require.Equal(t, "valid", got.Data.Status, "a kept draft, issued: got.Data.Status")
	require.NotNil(t, got.Data.IssuedAt, "a kept draft, issued: got.Data.IssuedAt")
	if got := get(drafts["Deleted"]); got.Data.Status != gone {
		t.Fatalf("a kept draft, deleted: %+v", got.Data)
	}
	if got := get(drafts["Leaving"]); got.Data.Status != gone {
		t.Fatalf("a kept draft, its attendee deleted: %+v", got.Data)
	}

	c2 := s.issue(t, "Grace", "Hopper", nil)
	get(c2.Data.ID)
	s.acct.Client.Put("/api/v1/attendees/"+c2.Data.AttendeeID, map[string]any{"firstName": "Amazing Grace"})
	s.acct.Client.Post("/api/v1/certificates/"+c2.Data.ID+"/regenerate", nil)
	got = get(c2.Data.ID)
	require.Equal(t, "Amazing Grace", got.Data.Recipient.FirstName, "a kept certificate made out again: got.Data.Recipient.FirstName")
	require.Equal(t, "valid", got.Data.Status, "a kept certificate made out again: got.Data.Status")
	clock.Advance(366 * 24 * time.Hour)
	if got := get(c2.Data.ID); got.Data.Status != "expired" {
		t.Fatalf("a kept certificate past its expiry: %s", got.Data.Status)
	}
}

// The public page of a certificate is kept as it was sent, gzip compressed, and sent so to a
// client that takes gzip (inflated for one that does not, the same page): whatever the page
// shows moves its key, so a kept page never outlives a revocation, a new issuer name or a
// certificate made out again, and the language links of each path and parameters are its own.
func TestKeptPagesShowEveryChange(t *testing.T) {
	t.Parallel()
	s := newIssuing(t)
	c := s.issue(t, "Ada", "Lovelace", nil)
	page := func(path, encoding string) (string, *contract.Response) {
		t.Helper()
		req := s.env.Client.Request(http.MethodGet, path, nil)
		req.Header.Set("Accept", "text/html")
		req.Header.Set("Accept-Encoding", encoding)
		res := s.env.Client.Do(req)
		require.Equal(t, http.StatusOK, res.StatusCode, "%s (%s): status (header %v)", path, encoding, res.Header)
		require.Contains(t, strings.Join(res.Header.Values("Vary"), ","), "Accept-Encoding", "%s (%s): Vary", path, encoding)
		body := res.Body
		if res.Header.Get("Content-Encoding") == "gzip" {
			r, err := gzip.NewReader(bytes.NewReader(res.Body))
			if err != nil {
				t.Fatal(err)
			}
			if body, err = io.ReadAll(r); err != nil {
				t.Fatal(err)
			}
		} else if encoding == "gzip" {
			t.Fatalf("%s: asked gzip, got %q", path, res.Header.Get("Content-Encoding"))
		}
		if res.Header.Get("Content-Length") != strconv.Itoa(len(res.Body)) {
			t.Fatalf("%s: Content-Length %s for %d bytes", path, res.Header.Get("Content-Length"), len(res.Body))
		}
		return string(body), res
	}
	path := "/verify/" + c.Data.VerificationCode
	first, _ := page(path, "gzip")
	again, res := page(path, "br;q=1, gzip;q=0.5")
	plain, plainRes := page(path, "gzip;q=0, *")
	require.Equal(t, first, again, "the kept page differs from the page made: asked br")
	require.Equal(t, first, plain, "the kept page differs from the page made: asked uncompressed")
	require.Less(t, len(res.Body), len(plain), "the kept page differs from the page made: bytes compressed, want fewer than plain")
	require.Equal(t, "", plainRes.Header.Get("Content-Encoding"), "the kept page differs from the page made: uncompressed Content-Encoding")
	require.Equal(t, plainRes.Header.Get("Content-Security-Policy"), res.Header.Get("Content-Security-Policy"), "the kept page differs from the page made: Content-Security-Policy")
	withCode, _ := page(path+"?code=ABC", "gzip")
	require.Contains(t, withCode, "code=ABC", "the language links of a page asked with parameters are another page's: the page asked with ?code=ABC")
	require.NotContains(t, first, "code=ABC", "the language links of a page asked with parameters are another page's: the page asked without")
	if res := s.acct.Client.Put("/api/v1/branding", map[string]any{"issuerName": "Gophers e.V."}); res.StatusCode != http.StatusOK {
		t.Fatalf("branding: %d", res.StatusCode)
	}
	if p, _ := page(path, "gzip"); !strings.Contains(p, "Gophers e.V.") {
		t.Fatal("a kept page outlived a new issuer name")
	}
	s.acct.Client.Put("/api/v1/attendees/"+c.Data.AttendeeID, map[string]any{"firstName": "Augusta Ada"})
	s.acct.Client.Post("/api/v1/certificates/"+c.Data.ID+"/regenerate", nil)
	if p, _ := page(path, "gzip"); !strings.Contains(p, "Augusta Ada Lovelace") {
		t.Fatal("a kept page outlived the certificate made out again")
	}
	s.acct.Client.Post("/api/v1/certificates/"+c.Data.ID+"/revoke", map[string]any{"reason": "Issued by mistake"})
	if p, _ := page(path, "gzip"); !strings.Contains(p, "Issued by mistake") {
		t.Fatal("a kept page outlived the revocation")
	}
}
