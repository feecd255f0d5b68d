package store

import (
	"context"
	"errors"
	"math"

	"github.com/google/uuid"

	"github.com/certhub/credentiald/gen/db"
	"github.com/certhub/credentiald/internal/domain"
)

// A search of attendees or certificates (q) is read in two steps. Its matches are counted first,
// in the list's search table (attendee_search, certificate_search: narrow rows under a trigram
// index, migration 00029), for the page's meta.total. Then the page is read from the list's
// own table, in one of two ways, chosen by how common the matches are:
//
//   - walked: the list's rows are read in its order, from its sort index, and the matches kept.
//     A match comes every listed/total rows, so a page of a common word comes after a few
//     hundred rows. The walk is bounded, at four times the rows it should need: matches bunched
//     at the far end of the order would otherwise have it read the whole account.
//   - by id: every match is read by id, and the page sorted out of them. Rare matches are few.
//
// The walk is tried when its bound is below the number of matches (what reading by id costs),
// and the page is read by id when the walk came short: both give the same page.
//
// A small list (at most smallList rows, as list_totals keeps them) is searched on its own rows
// alone: counted and walked whole. The search tables' trigram index is the whole service's,
// and a word common elsewhere would have a small account's search read every other account's
// matches of it.
var smallList int64 = 2000

// searchPage reads the page of total matches among listed rows; own says the list is searched
// on its own rows (small), and walked whole.
func searchPage[R any](p domain.Page, total, listed int64, own bool, walk func(bound int32) ([]R, error), byID func() ([]R, error)) ([]R, error) {
	offset := int64(pageOffset(p))
	want := min(int64(pageLimit(p)), total-offset)
	if want <= 0 {
		return nil, nil
	}
	if own { // the whole list, and room for rows written since it was counted
		return walk(int32(min(2*listed+100, math.MaxInt32)))
	}
	if bound := 4*(offset+want)*listed/total + want; bound < total {
		rows, err := walk(int32(bound))
		if err != nil || int64(len(rows)) == want {
			return rows, err
		}
	}
	return byID()
}

// searchAttendees is ListAttendees with a search, pattern (containsPattern's).
func (d queries) searchAttendees(ctx context.Context, q *db.Queries, accountID uuid.UUID, f domain.AttendeeFilter, p domain.Page, pattern string) ([]domain.Attendee, int, error) {
	listed, err := d.attendeeTotal(ctx, q, accountID, f, nil)
	if err != nil {
		return nil, 0, mapError(err)
	}
	var total int64
	ownRows := f.Email != nil || listed <= smallList // an email's attendees are few
	if ownRows {
		total, err = q.CountAttendees(ctx, db.CountAttendeesParams{AccountID: accountID, EventID: f.EventID, Email: f.Email, Pattern: &pattern})
	} else {
		total, err = q.CountAttendeeMatches(ctx, db.CountAttendeeMatchesParams{AccountID: accountID, EventID: f.EventID, Pattern: pattern})
	}
	if err != nil {
		return nil, 0, mapError(err)
	}
	rows, err := searchPage(p, total, listed, ownRows, func(bound int32) ([]db.Attendee, error) {
		return q.WalkAttendees(ctx, db.WalkAttendeesParams{AccountID: accountID, EventID: f.EventID, Email: f.Email, Walk: bound,
			Pattern: pattern, PageOffset: pageOffset(p), PageSize: pageLimit(p)})
	}, func() ([]db.Attendee, error) {
		return q.SearchAttendees(ctx, db.SearchAttendeesParams{AccountID: accountID, EventID: f.EventID, Email: f.Email,
			Pattern: pattern, PageOffset: pageOffset(p), PageSize: pageLimit(p)})
	})
	if err != nil {
		return nil, 0, mapError(err)
	}
	return convert(rows, attendeeFrom), int(total), nil
}

