package bulk_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/google/uuid"
	"github.com/riverqueue/river/rivertype"
	"github.com/stretchr/testify/require"

	"github.com/certhub/credentiald/internal/accounts"
	"github.com/certhub/credentiald/internal/apperr"
	"github.com/certhub/credentiald/internal/bulk"
	"github.com/certhub/credentiald/internal/certificates"
	"github.com/certhub/credentiald/internal/domain"
	"github.com/certhub/credentiald/internal/issuance"
	"github.com/certhub/credentiald/internal/store"
	"github.com/certhub/credentiald/internal/testkit"
)

func TestMain(m *testing.M) { testkit.Main(m) }

// world is the bulk service over a fresh database with an account on the free plan (12
// credits a month), its template and an event, on a stopped clock.
type world struct {
	testkit.World
	certs *certificates.Service
	svc   *bulk.Service
}

func newWorld(t *testing.T) world {
	t.Helper()
	w := world{World: testkit.NewWorld(t)}
	w.certs = certificates.New(w.Store, "https://certs.example.org", w.Clock.Now)
	return w.using(t, w.certs)
}

// using is w with a bulk service that issues through issuer.
func (w world) using(t *testing.T, issuer bulk.Issuer) world {
	t.Helper()
	svc, err := bulk.New(w.Store, issuer, slog.New(slog.NewTextHandler(io.Discard, nil)), bulk.Timing{})
	require.NoError(t, err, "bulk.New")
	w.svc = svc
	return w
}

// attendees adds n attendees to the world's event and returns their ids, oldest first.
func (w world) attendees(t *testing.T, n int) []uuid.UUID {
	t.Helper()
	ids := make([]uuid.UUID, n)
	for i := range n {
		a, err := w.Store.CreateAttendee(t.Context(), w.Account, w.Event, domain.AttendeeFields{FirstName: "Ada", LastName: fmt.Sprint(i),
			Email: fmt.Sprintf("ada%d-%s@example.org", i, uuid.NewString()[:8])}, w.Clock.Now())
		require.NoError(t, err, "creating attendee %d", i)
		ids[i] = a.ID
	}
	return ids
}

// issue issues a certificate to an attendee alone, as POST /certificates/generate does.
func (w world) issue(t *testing.T, attendee uuid.UUID) domain.Certificate {
	t.Helper()
	c, err := w.certs.Generate(t.Context(), certificates.GenerateParams{AccountID: w.Account, EventID: w.Event, AttendeeID: attendee,
		TemplateID: w.Template})
	require.NoError(t, err, "issuing to %s alone", attendee)
	return c
}

// spend sets the credits the account used this month.
func (w world) spend(t *testing.T, used int) {
	t.Helper()
	testkit.SQLAt(t, w.DBURL, `INSERT INTO credit_usage (account_id, period, used) VALUES ($1, $2, $3)
		ON CONFLICT (account_id, period) DO UPDATE SET used = EXCLUDED.used`, w.Account, issuance.CreditPeriod(w.Clock.Now()), used)
}

func (w world) used(t *testing.T) int {
	t.Helper()
	c, err := issuance.CreditsOf(t.Context(), w.Store, w.Account, w.Clock.Now())
	require.NoError(t, err, "reading the credits")
	return c.Used
}

func (w world) request(ids []uuid.UUID) bulk.Request {
	return bulk.Request{AccountID: w.Account, EventID: w.Event, AttendeeIDs: ids}
}

// unchanged runs f and fails the test if f changed anything in the database.
func (w world) unchanged(t *testing.T, f func()) {
	t.Helper()
	before, err := w.Store.Fingerprint(t.Context())
	require.NoError(t, err, "fingerprint before")
	f()
	after, err := w.Store.Fingerprint(t.Context())
	require.NoError(t, err, "fingerprint after")
	require.Equal(t, before, after, "the refusal changed the database")
}

