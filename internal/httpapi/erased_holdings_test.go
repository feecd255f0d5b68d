package httpapi_test

import (
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/stretchr/testify/require"

	"github.com/certhub/credentiald/internal/testkit"
	"github.com/certhub/credentiald/internal/testkit/contract"
)

// A person erased at their request holds nothing: nothing more is issued to them or changed of
// them, bulk issuance passes them by, and neither they nor their revoked credentials keep their
// event (or their attendee row) from being deleted; the credentials stay, keep their ids and
// verify as revoked (erased). A holder who was not erased still keeps the event.
func TestAnErasedPersonNoLongerHoldsTheirEvent(t *testing.T) {
	t.Parallel()
	env := testkit.NewServer(t)
	acct := testkit.SignUp(t, env)
	tmpl := acct.Template(t, env)
	event := acct.Event(t, env, "Erased Holdings Forum")
	gone := acct.Attendee(t, event, "Ilse", "Vanderhoeven", "ilse@example.org")
	stays := acct.Attendee(t, event, "Otto", "Brandt", "otto@example.org")

	issue := func(attendee uuid.UUID) (id, code string) {
		t.Helper()
		res := acct.Client.Post("/api/v1/certificates/generate", map[string]any{"templateId": tmpl, "eventId": event,
			"attendeeId": attendee, "sendEmail": false})
		require.Equal(t, 200, res.StatusCode, "%s", res.Body)
		var c struct {
			Data struct{ ID, VerificationCode string }
		}
		res.JSON(t, &c)
		return c.Data.ID, c.Data.VerificationCode
	}
	certID, certCode := issue(gone)
	res := acct.Client.Post("/api/v1/badges", map[string]any{"name": "Attendee", "description": "Was there",
		"criteria": map[string]any{"narrative": "Attended"}})
	require.Equal(t, 200, res.StatusCode, "%s", res.Body)
	var badge struct{ Data struct{ ID string } }
	res.JSON(t, &badge)
	res = acct.Client.Post("/api/v1/badges/"+badge.Data.ID+"/issue", map[string]any{"attendeeIds": []uuid.UUID{gone}, "sendEmail": false})
	require.Equal(t, 200, res.StatusCode, "%s", res.Body)
	var assertions struct {
		Data []struct{ VerificationCode string }
	}
	acct.Client.Get("/api/v1/badges/"+badge.Data.ID+"/assertions").JSON(t, &assertions)
	require.Len(t, assertions.Data, 1)
	badgeCode := assertions.Data[0].VerificationCode

	res = acct.Client.Post("/api/v1/attendees/"+gone.String()+"/erase", nil)
	require.Equal(t, 200, res.StatusCode, "%s", res.Body)
	var got struct {
		Data struct {
			FirstName string
			ErasedAt  *string `json:"erasedAt"`
		}
	}
	acct.Client.Get("/api/v1/attendees/"+gone.String()).JSON(t, &got)
	require.Equal(t, "[erased]", got.Data.FirstName)
	require.NotNil(t, got.Data.ErasedAt, "the attendee says when they were erased")
	acct.Client.Get("/api/v1/attendees/"+stays.String()).JSON(t, &got)
	require.Nil(t, got.Data.ErasedAt)

	// Nothing more is issued to them or changed of them.
	res = acct.Client.Put("/api/v1/attendees/"+gone.String(), map[string]any{"firstName": "Ilse"})
	e := wantError(t, res, 409, res.StatusCode, "CONFLICT")
	require.Contains(t, e.Error.Message, "erased at their request")
	res = acct.Client.Post("/api/v1/certificates/generate", map[string]any{"templateId": tmpl, "eventId": event,
		"attendeeId": gone, "sendEmail": false})
	wantError(t, res, 409, res.StatusCode, "CONFLICT")
	res = acct.Client.Post("/api/v1/badges/"+badge.Data.ID+"/issue", map[string]any{"attendeeIds": []uuid.UUID{stays, gone}, "sendEmail": false})
	e = wantError(t, res, 409, res.StatusCode, "CONFLICT")
	require.Equal(t, "body.attendeeIds[1]", e.Error.Details[0].Field)
	// Bulk issuance over the event passes them by (and charges nothing for them); named, they fail.
	path := "/api/v1/events/" + event.String() + "/certificates/generate"
	res = acct.Client.Post(path, map[string]any{"templateId": tmpl, "attendeeIds": []uuid.UUID{gone}, "sendEmail": false})
	require.Equal(t, 200, res.StatusCode, "%s", res.Body)
	var bulk bulkResult
	res.JSON(t, &bulk)
	require.Empty(t, bulk.Data.Issued)
	require.Len(t, bulk.Data.Failed, 1)
	require.Equal(t, "CONFLICT", bulk.Data.Failed[0].Error.Code)

	// Otto holds a certificate: the event stays.
	_, ottoCode := issue(stays)
	// The database holds it too: a credential that is not revoked cannot let go of its attendee.
	conn, err := pgx.Connect(t.Context(), env.Config.DatabaseURL)
	require.NoError(t, err)
	defer func() { _ = conn.Close(t.Context()) }()
	_, err = conn.Exec(t.Context(), `UPDATE certificates SET attendee_link = NULL WHERE verification_code = $1`, ottoCode)
	var pgErr *pgconn.PgError
	require.ErrorAs(t, err, &pgErr, "a valid certificate without its attendee")
	require.Equal(t, "certificates_attendee_link_check", pgErr.ConstraintName)
	res = acct.Client.Delete("/api/v1/events/" + event.String())
	e = wantError(t, res, 409, res.StatusCode, "CONFLICT")
	require.Contains(t, e.Error.Message, "1 issued certificate")
	res = acct.Client.Delete("/api/v1/attendees/" + stays.String())
	wantError(t, res, 409, res.StatusCode, "ATTENDEE_HAS_CERTIFICATES")

	// The erased attendee can be deleted alone; their credentials stay.
	res = acct.Client.Delete("/api/v1/attendees/" + gone.String())
	require.Equal(t, 204, res.StatusCode, "%s", res.Body)
	res = acct.Client.Get("/api/v1/attendees/" + gone.String())
	wantError(t, res, 404, res.StatusCode, "NOT_FOUND")

	// With Otto's certificate revoked the event still stays (revoked is issued); once Otto is
	// erased too, it goes, with its attendees.
	res = acct.Client.Post("/api/v1/attendees/"+stays.String()+"/erase", nil)
	require.Equal(t, 200, res.StatusCode, "%s", res.Body)
	res = acct.Client.Delete("/api/v1/events/" + event.String())
	require.Equal(t, 204, res.StatusCode, "%s", res.Body)
	res = acct.Client.Get("/api/v1/events/" + event.String())
	wantError(t, res, 404, res.StatusCode, "NOT_FOUND")
	res = acct.Client.Get("/api/v1/attendees/" + stays.String())
	wantError(t, res, 404, res.StatusCode, "NOT_FOUND")

	// The credentials stay, with the ids they were issued under, revoked with reason erased.
	res = acct.Client.Get("/api/v1/certificates/" + certID)
	require.Equal(t, 200, res.StatusCode, "%s", res.Body)
	var cert struct {
		Data struct {
			EventID, AttendeeID, Status string
			RevocationReasonCode        *string
		}
	}
	res.JSON(t, &cert)
	require.Equal(t, event.String(), cert.Data.EventID)
	require.Equal(t, gone.String(), cert.Data.AttendeeID)
	require.Equal(t, "revoked", cert.Data.Status)
	require.Equal(t, "erased", *cert.Data.RevocationReasonCode)
	for _, code := range []string{certCode, badgeCode, ottoCode} {
		res = env.Client.Get("/api/v1/verify/" + code)
		require.Equal(t, 200, res.StatusCode, "%s: %s", code, res.Body)
		var v struct {
			Data struct {
				Status               string
				RevocationReasonCode *string
			}
		}
		res.JSON(t, &v)
		require.Equal(t, "revoked", v.Data.Status, code)
		require.Equal(t, "erased", *v.Data.RevocationReasonCode, code)
		page := env.Client.Get("/verify/" + code)
		require.Equal(t, 200, page.StatusCode, code)
		require.Contains(t, string(page.Body), "withheld at the holder", code)
	}
	// The account's lists still hold them.
	res = acct.Client.Get("/api/v1/certificates?eventId=" + event.String())
	require.Equal(t, 200, res.StatusCode, "%s", res.Body)
	var list struct{ Data []struct{ ID string } }
	res.JSON(t, &list)
	require.Len(t, list.Data, 2)
}