// searchCertificates is ListCertificates with a search (arg.Pattern set).
func (d queries) searchCertificates(ctx context.Context, q *db.Queries, arg db.CountCertificatesParams, p domain.Page) ([]domain.Certificate, int, error) {
	pattern := *arg.Pattern
	// How many rows a walk passes over: the event's or account's certificates of the status
	// asked, which list_totals keeps (the other filters would have to be counted).
	listed, err := d.certificateTotal(ctx, q, db.CountCertificatesParams{AccountID: arg.AccountID, EventID: arg.EventID,
		Status: arg.Status, Now: arg.Now})
	if err != nil {
		return nil, 0, mapError(err)
	}
	var total int64
	own := listed <= smallList
	switch {
	case own:
		total, err = q.CountCertificatesOwnRows(ctx, db.CountCertificatesOwnRowsParams{AccountID: arg.AccountID, EventID: arg.EventID,
			AttendeeID: arg.AttendeeID, TemplateID: arg.TemplateID, Status: arg.Status, Now: arg.Now, IssuedFrom: arg.IssuedFrom,
			IssuedBefore: arg.IssuedBefore, Pattern: pattern})
	case arg.AttendeeID == nil && arg.TemplateID == nil && arg.Status == nil && arg.IssuedFrom == nil && arg.IssuedBefore == nil:
		total, err = q.CountCertificateMatches(ctx, db.CountCertificateMatchesParams{AccountID: arg.AccountID, EventID: arg.EventID, Pattern: pattern})
	default:
		// The matches' rows are read, to check the filters on them.
		total, err = q.CountCertificates(ctx, arg)
	}
	if err != nil {
		return nil, 0, mapError(err)
	}
	rows, err := searchPage(p, total, listed, own, func(bound int32) ([]db.GetCertificateRecordRow, error) {
		found, err := q.WalkCertificates(ctx, db.WalkCertificatesParams{AccountID: arg.AccountID, EventID: arg.EventID,
			AttendeeID: arg.AttendeeID, TemplateID: arg.TemplateID, Status: arg.Status, Now: arg.Now, IssuedFrom: arg.IssuedFrom,
			IssuedBefore: arg.IssuedBefore, Walk: bound, Pattern: pattern, PageSize: pageLimit(p), PageOffset: pageOffset(p)})
		return convert(found, func(r db.WalkCertificatesRow) db.GetCertificateRecordRow { return db.GetCertificateRecordRow(r) }), err
	}, func() ([]db.GetCertificateRecordRow, error) {
		found, err := q.SearchCertificates(ctx, db.SearchCertificatesParams{AccountID: arg.AccountID, EventID: arg.EventID,
			AttendeeID: arg.AttendeeID, TemplateID: arg.TemplateID, Status: arg.Status, Now: arg.Now, IssuedFrom: arg.IssuedFrom,
			IssuedBefore: arg.IssuedBefore, Pattern: pattern, PageSize: pageLimit(p), PageOffset: pageOffset(p)})
		return convert(found, func(r db.SearchCertificatesRow) db.GetCertificateRecordRow { return db.GetCertificateRecordRow(r) }), err
	})
	if err != nil {
		return nil, 0, mapError(err)
	}
	return convert(rows, func(r db.GetCertificateRecordRow) domain.Certificate { return recordFrom(r, arg.Now) }), int(total), nil
}

// CleanCertificateSearch merges the pending entries of the certificates' search index into
// the index proper (see migration 00033) and answers how many pending pages it emptied.
// ErrNoPrivilege when the role does not own the index (only its owner, the role that ran the
// migrations, may merge it).
func (s *Store) CleanCertificateSearch(ctx context.Context) (int64, error) {
	pages, err := s.q.CleanCertificateSearchPending(ctx)
	return pages, mapError(err)
}

// CleanAttendeeSearch is CleanCertificateSearch for the attendees' search index, which
// IndexAttendeeSearch's inserts leave pending (migration 00037).
func (s *Store) CleanAttendeeSearch(ctx context.Context) (int64, error) {
	pages, err := s.q.CleanAttendeeSearchPending(ctx)
	return pages, mapError(err)
}

// indexBatch is how many entries of the attendees' search queue one transaction of
// IndexAttendeeSearch takes: an entry is an attendee, or an import's rows (up to 50,000).
const indexBatch = 100

// Indexed is what a call of IndexAttendeeSearch did.
type Indexed struct {
	Entries int  // entries of the queue taken
	Rows    int  // search rows written
	Busy    bool // another indexer held the queue: nothing was taken
}

// IndexAttendeeSearch writes the search rows of the attendees that the queue names (migration
// 00037: the statements that create or rename attendees add to it), until the queue is
// empty or ctx ends, in transactions of up to indexBatch entries. One indexer works at a time:
// when another holds the queue, it answers Busy at once, and that one writes what is queued.
// Until then, a search (q) of a large list does not find those attendees, or finds a renamed
// one by the old name.
func (s *Store) IndexAttendeeSearch(ctx context.Context) (Indexed, error) {
	var done Indexed
	gone := 0
	for {
		n, err := InTx(ctx, s, func(tx *Tx) (Indexed, error) {
			locked, err := tx.q.LockAttendeeSearchIndexer(ctx)
			if err != nil {
				return Indexed{}, mapError(err)
			}
			if !locked {
				return Indexed{Busy: true}, nil
			}
			r, err := tx.q.IndexQueuedAttendees(ctx, indexBatch)
			return Indexed{Entries: int(r.Entries), Rows: int(r.Indexed)}, mapError(err)
		})
		if errors.Is(err, Conflict(attendeeSearchAttendee)) && gone < indexRetries {
			// An attendee deleted, and committed, between the statement's read and its search
			// row's insert: the batch is undone, and taken again at once in a new snapshot,
			// where that attendee is gone (not a whole tick later, past the contract's 2 s).
			gone++
			continue
		}
		done.Entries, done.Rows, done.Busy = done.Entries+n.Entries, done.Rows+n.Rows, n.Busy
		if err != nil || n.Busy || n.Entries < indexBatch {
			return done, err
		}
	}
}

// attendeeSearchAttendee is the key from a search row to its attendee (migration 00037).
const attendeeSearchAttendee = "attendee_search_attendee_id_fkey"

// indexRetries bounds the batches taken again after an attendee vanished under them: each
// retry needs another deletion in its own few milliseconds.
const indexRetries = 5