// requireCode fails unless err is an application error with code, and returns it.
func requireCode(t *testing.T, err error, code apperr.Code) *apperr.Error {
	t.Helper()
	e, ok := apperr.As(err)
	require.True(t, ok, "want an application error %s, got %v", code, err)
	require.Equal(t, code, e.Code, "error code of %q", e.Message)
	return e
}

func existing(c domain.Certificate) apperr.Existing {
	return apperr.Existing{ID: c.ID.String(), CertificateNumber: c.Number, VerificationCode: c.VerificationCode}
}

// counting issues through the certificates service and counts the calls of each path, and
// the size of each call of IssueAll.
type counting struct {
	*certificates.Service
	generate, issue, issueAll atomic.Int32
	mu                        sync.Mutex
	together                  []int
}

func (c *counting) Generate(ctx context.Context, p certificates.GenerateParams) (domain.Certificate, error) {
	c.generate.Add(1)
	return c.Service.Generate(ctx, p)
}

func (c *counting) Issue(ctx context.Context, tx *store.Tx, p certificates.GenerateParams) (domain.Certificate, error) {
	c.issue.Add(1)
	return c.Service.Issue(ctx, tx, p)
}

func (c *counting) IssueAll(ctx context.Context, tx *store.Tx, ps []certificates.GenerateParams) ([]domain.Certificate, error) {
	c.issueAll.Add(1)
	c.mu.Lock()
	c.together = append(c.together, len(ps))
	c.mu.Unlock()
	return c.Service.IssueAll(ctx, tx, ps)
}

// issuedTo is the attendees of certificates, in order.
func issuedTo(cs []domain.Certificate) []uuid.UUID {
	out := make([]uuid.UUID, len(cs))
	for i, c := range cs {
		out[i] = c.AttendeeID
	}
	return out
}

// Attendees who can all be issued are issued together (one IssueAll, no single issuance), in
// the order named, one credit each.
func TestGenerateIssuesPlainIssuancesTogether(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	spy := &counting{Service: w.certs}
	w = w.using(t, spy)
	ids := w.attendees(t, 3)
	named := []uuid.UUID{ids[2], ids[0], ids[1]}
	res, err := w.svc.Generate(t.Context(), w.request(named))
	require.NoError(t, err, "bulk issuance")
	require.Empty(t, cmp.Diff(named, issuedTo(res.Issued)), "attendees issued (-want +got)")
	require.Empty(t, cmp.Diff(bulk.Result{Issued: res.Issued, Skipped: []bulk.Skipped{}, Failed: []bulk.Failed{}}, res),
		"skipped and failed are empty lists, not nil (-want +got)")
	require.Equal(t, int32(1), spy.issueAll.Load(), "issuances together")
	require.Equal(t, int32(0), spy.generate.Load(), "issuances one by one")
	require.Equal(t, 3, w.used(t), "credits used")
}

// When one attendee of the request would not be a plain issuance, nothing is issued together:
// each goes alone with an outcome of its own, in the order named.
func TestGenerateGoesOneByOneWhenOneIsNotAPlainIssuance(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	spy := &counting{Service: w.certs}
	w = w.using(t, spy)
	ids := w.attendees(t, 5)
	held := w.issue(t, ids[1])
	w.spend(t, 10) // two credits left for three attendees without a certificate
	unknown := uuid.New()
	res, err := w.svc.Generate(t.Context(), w.request(append(ids, unknown)))
	require.NoError(t, err, "bulk issuance")
	want := bulk.Result{
		Issued:  []domain.Certificate{{AttendeeID: ids[0]}, {AttendeeID: ids[2]}},
		Skipped: []bulk.Skipped{{AttendeeID: ids[1], Existing: existing(held)}},
		Failed: []bulk.Failed{{AttendeeID: ids[3], Code: string(apperr.CreditLimit)}, {AttendeeID: ids[4], Code: string(apperr.CreditLimit)},
			{AttendeeID: unknown, Code: string(apperr.NotFound)}},
	}
	got := res
	got.Issued = make([]domain.Certificate, len(res.Issued))
	for i, c := range res.Issued {
		got.Issued[i] = domain.Certificate{AttendeeID: c.AttendeeID}
	}
	require.Empty(t, cmp.Diff(want, got, cmpopts.IgnoreFields(bulk.Failed{}, "Message")), "outcomes (-want +got)")
	require.Equal(t, int32(len(ids)+1), spy.generate.Load(), "issuances one by one")
	require.Equal(t, 12, w.used(t), "credits used")
}

