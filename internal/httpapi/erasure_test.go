package httpapi_test

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"mime/quotedprintable"
	"net/http"
	"net/mail"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/certhub/credentiald/internal/jobs"
	"github.com/certhub/credentiald/internal/privacy"
	"github.com/certhub/credentiald/internal/testkit"
)

// After a person is erased, their name and email (unique to the test) are in no text, JSON or
// bytea column of the database (the columns docs/privacy.md lists and every other), in no MIME
// part of any outbox file; their credentials answer revoked (erased) with an empty name, every
// file of them but the QR code answers 410 ERASED, and the audit log shows the erasure without
// their data.
func TestAnErasedPersonIsNowhereAndTheirCredentialsSaySo(t *testing.T) {
	t.Parallel()
	env := testkit.NewServer(t)
	acct := testkit.SignUp(t, env)
	suffix := strings.ReplaceAll(uuid.NewString()[:8], "-", "")
	first, last := "Zephyrine"+suffix, "Quillfeather"+suffix
	email := "zq" + suffix + "@example.org"
	needles := []string{first, last, email}
	// The other attendee's address holds the erased one's; it is not theirs.
	otherEmail := "ann." + email

	// Everything that keeps a copy of the person: a subscription (events and deliveries), a
	// certificate and a badge emailed (with an idempotent answer stored), a wallet offer.
	require.Equal(t, 201, acct.Client.Post("/api/v1/webhooks", map[string]any{"url": "https://hooks.example.org/in",
		"events": []string{"*"}}).StatusCode)
	tmpl := acct.Template(t, env)
	event := acct.Event(t, env, "Erasure Summit")
	res := acct.Client.Post("/api/v1/attendees", map[string]any{"eventId": event, "firstName": first, "lastName": last,
		"email": email, "metadata": map[string]any{"note": "friend of " + first}})
	require.Equal(t, 201, res.StatusCode, "%s", res.Body)
	var att struct{ Data struct{ ID uuid.UUID } }
	res.JSON(t, &att)
	// Another attendee whose address holds the erased one's: nothing of theirs may go.
	other := acct.Attendee(t, event, "Ada", "Lovelace", otherEmail)
	gen := acct.Client.Request("POST", "/api/v1/certificates/generate", map[string]any{"templateId": tmpl, "eventId": event,
		"attendeeId": att.Data.ID, "sendEmail": true})
	gen.Header.Set("Idempotency-Key", "erasure-"+suffix)
	res = acct.Client.Do(gen)
	require.Equal(t, 200, res.StatusCode, "%s", res.Body)
	var cert struct {
		Data struct{ ID, VerificationCode string }
	}
	res.JSON(t, &cert)
	require.Equal(t, 201, acct.Client.Post("/api/v1/certificates/"+cert.Data.ID+"/wallet-offers", nil).StatusCode)
	res = acct.Client.Post("/api/v1/badges", map[string]any{"name": "Speaker", "description": "Gave a talk",
		"criteria": map[string]any{"narrative": "Presented"}})
	require.Equal(t, 200, res.StatusCode, "%s", res.Body)
	var badge struct{ Data struct{ ID string } }
	res.JSON(t, &badge)
	res = acct.Client.Post("/api/v1/badges/"+badge.Data.ID+"/issue", map[string]any{"attendeeIds": []uuid.UUID{att.Data.ID, other},
		"sendEmail": true})
	require.Equal(t, 200, res.StatusCode, "%s", res.Body)
	var assertions struct {
		Data []struct {
			VerificationCode string
			AttendeeID       uuid.UUID `json:"attendeeId"`
		}
	}
	acct.Client.Get("/api/v1/badges/"+badge.Data.ID+"/assertions").JSON(t, &assertions)
	var badgeCode string
	for _, a := range assertions.Data {
		if a.AttendeeID == att.Data.ID {
			badgeCode = a.VerificationCode
		}
	}
	require.NotEmpty(t, badgeCode)
	_, err := runEmail(t, env)
	require.NoError(t, err)
	_, err = testkit.RunWebhooks(t, env)
	require.NoError(t, err)
	outbox := filepath.Join(env.Config.DataDir, "outbox")
	require.NotEmpty(t, filesHolding(t, outbox, needles, otherEmail), "the person's emails were written to the outbox")
	require.NotEmpty(t, columnsHolding(t, env, needles, otherEmail), "the person is in the database before the erasure")

	countOthers := func() int {
		var n int
		testkit.QueryRow(t, env, `SELECT count(*) FROM webhook_deliveries WHERE position(convert_to($1, 'UTF8') IN payload) > 0`,
			[]any{other.String()}, &n)
		return n
	}
	othersBefore := countOthers()
	require.Positive(t, othersBefore, "the other attendee's webhook deliveries")

	// The erasure: an admin's act.
	res = acct.Client.Post("/api/v1/attendees/"+att.Data.ID.String()+"/erase", nil)
	require.Equal(t, 200, res.StatusCode, "%s", res.Body)
	var erased struct {
		Data struct {
			AttendeeID         uuid.UUID `json:"attendeeId"`
			CredentialsRevoked int
			RowsErased         int
		}
	}
	res.JSON(t, &erased)
	require.Equal(t, 2, erased.Data.CredentialsRevoked, "the certificate and the assertion")
	require.Positive(t, erased.Data.RowsErased)
	jobsRun := testkit.ServiceJobs(t, env)
	testkit.AddJobWorker(jobsRun, privacy.FilesWorker(outbox))
	require.Len(t, jobsRun.WorkDue(jobs.EraseEmailFiles{}.Kind()), 1, "the files job")

	require.Empty(t, columnsHolding(t, env, needles, otherEmail), "columns that still hold the person")
	require.Empty(t, filesHolding(t, outbox, needles, otherEmail), "outbox files that still hold the person")

	for _, code := range []string{cert.Data.VerificationCode, badgeCode} {
		res = env.Client.Get("/api/v1/verify/" + code)
		require.Equal(t, 200, res.StatusCode, "%s", res.Body)
		var body struct {
			Data struct {
				Status               string
				RevocationReasonCode *string
				Recipient            struct{ Name string }
			}
		}
		res.JSON(t, &body)
		v := body.Data
		require.Equal(t, "revoked", v.Status)
		require.NotNil(t, v.RevocationReasonCode)
		require.Equal(t, "erased", *v.RevocationReasonCode)
		require.Empty(t, v.Recipient.Name)
		require.Equal(t, 200, env.Client.Get("/api/v1/verify/"+code+"/qr").StatusCode, "the QR code stays")
		page := env.Client.Get("/verify/" + code)
		require.Equal(t, 200, page.StatusCode)
		require.Contains(t, string(page.Body), "withheld at the holder")
		for _, n := range needles {
			require.NotContains(t, string(page.Body), n)
		}
	}
	assets := []string{"/api/v1/verify/" + cert.Data.VerificationCode + "/preview.png", "/api/v1/verify/" + cert.Data.VerificationCode + "/share.png",
		"/api/v1/verify/" + cert.Data.VerificationCode + "/certificate.pdf", "/api/v1/verify/" + cert.Data.VerificationCode + "/credential.json",
		"/api/v1/verify/" + cert.Data.VerificationCode + "/credential.jwt", "/api/v1/verify/" + badgeCode + "/badge.png",
		"/api/v1/verify/" + badgeCode + "/badge.svg", "/api/v1/verify/" + badgeCode + "/credential.json"}
	for _, a := range assets {
		res = env.Client.Get(a)
		wantError(t, res, http.StatusGone, res.StatusCode, "ERASED")
	}
	res = acct.Client.Get("/api/v1/certificates/" + cert.Data.ID + "/download")
	wantError(t, res, http.StatusGone, res.StatusCode, "ERASED")
	// The issuer's logo is the organisation's, not the holder's: not gone (this account has none).
	res = env.Client.Get("/api/v1/verify/" + cert.Data.VerificationCode + "/issuer-logo")
	wantError(t, res, http.StatusNotFound, res.StatusCode, "NOT_FOUND")

	// The audit log shows the erasure, and nothing of the person.
	res = acct.Client.Get("/api/v1/audit-log?action=attendee.erased")
	require.Equal(t, 200, res.StatusCode)
	require.Contains(t, string(res.Body), att.Data.ID.String())
	for _, n := range needles {
		require.NotContains(t, string(res.Body), n)
	}

	// Again: unchanged, zeros.
	res = acct.Client.Post("/api/v1/attendees/"+att.Data.ID.String()+"/erase", nil)
	require.Equal(t, 200, res.StatusCode)
	res.JSON(t, &erased)
	require.Zero(t, erased.Data.CredentialsRevoked)
	require.Zero(t, erased.Data.RowsErased)

	// The other attendee is untouched.
	require.Equal(t, othersBefore, countOthers(), "the other attendee's webhook deliveries")
	res = acct.Client.Get("/api/v1/attendees/" + other.String())
	require.Contains(t, string(res.Body), "Lovelace")
}

