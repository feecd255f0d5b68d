package attendees

import (
	"bytes"
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/google/uuid"

	"github.com/certhub/credentiald/internal/apperr"
	"github.com/certhub/credentiald/internal/domain"
	"github.com/certhub/credentiald/internal/spec"
)

// Limits of an imported file.
const (
	MaxImportBytes = 10 << 20
	MaxImportRows  = 50_000
)

// Reasons a row is rejected.
const (
	MissingField = "MISSING_FIELD"
	InvalidEmail = "INVALID_EMAIL"
	TooLong      = "TOO_LONG"
	InvalidText  = "INVALID_TEXT"
)

// maxEcho is how much of a value a rejection repeats: enough to find the cell, never a
// megabyte of it.
const maxEcho = 200

// Rejection is a row of the file that was not imported.
type Rejection struct {
	Row     int    // line number in the file; the header is line 1
	Field   string // the cell at fault: file.row[7].email
	Email   *string
	Reason  string
	Message string
}

// ImportResult counts what an import did.
type ImportResult struct {
	Added, Skipped int
	Rejected       []Rejection
}

// columnAliases maps a header, lower-cased with everything but letters and digits removed, to
// the attendee field it fills.
var columnAliases = map[string]string{
	"firstname": "firstName", "givenname": "firstName", "forename": "firstName",
	"lastname": "lastName", "surname": "lastName", "familyname": "lastName",
	"email": "email", "emailaddress": "email", "mail": "email",
}

// Import reads a CSV file and adds its attendees to an event in one transaction. A file that is
// not CSV (or not UTF-8, or without the needed columns) answers 400 naming the problem; a file
// over the limits answers 413; in both cases nothing is added. Rows with a missing or invalid
// value are rejected one by one and reported with their line number.
func (s *Service) Import(ctx context.Context, accountID, eventID uuid.UUID, file io.Reader, skipDuplicates bool) (ImportResult, error) {
	data, err := io.ReadAll(io.LimitReader(file, MaxImportBytes+1))
	if err != nil {
		return ImportResult{}, err
	}
	if len(data) > MaxImportBytes {
		return ImportResult{}, apperr.New(apperr.PayloadTooLarge, "The file is larger than 10 MiB; split it into smaller files.")
	}
	parsed, err := parseCSV(data)
	if err != nil {
		return ImportResult{}, err
	}
	added, err := s.importRows(ctx, accountID, eventID, parsed.rows, skipDuplicates)
	if err != nil {
		return ImportResult{}, err
	}
	// Every row that was not added had an email already on the event or earlier in the file.
	return ImportResult{Added: added, Skipped: len(parsed.rows) - added, Rejected: parsed.rejected}, nil
}

type parsedFile struct {
	rows     []domain.AttendeeFields
	rejected []Rejection
}

// parseCSV checks the encoding, finds the delimiter and the columns, and validates every row.
func parseCSV(data []byte) (parsedFile, error) {
	data = bytes.TrimPrefix(data, []byte("\xEF\xBB\xBF"))
	if len(bytes.TrimSpace(data)) == 0 {
		return parsedFile{}, notCSV("The file is empty; it needs a header row (firstName, lastName, email) and a row per attendee.")
	}
	if bytes.HasPrefix(data, []byte("\xFF\xFE")) || bytes.HasPrefix(data, []byte("\xFE\xFF")) {
		return parsedFile{}, notCSV("The file is UTF-16; save it as \"CSV UTF-8\" and import it again.")
	}
	if kind := fileKind(data); kind != "" {
		return parsedFile{}, notCSV(fmt.Sprintf("The file is %s, not a CSV file; export the attendee list from the spreadsheet as CSV (UTF-8) and import that.", kind))
	}
	if bytes.IndexByte(data, 0) >= 0 {
		return parsedFile{}, notCSV("The file is not a CSV text file (it holds binary data); export the spreadsheet as CSV and import that.")
	}
	if !utf8.Valid(data) {
		line := 1 + bytes.Count(data[:invalidUTF8At(data)], []byte("\n"))
		return parsedFile{}, notCSVAt(line, fmt.Sprintf("The file is not UTF-8 (line %d holds bytes that are not); save it as \"CSV UTF-8\" and import it again.", line))
	}

	r := csv.NewReader(bytes.NewReader(data))
	r.Comma = detectDelimiter(data)
	r.FieldsPerRecord = -1
	r.ReuseRecord = true
	header, err := r.Read()
	if err != nil {
		return parsedFile{}, csvError(err)
	}
	cols, metaCols, err := matchHeader(header)
	if err != nil {
		return parsedFile{}, err
	}

	// One row a line is the common file: its rows are kept without growing the slice.
	out := parsedFile{rows: make([]domain.AttendeeFields, 0, min(bytes.Count(data, []byte("\n")), MaxImportRows))}
	count := 0
	for {
		rec, err := r.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return parsedFile{}, csvError(err)
		}
		line, _ := r.FieldPos(0)
		if isBlank(rec) {
			continue
		}
		count++
		if count > MaxImportRows {
			return parsedFile{}, apperr.New(apperr.PayloadTooLarge, "The file has more than %d rows; split it into smaller files.", MaxImportRows)
		}
		if len(rec) > len(header) && !isBlank(rec[len(header):]) {
			return parsedFile{}, notCSVAt(line, fmt.Sprintf("Line %d has %d cells but the header has %d; check the delimiter and the quoting of that line.", line, len(rec), len(header)))
		}
		row, rej := readRow(rec, cols, metaCols, line)
		if rej != nil {
			out.rejected = append(out.rejected, *rej)
			continue
		}
		out.rows = append(out.rows, row)
	}
	if out.rejected == nil {
		out.rejected = []Rejection{}
	}
	return out, nil
}

