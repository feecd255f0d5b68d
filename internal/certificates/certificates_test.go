package certificates_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/certhub/credentiald/internal/apperr"
	"github.com/certhub/credentiald/internal/certificates"
	"github.com/certhub/credentiald/internal/domain"
	"github.com/certhub/credentiald/internal/events"
	"github.com/certhub/credentiald/internal/httperr"
	"github.com/certhub/credentiald/internal/issuance"
	"github.com/certhub/credentiald/internal/store"
	"github.com/certhub/credentiald/internal/testkit"
)

func TestMain(m *testing.M) { testkit.Main(m) }

// issuing is the certificates service over a fresh database, with an account on the free plan
// (12 credits a month), a template and an event, on a clock the test moves.
type issuing struct {
	st       *store.Store
	dbURL    string
	svc      *certificates.Service
	clock    *testkit.Clock
	account  uuid.UUID
	event    uuid.UUID
	template uuid.UUID
}

func newIssuing(t *testing.T) issuing {
	t.Helper()
	w := testkit.NewWorld(t)
	return issuing{st: w.Store, dbURL: w.DBURL, svc: certificates.New(w.Store, "https://certs.example.org", w.Clock.Now), clock: w.Clock,
		account: w.Account, event: w.Event, template: w.Template}
}

func (s issuing) attendee(t *testing.T, first string) uuid.UUID {
	t.Helper()
	a, err := s.st.CreateAttendee(t.Context(), s.account, s.event, domain.AttendeeFields{FirstName: first, LastName: "Lovelace",
		Email: strings.ToLower(first) + "@example.org"}, s.clock.Now())
	if err != nil {
		t.Fatal(err)
	}
	return a.ID
}

func (s issuing) params(attendee uuid.UUID) certificates.GenerateParams {
	return certificates.GenerateParams{AccountID: s.account, EventID: s.event, AttendeeID: attendee, TemplateID: s.template}
}