// Without names the request takes the event's attendees who hold no valid certificate of the
// template, at most MaxSync of them: more are refused, naming attendeeIds, before anything
// is written.
func TestGenerateWithoutNamesTakesThoseWithoutACertificate(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	ids := w.attendees(t, 3)
	w.issue(t, ids[0])
	res, err := w.svc.Generate(t.Context(), w.request(nil))
	require.NoError(t, err, "bulk issuance without names")
	require.Empty(t, cmp.Diff(ids[1:], issuedTo(res.Issued)), "attendees issued (-want +got)")
	require.Empty(t, res.Skipped, "attendees skipped")

	w.attendees(t, bulk.MaxSync+1)
	w.unchanged(t, func() {
		_, err := w.svc.Generate(t.Context(), w.request(nil))
		e := requireCode(t, err, apperr.ValidationError)
		require.Empty(t, cmp.Diff([]apperr.Detail{{Field: "attendeeIds",
			Message: "101 attendees hold no valid certificate; name at most 100, or start a job"}}, e.Details), "details (-want +got)")
	})
}

// failing answers err for every issuance.
type failing struct {
	*certificates.Service
	err error
}

func (f failing) Generate(context.Context, certificates.GenerateParams) (domain.Certificate, error) {
	return domain.Certificate{}, f.err
}

func (f failing) Issue(context.Context, *store.Tx, certificates.GenerateParams) (domain.Certificate, error) {
	return domain.Certificate{}, f.err
}

func (f failing) IssueAll(context.Context, *store.Tx, []certificates.GenerateParams) ([]domain.Certificate, error) {
	return nil, f.err
}

// An expected refusal is the attendee's outcome; anything else (an internal error, a plain
// one) is the request's failure.
func TestGenerateAnswersAnUnexpectedErrorInsteadOfAnOutcome(t *testing.T) {
	t.Parallel()
	gone := errors.New("connection reset")
	for _, tc := range []struct {
		name       string
		err        error
		wantFailed bool // the error is the attendee's outcome, not the request's
	}{
		{name: "a plain error", err: gone},
		{name: "an internal application error", err: &apperr.Error{Code: apperr.Internal, Message: "internal error", Cause: gone}},
		{name: "a refusal", err: apperr.New(apperr.Conflict, "The attendee was removed."), wantFailed: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			w := newWorld(t)
			w = w.using(t, failing{Service: w.certs, err: tc.err})
			ids := w.attendees(t, 2)
			res, err := w.svc.Generate(t.Context(), w.request(ids))
			if !tc.wantFailed {
				require.ErrorIs(t, err, tc.err, "the request's error")
				return
			}
			require.NoError(t, err, "the request's error")
			require.Empty(t, cmp.Diff([]bulk.Failed{{AttendeeID: ids[0], Code: "CONFLICT", Message: "The attendee was removed."},
				{AttendeeID: ids[1], Code: "CONFLICT", Message: "The attendee was removed."}}, res.Failed), "failed (-want +got)")
		})
	}
}

