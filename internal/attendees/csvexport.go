package attendees

import (
	"context"
	"encoding/csv"
	"io"
	"time"

	"github.com/google/uuid"

	"github.com/certhub/credentiald/internal/store"
)

// exportColumns are the fixed columns of an export; one column per metadata key follows.
var exportColumns = []string{"id", "firstName", "lastName", "email", "createdAt", "certificateStatus", "certificateNumber", "verificationCode"}

// ExportStream checks the event is the account's (404 otherwise, before any answer starts) and
// returns its CSV as a stream written while it is read. Closing the reader (the client is gone)
// stops the writer; a failure after the start ends the stream with that error.
func (s *Service) ExportStream(ctx context.Context, accountID, eventID uuid.UUID) (io.ReadCloser, error) {
	if err := s.store.RequireEvent(ctx, accountID, eventID, "path.eventId"); err != nil {
		return nil, err
	}
	pr, pw := io.Pipe()
	go func() { _ = pw.CloseWithError(s.Export(ctx, eventID, pw)) }()
	return pr, nil
}

// Export writes an event's attendees as CSV, oldest first, reading the database in batches from
// one snapshot: memory stays bounded whatever the number of attendees. Cells a spreadsheet would
// take for a formula are neutralised with a leading apostrophe.
func (s *Service) Export(ctx context.Context, eventID uuid.UUID, w io.Writer) error {
	cw := csv.NewWriter(w)
	var keys []string
	record := make([]string, 0, len(exportColumns)+maxMetadataKeys)
	err := s.store.ExportAttendees(ctx, eventID, func(metadataKeys []string) error {
		keys = metadataKeys
		record = append(record[:0], exportColumns...)
		for _, k := range keys {
			record = append(record, neutralise(k))
		}
		return cw.Write(record)
	}, func(r store.ExportRow) error {
		record = append(record[:0], r.ID.String(), neutralise(r.FirstName), neutralise(r.LastName), neutralise(r.Email),
			r.CreatedAt.UTC().Format(time.RFC3339), r.CertificateStatus, r.CertificateNumber, r.VerificationCode)
		for _, k := range keys {
			record = append(record, neutralise(r.Metadata[k]))
		}
		if err := cw.Write(record); err != nil {
			return err
		}
		return cw.Error()
	})
	if err != nil {
		return err
	}
	cw.Flush()
	return cw.Error()
}

// neutralise prefixes a cell that a spreadsheet would evaluate (=, +, -, @, tab, CR) with '.
func neutralise(v string) string {
	if v == "" {
		return v
	}
	switch v[0] {
	case '=', '+', '-', '@', '\t', '\r':
		return "'" + v
	}
	return v
}