func (s issuing) generate(t *testing.T, p certificates.GenerateParams) domain.Certificate {
	t.Helper()
	c, err := s.svc.Generate(t.Context(), p)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func (s issuing) used(t *testing.T) int {
	t.Helper()
	c, err := s.svc.Credits(t.Context(), s.account)
	if err != nil {
		t.Fatal(err)
	}
	return c.Used
}

// outbox counts the account's outbox events by type.
func (s issuing) outbox(t *testing.T) map[string]int {
	t.Helper()
	events, err := s.st.OutboxEvents(t.Context(), s.account)
	if err != nil {
		t.Fatal(err)
	}
	n := map[string]int{}
	for _, e := range events {
		n[e.EventType]++
	}
	return n
}

func (s issuing) emails(t *testing.T) int {
	t.Helper()
	_, n, err := s.svc.Deliveries(t.Context(), s.account, domain.EmailFilter{}, domain.Page{Number: 1, Size: 100})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// unchanged runs f and fails the test if it changed anything in the database.
func (s issuing) unchanged(t *testing.T, f func()) {
	t.Helper()
	before, err := s.st.Fingerprint(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	f()
	if after, err := s.st.Fingerprint(t.Context()); err != nil || after != before {
		t.Fatalf("the refusal changed the database (%v)", err)
	}
}

func wantCode(t *testing.T, err error, code apperr.Code) *apperr.Error {
	t.Helper()
	e, ok := apperr.As(err)
	if !ok || e.Code != code {
		t.Fatalf("got %v, want %s", err, code)
	}
	return e
}

func TestIssuingSpendsOneCreditAndRecordsTheEventAndTheEmail(t *testing.T) {
	t.Parallel()
	s := newIssuing(t)
	p := s.params(s.attendee(t, "Ada"))
	p.SendEmail = true
	c := s.generate(t, p)
	want := fmt.Sprintf("CERT-%d-000001", s.clock.Now().UTC().Year())
	if c.Status != "valid" || c.Number != want || len(c.VerificationCode) != 13 || c.FirstName != "Ada" || c.IssuedAt == nil {
		t.Fatalf("certificate: %+v", c)
	}
	if used := s.used(t); used != 1 {
		t.Fatalf("%d credits used, want 1", used)
	}
	if n := s.outbox(t); n["certificate.issued"] != 1 || len(n) != 1 {
		t.Fatalf("outbox: %v", n)
	}
	if n := s.emails(t); n != 1 {
		t.Fatalf("%d emails recorded, want 1", n)
	}
}

// An attendee who holds a valid certificate is refused another, naming the one they hold; the
// refusal costs nothing and writes nothing.
func TestAValidCertificateIsNotIssuedTwice(t *testing.T) {
	t.Parallel()
	s := newIssuing(t)
	p := s.params(s.attendee(t, "Ada"))
	first := s.generate(t, p)
	s.unchanged(t, func() {
		_, err := s.svc.Generate(t.Context(), p)
		e := wantCode(t, err, apperr.AlreadyIssued)
		if e.Existing == nil || e.Existing.ID != first.ID.String() || e.Existing.CertificateNumber != first.Number {
			t.Fatalf("existing: %+v", e.Existing)
		}
	})
}

// With no credit left, issuance is refused with the figures and writes nothing.
func TestNoCreditLeftRefusesIssuance(t *testing.T) {
	t.Parallel()
	s := newIssuing(t)
	for i := range 12 {
		s.generate(t, s.params(s.attendee(t, fmt.Sprintf("A%d", i))))
	}
	late := s.attendee(t, "Late")
	s.unchanged(t, func() {
		_, err := s.svc.Generate(t.Context(), s.params(late))
		e := wantCode(t, err, apperr.CreditLimit)
		if e.Credits == nil || *e.Credits.Limit != 12 || e.Credits.Used != 12 || *e.Credits.Remaining != 0 {
			t.Fatalf("credits: %+v", e.Credits)
		}
	})
}

// A drawn code that is taken already inserts nothing: another is drawn, and the certificate
// (or draft) is written once, with one number and, issued, one credit and one event.
func TestATakenCodeIsDrawnAgainAndChargedOnce(t *testing.T) {
	t.Parallel()
	s := newIssuing(t)
	first := s.generate(t, s.params(s.attendee(t, "Ada")))
	draws := 0
	certificates.SetCodeDrawer(s.svc, func() (string, error) {
		draws++
		if draws%2 == 1 {
			return first.VerificationCode, nil // taken
		}
		return issuance.DrawVerificationCode()
	})
	second := s.generate(t, s.params(s.attendee(t, "Grace")))
	p := s.params(s.attendee(t, "Edsger"))
	p.Draft = true
	draft := s.generate(t, p)
	if draws != 4 || second.VerificationCode == first.VerificationCode || draft.VerificationCode == first.VerificationCode ||
		second.VerificationCode == draft.VerificationCode {
		t.Fatalf("%d draws; codes %s, %s, %s", draws, first.VerificationCode, second.VerificationCode, draft.VerificationCode)
	}
	if !strings.HasSuffix(second.Number, "-000002") || !strings.HasSuffix(draft.Number, "-000003") {
		t.Fatalf("numbers %s, %s", second.Number, draft.Number)
	}
	if used, n := s.used(t), s.outbox(t); used != 2 || n["certificate.issued"] != 2 {
		t.Fatalf("used %d credits, events %v", used, n)
	}
}

// Every issued certificate has its verifiable credential's status entry, written by its
// issuing statement (or, for the account's first, when no list exists yet, the long way), each
// at its own index; a draft has none until it is issued.
func TestEveryIssuedCertificateHasItsStatusEntry(t *testing.T) {
	t.Parallel()
	s := newIssuing(t)
	seen := map[[2]int]bool{}
	for i := range 6 {
		c := s.generate(t, s.params(s.attendee(t, fmt.Sprintf("A%d", i))))
		v, err := s.st.FindVerifiableCredential(t.Context(), c.ID)
		if err != nil {
			t.Fatalf("certificate %d: %v", i, err)
		}
		if v.Kind != store.KindCertificate || v.AccountID != s.account || v.List != 1 || len(v.Salt) < 16 || seen[[2]int{v.List, v.Index}] {
			t.Fatalf("certificate %d: entry %+v (seen %v)", i, v, seen)
		}
		seen[[2]int{v.List, v.Index}] = true
	}
	p := s.params(s.attendee(t, "Draft"))
	p.Draft = true
	draft := s.generate(t, p)
	if _, err := s.st.FindVerifiableCredential(t.Context(), draft.ID); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("a draft's entry: %v", err)
	}
	p.Draft = false
	s.generate(t, p)
	if v, err := s.st.FindVerifiableCredential(t.Context(), draft.ID); err != nil || seen[[2]int{v.List, v.Index}] {
		t.Fatalf("the issued draft's entry %+v: %v", v, err)
	}
}

// A draft costs nothing and writes no event and no email; asked again, it is the same draft;
// issued, it becomes the certificate with its number and code.
func TestADraftBecomesTheCertificate(t *testing.T) {
	t.Parallel()
	s := newIssuing(t)
	p := s.params(s.attendee(t, "Ada"))
	p.SendEmail, p.Draft = true, true
	draft := s.generate(t, p)
	again := s.generate(t, p)
	if draft.Status != "draft" || draft.IssuedAt != nil || again.ID != draft.ID {
		t.Fatalf("draft %+v, again %+v", draft, again)
	}
	if used, n, emails := s.used(t), s.outbox(t), s.emails(t); used != 0 || len(n) != 0 || emails != 0 {
		t.Fatalf("a draft used %d credits, wrote events %v and %d emails", used, n, emails)
	}
	p.Draft = false
	c := s.generate(t, p)
	if c.ID != draft.ID || c.Number != draft.Number || c.VerificationCode != draft.VerificationCode || c.Status != "valid" || c.IssuedAt == nil {
		t.Fatalf("draft %+v became %+v", draft, c)
	}
	if used, n, emails := s.used(t), s.outbox(t), s.emails(t); used != 1 || n["certificate.issued"] != 1 || emails != 1 {
		t.Fatalf("issuing the draft used %d credits, wrote events %v and %d emails", used, n, emails)
	}
}

// lapsed issues a certificate to a new attendee that expires in an hour and moves the clock
// past that; it answers the certificate and the attendee's params for the next (no expiry).
func (s issuing) lapsed(t *testing.T, first string) (certificates.GenerateParams, domain.Certificate) {
	t.Helper()
	p := s.params(s.attendee(t, first))
	expires := s.clock.Now().Add(time.Hour)
	p.ExpiresAt = &expires
	old := s.generate(t, p)
	s.clock.Advance(2 * time.Hour)
	p.ExpiresAt = nil
	return p, old
}

// A certificate past its expiry does not block a new one, which costs a credit; the old one
// reads expired.
func TestAnExpiredCertificateDoesNotBlockANewOne(t *testing.T) {
	t.Parallel()
	s := newIssuing(t)
	p, old := s.lapsed(t, "Ada")
	renewed := s.generate(t, p)
	if renewed.ID == old.ID || renewed.Number == old.Number || renewed.Status != "valid" {
		t.Fatalf("old %+v, renewed %+v", old, renewed)
	}
	if got, err := s.svc.Get(t.Context(), s.account, old.ID); err != nil || got.Status != "expired" {
		t.Fatalf("the old certificate: %+v %v", got, err)
	}
	if used := s.used(t); used != 2 {
		t.Fatalf("%d credits used, want 2", used)
	}
}

// A lapsed certificate stays stored as issued until the next certificate of its key is issued:
// a draft asked for meanwhile leaves it so, and issuing that draft marks it expired. Whatever
// the order, it reads expired, and every list's total counts it where a page lists it.
func TestALapsedCertificateGivesWayToTheDraftIssuedAfterIt(t *testing.T) {
	t.Parallel()
	s := newIssuing(t)
	p, old := s.lapsed(t, "Ada")
	p.Draft = true
	draft := s.generate(t, p)
	if draft.ID == old.ID || draft.Status != domain.CertificateDraft {
		t.Fatalf("old %+v, draft %+v", old, draft)
	}
	if stored := s.storedStatus(t, old.ID); stored != "issued" {
		t.Fatalf("the lapsed certificate is stored %q once a draft of its key is made: a draft takes no credit row", stored)
	}
	s.countedAsListed(t)
	p.Draft = false
	issued := s.generate(t, p)
	if issued.ID != draft.ID || issued.Status != domain.CertificateValid {
		t.Fatalf("the draft %s was issued as %+v", draft.ID, issued)
	}
	if got, err := s.svc.Get(t.Context(), s.account, old.ID); err != nil || got.Status != domain.CertificateExpired {
		t.Fatalf("the old certificate: %+v %v", got, err)
	}
	if stored := s.storedStatus(t, old.ID); stored != "expired" {
		t.Fatalf("the lapsed certificate is stored %q once its key's next one is issued", stored)
	}
	s.countedAsListed(t)
	_, err := s.svc.Generate(t.Context(), p)
	wantCode(t, err, apperr.AlreadyIssued)
}

// storedStatus is a certificate's status as stored (what the list totals count), not as read.
func (s issuing) storedStatus(t *testing.T, id uuid.UUID) string {
	t.Helper()
	var stored string
	testkit.QueryRowAt(t, s.dbURL, `SELECT status FROM certificates WHERE id = $1`, []any{id}, &stored)
	return stored
}

// countedAsListed fails the test when a list's total of the account's certificates, by status
// and in all, differs from the rows its pages hold.
func (s issuing) countedAsListed(t *testing.T) {
	t.Helper()
	statuses := []*domain.CertificateStatus{nil}
	for _, st := range []domain.CertificateStatus{domain.CertificateValid, domain.CertificateExpired, domain.CertificateRevoked, domain.CertificateDraft} {
		statuses = append(statuses, &st)
	}
	for _, st := range statuses {
		f := domain.CertificateFilter{Status: st}
		page, total, err := s.svc.List(t.Context(), s.account, f, domain.Page{Number: 1, Size: 100})
		if err != nil || total != len(page) {
			t.Fatalf("status %v: a total of %d for %d listed (%v)", st, total, len(page), err)
		}
		if page, total, err = s.svc.ListOfEvent(t.Context(), s.account, s.event, f, domain.Page{Number: 1, Size: 100}); err != nil || total != len(page) {
			t.Fatalf("status %v, the event's: a total of %d for %d listed (%v)", st, total, len(page), err)
		}
	}
}

// A lapsed certificate is marked expired by the issuance that replaces it only once that
// issuance holds the account's credit row: the change of status moves the list totals, which
// every issuance takes after its credit row. Marked while the key was read, before the credit
// row, an issuance waiting for that row held totals rows, and two lanes of one account that
// re-issued lapsed certificates could each wait for the other until PostgreSQL broke the
// deadlock. Here the credit row is held while the re-issuance waits for it, and every totals
// row its change of status would move is free meanwhile.
func TestALapsedCertificateIsMarkedExpiredOnlyUnderTheCreditRow(t *testing.T) {
	t.Parallel()
	s := newIssuing(t)
	ctx := t.Context()
	// Mid-month, so that both issuances spend from the month's one credit row, the one held.
	now := s.clock.Now()
	midMonth := time.Date(now.Year(), now.Month(), 15, 12, 0, 0, 0, time.UTC)
	if midMonth.Before(now) {
		midMonth = midMonth.AddDate(0, 1, 0)
	}
	s.clock.Advance(midMonth.Sub(now))
	p, old := s.lapsed(t, "Ada")

	hold, err := connect(t, s.dbURL).Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = hold.Rollback(context.Background()) }) // released below, unless the test fails before
	if _, err := hold.Exec(ctx, `SELECT 1 FROM credit_usage WHERE account_id = $1 FOR UPDATE`, s.account); err != nil {
		t.Fatal(err)
	}
	var renewed domain.Certificate
	done := make(chan error, 1)
	go func() {
		var err error
		renewed, err = s.svc.Generate(ctx, p)
		done <- err
	}()
	probe := connect(t, s.dbURL)
	if err := waitForALockWait(ctx, probe, done); err != nil {
		t.Fatalf("the re-issuance did not wait for the credit row: %v", err)
	}
	// Every totals row the re-issuance's change of status moves, in each shard: written (an
	// upsert waits for a row another transaction wrote, or inserted, and has not committed).
	tx, err := probe.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	_, err = tx.Exec(ctx, `SET LOCAL lock_timeout = '1s'`)
	if err == nil {
		_, err = tx.Exec(ctx, `INSERT INTO list_totals AS t (account_id, list, event_id, status, shard, n)
			SELECT $1::uuid, 'certificates', e, st, sh, 0
			FROM unnest(ARRAY[$2::uuid, '00000000-0000-0000-0000-000000000000'::uuid]) e,
			     unnest(ARRAY['issued', 'expired']) st, generate_series(0, 7) sh
			ORDER BY 1, 2, 3, 4, 5
			ON CONFLICT (account_id, list, event_id, status, shard) DO UPDATE SET n = t.n`, s.account, s.event)
	}
	if rerr := tx.Rollback(ctx); rerr != nil && err == nil {
		err = rerr
	}
	if err != nil {
		t.Fatalf("a list total is held by the issuance that waits for the credit row: %v", err)
	}
	if err := hold.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil || renewed.ID == old.ID || renewed.Status != domain.CertificateValid {
		t.Fatalf("renewed %+v: %v", renewed, err)
	}
	if stored := s.storedStatus(t, old.ID); stored != "expired" {
		t.Fatalf("the lapsed certificate is stored %q once its key's next one is issued", stored)
	}
	s.countedAsListed(t)
}