// The request's event must be the account's, and a template it names one the account may use;
// a system template may be named.
func TestTheEventAndTemplateOfARequest(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	ids := w.attendees(t, 1)

	r := w.request(ids)
	r.EventID = uuid.New()
	_, err := w.svc.Generate(t.Context(), r)
	e := requireCode(t, err, apperr.NotFound)
	require.Equal(t, "No such event.", e.Message, "synchronous: message")
	_, err = w.svc.CreateJob(t.Context(), r)
	e = requireCode(t, err, apperr.NotFound)
	require.Equal(t, "No such event.", e.Message, "job: message")

	r = w.request(ids)
	unknown := uuid.New()
	r.TemplateID = &unknown
	w.unchanged(t, func() {
		_, err = w.svc.Generate(t.Context(), r)
		e = requireCode(t, err, apperr.NotFound)
		require.Equal(t, "templateId", e.Details[0].Field, "synchronous: detail")
		_, err = w.svc.CreateJob(t.Context(), r)
		e = requireCode(t, err, apperr.NotFound)
		require.Equal(t, "templateId", e.Details[0].Field, "job: detail")
	})

	var system uuid.UUID
	testkit.QueryRowAt(t, w.DBURL, `SELECT id FROM templates WHERE account_id IS NULL ORDER BY name LIMIT 1`, nil, &system)
	r.TemplateID = &system
	res, err := w.svc.Generate(t.Context(), r)
	require.NoError(t, err, "issuing with a system template")
	require.Len(t, res.Issued, 1, "certificates issued with a system template")
	require.Equal(t, system, res.Issued[0].TemplateID, "template of the certificate")
}

// riverJobs counts the River jobs that carry the bulk job id, of the bulk kind in its queue.
func riverJobs(t *testing.T, w world, id uuid.UUID) int {
	t.Helper()
	var n int
	testkit.QueryRowAt(t, w.DBURL, `SELECT count(*) FROM river_job WHERE kind = $1 AND queue = $2 AND args->>'jobId' = $3`,
		[]any{bulk.JobArgs{}.Kind(), bulk.JobArgs{}.InsertOpts().Queue, id.String()}, &n)
	return n
}

// A job is refused with CREDIT_LIMIT, before anything is written, when the attendees it would
// issue outnumber the credits left; attendees who hold a valid certificate and ids of no
// attendee of the event are not counted, drafts need no credit, and a partial job, or one of
// an unlimited plan, is never refused.
func TestAJobBeyondTheCreditsLeftIsRefused(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name      string
		used      int // credits used this month when the job is asked for
		attendees int // of the event, all named
		holders   int // of them, those who hold a valid certificate
		unknown   int // ids named that are no attendee's
		plan      string
		draft     bool
		partial   bool
		refused   string // the refusal's message up to the renewal date; "" when accepted
	}{
		{name: "thirteen for twelve", attendees: 13, refused: "This job would issue 13 certificates, but 12 credits are left this month (the free plan has 12;"},
		{name: "two for one", used: 11, attendees: 2, refused: "This job would issue 2 certificates, but 1 credit is left this month (the free plan has 12;"},
		{name: "one for none", used: 12, attendees: 1, refused: "This job would issue 1 certificate, but 0 credits are left this month (the free plan has 12;"},
		{name: "exactly enough", used: 10, attendees: 2},
		{name: "holders and unknown ids are not counted", used: 10, attendees: 3, holders: 1, unknown: 1},
		{name: "a partial job", used: 12, attendees: 2, partial: true},
		{name: "drafts", used: 12, attendees: 2, draft: true},
		{name: "an unlimited plan", used: 500, attendees: 2, plan: "unlimited"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			w := newWorld(t)
			if tc.plan != "" {
				_, err := accounts.New(w.Store, w.Clock.Now).SetPlan(t.Context(), w.Account, tc.plan)
				require.NoError(t, err, "setting the plan")
			}
			ids := w.attendees(t, tc.attendees)
			for _, a := range ids[:tc.holders] {
				w.issue(t, a)
			}
			for range tc.unknown {
				ids = append(ids, uuid.New())
			}
			w.spend(t, tc.used)
			r := w.request(ids)
			r.Draft, r.AllowPartial = tc.draft, tc.partial
			if tc.refused == "" {
				j, err := w.svc.CreateJob(t.Context(), r)
				require.NoError(t, err, "creating the job")
				require.Equal(t, domain.BulkJobQueued, j.Status, "status of the new job")
				require.Equal(t, len(ids), j.Total, "attendees of the job")
				require.Equal(t, 1, riverJobs(t, w, j.ID), "River jobs queued for it")
				return
			}
			w.unchanged(t, func() {
				_, err := w.svc.CreateJob(t.Context(), r)
				e := requireCode(t, err, apperr.CreditLimit)
				renews := issuance.CreditPeriod(w.Clock.Now()).AddDate(0, 1, 0)
				require.Equal(t, tc.refused+" they renew on "+renews.Format("2 January 2006")+
					"). Name fewer attendees, or set allowPartial to issue while credits last.", e.Message, "message")
				limit, remaining := 12, max(12-tc.used, 0)
				require.Empty(t, cmp.Diff(&apperr.Credits{Limit: &limit, Used: tc.used, Remaining: &remaining, ResetsAt: renews}, e.Credits),
					"figures of the refusal (-want +got)")
			})
		})
	}
}

