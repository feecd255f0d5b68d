package httpapi_test

import (
	"net/http"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/certhub/credentiald/internal/testkit"
)

// A person's export holds what the account keeps about them, each part as the API shows it
// elsewhere, and nothing of anyone else's: their certificate with its email and wallet offer,
// their badge assertion with its email. Another account's admin gets 404, a key needs
// privacy:manage.
func TestAnAttendeesExportHoldsTheirDataAndNoOneElses(t *testing.T) {
	t.Parallel()
	env := testkit.NewServer(t)
	acct := testkit.SignUp(t, env)
	tmpl := acct.Template(t, env)
	event := acct.Event(t, env, "Export Summit")
	person := acct.Attendee(t, event, "Ines", "Export", "ines.export@example.org")
	other := acct.Attendee(t, event, "Otto", "Other", "otto.other@example.org")

	certOf := func(attendee uuid.UUID) string {
		res := acct.Client.Post("/api/v1/certificates/generate", map[string]any{"templateId": tmpl, "eventId": event,
			"attendeeId": attendee, "sendEmail": true})
		require.Equal(t, 200, res.StatusCode, "%s", res.Body)
		var c struct{ Data struct{ ID string } }
		res.JSON(t, &c)
		return c.Data.ID
	}
	cert := certOf(person)
	certOf(other)
	res := acct.Client.Post("/api/v1/certificates/"+cert+"/wallet-offers", nil)
	require.Equal(t, 201, res.StatusCode, "%s", res.Body)
	var offer struct{ Data struct{ ID string } }
	res.JSON(t, &offer)
	res = acct.Client.Post("/api/v1/badges", map[string]any{"name": "Speaker", "description": "Gave a talk",
		"criteria": map[string]any{"narrative": "Presented"}})
	require.Equal(t, 200, res.StatusCode, "%s", res.Body)
	var badge struct{ Data struct{ ID string } }
	res.JSON(t, &badge)
	res = acct.Client.Post("/api/v1/badges/"+badge.Data.ID+"/issue", map[string]any{"attendeeIds": []uuid.UUID{person, other}, "sendEmail": true})
	require.Equal(t, 200, res.StatusCode, "%s", res.Body)

	res = acct.Client.Get("/api/v1/attendees/" + person.String() + "/export")
	require.Equal(t, http.StatusOK, res.StatusCode, "%s", res.Body)
	var x struct {
		Data struct {
			Attendee     struct{ ID uuid.UUID }
			Certificates []struct{ ID string }
			Assertions   []struct {
				AttendeeID uuid.UUID `json:"attendeeId"`
			}
			EmailDeliveries []struct{ To string }
			WalletOffers    []struct{ ID string }
		}
	}
	res.JSON(t, &x)
	require.Equal(t, person, x.Data.Attendee.ID)
	require.Len(t, x.Data.Certificates, 1)
	require.Equal(t, cert, x.Data.Certificates[0].ID)
	require.Len(t, x.Data.Assertions, 1)
	require.Equal(t, person, x.Data.Assertions[0].AttendeeID)
	require.Len(t, x.Data.EmailDeliveries, 2, "the certificate's email and the badge's")
	for _, d := range x.Data.EmailDeliveries {
		require.Equal(t, "ines.export@example.org", d.To)
	}
	require.Len(t, x.Data.WalletOffers, 1)
	require.Equal(t, offer.Data.ID, x.Data.WalletOffers[0].ID)
	require.NotContains(t, string(res.Body), "otto.other", "nothing of another attendee")

	// A key with privacy:manage may; another key may not; another account sees no such attendee.
	_, key := acct.APIKey(t, "privacy:manage")
	require.Equal(t, http.StatusOK, key.Get("/api/v1/attendees/"+person.String()+"/export").StatusCode)
	_, reader := acct.APIKey(t, "attendees:read")
	wantError(t, reader.Get("/api/v1/attendees/"+person.String()+"/export"), 403, 403, "INSUFFICIENT_SCOPE")
	stranger := testkit.SignUp(t, env)
	wantError(t, stranger.Client.Get("/api/v1/attendees/"+person.String()+"/export"), 404, 404, "NOT_FOUND")

	// After erasure, the export shows what erasure left.
	require.Equal(t, http.StatusOK, acct.Client.Post("/api/v1/attendees/"+person.String()+"/erase", nil).StatusCode)
	res = acct.Client.Get("/api/v1/attendees/" + person.String() + "/export")
	require.Equal(t, http.StatusOK, res.StatusCode)
	require.NotContains(t, string(res.Body), "ines.export@example.org")
	require.Contains(t, string(res.Body), "[erased]")
}
