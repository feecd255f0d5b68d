package httpapi_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/certhub/credentiald/internal/testkit"
	"github.com/certhub/credentiald/internal/testkit/pdftext"
)

// A certificate drawn from a system template speaks its event's language: the PDF, read back
// as text, holds the template's fixed words and the dates as that language writes them, and
// none of the English words; what the user typed (the event's and the recipient's names)
// stays as typed.
func TestTheCertificatePDFSpeaksTheEventsLanguage(t *testing.T) {
	t.Parallel()
	const classic = "00000000-0000-7000-8000-00000000c001"
	year := time.Now().UTC().Year()
	for _, tc := range []struct {
		locale string
		want   []string
	}{
		{"de", []string{"Teilnahmebescheinigung", "Hiermit wird bescheinigt, dass", "an Gophertage 2026 teilgenommen hat",
			"Berlin · 12. November 2026", "Aussteller", "ausgestellt am", fmt.Sprintf("%d", year), "Prüfen unter"}},
		{"ja", []string{"参加証明書", "以下の者は", "Gophertage 2026に参加したことを証明します", "Berlin · 2026年11月12日",
			"発行者", fmt.Sprintf("%d年", year), "検証："}},
	} {
		t.Run(tc.locale, func(t *testing.T) {
			t.Parallel()
			env := testkit.NewServer(t)
			acct := testkit.SignUp(t, env)
			res := acct.Client.Post("/api/v1/events", map[string]any{"name": "Gophertage 2026", "eventDate": "2026-11-12T09:00:00Z",
				"location": "Berlin", "templateId": classic, "locale": tc.locale})
			var ev eventBody
			res.JSON(t, &ev)
			s := issuing{env: env, acct: acct, event: uuid.MustParse(ev.Data.ID), template: uuid.MustParse(classic)}
			a := acct.Attendee(t, s.event, "Grete", "Müller", "grete@example.org")
			var c certificateBody
			if res := acct.Client.Post("/api/v1/certificates/generate", s.generate(a, nil)); res.StatusCode != 200 {
				t.Fatalf("generate: %d %s", res.StatusCode, res.Body)
			} else {
				res.JSON(t, &c)
			}
			text, err := pdftext.Text(acct.Client.Get("/api/v1/certificates/" + c.Data.ID + "/download").Body)
			if err != nil {
				t.Fatal(err)
			}
			flat := strings.Join(strings.Fields(text), " ")
			// The reader puts a space between runs of different fonts (digits and Latin
			// letters in one face, Japanese in another), where the page shows none: compare
			// without spaces.
			bare := strings.Join(strings.Fields(text), "")
			for _, want := range append(tc.want, "Grete Müller", c.Data.CertificateNumber) {
				if !strings.Contains(bare, strings.Join(strings.Fields(want), "")) {
					t.Errorf("the PDF lacks %q:\n%s", want, flat)
				}
			}
			for _, english := range []string{"Certificate of Attendance", "This is to certify", "has attended", "November", "Verify at"} {
				if strings.Contains(flat, english) && !(tc.locale == "de" && english == "November") {
					t.Errorf("English %q left in the PDF:\n%s", english, flat)
				}
			}
		})
	}
}
