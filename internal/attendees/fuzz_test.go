package attendees

import (
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/certhub/credentiald/internal/apperr"
	"github.com/certhub/credentiald/internal/spec"
)

// Any bytes given as a CSV file either parse into rows that keep the importer's promises or
// answer a VALIDATION_ERROR or PAYLOAD_TOO_LARGE that says what is wrong: never a panic, never
// another error.
func FuzzParseCSV(f *testing.F) {
	for _, s := range []string{
		"firstName,lastName,email\nAda,Lovelace,ada@example.org\n",
		"\xEF\xBB\xBFFirst Name;Last Name;E-mail;Company\nAna 😀;Lima;ana@example.org;=cmd\n",
		"first_name\tlast_name\temail\n𠀀𠮷\t田中\ttanaka@example.org\n",
		"firstName,lastName,email\n\"Ada\n\",\"Love\"\"lace\",ada@example.org,extra\n",
		"firstName,lastName,email\n,,\n\n",
		"%PDF-1.7\n\x00\x01",
		"\xFF\xFEf\x00",
		"firstName,lastName,email\n\"unclosed,x,y\n",
		"a,a,a\n",
		"firstName,lastName,email,firstName\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		parsed, err := parseCSV(data)
		if err != nil {
			var ae *apperr.Error
			if !errors.As(err, &ae) || (ae.Code != apperr.ValidationError && ae.Code != apperr.PayloadTooLarge) || ae.Message == "" {
				t.Fatalf("an error outside the contract: %#v", err)
			}
			return
		}
		for _, r := range parsed.rows {
			for _, v := range []string{r.FirstName, r.LastName, r.Email} {
				if v == "" || !utf8.ValidString(v) || strings.TrimSpace(v) != v {
					t.Fatalf("an accepted row holds %q", v)
				}
			}
			if !spec.IsEmail(r.Email) {
				t.Fatalf("an accepted row holds the email %q", r.Email)
			}
		}
		for _, rej := range parsed.rejected {
			if rej.Row < 2 || rej.Message == "" {
				t.Fatalf("a rejection without its line or message: %+v", rej)
			}
		}
	})
}
