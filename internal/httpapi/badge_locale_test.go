package httpapi_test

import (
	"testing"

	"github.com/google/uuid"

	"github.com/certhub/credentiald/internal/config"
	"github.com/certhub/credentiald/internal/testkit"
)

// localeBadging is an account with an event in locale, one attendee of it and a badge, for the
// tests of a badge assertion's language.
func localeBadging(t *testing.T, env *testkit.Env, locale string) (b badging, tmpl uuid.UUID, attendee, badge string) {
	t.Helper()
	acct := testkit.SignUp(t, env)
	acct.Client.Put("/api/v1/branding", map[string]any{"issuerName": "Gophers e.V."})
	tmpl = acct.Template(t, env)
	res := acct.Client.Post("/api/v1/events", map[string]any{"name": "Gophertage 2026", "eventDate": "2026-11-12T09:00:00Z",
		"templateId": tmpl, "locale": locale})
	var ev eventBody
	res.JSON(t, &ev)
	b = badging{env: env, acct: acct, event: uuid.MustParse(ev.Data.ID)}
	attendee = acct.Attendee(t, b.event, "Grete", "Müller", "grete@example.org").String()
	return b, tmpl, attendee, b.badge(t, map[string]any{"name": "Sprecherin"}).Data.ID
}

// A badge's delivery email speaks its attendee's event's language: the subject, the plain
// text, the HTML part's heading, buttons, footer and <html lang>, sent over real SMTP on
// loopback. The user's words (the badge's, the issuer's and the recipient's names) stay as
// typed.
func TestTheBadgeEmailSpeaksTheEventsLanguage(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		locale, subject string
		text, html      []string
	}{
		{"de", "Ihr Abzeichen: Sprecherin",
			[]string{"Hallo Grete,", "Gophers e.V. hat Ihnen das Abzeichen „Sprecherin“ verliehen.",
				"Hier kann jeder es prüfen, und Sie können es Ihrem Profil hinzufügen:", "Bewahren Sie es in Ihrer digitalen Wallet auf:"},
			[]string{`<html lang="de">`, "Sie haben ein Abzeichen erhalten", "Abzeichen ansehen", "Zur Wallet hinzufügen",
				"Gesendet im Auftrag von Gophers e.V."}},
		{"ja", "バッジ「Sprecherin」が授与されました",
			[]string{"Grete Müller 様", "Gophers e.V.より、バッジ「Sprecherin」が授与されました。"},
			[]string{`<html lang="ja">`, "バッジが授与されました", "バッジを表示する", "ウォレットに追加"}},
	} {
		t.Run(tc.locale, func(t *testing.T) {
			t.Parallel()
			smtp := testkit.SMTPServer(t)
			env := testkit.NewServer(t, testkit.WithConfig(func(c *config.Config) { c.SMTPURL = smtp.URL() }))
			b, _, grete, badge := localeBadging(t, env, tc.locale)
			if res, _ := b.issue(t, b.acct.Client, badge, map[string]any{"attendeeIds": []string{grete}, "sendEmail": true}); res.StatusCode != 200 {
				t.Fatalf("issue: %d %s", res.StatusCode, res.Body)
			}
			wantOneLocalizedEmail(t, env, smtp, localizedEmail{subject: tc.subject, text: tc.text, html: tc.html,
				englishPhrase: []string{"awarded you", "Anyone can verify", "digital wallet"}})
		})
	}
}

// A badge's verification page speaks the language asked by ?lang=, else by Accept-Language,
// else the assertion's own: its attendee's event's as it was issued, which a later change of
// the event's locale leaves as it was. It says so in <html lang>, answers Vary:
// Accept-Language and links itself in every language.
func TestTheBadgePageSpeaksTheLanguageAsked(t *testing.T) {
	t.Parallel()
	env := testkit.NewServer(t)
	b, tmpl, grete, badge := localeBadging(t, env, "de")
	_, issued := b.issue(t, b.acct.Client, badge, ids(grete))
	if len(issued.Data) != 1 {
		t.Fatalf("issued %+v", issued)
	}
	res := b.acct.Client.Put("/api/v1/events/"+b.event.String(), map[string]any{"name": "Gophertage 2026",
		"eventDate": "2026-11-12T09:00:00Z", "templateId": tmpl, "locale": "ja"})
	if res.StatusCode != 200 {
		t.Fatalf("the event in ja: %d %s", res.StatusCode, res.Body)
	}
	page := "/verify/" + issued.Data[0].VerificationCode

	for _, tc := range []pageLanguageCase{
		{"the assertion's own locale", "", "", "de",
			[]string{"Dieses Abzeichen ist gültig", "Verliehen an", "Abzeichen herunterladen (PNG)", "Sprecherin", "Grete Müller"}},
		{"Accept-Language", "", "ja-JP,ja;q=0.9,en;q=0.5", "ja", []string{"このバッジは有効です", "授与先", "Sprecherin"}},
		{"?lang= before Accept-Language", "?lang=fr", "ja", "fr", []string{"Ce badge est valide", "Décerné à"}},
		{"an unsupported ?lang= is ignored", "?lang=tlh", "en-GB", "en", []string{"This badge is valid", "Awarded to"}},
	} {
		t.Run(tc.name, func(t *testing.T) { wantPageSpeaks(t, env, page, tc) })
	}
}