// A job without names takes the attendees without a valid certificate; while it is queued or
// running a second one for the event is a conflict that points at it. Another account's job
// or event is not found.
func TestOneJobAtATimeForAnEvent(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	ids := w.attendees(t, 3)
	w.issue(t, ids[0])
	j, err := w.svc.CreateJob(t.Context(), w.request(nil))
	require.NoError(t, err, "creating the job")
	require.Equal(t, 2, j.Total, "attendees of the job: those without a certificate")

	w.unchanged(t, func() {
		_, err := w.svc.CreateJob(t.Context(), w.request(nil))
		e := requireCode(t, err, apperr.Conflict)
		require.Equal(t, "/api/v1/events/"+w.Event.String()+"/certificates/generate/jobs/"+j.ID.String(), e.Location, "Location of the conflict")
	})

	got, err := w.svc.Job(t.Context(), w.Account, w.Event, j.ID)
	require.NoError(t, err, "reading the job")
	require.Empty(t, cmp.Diff(j, got, cmpopts.EquateApproxTime(time.Microsecond)), "the job read back (-want +got)")
	list, total, err := w.svc.Jobs(t.Context(), w.Account, w.Event, domain.Page{Number: 1, Size: 10})
	require.NoError(t, err, "listing the event's jobs")
	require.Equal(t, 1, total, "jobs of the event")
	require.Equal(t, j.ID, list[0].ID, "the job listed")

	_, err = w.svc.Job(t.Context(), w.Account, w.Event, uuid.New())
	e := requireCode(t, err, apperr.NotFound)
	require.Equal(t, "No such job.", e.Message, "message of an unknown job")
	_, _, err = w.svc.Jobs(t.Context(), w.Account, uuid.New(), domain.Page{Number: 1, Size: 10})
	e = requireCode(t, err, apperr.NotFound)
	require.Equal(t, "eventId", e.Details[0].Field, "detail of the jobs of an unknown event")
}

// jobs works the world's bulk jobs through River's executor, on the world's clock.
func (w world) jobs(t *testing.T) *testkit.Jobs {
	t.Helper()
	j := testkit.NewJobs(t, w.DBURL, w.Clock.Now)
	testkit.AddJobWorker(j, w.svc.Worker())
	return j
}

// workOnce works the due bulk jobs once and returns the one River job worked.
func (w world) workOnce(t *testing.T, jobs *testkit.Jobs) *rivertype.JobRow {
	t.Helper()
	worked := jobs.WorkDue(bulk.JobArgs{}.Kind())
	require.Len(t, worked, 1, "River jobs worked")
	return worked[0]
}