// columnsHolding names the columns of the public schema (text, JSON, bytea decoded as UTF-8)
// that hold any of needles, case-insensitively, once except (another person's text that holds
// a needle) is taken out.
func columnsHolding(t *testing.T, env *testkit.Env, needles []string, except string) []string {
	t.Helper()
	conn, err := pgx.Connect(t.Context(), env.Config.DatabaseURL)
	require.NoError(t, err)
	defer conn.Close(t.Context())
	rows, err := conn.Query(t.Context(), `SELECT c.table_name, c.column_name, c.data_type FROM information_schema.columns c
		JOIN information_schema.tables t ON t.table_schema = c.table_schema AND t.table_name = c.table_name AND t.table_type = 'BASE TABLE'
		WHERE c.table_schema = 'public' AND c.data_type IN ('text', 'character varying', 'character', 'json', 'jsonb', 'bytea', 'ARRAY', 'USER-DEFINED')`)
	require.NoError(t, err)
	type col struct{ table, column, typ string }
	var cols []col
	for rows.Next() {
		var c col
		require.NoError(t, rows.Scan(&c.table, &c.column, &c.typ))
		cols = append(cols, c)
	}
	require.NoError(t, rows.Err())
	var found []string
	for _, c := range cols {
		// Bytes are read as text with what is not ASCII escaped (the needles are ASCII).
		expr := fmt.Sprintf("%q::text", c.column)
		if c.typ == "bytea" {
			expr = fmt.Sprintf("encode(%q, 'escape')", c.column)
		}
		for _, n := range needles {
			var hits int
			q := fmt.Sprintf(`SELECT count(*) FROM %q WHERE replace(lower(%s), lower($2), '') LIKE '%%' || lower($1) || '%%'`, c.table, expr)
			require.NoError(t, conn.QueryRow(t.Context(), q, n, except).Scan(&hits), "%s.%s", c.table, c.column)
			if hits > 0 {
				found = append(found, c.table+"."+c.column)
			}
		}
	}
	return found
}