type columns struct{ firstName, lastName, email int }

type metaColumn struct {
	index int
	key   string
}

func matchHeader(header []string) (columns, []metaColumn, error) {
	cols := columns{-1, -1, -1}
	var meta []metaColumn
	seen := map[string]bool{}
	for i, h := range header {
		name := strings.TrimSpace(h)
		field := columnAliases[normalizeHeader(name)]
		switch {
		case field == "" && name == "":
			continue
		case field == "":
			if len(name) > maxMetaKeyLen || strings.IndexFunc(name, unicode.IsControl) >= 0 {
				return cols, nil, notCSVAt(1, fmt.Sprintf("The header %q is not usable as a metadata key (at most %d printable characters).", name, maxMetaKeyLen))
			}
			if seen[name] {
				return cols, nil, notCSVAt(1, fmt.Sprintf("The header names the column %q twice.", name))
			}
			seen[name] = true
			meta = append(meta, metaColumn{index: i, key: name})
			continue
		case seen[field]:
			return cols, nil, notCSVAt(1, fmt.Sprintf("The header has two columns for %s.", field))
		}
		seen[field] = true
		switch field {
		case "firstName":
			cols.firstName = i
		case "lastName":
			cols.lastName = i
		case "email":
			cols.email = i
		}
	}
	var missing []string
	for _, c := range []struct {
		name  string
		index int
	}{{"firstName", cols.firstName}, {"lastName", cols.lastName}, {"email", cols.email}} {
		if c.index < 0 {
			missing = append(missing, c.name)
		}
	}
	if len(missing) > 0 {
		return cols, nil, notCSVAt(1, fmt.Sprintf("The header row has no column for %s; the first line must name the columns, e.g. firstName,lastName,email.", strings.Join(missing, ", ")))
	}
	if len(meta) > maxMetadataKeys {
		return cols, nil, notCSVAt(1, fmt.Sprintf("The file has %d extra columns; at most %d are kept as metadata.", len(meta), maxMetadataKeys))
	}
	return cols, meta, nil
}

func readRow(rec []string, cols columns, meta []metaColumn, line int) (domain.AttendeeFields, *Rejection) {
	cell := func(i int) string {
		if i < len(rec) {
			return cleanCell(rec[i])
		}
		return ""
	}
	f := domain.AttendeeFields{FirstName: cell(cols.firstName), LastName: cell(cols.lastName), Email: cell(cols.email)}
	reject := func(reason, name, format string, args ...any) *Rejection {
		var email *string
		if f.Email != "" {
			e := cut(f.Email, maxEcho)
			email = &e
		}
		return &Rejection{Row: line, Field: fmt.Sprintf("file.row[%d].%s", line, name), Email: email, Reason: reason, Message: fmt.Sprintf(format, args...)}
	}
	// Arrays, not slices: a row's checks allocate nothing when the row is good.
	names := [2]struct{ name, value string }{{"firstName", f.FirstName}, {"lastName", f.LastName}}
	for _, c := range [3]struct{ name, value string }{names[0], names[1], {"email", f.Email}} {
		if c.value == "" {
			return f, reject(MissingField, c.name, "%s is empty.", c.name)
		}
	}
	for _, c := range names {
		if n := utf8.RuneCountInString(c.value); n > maxNameLen {
			return f, reject(TooLong, c.name, "%s has %d characters; at most %d are allowed: %s.", c.name, n, maxNameLen, echo(c.value))
		}
	}
	if n := len(f.Email); n > maxEmailLen {
		return f, reject(TooLong, "email", "email has %d characters; at most %d are allowed: %s.", n, maxEmailLen, echo(f.Email))
	}
	for _, c := range names {
		if err := spec.CheckSingleLine(c.value); err != nil {
			return f, reject(InvalidText, c.name, "%s %s %v.", c.name, echo(c.value), err)
		}
	}
	if !spec.IsEmail(f.Email) {
		return f, reject(InvalidEmail, "email", "%s is not a valid email address.", echo(f.Email))
	}
	for _, m := range meta {
		v := cell(m.index)
		if v == "" {
			continue
		}
		field := "metadata." + m.key
		if n := utf8.RuneCountInString(v); n > maxMetaValueLen {
			return f, reject(TooLong, field, "%s has %d characters; at most %d are allowed: %s.", m.key, n, maxMetaValueLen, echo(v))
		}
		if err := spec.CheckSingleLine(v); err != nil {
			return f, reject(InvalidText, field, "%s %s %v.", m.key, echo(v), err)
		}
		if f.Metadata == nil {
			f.Metadata = make(map[string]string, len(meta))
		}
		f.Metadata[m.key] = v
	}
	return f, nil
}

