package httpapi_test

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"mime/multipart"
	"net/http"
	"net/textproto"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/certhub/credentiald/internal/testkit"
	"github.com/certhub/credentiald/internal/testkit/contract"
)

type importBody struct {
	Data struct {
		Added, Skipped int
		Rejected       []struct {
			Row             int
			Field           string
			Email           *string
			Reason, Message string
		}
	}
}

func TestImportMatchesHeadersAndReportsRejectedRows(t *testing.T) {
	t.Parallel()
	env := testkit.NewServer(t)
	acct := testkit.SignUp(t, env)
	event := acct.Event(t, env, "Go Conference").String()
	acct.Client.Post("/api/v1/attendees", map[string]any{"eventId": event, "firstName": "Ada", "lastName": "Lovelace", "email": "ada@example.org"})

	// A spreadsheet export: BOM, semicolons, headers in another spelling, an extra column,
	// quoted cells, a blank line, and CRLF line ends.
	file := "\xEF\xBB\xBFFirst Name;last_name;E-Mail;Company\r\n" +
		"José;Müller;jose@example.org;Acme\r\n" +
		"Łukasz;Żółć;lukasz@example.org;\r\n" +
		"\r\n" +
		"Дмитрий;Шостакович;not-an-email;Opera\r\n" +
		";Nobody;nobody@example.org;\r\n" +
		"\"Smith; Jr.\";\"O\"\"Brien\";smith@example.org;\"=HYPERLINK(1)\"\r\n" +
		"Ada;Again; ADA@example.org ;\r\n" +
		"José;Twice;JOSE@example.org;\r\n" +
		strings.Repeat("x", 101) + ";Long;long@example.org;\r\n"
	res := acct.Client.Upload("/api/v1/attendees/import?eventId="+event, "file", "people.csv", []byte(file))
	var out importBody
	res.JSON(t, &out)
	require.Equal(t, 200, res.StatusCode, "import: status (body %s)", res.Body)
	require.Equal(t, 3, out.Data.Added, "import: out.Data.Added")
	require.Equal(t, 2, out.Data.Skipped, "import: out.Data.Skipped")
	require.Len(t, out.Data.Rejected, 3, "import: out.Data.Rejected")
	want := []struct {
		row    int
		reason string
	}{{5, "INVALID_EMAIL"}, {6, "MISSING_FIELD"}, {10, "TOO_LONG"}}
	for i, w := range want {
		r := out.Data.Rejected[i]
		assert.Equal(t, w.row, r.Row, "rejection %d: r.Row", i)
		assert.Equal(t, w.reason, r.Reason, "rejection %d: r.Reason", i)
		assert.NotEmpty(t, r.Message, "rejection %d: r.Message", i)
	}
	e := out.Data.Rejected[0].Email
	if assert.NotNil(t, e, "rejection names its email: %+v", out.Data.Rejected[0]) {
		assert.Equal(t, "not-an-email", *e, "rejection names its email")
	}

	var page attendeePage
	acct.Client.Get("/api/v1/attendees?eventId="+event).JSON(t, &page)
	if page.Meta.Total != 4 {
		t.Fatalf("attendees after import: %+v", page)
	}
	byEmail := map[string]map[string]string{}
	for _, a := range page.Data {
		byEmail[a.Email] = a.Metadata
	}
	require.Equal(t, "Acme", byEmail["jose@example.org"]["Company"], `metadata: byEmail["jose@example.org"]["Company"]`)
	require.Empty(t, byEmail["lukasz@example.org"], `metadata: byEmail["lukasz@example.org"]`)

	// Without skipDuplicates, the same file adds its duplicates too.
	res = acct.Client.Upload("/api/v1/attendees/import?skipDuplicates=false&eventId="+event, "file", "people.csv", []byte(file))
	res.JSON(t, &out)
	require.Equal(t, 5, out.Data.Added, "import without skipping: out.Data.Added")
	require.Equal(t, 0, out.Data.Skipped, "import without skipping: out.Data.Skipped")
}