// completions decodes the account's job.completed events' data.
func (w world) completions(t *testing.T) []map[string]any {
	t.Helper()
	events, err := w.Store.OutboxEvents(t.Context(), w.Account)
	require.NoError(t, err, "reading the outbox")
	var out []map[string]any
	for _, e := range events {
		if e.EventType != "job.completed" {
			continue
		}
		var body struct{ Data map[string]any }
		require.NoError(t, json.Unmarshal(e.Payload, &body), "decoding %s", e.Payload)
		out = append(out, body.Data)
	}
	return out
}

// A job records each attendee's outcome (issued, skipped for a valid certificate, failed with
// its code) and, at its end, a job.completed event with its figures; run again, an ended job
// changes nothing and announces nothing twice.
func TestAJobRecordsEachOutcomeAndAnnouncesItsEndOnce(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	ids := w.attendees(t, 4)
	w.issue(t, ids[0])
	w.spend(t, 11) // one credit left for three
	r := w.request(ids)
	r.AllowPartial = true
	j, err := w.svc.CreateJob(t.Context(), r)
	require.NoError(t, err, "creating the job")
	jobs := w.jobs(t)
	row := w.workOnce(t, jobs)
	require.Equal(t, rivertype.JobStateCompleted, row.State, "River's state of the job")

	got, err := w.svc.Job(t.Context(), w.Account, w.Event, j.ID)
	require.NoError(t, err, "reading the job")
	type figures struct {
		Status                                    domain.BulkJobStatus
		Total, Processed, Issued, Skipped, Failed int
		Errors                                    []domain.BulkJobError
	}
	require.Empty(t, cmp.Diff(figures{Status: domain.BulkJobCompleted, Total: 4, Processed: 4, Issued: 1, Skipped: 1, Failed: 2,
		Errors: []domain.BulkJobError{{AttendeeID: ids[2], Code: "CREDIT_LIMIT"}, {AttendeeID: ids[3], Code: "CREDIT_LIMIT"}}},
		figures{Status: got.Status, Total: got.Total, Processed: got.Processed, Issued: got.Issued, Skipped: got.Skipped,
			Failed: got.Failed, Errors: got.Errors},
		cmpopts.IgnoreFields(domain.BulkJobError{}, "Message"), cmpopts.SortSlices(func(a, b domain.BulkJobError) bool {
			return a.AttendeeID.String() < b.AttendeeID.String()
		})), "the job's figures (-want +got)")
	require.Equal(t, 12, w.used(t), "credits used")
	wantEvent := []map[string]any{{"jobId": j.ID.String(), "eventId": w.Event.String(), "status": "completed", "total": 4.0,
		"issued": 1.0, "skipped": 1.0, "failed": 2.0}}
	require.Empty(t, cmp.Diff(wantEvent, w.completions(t)), "job.completed events (-want +got)")

	// River runs the ended job again (a second River job for it, as a retry after a lost
	// acknowledgement would): nothing changes, nothing is announced again.
	_, err = store.InTx(t.Context(), w.Store, func(tx *store.Tx) (struct{}, error) {
		return struct{}{}, tx.InsertJob(t.Context(), bulk.JobArgs{JobID: j.ID})
	})
	require.NoError(t, err, "queueing the job again")
	row = w.workOnce(t, jobs)
	require.Equal(t, rivertype.JobStateCompleted, row.State, "River's state of the repeated job")
	require.Len(t, w.completions(t), 1, "job.completed events after the repeat")
	again, err := w.svc.Job(t.Context(), w.Account, w.Event, j.ID)
	require.NoError(t, err, "reading the job again")
	require.Empty(t, cmp.Diff(got, again), "the job after the repeat (-before +after)")
}