// A badge issued while the person is being erased: the issuance holds its recipients (FOR
// SHARE), so it waits for the erasure that holds the attendee, then reads them erased and
// issues nothing; no active assertion is left with the person's old name.
func TestABadgeIssuedDuringAnErasureWaitsAndIsRefused(t *testing.T) {
	t.Parallel()
	env := testkit.NewServer(t)
	acct := testkit.SignUp(t, env)
	event := acct.Event(t, env, "Erasure Race")
	person := acct.Attendee(t, event, "Rosalind", "Franklin", "rosalind@example.org")
	res := acct.Client.Post("/api/v1/badges", map[string]any{"name": "Crystallographer", "description": "Imaged DNA",
		"criteria": map[string]any{"narrative": "Photo 51"}})
	require.Equal(t, 200, res.StatusCode, "%s", res.Body)
	var badge struct{ Data struct{ ID string } }
	res.JSON(t, &badge)

	// The erasure's hold on the attendee, taken by hand so that the issuance meets it.
	ctx := t.Context()
	conn, err := pgx.Connect(ctx, env.Config.DatabaseURL)
	require.NoError(t, err)
	defer func() { _ = conn.Close(ctx) }()
	tx, err := conn.Begin(ctx)
	require.NoError(t, err)
	_, err = tx.Exec(ctx, `SELECT 1 FROM attendees WHERE id = $1 FOR UPDATE`, person)
	require.NoError(t, err)

	issued := make(chan *contract.Response, 1)
	go func() {
		issued <- acct.Client.Post("/api/v1/badges/"+badge.Data.ID+"/issue", map[string]any{"attendeeIds": []uuid.UUID{person}})
	}()
	// The issuance waits for the attendee.
	probe, err := pgx.Connect(ctx, env.Config.DatabaseURL)
	require.NoError(t, err)
	defer func() { _ = probe.Close(ctx) }()
	require.Eventually(t, func() bool {
		var waiting int
		_ = probe.QueryRow(ctx, `SELECT count(*) FROM pg_locks WHERE NOT granted AND locktype = 'transactionid'`).Scan(&waiting)
		return waiting > 0
	}, 10*time.Second, 10*time.Millisecond, "the issuance waits for the erasure's hold")
	_, err = tx.Exec(ctx, `UPDATE attendees SET first_name = '[erased]', last_name = '[erased]', erased_at = now() WHERE id = $1`, person)
	require.NoError(t, err)
	require.NoError(t, tx.Commit(ctx))

	res = <-issued
	wantError(t, res, 409, res.StatusCode, "CONFLICT")
	var active int
	testkit.QueryRow(t, env, `SELECT count(*) FROM badge_assertions WHERE attendee_id = $1 AND status = 'active'`, []any{person}, &active)
	require.Zero(t, active, "no active assertion of the erased person")
}