// filesHolding names the files of dir in which any of needles appears, in a header (decoded)
// or in any MIME part (decoded from its transfer encoding).
func filesHolding(t *testing.T, dir string, needles []string, except string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if os.IsNotExist(err) {
		return nil
	}
	require.NoError(t, err)
	var found []string
	for _, e := range entries {
		raw, err := os.ReadFile(filepath.Join(dir, e.Name()))
		require.NoError(t, err)
		text := strings.ReplaceAll(strings.ToLower(string(raw)+mimeText(t, raw)), strings.ToLower(except), "")
		for _, n := range needles {
			if strings.Contains(text, strings.ToLower(n)) {
				found = append(found, e.Name())
				break
			}
		}
	}
	return found
}

// mimeText is a message's headers and parts, decoded.
func mimeText(t *testing.T, raw []byte) string {
	t.Helper()
	msg, err := mail.ReadMessage(bytes.NewReader(raw))
	if err != nil {
		return ""
	}
	var b strings.Builder
	dec := new(mime.WordDecoder)
	for k, vs := range msg.Header {
		for _, v := range vs {
			d, err := dec.DecodeHeader(v)
			if err != nil {
				d = v
			}
			b.WriteString(k + ": " + d + "\n")
		}
	}
	walkPart(&b, msg.Header.Get("Content-Type"), msg.Header.Get("Content-Transfer-Encoding"), msg.Body)
	return b.String()
}

