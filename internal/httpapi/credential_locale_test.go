package httpapi_test

import (
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"

	"github.com/certhub/credentiald/internal/testkit"
)

// The sentences a signed credential generates where the issuer wrote none (an event or a
// badge without a description or criteria) speak the credential's language: a certificate's
// its event's, frozen in its snapshot; an assertion's its own. Both forms verify, and they
// stay what was signed when the event's locale changes afterwards.
func TestACredentialsGeneratedTextsSpeakItsLanguage(t *testing.T) {
	t.Parallel()
	env := testkit.NewServer(t)
	b, tmpl, grete, badge := localeBadging(t, env, "de")
	// An issuer's name that ends in a full stop would end the English and German sentences
	// with two: credentials issued so far say so, and must keep saying what they were signed with.
	b.acct.Client.Put("/api/v1/branding", map[string]any{"issuerName": "Gophers Berlin"})
	s := issuing{env: env, acct: b.acct, event: b.event, template: tmpl}
	var c certificateBody
	if res := b.acct.Client.Post("/api/v1/certificates/generate", s.generate(uuid.MustParse(grete), nil)); res.StatusCode != 200 {
		t.Fatalf("generate: %d %s", res.StatusCode, res.Body)
	} else {
		res.JSON(t, &c)
	}
	_, issued := b.issue(t, b.acct.Client, badge, ids(grete))
	issuer := fetchIssuer(t, env.Client, b.acct.ID.String())

	achievement := func(code string) (cred map[string]any, description, narrative string) {
		t.Helper()
		cred = signedCredential(t, env.Client, code, issuer)
		a := cred["credentialSubject"].(map[string]any)["achievement"].(map[string]any)
		return cred, a["description"].(string), a["criteria"].(map[string]any)["narrative"].(string)
	}
	certificate, description, narrative := achievement(c.Data.VerificationCode)
	if want := "Teilnahmebescheinigung für Gophertage 2026 am 12. November 2026, ausgestellt von Gophers Berlin."; description != want {
		t.Errorf("the certificate's description %q, want %q", description, want)
	}
	if want := "Verliehen an die Teilnehmenden von Gophertage 2026 (2026-11-12)."; narrative != want {
		t.Errorf("the certificate's criteria %q, want %q", narrative, want)
	}
	assertion, description, narrative := achievement(issued.Data[0].VerificationCode)
	if want := "Das Abzeichen „Sprecherin“, verliehen von Gophers Berlin."; description != want {
		t.Errorf("the badge's description %q, want %q", description, want)
	}
	if want := "Gophers Berlin verleiht das Abzeichen „Sprecherin“ an Personen eigener Wahl."; narrative != want {
		t.Errorf("the badge's criteria %q, want %q", narrative, want)
	}
	assert.Equal(t, "Gophertage 2026", certificate["name"], `the user's words were changed: certificate["name"]`)
	assert.Equal(t, "Sprecherin", assertion["name"], `the user's words were changed: assertion["name"]`)

	res := b.acct.Client.Put("/api/v1/events/"+b.event.String(), map[string]any{"name": "Gophertage 2026",
		"eventDate": "2026-11-12T09:00:00Z", "templateId": tmpl, "locale": "ja"})
	if res.StatusCode != 200 {
		t.Fatalf("the event in ja: %d %s", res.StatusCode, res.Body)
	}
	if again, _, _ := achievement(c.Data.VerificationCode); mustJSON(t, again) != mustJSON(t, certificate) {
		t.Errorf("the certificate's credential changed with its event's locale:\n%s", mustJSON(t, again))
	}
	if again, _, _ := achievement(issued.Data[0].VerificationCode); mustJSON(t, again) != mustJSON(t, assertion) {
		t.Errorf("the assertion's credential changed with its event's locale:\n%s", mustJSON(t, again))
	}
}