// A transaction that prepares a draft and then issues a certificate (a group's calls one by
// one, each in a savepoint) takes the account's credit row before its number counter, as every
// issuance does. When a draft took the counter alone, that transaction held the counter while it
// waited for the credit row, which another issuance held as it waited for the counter, and
// PostgreSQL ended one of them after deadlock_timeout.
func TestADraftTakesTheCreditRowBeforeTheCounter(t *testing.T) {
	t.Parallel()
	s := newIssuing(t)
	ctx := t.Context()
	s.generate(t, s.params(s.attendee(t, "First"))) // the account's credit row and counter exist
	draft := s.params(s.attendee(t, "Ada"))
	draft.Draft = true
	later, other := s.params(s.attendee(t, "Grace")), s.params(s.attendee(t, "Linus"))
	probe := connect(t, s.dbURL)
	otherDone := make(chan error, 1)
	_, err := store.InTx(ctx, s.st, func(tx *store.Tx) (struct{}, error) {
		if _, err := s.svc.Issue(ctx, tx, draft); err != nil {
			return struct{}{}, err
		}
		go func() {
			// Its own transaction, which nothing runs again: a deadlock would be its error.
			_, err := store.InTx(ctx, s.st, func(tx *store.Tx) (domain.Certificate, error) { return s.svc.Issue(ctx, tx, other) })
			otherDone <- err
		}()
		if err := waitForALockWait(ctx, probe, otherDone); err != nil {
			return struct{}{}, err
		}
		_, err := s.svc.Issue(ctx, tx, later)
		return struct{}{}, err
	})
	if err != nil {
		t.Fatalf("the transaction of the draft and the certificate: %v", err)
	}
	if err := <-otherDone; err != nil {
		t.Fatalf("the other issuance: %v", err)
	}
	if used := s.used(t); used != 3 {
		t.Fatalf("%d credits used, want 3 (a draft spends none)", used)
	}
}