func walkPart(b *strings.Builder, contentType, encoding string, body io.Reader) {
	media, params, _ := mime.ParseMediaType(contentType)
	if strings.HasPrefix(media, "multipart/") {
		r := multipart.NewReader(body, params["boundary"])
		for {
			p, err := r.NextRawPart()
			if err != nil {
				return
			}
			walkPart(b, p.Header.Get("Content-Type"), p.Header.Get("Content-Transfer-Encoding"), p)
		}
	}
	var rd io.Reader = body
	switch strings.ToLower(encoding) {
	case "quoted-printable":
		rd = quotedprintable.NewReader(body)
	case "base64":
		rd = base64.NewDecoder(base64.StdEncoding, &newlineStripper{r: body})
	}
	data, _ := io.ReadAll(rd)
	b.Write(data)
	b.WriteByte('\n')
}

// newlineStripper drops the line breaks of a base64 body.
type newlineStripper struct{ r io.Reader }

func (n *newlineStripper) Read(p []byte) (int, error) {
	buf := make([]byte, len(p))
	k, err := n.r.Read(buf)
	j := 0
	for _, c := range buf[:k] {
		if c != '\r' && c != '\n' {
			p[j] = c
			j++
		}
	}
	return j, err
}

// An email whose sending began before an erasure, with the person's data read then, may write
// its outbox file after the erasure's first files job ran: a second files job, due when any
// such attempt has ended, deletes it.
func TestAnEmailFileWrittenDuringAnErasureIsDeletedLater(t *testing.T) {
	t.Parallel()
	clock := &testkit.Clock{}
	env := testkit.NewServer(t, testkit.WithClock(clock.Now))
	acct := testkit.SignUp(t, env)
	tmpl := acct.Template(t, env)
	event := acct.Event(t, env, "Race Days")
	person := acct.Attendee(t, event, "Rhea", "Racer", "rhea.racer@example.org")
	res := acct.Client.Post("/api/v1/certificates/generate", map[string]any{"templateId": tmpl, "eventId": event,
		"attendeeId": person, "sendEmail": true})
	require.Equal(t, 200, res.StatusCode, "%s", res.Body)
	var delivery string
	testkit.QueryRow(t, env, `SELECT id::text FROM email_deliveries WHERE to_address = 'rhea.racer@example.org'`, nil, &delivery)
	require.Equal(t, 200, acct.Client.Post("/api/v1/attendees/"+person.String()+"/erase", nil).StatusCode)

	outbox := filepath.Join(env.Config.DataDir, "outbox")
	jobsRun := testkit.ServiceJobs(t, env)
	testkit.AddJobWorker(jobsRun, privacy.FilesWorker(outbox))
	require.Len(t, jobsRun.WorkDue(jobs.EraseEmailFiles{}.Kind()), 1, "the files job at once")
	// The attempt that had read the message before the erasure writes its file now.
	require.NoError(t, os.MkdirAll(outbox, 0o755))
	late := filepath.Join(outbox, "20261207T000000Z-"+delivery+".eml")
	require.NoError(t, os.WriteFile(late, []byte("To: Rhea Racer <rhea.racer@example.org>\r\n\r\nHello Rhea"), 0o600))
	require.Empty(t, jobsRun.WorkDue(jobs.EraseEmailFiles{}.Kind()), "the second is not due yet")
	clock.Advance(5 * time.Minute)
	require.Len(t, jobsRun.WorkDue(jobs.EraseEmailFiles{}.Kind()), 1, "the second files job, once sending attempts have ended")
	require.NoFileExists(t, late)
}
