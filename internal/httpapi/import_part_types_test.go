package httpapi_test

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"unicode/utf16"

	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/stretchr/testify/assert"

	"github.com/certhub/credentiald/internal/testkit"
)

// withKinCSVDecoder gives the process kin-openapi's own decoder of text/csv for the rest of
// the test, as a production process has it: the contract client, once it has validated an
// answer, reads text/csv bodies as they are, process-wide, and so would the server's request
// validator in a test. The test that calls it must not run in parallel: parallel tests wait
// until it has ended, and its cleanup puts the client's decoder back.
func withKinCSVDecoder(t *testing.T) {
	t.Helper()
	kept := openapi3filter.RegisteredBodyDecoder("text/csv")
	openapi3filter.RegisterBodyDecoder("text/csv", openapi3filter.CsvBodyDecoder)
	t.Cleanup(func() {
		if kept == nil {
			openapi3filter.UnregisterBodyDecoder("text/csv")
			return
		}
		openapi3filter.RegisterBodyDecoder("text/csv", kept)
	})
}

// utf16LE is text as a spreadsheet program's "Unicode text" saves it: UTF-16 little endian
// after its byte order mark.
func utf16LE(text string) []byte {
	var b bytes.Buffer
	b.Write([]byte{0xFF, 0xFE})
	_ = binary.Write(&b, binary.LittleEndian, utf16.Encode([]rune(text)))
	return b.Bytes()
}

// A browser types a .csv file's part text/csv, application/vnd.ms-excel or
// application/octet-stream, as its platform has it: the import answers each the same, since
// the request validator leaves the part to the operation, which judges the file itself. A
// UTF-16 file is told to be saved as CSV UTF-8 and a row of four cells under a header of three
// is named (kin-openapi's CSV reader refused both files whole for their field counts when the
// part said text/csv), a file one byte over 10 MiB is 413, and a good file is imported.
func TestImportAnswersAFileAlikeWhateverTypeItsPartCarries(t *testing.T) {
	// Not parallel: withKinCSVDecoder.
	env := testkit.NewServer(t)
	acct := testkit.SignUp(t, env)
	withKinCSVDecoder(t)
	path := "/api/v1/attendees/import?eventId=" + acct.Event(t, env, "Browsers").String()

	header := "firstName,lastName,email\n"
	unicode := utf16LE(header + "Ada,Lovelace,ada@example.org\nGrace,Hopper,grace@example.org\n")
	ragged := []byte(header + "Ada,Lovelace,ada@example.org\nGrace,Hopper,grace@example.org,surprise\n")
	// One byte over 10 MiB, its last row cut short, as a file cut anywhere would be.
	row := "A,B,a@example.org\n"
	oversize := []byte(header + strings.Repeat(row, (10<<20-len(header))/len(row)))
	oversize = append(oversize, strings.Repeat("Z", 10<<20-len(oversize))+"\n"...)

	for i, partType := range []string{"text/csv", "application/vnd.ms-excel", "application/octet-stream"} {
		t.Run(strings.ReplaceAll(partType, "/", "_"), func(t *testing.T) {
			res := uploadAs(t, acct.Client, path, partType, unicode)
			e := wantError(t, res, http.StatusBadRequest, res.StatusCode, "VALIDATION_ERROR")
			if !hasDetail(e, "file", `The file is UTF-16; save it as "CSV UTF-8"`) {
				t.Errorf("UTF-16: %s", res.Body)
			}

			res = uploadAs(t, acct.Client, path, partType, ragged)
			e = wantError(t, res, http.StatusBadRequest, res.StatusCode, "VALIDATION_ERROR")
			if !hasDetail(e, "file.row[3]", "4 cells but the header has 3") {
				t.Errorf("a row of four cells: %s", res.Body)
			}

			if len(oversize) != 10<<20+1 {
				t.Fatalf("the oversize file has %d bytes", len(oversize))
			}
			res = uploadAs(t, acct.Client, path, partType, oversize)
			e = wantError(t, res, http.StatusRequestEntityTooLarge, res.StatusCode, "PAYLOAD_TOO_LARGE")
			if !strings.Contains(e.Error.Message, "larger than 10 MiB") {
				t.Errorf("10 MiB + 1 byte: %s", res.Body)
			}

			email := fmt.Sprintf("part%d@example.org", i)
			res = uploadAs(t, acct.Client, path, partType, []byte(header+"Ada,Lovelace,"+email+"\n"))
			assert.Equal(t, http.StatusOK, res.StatusCode, "a good file: status (body %s)", res.Body)
			assert.Contains(t, string(res.Body), `"added":1`, "a good file: body")
		})
	}
}
