package httpapi_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/certhub/credentiald/internal/testkit"
)

// The home page and the site's error pages have no credential to take a language from: they
// speak the one asked by ?lang=, else by Accept-Language, else English, with <html lang> and
// Vary: Accept-Language. They link themselves in every language, and the home page keeps a
// ?lang= through the lookup to the credential's page.
func TestTheHomeAndErrorPagesSpeakTheLanguageAsked(t *testing.T) {
	t.Parallel()
	env := testkit.NewServer(t)
	for _, tc := range []struct {
		name, path, accept, lang string
		status                   int
		want                     []string
	}{
		{"home, ?lang=", "/?lang=de", "", "de", 200, []string{"Nachweis prüfen", "Prüfcode", `<input type="hidden" name="lang" value="de">`,
			`href="/?lang=ja" hreflang="ja" lang="ja"`, `hreflang="de" lang="de" aria-current="true"`}},
		{"home, Accept-Language", "/", "ja-JP,ja;q=0.9", "ja", 200, []string{"資格証明を確認する", "確認コード", `<a href="/docs">APIリファレンス</a>`}},
		{"home, nothing asked", "/", "", "en", 200, []string{"Verify a credential", "Letters and digits; case and hyphens do not matter.",
			`The <a href="/docs">API reference</a> documents every operation.`}},
		{"not a code", "/?code=%21%21&lang=fr", "", "fr", 400, []string{"Ce n&#39;est pas un code de vérification"}},
		{"no credential", "/verify/ZZZZZZZZZZZZZ", "pl", "pl", 404, []string{"Brak poświadczenia o tym kodzie", "„ZZZZZZZZZZZZZ”", "Kod weryfikacyjny",
			`href="/verify/ZZZZZZZZZZZZZ?lang=de" hreflang="de" lang="de"`, `hreflang="pl" lang="pl" aria-current="true"`}},
		{"no credential, ?lang= first", "/verify/ZZZZZZZZZZZZZ?lang=es", "pl", "es", 404, []string{"No hay ninguna credencial con este código"}},
		{"no credential, an unsupported language", "/verify/ZZZZZZZZZZZZZ", "tlh", "en", 404, []string{"No credential with this code"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req := env.Client.Request(http.MethodGet, tc.path, nil)
			if tc.accept != "" {
				req.Header.Set("Accept-Language", tc.accept)
			}
			res := env.Client.Do(req)
			body := string(res.Body)
			require.Equal(t, tc.status, res.StatusCode, "status:\n%.600s", body)
			require.Contains(t, body, `<html lang="`+tc.lang+`">`, "<html lang>")
			if !strings.Contains(res.Header.Get("Vary"), "Accept-Language") {
				t.Errorf("Vary: %q", res.Header.Values("Vary"))
			}
			for _, want := range tc.want {
				if !strings.Contains(body, want) {
					t.Errorf("the page lacks %q:\n%s", want, body)
				}
			}
		})
	}
	// A lookup made from the page in German goes on in German.
	res := env.Client.Get("/?code=7K2M-9QXR-T4VZ1&lang=de")
	loc := res.Header.Get("Location")
	require.Equal(t, http.StatusFound, res.StatusCode, "lookup: status")
	require.Equal(t, "/verify/7K2M9QXRT4VZ1?lang=de", loc, "lookup: Location")
}

// A wallet link that no longer works says why in the page's language, and a certificate's
// share card is drawn in its own language (Japanese here: the card's fonts draw it).
func TestTheWalletsGonePageAndTheShareCardSpeakTheLanguage(t *testing.T) {
	t.Parallel()
	env := testkit.NewServer(t)
	acct := testkit.SignUp(t, env)
	tmpl := acct.Template(t, env)
	var ev eventBody
	acct.Client.Post("/api/v1/events", map[string]any{"name": "Gophertage 2026", "eventDate": "2026-11-12T09:00:00Z",
		"templateId": tmpl, "locale": "ja"}).JSON(t, &ev)
	s := issuing{env: env, acct: acct, event: uuid.MustParse(ev.Data.ID), template: tmpl}
	var c certificateBody
	acct.Client.Post("/api/v1/certificates/generate", s.generate(acct.Attendee(t, s.event, "Grete", "Müller", "grete@example.org"), nil)).JSON(t, &c)

	res := env.Client.Get("/api/v1/verify/" + c.Data.VerificationCode + "/share.png")
	require.Equal(t, 200, res.StatusCode, "share card: status")
	require.Equal(t, "image/png", res.Header.Get("Content-Type"), "share card: Content-Type")
	require.GreaterOrEqual(t, len(res.Body), 1000, "share card: bytes")

	var o walletOfferBody
	if res := acct.Client.Post("/api/v1/certificates/"+c.Data.ID+"/wallet-offers", nil); res.StatusCode != http.StatusCreated {
		t.Fatalf("offer: %d %s", res.StatusCode, res.Body)
	} else {
		res.JSON(t, &o)
	}
	if res := acct.Client.Post("/api/v1/certificates/"+c.Data.ID+"/revoke", map[string]any{"reason": "typo"}); res.StatusCode != 200 {
		t.Fatalf("revoke: %d %s", res.StatusCode, res.Body)
	}
	interaction, _ := url.Parse(o.Data.InteractionURL)
	for _, tc := range []struct{ accept, lang, heading, why string }{
		{"", "ja", "", "この資格証明は取り消されたため、受け取ることはできません。"},
		{"de-DE,de;q=0.9", "de", "Dieser Wallet-Link funktioniert nicht mehr", "Der Nachweis wurde widerrufen und kann nicht mehr abgerufen werden."},
		{"en", "en", "This wallet link no longer works", "The credential was revoked; it can no longer be claimed."},
	} {
		req := env.Client.Request(http.MethodGet, interaction.RequestURI(), nil)
		if tc.accept != "" {
			req.Header.Set("Accept-Language", tc.accept)
		}
		res := env.Client.Do(req)
		body := string(res.Body)
		assert.Equal(t, http.StatusGone, res.StatusCode, "Accept-Language %q: status", tc.accept)
		assert.Contains(t, body, `<html lang="`+tc.lang+`">`, "Accept-Language %q: body", tc.accept)
		assert.Contains(t, body, tc.heading, "Accept-Language %q: body", tc.accept)
		assert.Contains(t, body, tc.why, "Accept-Language %q: body", tc.accept)
	}
}