// waitForALockWait returns once a session of the test's database waits for a lock, or with
// the error of done (what was to wait) if it ended first; an error after 10 s.
func waitForALockWait(ctx context.Context, probe *pgx.Conn, done chan error) error {
	deadline := time.Now().Add(10 * time.Second)
	for {
		var waiting int
		if err := probe.QueryRow(ctx, `SELECT count(*) FROM pg_locks l JOIN pg_stat_activity a USING (pid)
			WHERE NOT l.granted AND a.datname = current_database()`).Scan(&waiting); err != nil {
			return err
		}
		if waiting > 0 {
			return nil
		}
		select {
		case err := <-done:
			done <- err
			return fmt.Errorf("ended without waiting for a lock: %v", err)
		case <-time.After(10 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			return errors.New("no session waited for a lock within 10 s")
		}
	}
}

// connect opens a connection of the test's own to dbURL, closed when the test ends.
func connect(t *testing.T, dbURL string) *pgx.Conn {
	t.Helper()
	c, err := pgx.Connect(t.Context(), dbURL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close(context.Background()) })
	return c
}

// Revoking twice changes nothing the second time (one event); a revoked certificate does not
// block a new one; a draft cannot be revoked.
func TestRevokingIsIdempotentAndDoesNotBlockReissue(t *testing.T) {
	t.Parallel()
	s := newIssuing(t)
	p := s.params(s.attendee(t, "Ada"))
	c := s.generate(t, p)
	reason := "issued in error"
	first, err := s.svc.Revoke(t.Context(), s.account, c.ID, &reason, "issued_in_error")
	if err != nil || first.Status != "revoked" || first.RevokedAt == nil || *first.RevocationReasonCode != "issued_in_error" {
		t.Fatalf("revoke: %+v %v", first, err)
	}
	s.clock.Advance(time.Minute)
	again, err := s.svc.Revoke(t.Context(), s.account, c.ID, nil, "")
	if err != nil || !again.RevokedAt.Equal(*first.RevokedAt) || *again.RevocationReason != reason {
		t.Fatalf("revoked again: %+v %v", again, err)
	}
	if n := s.outbox(t); n["certificate.revoked"] != 1 {
		t.Fatalf("outbox: %v", n)
	}
	reissued := s.generate(t, p)
	if reissued.ID == c.ID || reissued.Status != "valid" {
		t.Fatalf("reissued: %+v", reissued)
	}
	draftOf := s.params(s.attendee(t, "Grace"))
	draftOf.Draft = true
	draft := s.generate(t, draftOf)
	_, err = s.svc.Revoke(t.Context(), s.account, draft.ID, nil, "")
	wantCode(t, err, apperr.Conflict)
	_, err = s.svc.Revoke(t.Context(), s.account, uuid.New(), nil, "")
	wantCode(t, err, apperr.NotFound)
}