// cut keeps the first n characters of v.
func cut(v string, n int) string {
	i := 0
	for pos := range v {
		if i == n {
			return v[:pos]
		}
		i++
	}
	return v
}

// echo quotes a value for a message (escaping what is invisible), cut to maxEcho characters.
func echo(v string) string {
	if c := cut(v, maxEcho); len(c) < len(v) {
		return fmt.Sprintf("%q… (the first %d characters)", c, maxEcho)
	}
	return fmt.Sprintf("%q", v)
}

// fileSignatures name the files most often sent by mistake, by their first bytes.
var fileSignatures = []struct{ prefix, kind string }{
	{"%PDF-", "a PDF document"},
	{"PK\x03\x04", "a ZIP archive (an Excel .xlsx or OpenDocument .ods workbook is one)"},
	{"\xD0\xCF\x11\xE0\xA1\xB1\x1A\xE1", "an older Microsoft Office file (an Excel .xls workbook, for example)"},
	{"\x89PNG\r\n\x1A\n", "a PNG image"},
	{"\xFF\xD8\xFF", "a JPEG image"},
	{"GIF87a", "a GIF image"},
	{"GIF89a", "a GIF image"},
	{"{\\rtf", "an RTF document"},
}

// fileKind says in words what a file is when it is clearly not CSV text, or "" when it may be.
func fileKind(data []byte) string {
	for _, s := range fileSignatures {
		if bytes.HasPrefix(data, []byte(s.prefix)) {
			return s.kind
		}
	}
	ct, _, _ := mime.ParseMediaType(http.DetectContentType(data))
	switch {
	case ct == "text/html":
		return "an HTML page"
	case ct == "text/xml":
		return "an XML document"
	case strings.HasPrefix(ct, "text/"), ct == "application/octet-stream", ct == "":
		return ""
	}
	return "a file of type " + ct
}

// detectDelimiter picks the most frequent of , ; and tab in the header line, outside quotes.
func detectDelimiter(data []byte) rune {
	counts := map[rune]int{}
	quoted := false
	// Byte by byte: every character looked for is ASCII, and no byte of a longer UTF-8
	// character is one.
	for _, c := range data {
		if c == '"' {
			quoted = !quoted
			continue
		}
		if !quoted && (c == '\n' || c == '\r') {
			break
		}
		if !quoted && (c == ',' || c == ';' || c == '\t') {
			counts[rune(c)]++
		}
	}
	best := ','
	for _, c := range []rune{';', '\t'} {
		if counts[c] > counts[best] {
			best = c
		}
	}
	return best
}

func normalizeHeader(h string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(h) {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// cleanCell trims a cell and turns control characters and line separators (a tab or line
// break inside quotes) into spaces: the values end up on one-line certificates.
func cleanCell(v string) string {
	v = strings.TrimSpace(v)
	if strings.IndexFunc(v, breaksLine) < 0 {
		return v
	}
	return strings.Join(strings.FieldsFunc(v, func(r rune) bool { return breaksLine(r) || unicode.IsSpace(r) }), " ")
}

func breaksLine(r rune) bool { return unicode.IsControl(r) || r == '\u2028' || r == '\u2029' }

func isBlank(rec []string) bool {
	for _, v := range rec {
		if strings.TrimSpace(v) != "" {
			return false
		}
	}
	return true
}

func invalidUTF8At(data []byte) int {
	for i := 0; i < len(data); {
		r, size := utf8.DecodeRune(data[i:])
		if r == utf8.RuneError && size == 1 {
			return i
		}
		i += size
	}
	return len(data)
}

func csvError(err error) error {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		msg := "a quote is misplaced"
		switch {
		case errors.Is(pe.Err, csv.ErrQuote):
			msg = "a quoted cell is not closed or has extra characters after its closing quote"
		case errors.Is(pe.Err, csv.ErrBareQuote):
			msg = "a quote appears inside an unquoted cell (write it as \"\" inside a quoted cell)"
		}
		return notCSVAt(pe.Line, fmt.Sprintf("The file is not valid CSV: on line %d, %s.", pe.Line, msg))
	}
	return notCSV("The file could not be read as CSV.")
}

func notCSV(message string) error {
	e := apperr.New(apperr.ValidationError, "%s", message)
	e.Details = []apperr.Detail{{Field: "file", Message: message}}
	return e
}

func notCSVAt(line int, message string) error {
	e := apperr.New(apperr.ValidationError, "%s", message)
	e.Details = []apperr.Detail{{Field: fmt.Sprintf("file.row[%d]", line), Message: message}}
	return e
}
