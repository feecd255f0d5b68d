package httpapi_test

import (
	"bytes"
	"io"
	"mime"
	"mime/quotedprintable"
	"net/mail"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/certhub/credentiald/internal/config"
	"github.com/certhub/credentiald/internal/testkit"
)

// A certificate's delivery email speaks its event's language: the subject, the plain-text
// body, the HTML part's heading, buttons, footer and <html lang>, sent over real SMTP on
// loopback. The user's words (the event's name, the recipient's name) stay as typed.
func TestTheDeliveryEmailSpeaksTheEventsLanguage(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		locale, subject string
		text, html      []string
	}{
		{"de", "Ihr Zertifikat: Gophertage 2026",
			[]string{"Hallo Grete,", "im Anhang finden Sie Ihr Zertifikat für Gophertage 2026 (CERT-", "Jeder kann seine Echtheit hier prüfen:",
				"Bewahren Sie es in Ihrer digitalen Wallet auf:"},
			[]string{`<html lang="de">`, "Ihr Zertifikat ist da", "Zertifikat ansehen und prüfen", "Zur Wallet hinzufügen", "Gesendet im Auftrag von Gophers e.V."}},
		{"ja", "Gophertage 2026 の証明書をお送りします",
			[]string{"Grete Müller 様", "Gophertage 2026 の証明書（CERT-", "どなたでも次のページで確認できます"},
			[]string{`<html lang="ja">`, "証明書をお届けします", "証明書を表示・検証する", "ウォレットに追加"}},
	} {
		t.Run(tc.locale, func(t *testing.T) {
			t.Parallel()
			smtp := testkit.SMTPServer(t)
			env := testkit.NewServer(t, testkit.WithConfig(func(c *config.Config) { c.SMTPURL = smtp.URL() }))
			acct := testkit.SignUp(t, env)
			acct.Client.Put("/api/v1/branding", map[string]any{"issuerName": "Gophers e.V."})
			tmpl := acct.Template(t, env)
			res := acct.Client.Post("/api/v1/events", map[string]any{"name": "Gophertage 2026", "eventDate": "2026-11-12T09:00:00Z",
				"templateId": tmpl, "locale": tc.locale})
			var ev eventBody
			res.JSON(t, &ev)
			s := issuing{env: env, acct: acct, event: uuid.MustParse(ev.Data.ID), template: tmpl}
			a := acct.Attendee(t, s.event, "Grete", "Müller", "grete@example.org")
			if res := acct.Client.Post("/api/v1/certificates/generate", s.generate(a, map[string]any{"sendEmail": true})); res.StatusCode != 200 {
				t.Fatalf("generate: %d %s", res.StatusCode, res.Body)
			}
			wantOneLocalizedEmail(t, env, smtp, localizedEmail{subject: tc.subject, text: tc.text, html: tc.html,
				englishPhrase: []string{"Anyone can verify", "Keep it in your digital wallet"}})
		})
	}
}

// localizedEmail is what a test expects of the one message the email worker sent: its decoded
// subject, phrases of its plain text and of its HTML, and English phrases that must be gone.
type localizedEmail struct {
	subject       string
	text, html    []string
	englishPhrase []string
}

// wantOneLocalizedEmail runs the email worker, which must send exactly one message over smtp,
// and checks it against want.
func wantOneLocalizedEmail(t *testing.T, env *testkit.Env, smtp *testkit.SMTP, want localizedEmail) {
	t.Helper()
	n, err := runEmail(t, env)
	require.NoError(t, err, "email worker")
	require.Equal(t, 1, n, "messages the email worker sent")
	msgs := smtp.Messages()
	if len(msgs) != 1 {
		t.Fatalf("%d messages over SMTP", len(msgs))
	}
	msg, err := mail.ReadMessage(bytes.NewReader(msgs[0].Data))
	if err != nil {
		t.Fatal(err)
	}
	subject, err := new(mime.WordDecoder).DecodeHeader(msg.Header.Get("Subject"))
	require.NoError(t, err, "decoding the subject")
	require.Equal(t, want.subject, subject, "subject")
	text := plainText(t, string(msgs[0].Data))
	for _, phrase := range want.text {
		if !strings.Contains(text, phrase) {
			t.Errorf("the text lacks %q:\n%s", phrase, text)
		}
	}
	for _, english := range want.englishPhrase {
		if strings.Contains(text, english) {
			t.Errorf("English left in the text (%q):\n%s", english, text)
		}
	}
	all, _ := io.ReadAll(quotedprintable.NewReader(bytes.NewReader(msgs[0].Data)))
	for _, phrase := range want.html {
		if !bytes.Contains(all, []byte(phrase)) {
			t.Errorf("the HTML lacks %q", phrase)
		}
	}
}