// Deleting a draft removes it; deleting an issued certificate revokes it and keeps it.
func TestDeletingRemovesADraftAndRevokesACertificate(t *testing.T) {
	t.Parallel()
	s := newIssuing(t)
	p := s.params(s.attendee(t, "Ada"))
	p.Draft = true
	draft := s.generate(t, p)
	if err := s.svc.Delete(t.Context(), s.account, draft.ID); err != nil {
		t.Fatal(err)
	}
	_, err := s.svc.Get(t.Context(), s.account, draft.ID)
	wantCode(t, err, apperr.NotFound)
	p.Draft = false
	c := s.generate(t, p)
	if err := s.svc.Delete(t.Context(), s.account, c.ID); err != nil {
		t.Fatal(err)
	}
	got, err := s.svc.Get(t.Context(), s.account, c.ID)
	if err != nil || got.Status != "revoked" || *got.RevocationReasonCode != "deleted_by_issuer" {
		t.Fatalf("deleted certificate: %+v %v", got, err)
	}
}

// Regenerating rebuilds the snapshot from the attendee's current data; the certificate keeps
// its number and code, and no credit is used.
func TestRegenerateKeepsNumberAndCodeAndCostsNothing(t *testing.T) {
	t.Parallel()
	s := newIssuing(t)
	ada := s.attendee(t, "Ada")
	c := s.generate(t, s.params(ada))
	renamed := "Augusta Ada"
	if _, err := s.st.UpdateAttendee(t.Context(), s.account, ada, domain.AttendeeChanges{FirstName: &renamed}, s.clock.Now()); err != nil {
		t.Fatal(err)
	}
	r, err := s.svc.Regenerate(t.Context(), s.account, c.ID)
	if err != nil {
		t.Fatal(err)
	}
	var snap certificates.Snapshot
	if err := json.Unmarshal(r.Snapshot, &snap); err != nil {
		t.Fatal(err)
	}
	if r.ID != c.ID || r.Number != c.Number || r.VerificationCode != c.VerificationCode || r.FirstName != renamed ||
		snap.Recipient.FirstName != renamed || r.Status != "valid" {
		t.Fatalf("regenerated %+v (snapshot %+v) from %+v", r, snap.Recipient, c)
	}
	if used := s.used(t); used != 1 {
		t.Fatalf("%d credits used, want 1", used)
	}
	if _, err := s.svc.Revoke(t.Context(), s.account, c.ID, nil, ""); err != nil {
		t.Fatal(err)
	}
	_, err = s.svc.Regenerate(t.Context(), s.account, c.ID)
	wantCode(t, err, apperr.Conflict)
}