func TestImportTabSeparated(t *testing.T) {
	t.Parallel()
	env := testkit.NewServer(t)
	acct := testkit.SignUp(t, env)
	event := acct.Event(t, env, "E").String()
	res := acct.Client.Upload("/api/v1/attendees/import?eventId="+event, "file", "p.tsv",
		[]byte("email\tfirstname\tlastname\nli@\t小龙\t李\nyamada@example.org\t太郎\t山田\n"))
	var out importBody
	res.JSON(t, &out)
	require.Equal(t, 200, res.StatusCode, "tab-separated: status (body %s)", res.Body)
	require.Equal(t, 1, out.Data.Added, "tab-separated: out.Data.Added")
	require.Len(t, out.Data.Rejected, 1, "tab-separated: out.Data.Rejected")
	require.Equal(t, 2, out.Data.Rejected[0].Row, "tab-separated: out.Data.Rejected[0].Row")
}

func TestImportRefusesFilesThatAreNotCSVAndAddsNothing(t *testing.T) {
	t.Parallel()
	env := testkit.NewServer(t)
	acct := testkit.SignUp(t, env)
	event := acct.Event(t, env, "E").String()
	good := "firstName,lastName,email\nA,B,a@example.org\n"
	cases := map[string]struct {
		file    []byte
		field   string
		message string
	}{
		"png":           {[]byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"), "file", "a PNG image, not a CSV file"},
		"pdf":           {[]byte("%PDF-1.7\n%\xe2\xe3\xcf\xd3\n1 0 obj\n<< /Type /Catalog >>\nendobj\n"), "file", "a PDF document, not a CSV file"},
		"text-only pdf": {[]byte("%PDF-1.4\n1 0 obj\n<< /Type /Catalog >>\nendobj\n"), "file", "a PDF document"},
		"xlsx":          {[]byte("PK\x03\x04\x14\x00\x06\x00\x08\x00\x00\x00!\x00[Content_Types].xml"), "file", "Excel .xlsx"},
		"xls":           {[]byte("\xD0\xCF\x11\xE0\xA1\xB1\x1A\xE1\x00\x00"), "file", "Excel .xls"},
		"gzip":          {[]byte("\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03"), "file", "application/x-gzip"},
		"html":          {[]byte("<!DOCTYPE html><html><body>firstName,lastName,email</body></html>"), "file", "an HTML page"},
		"utf-16":        {append([]byte("\xFF\xFE"), []byte("f\x00i\x00r\x00")...), "file", "UTF-16"},
		"latin-1":       {[]byte(good + "Jos\xe9,M\xfcller,jose@example.org\n"), "file.row[3]", "not UTF-8"},
		"empty":         {[]byte(" \n"), "file", "empty"},
		"no header":     {[]byte("Ada,Lovelace,ada@example.org\n"), "file.row[1]", "no column for firstName, lastName, email"},
		"open quote":    {[]byte(good + "\"A,B,b@example.org\n"), "file.row[3]", "line 3"},
		"bare quote":    {[]byte(good + "A\"x,B,b@example.org\n"), "file.row[3]", "quote"},
		"extra cells":   {[]byte(good + "A,B,b@example.org,surprise\n"), "file.row[3]", "4 cells but the header has 3"},
		"twice email":   {[]byte("firstName,lastName,email,Email Address\n"), "file.row[1]", "two columns for email"},
		"21 metadatas":  {[]byte("firstName,lastName,email" + strings.Repeat(",", 1) + metadataHeaders(21) + "\n"), "file.row[1]", "21 extra columns"},
	}
	before := testkit.Fingerprint(t, env)
	for name, c := range cases {
		res := acct.Client.Upload("/api/v1/attendees/import?eventId="+event, "file", "x.csv", c.file)
		e := wantError(t, res, 400, res.StatusCode, "VALIDATION_ERROR")
		if assert.Len(t, e.Error.Details, 1, "%s: e.Error.Details", name) {
			assert.Equal(t, c.field, e.Error.Details[0].Field, "%s: e.Error.Details[0].Field", name)
			assert.Contains(t, e.Error.Message, c.message, "%s: e.Error.Message", name)
		}
	}
	res := acct.Client.Upload("/api/v1/attendees/import?eventId="+event, "attachment", "x.csv", []byte(good))
	wantError(t, res, 400, res.StatusCode, "VALIDATION_ERROR")
	if after := testkit.Fingerprint(t, env); after != before {
		t.Fatal("a refused import changed the database")
	}
}

func metadataHeaders(n int) string {
	h := make([]string, n)
	for i := range h {
		h[i] = fmt.Sprint("extra", i)
	}
	return strings.Join(h, ",")
}

func TestImportLimits(t *testing.T) {
	t.Parallel()
	env := testkit.NewServer(t)
	acct := testkit.SignUp(t, env)
	event := acct.Event(t, env, "E").String()
	before := testkit.Fingerprint(t, env)

	var rows bytes.Buffer
	rows.WriteString("firstName,lastName,email\n")
	for i := range 50_001 {
		fmt.Fprintf(&rows, "A,B,a%d@example.org\n", i)
	}
	res := acct.Client.Upload("/api/v1/attendees/import?eventId="+event, "file", "big.csv", rows.Bytes())
	if e := wantError(t, res, 413, res.StatusCode, "PAYLOAD_TOO_LARGE"); !strings.Contains(e.Error.Message, "50000 rows") {
		t.Fatalf("rows: %+v", e.Error)
	}

	huge := append([]byte("firstName,lastName,email,notes\n"), bytes.Repeat([]byte("A,B,a@example.org,"+strings.Repeat("n", 480)+"\n"), 10<<20/499+100)...)
	res = acct.Client.Upload("/api/v1/attendees/import?eventId="+event, "file", "huge.csv", huge)
	wantError(t, res, 413, res.StatusCode, "PAYLOAD_TOO_LARGE")
	if after := testkit.Fingerprint(t, env); after != before {
		t.Fatal("a refused import changed the database")
	}

	// Exactly at the row limit is fine.
	rows.Reset()
	rows.WriteString("firstName,lastName,email\n")
	for i := range 50_000 {
		fmt.Fprintf(&rows, "A,B,a%d@example.org\n", i)
	}
	res = acct.Client.Upload("/api/v1/attendees/import?eventId="+event, "file", "big.csv", rows.Bytes())
	require.Equal(t, 200, res.StatusCode, "50,000 rows: status (body %s)", res.Body)
	require.Contains(t, string(res.Body), `"added":50000`, "50,000 rows: body")
}

func TestExportStreamsCSVWithNeutralisedFormulas(t *testing.T) {
	t.Parallel()
	env := testkit.NewServer(t)
	acct := testkit.SignUp(t, env)
	event := acct.Event(t, env, "E").String()
	file := "firstName,lastName,email,Company,Role\n" +
		"=cmd|' /C calc'!A0,Müller,jose@example.org,+Acme,@boss\n" +
		"Ada,Lovelace,ada@example.org,,-1\n"
	if res := acct.Client.Upload("/api/v1/attendees/import?eventId="+event, "file", "p.csv", []byte(file)); res.StatusCode != 200 {
		t.Fatalf("import: %s", res.Body)
	}
	_, reader := acct.APIKey(t, "attendees:read")
	res := reader.Get("/api/v1/events/" + event + "/attendees/export")
	require.Equal(t, 200, res.StatusCode, "export: status (header %v)", res.Header)
	require.True(t, strings.HasPrefix(res.Header.Get("Content-Disposition"), "attachment;"), "export: %q should start with %q", res.Header.Get("Content-Disposition"), "attachment;")
	require.True(t, strings.HasPrefix(res.Header.Get("Content-Type"), "text/csv"), "export: %q should start with %q", res.Header.Get("Content-Type"), "text/csv")
	records, err := csv.NewReader(bytes.NewReader(res.Body)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	wantHeader := "id,firstName,lastName,email,createdAt,certificateStatus,certificateNumber,verificationCode,Company,Role"
	require.Len(t, records, 3, "export:\n%s", res.Body)
	require.Equal(t, wantHeader, strings.Join(records[0], ","), "export: the header")
	jose := records[1]
	require.Equal(t, "'=cmd|' /C calc'!A0", jose[1], "row: jose[1]")
	require.Equal(t, "Müller", jose[2], "row: jose[2]")
	require.Equal(t, "'+Acme", jose[8], "row: jose[8]")
	require.Equal(t, "'@boss", jose[9], "row: jose[9]")
	require.Equal(t, "", jose[5], "row: jose[5]")
	ada := records[2]
	require.Equal(t, "", ada[8], "row: ada[8]")
	require.Equal(t, "'-1", ada[9], "row: ada[9]")
}

// uploadAs posts content as the form's `file` part with the media type a browser chose.
func uploadAs(t *testing.T, c *contract.Client, path, partType string, content []byte) *contract.Response {
	t.Helper()
	var buf bytes.Buffer
	w := multipart.NewWriter(&buf)
	h := textproto.MIMEHeader{}
	h.Set("Content-Disposition", `form-data; name="file"; filename="attendees"`)
	h.Set("Content-Type", partType)
	part, err := w.CreatePart(h)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = part.Write(content)
	_ = w.Close()
	req := c.Request(http.MethodPost, path, buf.Bytes())
	req.Header.Set("Content-Type", w.FormDataContentType())
	return c.Do(req)
}

// The content of the file decides, not the media type the browser gave its part: a CSV sent
// as an Excel type (Windows browsers do) is read, a PDF sent as a PDF is named as one.
func TestImportJudgesTheFileNotThePartType(t *testing.T) {
	t.Parallel()
	env := testkit.NewServer(t)
	acct := testkit.SignUp(t, env)
	path := "/api/v1/attendees/import?eventId=" + acct.Event(t, env, "E").String()
	for _, partType := range []string{"application/vnd.ms-excel", "application/octet-stream", "text/plain; charset=utf-8"} {
		res := uploadAs(t, acct.Client, path, partType, []byte("firstName,lastName,email\nAda,Lovelace,ada@example.org\n"))
		require.Equal(t, 200, res.StatusCode, "CSV sent as %s: status (body %s)", partType, res.Body)
		if !strings.Contains(string(res.Body), `"added":1`) {
			require.Contains(t, string(res.Body), `"skipped":1`, "CSV sent as %s: body", partType)
		}
	}
	res := uploadAs(t, acct.Client, path, "application/pdf", []byte("%PDF-1.7\n%\xe2\xe3\xcf\xd3\n"))
	if e := wantError(t, res, 400, res.StatusCode, "VALIDATION_ERROR"); !hasDetail(e, "file", "The file is a PDF document, not a CSV file") {
		t.Fatalf("PDF: %s", res.Body)
	}
}

// A request that is not a form says what the operation takes.
func TestImportNotSentAsAFormSaysHowToSendIt(t *testing.T) {
	t.Parallel()
	env := testkit.NewServer(t)
	acct := testkit.SignUp(t, env)
	path := "/api/v1/attendees/import?eventId=" + acct.Event(t, env, "E").String()
	for _, contentType := range []string{"text/csv", "application/json", "application/x-www-form-urlencoded", ""} {
		req := acct.Client.Request(http.MethodPost, path, []byte("firstName,lastName,email\nAda,Lovelace,ada@example.org\n"))
		req.Header.Del("Content-Type")
		if contentType != "" {
			req.Header.Set("Content-Type", contentType)
		}
		res := acct.Client.Do(req)
		e := wantError(t, res, 400, res.StatusCode, "VALIDATION_ERROR")
		if !hasDetail(e, "header.Content-Type", `multipart/form-data with the text/csv file in the field "file"`) {
			t.Errorf("Content-Type %q: %s", contentType, res.Body)
		}
	}
}

// Names and metadata values follow the single-line rule: the invisible controls reject their
// row, naming the cell; line breaks and tabs inside a quoted cell become spaces, as documented;
// every other character is kept.
func TestImportRejectsRowsWhoseTextIsNotSingleLine(t *testing.T) {
	t.Parallel()
	env := testkit.NewServer(t)
	acct := testkit.SignUp(t, env)
	event := acct.Event(t, env, "E").String()
	file := "firstName,lastName,email,Company\n" +
		"\u202eecalevoL,Ada,rlo@example.org,\n" +
		"Ada,Love\ufefflace,bom@example.org,\n" +
		"Ada,Lovelace,iso@example.org,Acme\u2066Corp\n" +
		"\"Grace\nBrewster\",\"Hop\tper\",grace@example.org,\"Navy\u2028Reserve\"\n" +
		"👩\u200d💻,می\u200cخواهم,kept@example.org,\n"
	res := acct.Client.Upload("/api/v1/attendees/import?eventId="+event, "file", "p.csv", []byte(file))
	var out importBody
	res.JSON(t, &out)
	require.Equal(t, 200, res.StatusCode, "import: status (body %s)", res.Body)
	require.Equal(t, 2, out.Data.Added, "import: out.Data.Added")
	require.Len(t, out.Data.Rejected, 3, "import: out.Data.Rejected")
	want := []struct {
		row         int
		field, char string
	}{{2, "file.row[2].firstName", "U+202E"}, {3, "file.row[3].lastName", "U+FEFF"}, {4, "file.row[4].metadata.Company", "U+2066"}}
	for i, w := range want {
		r := out.Data.Rejected[i]
		assert.Equal(t, w.row, r.Row, "rejection %d: r.Row", i)
		assert.Equal(t, w.field, r.Field, "rejection %d: r.Field", i)
		assert.Equal(t, "INVALID_TEXT", r.Reason, "rejection %d: r.Reason", i)
		assert.Contains(t, r.Message, w.char, "rejection %d: r.Message", i)
	}
	var page attendeePage
	acct.Client.Get("/api/v1/attendees?eventId="+event).JSON(t, &page)
	got := map[string]string{}
	for _, a := range page.Data {
		got[a.Email] = a.FirstName + "|" + a.LastName + "|" + a.Metadata["Company"]
	}
	require.Equal(t, "Grace Brewster|Hop per|Navy Reserve", got["grace@example.org"], `stored: got["grace@example.org"]`)
	require.Equal(t, "👩\u200d💻|می\u200cخواهم|", got["kept@example.org"], `stored: got["kept@example.org"]`)
}

// A rejection repeats at most the first 200 characters of a value, however long the cell.
func TestImportRejectionEchoesAtMost200Characters(t *testing.T) {
	t.Parallel()
	env := testkit.NewServer(t)
	acct := testkit.SignUp(t, env)
	event := acct.Event(t, env, "E").String()
	longName := strings.Repeat("é", 5000)
	longEmail := strings.Repeat("a", 300) + "@example.org"
	notAnEmail := strings.Repeat("b", 250)
	file := "firstName,lastName,email,Notes\n" +
		longName + ",L,long-name@example.org,\n" +
		"A,L," + longEmail + ",\n" +
		"A,L," + notAnEmail + ",\n" +
		"A,L,notes@example.org," + strings.Repeat("n", 600) + "\n"
	res := acct.Client.Upload("/api/v1/attendees/import?eventId="+event, "file", "p.csv", []byte(file))
	var out importBody
	res.JSON(t, &out)
	require.Equal(t, 200, res.StatusCode, "import: status (body %s)", res.Body)
	require.Len(t, out.Data.Rejected, 4, "import: out.Data.Rejected")
	for i, c := range []struct{ reason, field, echoed string }{
		{"TOO_LONG", "file.row[2].firstName", strings.Repeat("é", 200)},
		{"TOO_LONG", "file.row[3].email", strings.Repeat("a", 200)},
		{"INVALID_EMAIL", "file.row[4].email", strings.Repeat("b", 200)},
		{"TOO_LONG", "file.row[5].metadata.Notes", strings.Repeat("n", 200)},
	} {
		r := out.Data.Rejected[i]
		assert.Equal(t, c.reason, r.Reason, "rejection %d: r.Reason", i)
		assert.Equal(t, c.field, r.Field, "rejection %d: r.Field", i)
		assert.Contains(t, r.Message, c.echoed, "rejection %d: r.Message", i)
		assert.NotContains(t, r.Message, c.echoed+c.echoed[:1], "rejection %d: r.Message", i)
		if r.Email != nil && len([]rune(*r.Email)) > 200 {
			t.Errorf("rejection %d echoes an email of %d characters", i, len([]rune(*r.Email)))
		}
	}
}
