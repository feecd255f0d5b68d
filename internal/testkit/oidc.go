package testkit

import (
	"crypto/rand"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/zitadel/oidc/v3/example/server/exampleop"
	"github.com/zitadel/oidc/v3/example/server/storage"
)

// OpenIDProvider is a real OpenID Provider on loopback: zitadel/oidc's example provider
// (authorization code flow with PKCE, signed ID tokens, discovery, JWKS, UserInfo; its ID
// tokens hold no email, its UserInfo does), with the users a test gives it and one client
// registered for the service's callback.
type OpenIDProvider struct {
	Issuer       string
	ClientID     string
	ClientSecret string
}

// ProviderUser is a person who can sign in at the provider: with Username and the password
// "verysecure".
type ProviderUser struct {
	ID, Username      string
	Email             string
	EmailVerified     bool
	FirstName, Family string
}

// ProviderPassword is every provider user's password.
const ProviderPassword = "verysecure"

// the example's storage keeps its clients in one map of the package: providers are started
// one at a time.
var providerMu sync.Mutex

// StartOpenIDProvider starts the provider with users and a client whose redirect URI is
// redirectURI.
func StartOpenIDProvider(t testing.TB, redirectURI string, users ...ProviderUser) *OpenIDProvider {
	t.Helper()
	type storedUser struct {
		ID, Username, Password, FirstName, LastName, Email string
		EmailVerified                                      bool
		PreferredLanguage                                  string
	}
	byID := map[string]storedUser{}
	for _, u := range users {
		byID[u.ID] = storedUser{ID: u.ID, Username: u.Username, Password: ProviderPassword, FirstName: u.FirstName,
			LastName: u.Family, Email: u.Email, EmailVerified: u.EmailVerified, PreferredLanguage: "en"}
	}
	raw, err := json.Marshal(byID)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "users.json")
	if err := os.WriteFile(path, raw, 0o600); err != nil {
		t.Fatal(err)
	}
	userStore, err := storage.StoreFromFile(path)
	if err != nil {
		t.Fatal(err)
	}
	p := &OpenIDProvider{ClientID: "credentiald-" + RandomSuffix(), ClientSecret: "secret-" + RandomSuffix()}
	providerMu.Lock()
	defer providerMu.Unlock()
	st := storage.NewStorageWithClients(userStore, map[string]*storage.Client{
		p.ClientID: storage.WebClient(p.ClientID, p.ClientSecret, redirectURI)})
	var handler http.Handler
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { handler.ServeHTTP(w, r) }))
	t.Cleanup(srv.Close)
	p.Issuer = srv.URL
	handler = exampleop.SetupServer(srv.URL, st, nil, false)
	return p
}

// Browser is a person's browser at the provider: it keeps the provider's cookies and follows
// no redirect by itself.
type Browser struct {
	http *http.Client
}

// NewBrowser returns a browser with an empty cookie jar.
func NewBrowser(t testing.TB) *Browser {
	jar, err := cookiejar.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	return &Browser{http: &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
}

// SignIn follows the provider's authorization URL, signs in as username on its login form and
// returns where the provider sends the browser back to (the service's callback, with code and
// state, or an error).
func (b *Browser) SignIn(t testing.TB, authorizeURL, username string) *url.URL {
	t.Helper()
	at, err := url.Parse(authorizeURL)
	if err != nil {
		t.Fatal(err)
	}
	login := b.redirect(t, http.MethodGet, at, nil) // to the login page
	page := b.get(t, login)
	if !strings.Contains(page, `name="id"`) {
		t.Fatalf("the provider's login page: %s", page)
	}
	form := url.Values{"id": {login.Query().Get("authRequestID")}, "username": {username}, "password": {ProviderPassword}}
	callback := b.redirect(t, http.MethodPost, login.ResolveReference(&url.URL{Path: "/login/username"}), form)
	return b.redirect(t, http.MethodGet, callback, nil) // the provider's own callback, then back to the service
}

func (b *Browser) get(t testing.TB, u *url.URL) string {
	t.Helper()
	res, err := b.http.Get(u.String())
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	return string(body)
}

// redirect sends a request and returns the Location it is redirected to, resolved.
func (b *Browser) redirect(t testing.TB, method string, u *url.URL, form url.Values) *url.URL {
	t.Helper()
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req, err := http.NewRequest(method, u.String(), body)
	if err != nil {
		t.Fatal(err)
	}
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	res, err := b.http.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	text, _ := io.ReadAll(res.Body)
	if res.StatusCode != http.StatusFound && res.StatusCode != http.StatusSeeOther {
		t.Fatalf("%s %s: want a redirect, got %d %s", method, u, res.StatusCode, text)
	}
	loc, err := u.Parse(res.Header.Get("Location"))
	if err != nil {
		t.Fatal(err)
	}
	return loc
}

// RandomSuffix is a short random text that keeps names of one test apart from another's.
func RandomSuffix() string { return fmt.Sprintf("%d-%s", accountSeq.Add(1), rand.Text()[:8]) }