// Concurrent issuances for one attendee give one certificate and spend one credit; concurrent
// issuances for more attendees than credits spend exactly the credits.
func TestConcurrentIssuanceKeepsOneCertificatePerAttendeeAndTheCreditLimit(t *testing.T) {
	t.Parallel()
	s := newIssuing(t)
	p := s.params(s.attendee(t, "Ada"))
	codes := testkit.Race(10, func(int) int {
		_, err := s.svc.Generate(t.Context(), p)
		return httperr.Status(apperr.CodeOf(err)) * boolInt(err != nil)
	})
	if codes[0] != 1 || codes[409] != 9 {
		t.Fatalf("one attendee, 10 at once: %v (0 is success)", codes)
	}
	var many []uuid.UUID
	for i := range 20 {
		many = append(many, s.attendee(t, fmt.Sprintf("B%d", i)))
	}
	codes = testkit.Race(len(many), func(i int) int {
		_, err := s.svc.Generate(t.Context(), s.params(many[i]))
		return httperr.Status(apperr.CodeOf(err)) * boolInt(err != nil)
	})
	if codes[0] != 11 || codes[402] != 9 || s.used(t) != 12 {
		t.Fatalf("20 attendees, 11 credits left: %v, %d used", codes, s.used(t))
	}
}

// Concurrent issuances of one account share transactions (one commit for several), and each
// answer is what committed: every certificate answered is there with a number of its own, every
// refusal spent nothing, and an attendee unknown or already served fails alone.
func TestConcurrentIssuancesOfOneAccountShareCommits(t *testing.T) {
	t.Parallel()
	s := newIssuing(t)
	var mu sync.Mutex
	most := 0
	s.svc.ObserveGroups(func(n int, _ bool) { mu.Lock(); most = max(most, n); mu.Unlock() })
	served := s.attendee(t, "Served")
	s.generate(t, s.params(served))
	params := []certificates.GenerateParams{s.params(served), s.params(uuid.New())}
	for i := range 20 {
		params = append(params, s.params(s.attendee(t, fmt.Sprintf("C%d", i))))
	}
	var issuedMu sync.Mutex
	var issued []domain.Certificate
	codes := testkit.Race(len(params), func(i int) int {
		c, err := s.svc.Generate(t.Context(), params[i])
		if err != nil {
			return httperr.Status(apperr.CodeOf(err))
		}
		issuedMu.Lock()
		issued = append(issued, c)
		issuedMu.Unlock()
		return 0
	})
	if codes[0] != 11 || codes[402] != 9 || codes[409] != 1 || codes[404] != 1 || s.used(t) != 12 {
		t.Fatalf("outcomes %v, %d credits used (the free plan's 12)", codes, s.used(t))
	}
	numbers := map[string]bool{}
	for _, c := range issued {
		got, err := s.svc.Get(t.Context(), s.account, c.ID)
		if err != nil || got.Number != c.Number || numbers[c.Number] {
			t.Fatalf("answered %s (%s), found %+v, %v", c.ID, c.Number, got, err)
		}
		numbers[c.Number] = true
	}
	if s.outbox(t)["certificate.issued"] != 12 {
		t.Fatalf("events %v", s.outbox(t))
	}
	mu.Lock()
	defer mu.Unlock()
	if most < 2 {
		t.Fatalf("no transaction held more than %d issuance", most)
	}
}

// Concurrent plain issuances of one account (new certificates, a draft turned issued, emails
// asked for) are issued together, their reads in one round trip and their writes in one
// plan applied in one round trip, and each is what it would have been alone: a number of its own, its status entry,
// its event, its email.
func TestConcurrentPlainIssuancesAreIssuedTogether(t *testing.T) {
	t.Parallel()
	s := newIssuing(t)
	testkit.SQLAt(t, s.dbURL, `UPDATE accounts SET plan = 'unlimited' WHERE id = $1`, s.account)
	var mu sync.Mutex
	together := 0
	s.svc.ObserveGroups(func(n int, all bool) {
		mu.Lock()
		defer mu.Unlock()
		if n > 1 && all {
			together += n
		}
	})
	params := make([]certificates.GenerateParams, 24)
	for i := range params {
		params[i] = s.params(s.attendee(t, fmt.Sprintf("T%d", i)))
		params[i].SendEmail = i%2 == 0
	}
	draft := params[3]
	draft.Draft = true
	d := s.generate(t, draft)
	var issuedMu sync.Mutex
	issued := map[uuid.UUID]domain.Certificate{}
	codes := testkit.Race(len(params), func(i int) int {
		c, err := s.svc.Generate(t.Context(), params[i])
		if err != nil {
			t.Errorf("issuance %d: %v", i, err)
			return 1
		}
		issuedMu.Lock()
		issued[c.AttendeeID] = c
		issuedMu.Unlock()
		return 0
	})
	if codes[0] != len(params) {
		t.Fatalf("outcomes %v", codes)
	}
	numbers, entries := map[string]bool{}, map[[2]int]bool{}
	for _, p := range params {
		c := issued[p.AttendeeID]
		v, err := s.st.FindVerifiableCredential(t.Context(), c.ID)
		if err != nil || c.Status != domain.CertificateValid || numbers[c.Number] || entries[[2]int{v.List, v.Index}] {
			t.Fatalf("certificate %+v, entry %+v: %v", c, v, err)
		}
		numbers[c.Number], entries[[2]int{v.List, v.Index}] = true, true
	}
	if c := issued[draft.AttendeeID]; c.ID != d.ID || c.Number != d.Number {
		t.Fatalf("the draft %s (%s) was issued as %s (%s)", d.ID, d.Number, c.ID, c.Number)
	}
	if s.outbox(t)["certificate.issued"] != len(params) || s.emails(t) != len(params)/2 {
		t.Fatalf("events %v, %d emails", s.outbox(t), s.emails(t))
	}
	mu.Lock()
	defer mu.Unlock()
	if together == 0 {
		t.Fatal("no issuances were issued together")
	}
}