// A job issues its attendees in batches of 50, each batch together in one transaction with the
// records of its items, none of them alone.
func TestAJobIssuesPlainAttendeesInBatchesOfFifty(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	_, err := accounts.New(w.Store, w.Clock.Now).SetPlan(t.Context(), w.Account, "unlimited")
	require.NoError(t, err, "setting the plan")
	spy := &counting{Service: w.certs}
	w = w.using(t, spy)
	j, err := w.svc.CreateJob(t.Context(), w.request(w.attendees(t, 120)))
	require.NoError(t, err, "creating the job")
	row := w.workOnce(t, w.jobs(t))
	require.Equal(t, rivertype.JobStateCompleted, row.State, "River's state of the job")
	require.Empty(t, cmp.Diff([]int{20, 50, 50}, spy.together, cmpopts.SortSlices(func(a, b int) bool { return a < b })),
		"attendees of each batch issued together (-want +got)")
	require.Zero(t, spy.issue.Load(), "attendees issued alone")
	got, err := w.svc.Job(t.Context(), w.Account, w.Event, j.ID)
	require.NoError(t, err, "reading the job")
	require.Equal(t, 120, got.Issued, "attendees issued")
	var recorded int
	testkit.QueryRowAt(t, w.DBURL, `SELECT count(*) FROM bulk_job_items i JOIN certificates c ON c.id = i.certificate_id
		WHERE i.job_id = $1 AND i.outcome = 'issued' AND c.attendee_id = i.attendee_id`, []any{j.ID}, &recorded)
	require.Equal(t, 120, recorded, "items recorded with their attendee's certificate")
}

// panicking issues as the service does, but panics, once the certificate is written, for the
// attendee on.
type panicking struct {
	*certificates.Service
	on uuid.UUID
}

func (p panicking) Issue(ctx context.Context, tx *store.Tx, g certificates.GenerateParams) (domain.Certificate, error) {
	c, err := p.Service.Issue(ctx, tx, g)
	if err == nil && g.AttendeeID == p.on {
		panic("glyph index out of range")
	}
	return c, err
}

func (p panicking) IssueAll(ctx context.Context, tx *store.Tx, gs []certificates.GenerateParams) ([]domain.Certificate, error) {
	cs, err := p.Service.IssueAll(ctx, tx, gs)
	for _, g := range gs {
		if err == nil && g.AttendeeID == p.on {
			panic("glyph index out of range")
		}
	}
	return cs, err
}

// A panic while an attendee is issued rolls that issuance back and fails its item with
// INTERNAL, for good; the others are issued and the job completes.
func TestAPanicFailsItsAttendeeAndTheJobGoesOn(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	ids := w.attendees(t, 3)
	on := ids[1] // in the middle: attendees are worked in id order, the order they were made
	w = w.using(t, panicking{Service: w.certs, on: on})
	j, err := w.svc.CreateJob(t.Context(), w.request(ids))
	require.NoError(t, err, "creating the job")
	row := w.workOnce(t, w.jobs(t))
	require.Equal(t, rivertype.JobStateCompleted, row.State, "River's state of the job")
	got, err := w.svc.Job(t.Context(), w.Account, w.Event, j.ID)
	require.NoError(t, err, "reading the job")
	require.Equal(t, domain.BulkJobCompleted, got.Status, "status")
	require.Equal(t, 2, got.Issued, "attendees issued")
	require.Empty(t, cmp.Diff([]domain.BulkJobError{{AttendeeID: on, Code: "INTERNAL",
		Message: "An internal error stopped the issuance for this attendee; it is not retried (the service log has the details)."}}, got.Errors),
		"the job's errors (-want +got)")
	var held int
	testkit.QueryRowAt(t, w.DBURL, `SELECT count(*) FROM certificates WHERE attendee_id = $1`, []any{on}, &held)
	require.Zero(t, held, "certificates of the attendee whose issuance panicked")
	require.Equal(t, 2, w.used(t), "credits used")
}

