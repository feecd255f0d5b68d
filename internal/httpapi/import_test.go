package httpapi_test

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"strings"
	"testing"

	"github.com/certhub/credentiald/internal/testkit"
)

type importBody struct {
	Data struct {
		Added, Skipped int
		Rejected       []struct {
			Row             int
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
	if res.StatusCode != 200 || out.Data.Added != 3 || out.Data.Skipped != 2 || len(out.Data.Rejected) != 3 {
		t.Fatalf("import: %d %s", res.StatusCode, res.Body)
	}
	want := []struct {
		row    int
		reason string
	}{{5, "INVALID_EMAIL"}, {6, "MISSING_FIELD"}, {10, "TOO_LONG"}}
	for i, w := range want {
		r := out.Data.Rejected[i]
		if r.Row != w.row || r.Reason != w.reason || r.Message == "" {
			t.Errorf("rejection %d: %+v, want line %d %s", i, r, w.row, w.reason)
		}
	}
	if e := out.Data.Rejected[0].Email; e == nil || *e != "not-an-email" {
		t.Errorf("rejection names its email: %+v", out.Data.Rejected[0])
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
	if byEmail["jose@example.org"]["Company"] != "Acme" || len(byEmail["lukasz@example.org"]) != 0 {
		t.Fatalf("metadata: %+v", byEmail)
	}

	// Without skipDuplicates, the same file adds its duplicates too.
	res = acct.Client.Upload("/api/v1/attendees/import?skipDuplicates=false&eventId="+event, "file", "people.csv", []byte(file))
	res.JSON(t, &out)
	if out.Data.Added != 5 || out.Data.Skipped != 0 {
		t.Fatalf("import without skipping: %s", res.Body)
	}
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
	if res.StatusCode != 200 || out.Data.Added != 1 || len(out.Data.Rejected) != 1 || out.Data.Rejected[0].Row != 2 {
		t.Fatalf("tab-separated: %d %s", res.StatusCode, res.Body)
	}
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
		"png":          {[]byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"), "file", "not a CSV"},
		"utf-16":       {append([]byte("\xFF\xFE"), []byte("f\x00i\x00r\x00")...), "file", "UTF-16"},
		"latin-1":      {[]byte(good + "Jos\xe9,M\xfcller,jose@example.org\n"), "file.row[3]", "not UTF-8"},
		"empty":        {[]byte(" \n"), "file", "empty"},
		"no header":    {[]byte("Ada,Lovelace,ada@example.org\n"), "file.row[1]", "no column for firstName, lastName, email"},
		"open quote":   {[]byte(good + "\"A,B,b@example.org\n"), "file.row[3]", "line 3"},
		"bare quote":   {[]byte(good + "A\"x,B,b@example.org\n"), "file.row[3]", "quote"},
		"extra cells":  {[]byte(good + "A,B,b@example.org,surprise\n"), "file.row[3]", "4 cells but the header has 3"},
		"twice email":  {[]byte("firstName,lastName,email,Email Address\n"), "file.row[1]", "two columns for email"},
		"21 metadatas": {[]byte("firstName,lastName,email" + strings.Repeat(",", 1) + metadataHeaders(21) + "\n"), "file.row[1]", "21 extra columns"},
	}
	before, _ := env.Store.Fingerprint(t.Context())
	for name, c := range cases {
		res := acct.Client.Upload("/api/v1/attendees/import?eventId="+event, "file", "x.csv", c.file)
		e := wantError(t, res, 400, res.StatusCode, "VALIDATION_ERROR")
		if len(e.Error.Details) != 1 || e.Error.Details[0].Field != c.field || !strings.Contains(e.Error.Message, c.message) {
			t.Errorf("%s: %+v", name, e.Error)
		}
	}
	res := acct.Client.Upload("/api/v1/attendees/import?eventId="+event, "attachment", "x.csv", []byte(good))
	wantError(t, res, 400, res.StatusCode, "VALIDATION_ERROR")
	if after, _ := env.Store.Fingerprint(t.Context()); after != before {
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
	before, _ := env.Store.Fingerprint(t.Context())

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
	if after, _ := env.Store.Fingerprint(t.Context()); after != before {
		t.Fatal("a refused import changed the database")
	}

	// Exactly at the row limit is fine.
	rows.Reset()
	rows.WriteString("firstName,lastName,email\n")
	for i := range 50_000 {
		fmt.Fprintf(&rows, "A,B,a%d@example.org\n", i)
	}
	res = acct.Client.Upload("/api/v1/attendees/import?eventId="+event, "file", "big.csv", rows.Bytes())
	if res.StatusCode != 200 || !strings.Contains(string(res.Body), `"added":50000`) {
		t.Fatalf("50,000 rows: %d %s", res.StatusCode, res.Body)
	}
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
	if res.StatusCode != 200 || !strings.HasPrefix(res.Header.Get("Content-Disposition"), "attachment;") ||
		!strings.HasPrefix(res.Header.Get("Content-Type"), "text/csv") {
		t.Fatalf("export: %d %v", res.StatusCode, res.Header)
	}
	records, err := csv.NewReader(bytes.NewReader(res.Body)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	wantHeader := "id,firstName,lastName,email,createdAt,certificateStatus,certificateNumber,verificationCode,Company,Role"
	if len(records) != 3 || strings.Join(records[0], ",") != wantHeader {
		t.Fatalf("export:\n%s", res.Body)
	}
	jose := records[1]
	if jose[1] != "'=cmd|' /C calc'!A0" || jose[2] != "Müller" || jose[8] != "'+Acme" || jose[9] != "'@boss" || jose[5] != "" {
		t.Fatalf("row: %q", jose)
	}
	if ada := records[2]; ada[8] != "" || ada[9] != "'-1" {
		t.Fatalf("row: %q", ada)
	}
}