// IssueAll takes no two issuances for one attendee (a draft and a certificate of one key would
// both be written): it refuses them, and the group issues them one by one.
func TestIssueAllRefusesTwoForOneAttendee(t *testing.T) {
	t.Parallel()
	s := newIssuing(t)
	a := s.params(s.attendee(t, "Ada"))
	d := a
	d.Draft = true
	_, err := store.InTx(t.Context(), s.st, func(tx *store.Tx) ([]domain.Certificate, error) {
		return s.svc.IssueAll(t.Context(), tx, []certificates.GenerateParams{d, a})
	})
	if err == nil {
		t.Fatal("a draft and a certificate for one attendee were issued together")
	}
	// One by one (as the group then goes), the draft is issued by the second.
	first, second := s.generate(t, d), s.generate(t, a)
	if first.ID != second.ID || second.Status != domain.CertificateValid {
		t.Fatalf("the draft %s, then %s (%s)", first.ID, second.ID, second.Status)
	}
	var n int
	testkit.QueryRowAt(t, s.dbURL, `SELECT count(*)::integer FROM certificates WHERE attendee_id = $1`, []any{a.AttendeeID}, &n)
	if n != 1 {
		t.Fatalf("%d certificates for one attendee", n)
	}
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// The insert takes the account's next number itself: six digits, and more once the count
// passes 999,999; the year is the year of issue.
func TestCertificateNumbersCountOnPastSixDigits(t *testing.T) {
	t.Parallel()
	s := newIssuing(t)
	year := s.clock.Now().UTC().Year()
	if c := s.generate(t, s.params(s.attendee(t, "Ada"))); c.Number != fmt.Sprintf("CERT-%d-000001", year) {
		t.Fatalf("first number %q", c.Number)
	}
	var n int64
	testkit.QueryRowAt(t, s.dbURL, `UPDATE certificate_counters SET last_number = 999999 WHERE account_id = $1 RETURNING last_number`,
		[]any{s.account}, &n)
	if c := s.generate(t, s.params(s.attendee(t, "Grace"))); c.Number != fmt.Sprintf("CERT-%d-1000000", year) {
		t.Fatalf("number after 999,999: %q", c.Number)
	}
}

// A transaction that issues for several attendees (a job's batch) locks them all first: a
// single issuance for one of them, started after the batch's first issuance took the
// account's hot rows, waits for the batch and then finds the certificate, where the batch had
// waited for the attendee while holding the rows the single issuance waited for (PostgreSQL
// then aborted one of them: a 500).
func TestABatchLocksItsAttendeesBeforeTheHotRows(t *testing.T) {
	t.Parallel()
	s := newIssuing(t)
	a1, a2 := s.attendee(t, "Ada"), s.attendee(t, "Grace")
	single := make(chan error, 1)
	_, err := store.InTx(t.Context(), s.st, func(tx *store.Tx) (struct{}, error) {
		if err := tx.LockAttendees(t.Context(), s.account, []uuid.UUID{a1, a2}); err != nil {
			return struct{}{}, err
		}
		if _, err := s.svc.Issue(t.Context(), tx, s.params(a1)); err != nil {
			return struct{}{}, err
		}
		go func() {
			_, err := s.svc.Generate(t.Context(), s.params(a2))
			single <- err
		}()
		time.Sleep(200 * time.Millisecond) // the single issuance is waiting for a2 now
		_, err := s.svc.Issue(t.Context(), tx, s.params(a2))
		return struct{}{}, err
	})
	if err != nil {
		t.Fatalf("the batch: %v", err)
	}
	wantCode(t, <-single, apperr.AlreadyIssued)
}

// codes counts the registered verification codes (the test's database is its own).
func (s issuing) codes(t *testing.T) int {
	t.Helper()
	var n int
	testkit.QueryRowAt(t, s.dbURL, `SELECT count(*)::integer FROM verification_codes`, nil, &n)
	return n
}

// Generate's round trips, BEGIN and COMMIT (or ROLLBACK) counted, warmed up and on the common
// path (the status entry's first candidate free): a new certificate's code is reserved in the
// round trip that locks the attendee, reads its source and its current certificates, so it
// takes 4 (BEGIN, that round trip, the plan applied, COMMIT; River's insert of the webhook
// fan-out job when a subscription takes the event is one more; 5 before the source's read joined the current
// certificates'). A code is reserved only where a new certificate (or draft) takes it: a draft
// turned issued keeps its own, an existing draft is answered as it is and ALREADY_ISSUED writes
// nothing.
func TestGenerateRoundTripsAndCodes(t *testing.T) {
	t.Parallel()
	s := newIssuing(t)
	testkit.SQLAt(t, s.dbURL, `UPDATE accounts SET plan = 'unlimited' WHERE id = $1`, s.account)
	st, rt := testkit.CountingStore(t, s.dbURL)
	svc := certificates.New(st, "https://certs.example.org", s.clock.Now)
	draft := func(p certificates.GenerateParams) certificates.GenerateParams { p.Draft = true; return p }
	cases := []struct {
		name string
		// arrange answers the params of the call measured, after whatever it needs before.
		arrange func(t *testing.T) certificates.GenerateParams
		refused apperr.Code
		trips   int64
		codes   int
	}{
		{"a new certificate", func(t *testing.T) certificates.GenerateParams { return s.params(s.attendee(t, "Ada")) }, "", 4, 1},
		{"a new draft", func(t *testing.T) certificates.GenerateParams { return draft(s.params(s.attendee(t, "Ada"))) }, "", 4, 1},
		{"a draft turned issued", func(t *testing.T) certificates.GenerateParams {
			p := s.params(s.attendee(t, "Ada"))
			s.generate(t, draft(p))
			return p
		}, "", 4, 0},
		{"an existing draft, answered as it is", func(t *testing.T) certificates.GenerateParams {
			p := draft(s.params(s.attendee(t, "Ada")))
			s.generate(t, p)
			return p
		}, "", 3, 0},
		{"a valid certificate held: ALREADY_ISSUED", func(t *testing.T) certificates.GenerateParams {
			p := s.params(s.attendee(t, "Ada"))
			s.generate(t, p)
			return p
		}, apperr.AlreadyIssued, 3, 0},
	}
	// The account's first status entry is drawn the long way (its first list): issue it first.
	s.generate(t, s.params(s.attendee(t, "First")))
	for _, c := range cases {
		least := int64(1 << 30)
		for i := range 4 { // the first call prepares the statements; pgxpool may ping before a call
			p := c.arrange(t)
			codes := s.codes(t)
			n := rt.Count()
			_, err := svc.Generate(t.Context(), p)
			if i > 0 {
				least = min(least, rt.Count()-n)
			}
			if c.refused != "" {
				wantCode(t, err, c.refused)
			} else if err != nil {
				t.Fatalf("%s: %v", c.name, err)
			}
			if got := s.codes(t) - codes; got != c.codes {
				t.Fatalf("%s: %d codes reserved, want %d", c.name, got, c.codes)
			}
		}
		if least != c.trips {
			t.Errorf("%s: %d round trips, want %d", c.name, least, c.trips)
		}
	}
}

// An event deleted while a certificate is issued to one of its attendees: the issuance holds
// the attendee, so the deletion (which counted no certificate yet) waits for it, and the
// attendee's key then refuses the deletion: 409, the event, its attendee and the certificate
// stay. Since migration 00044 the certificate holds its event through its attendee alone.
func TestAnEventDeletedWhileACertificateIsIssuedStays(t *testing.T) {
	t.Parallel()
	s := newIssuing(t)
	ctx := t.Context()
	p := s.params(s.attendee(t, "Ada"))
	probe := connect(t, s.dbURL)
	evs := events.New(s.st, s.clock.Now)
	deleted := make(chan error, 1)
	_, err := store.InTx(ctx, s.st, func(tx *store.Tx) (struct{}, error) {
		if _, err := s.svc.Issue(ctx, tx, p); err != nil {
			return struct{}{}, err
		}
		go func() { deleted <- evs.Delete(ctx, s.account, s.event) }()
		return struct{}{}, waitForALockWait(ctx, probe, deleted)
	})
	require.NoError(t, err)
	err = <-deleted
	var refused *apperr.Error
	require.ErrorAs(t, err, &refused, "the deletion: %v", err)
	require.Equal(t, apperr.Conflict, refused.Code)
	require.Contains(t, refused.Message, "meanwhile")
	_, err = evs.Get(ctx, s.account, s.event)
	require.NoError(t, err, "the event stays")
	require.Equal(t, 1, s.used(t), "the certificate stays")
}