// A run that fails is River's to retry, the job still running; on the last attempt the job
// fails, announces it, and River does not try it again.
func TestAFailedRunIsRetriedUntilTheLastAttempt(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name        string
		maxAttempts int
		wantRiver   []rivertype.JobState // River's states that will, or will not, try the job again
		wantStatus  domain.BulkJobStatus
		wantEvents  []map[string]any
	}{
		// A retry due within seconds is made available at once.
		{name: "not the last attempt", maxAttempts: 25, wantRiver: []rivertype.JobState{rivertype.JobStateAvailable, rivertype.JobStateRetryable},
			wantStatus: domain.BulkJobRunning},
		{name: "the last attempt", maxAttempts: 1, wantRiver: []rivertype.JobState{rivertype.JobStateCancelled},
			wantStatus: domain.BulkJobFailed,
			wantEvents: []map[string]any{{"status": "failed", "total": 2.0, "issued": 0.0, "skipped": 0.0, "failed": 0.0}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			w := newWorld(t)
			w = w.using(t, failing{Service: w.certs, err: errors.New("connection reset")})
			j, err := w.svc.CreateJob(t.Context(), w.request(w.attendees(t, 2)))
			require.NoError(t, err, "creating the job")
			testkit.SQLAt(t, w.DBURL, `UPDATE river_job SET max_attempts = $1 WHERE args->>'jobId' = $2`, tc.maxAttempts, j.ID.String())
			row := w.workOnce(t, w.jobs(t))
			require.Contains(t, tc.wantRiver, row.State, "River's state of the job")
			got, err := w.svc.Job(t.Context(), w.Account, w.Event, j.ID)
			require.NoError(t, err, "reading the job")
			require.Equal(t, tc.wantStatus, got.Status, "status of the job")
			require.Zero(t, got.Processed, "attendees processed")
			events := w.completions(t)
			for _, e := range events {
				delete(e, "jobId")
				delete(e, "eventId")
			}
			require.Empty(t, cmp.Diff(tc.wantEvents, events, cmpopts.EquateEmpty()), "job.completed events (-want +got)")
		})
	}
}

// broken answers ALREADY_ISSUED without naming the certificate: recording the skip panics in
// the job's own code, outside any issuance.
type broken struct{ failing }

// A panic in the job itself fails the job at once: River would only meet it again.
func TestAPanicInTheJobFailsItWithoutRetries(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	w = w.using(t, broken{failing{Service: w.certs, err: apperr.New(apperr.AlreadyIssued, "issued, somewhere")}})
	j, err := w.svc.CreateJob(t.Context(), w.request(w.attendees(t, 1)))
	require.NoError(t, err, "creating the job")
	row := w.workOnce(t, w.jobs(t))
	require.Equal(t, rivertype.JobStateCancelled, row.State, "River's state of the job")
	require.Equal(t, 1, row.Attempt, "attempts")
	got, err := w.svc.Job(t.Context(), w.Account, w.Event, j.ID)
	require.NoError(t, err, "reading the job")
	require.Equal(t, domain.BulkJobFailed, got.Status, "status of the job")
}

// The pace of the jobs: production's when none is given, River's job timeout from it, and the
// kind and queue River stores the jobs under (rows already queued carry them).
func TestTheJobsPaceAndPlaceInRiver(t *testing.T) {
	t.Parallel()
	svc, err := bulk.New(nil, nil, nil, bulk.Timing{})
	require.NoError(t, err, "bulk.New")
	require.Equal(t, bulk.Timing{RunFor: 20 * time.Second, JobTimeout: time.Minute}, svc.Timing(), "default pace")
	require.Equal(t, time.Minute, svc.Worker().Timeout(nil), "River's timeout of a run")

	given := bulk.Timing{RunFor: time.Second, JobTimeout: 5 * time.Second, RescueAfter: 7 * time.Second}
	svc, err = bulk.New(nil, nil, nil, given)
	require.NoError(t, err, "bulk.New")
	require.Equal(t, given, svc.Timing(), "given pace")

	require.Equal(t, "bulk_generate_certificates", bulk.JobArgs{}.Kind(), "kind")
	require.Equal(t, "bulk", bulk.JobArgs{}.InsertOpts().Queue, "queue")
}
