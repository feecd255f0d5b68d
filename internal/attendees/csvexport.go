package attendees

import (
	"context"
	"encoding/csv"
	"io"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"

	"github.com/certhub/credentiald/internal/events"
	"github.com/certhub/credentiald/internal/recovery"
	"github.com/certhub/credentiald/internal/store"
)

// exportColumns are the fixed columns of an export; one column per metadata key follows.
var exportColumns = []string{"id", "firstName", "lastName", "email", "createdAt", "certificateStatus", "certificateNumber", "verificationCode"}

// ExportStream checks the event is the account's (404 otherwise, before any answer starts) and
// returns its CSV as a stream written while it is read, started by a UTF-8 byte order mark
// when bom is set (spreadsheet programs read the file as UTF-8 only with it). The writer stops when the reader is
// closed (the client is gone) or when ctx, the request's, ends; a failure after the start ends
// the stream with that error.
func (s *Service) ExportStream(ctx context.Context, accountID, eventID uuid.UUID, bom bool) (io.ReadCloser, error) {
	if err := events.Require(ctx, s.store, accountID, eventID); err != nil {
		return nil, err
	}
	pr, pw := io.Pipe()
	// A writer blocked on a reader that is never closed again still ends with the request.
	stop := context.AfterFunc(ctx, func() { _ = pw.CloseWithError(context.Cause(ctx)) })
	go func() {
		defer stop()
		// This goroutine is outside the request's panic recovery: a panic ends the stream
		// with an error (logged with its stack) instead of the process.
		_ = pw.CloseWithError(recovery.Run(ctx, nil, "panic while exporting attendees", func() error {
			if bom {
				if _, err := io.WriteString(pw, "\uFEFF"); err != nil {
					return err
				}
			}
			return s.Export(ctx, eventID, pw)
		}, "event_id", eventID))
	}()
	return pr, nil
}

// exportBatch is how many attendees one read of an export takes.
const exportBatch = 1000

// Export writes an event's attendees as CSV, oldest first. Memory stays bounded whatever the
// number of attendees, and no transaction or connection is held while the client reads: the
// attendees are read in batches, each batch one short statement after the last one's keyset
// position (created_at, id).
//
// What "consistent" means here: every attendee that existed when the export began appears
// exactly once, in order (created_at, then id); attendees created after it began never appear
// (the keyset is bounded by created_at at or before the start, on the service's clock, which
// also stamps attendees when they are created), nor do metadata columns only they would bring.
// What is not promised, since no snapshot is held: an attendee changed while the export runs
// appears as it was when its batch was read (its certificate too), one deleted before its
// batch is read is left out, and one whose creation was still committing at the start may
// appear or not. An issued certificate's status is judged at the start.
// Cells a spreadsheet would take for a formula are neutralised with a leading apostrophe.
func (s *Service) Export(ctx context.Context, eventID uuid.UUID, w io.Writer) error {
	start := s.now()
	keys, err := s.store.EventMetadataKeys(ctx, eventID, start)
	if err != nil {
		return err
	}
	cw := csv.NewWriter(w)
	record := append(make([]string, 0, len(exportColumns)+maxMetadataKeys), exportColumns...)
	for _, k := range keys {
		record = append(record, neutralise(k))
	}
	if err := cw.Write(record); err != nil {
		return err
	}
	var after store.ExportCursor
	for {
		batch, next, err := s.store.ExportAttendees(ctx, eventID, start, after, exportBatch, start)
		if err != nil {
			return err
		}
		for _, r := range batch {
			record = append(record[:0], r.ID.String(), neutralise(r.FirstName), neutralise(r.LastName), neutralise(r.Email),
				r.CreatedAt.UTC().Format(time.RFC3339), string(r.CertificateStatus), r.CertificateNumber, r.VerificationCode)
			for _, k := range keys {
				record = append(record, neutralise(r.Metadata[k]))
			}
			if err := cw.Write(record); err != nil {
				return err
			}
		}
		// Hand each batch to the client before the next read.
		cw.Flush()
		if err := cw.Error(); err != nil {
			return err
		}
		if len(batch) < exportBatch {
			return nil
		}
		after = next
	}
}

// neutralise prefixes a cell that a spreadsheet would evaluate (=, +, -, @, tab, CR) with '.
// Their fullwidth forms (U+FF1D, U+FF0B, U+FF0D, U+FF20) are neutralised too, as the contract
// says: a spreadsheet that folds fullwidth characters into ASCII would evaluate them alike.
func neutralise(v string) string {
	r, _ := utf8.DecodeRuneInString(v)
	switch r {
	case '=', '+', '-', '@', '\t', '\r', '＝', '＋', '－', '＠':
		return "'" + v
	}
	return v
}
