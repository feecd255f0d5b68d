package httpapi_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/certhub/credentiald/internal/bulk"
	"github.com/certhub/credentiald/internal/certificates"
	"github.com/certhub/credentiald/internal/domain"
	"github.com/certhub/credentiald/internal/store"
	"github.com/certhub/credentiald/internal/testkit"
	"github.com/certhub/credentiald/internal/testkit/contract"
)

type bulkResult struct {
	Data struct {
		Issued  []struct{ ID, AttendeeID, Status string }
		Skipped []struct {
			AttendeeID string
			Existing   struct{ ID string }
		}
		Failed []struct {
			AttendeeID string
			Error      struct{ Code, Message string }
		}
	}
}

func TestBulkGenerateReportsEachAttendee(t *testing.T) {
	t.Parallel()
	s := newIssuing(t)
	testkit.SQL(t, s.env, `INSERT INTO credit_usage (account_id, period, used) VALUES ($1, date_trunc('month', now() AT TIME ZONE 'UTC')::date, 9)`, s.acct.ID)
	var ids []uuid.UUID
	for i := range 5 {
		ids = append(ids, s.acct.Attendee(t, s.event, "A", fmt.Sprint(i), fmt.Sprintf("a%d@example.org", i)))
	}
	var first certificateBody
	s.acct.Client.Post("/api/v1/certificates/generate", s.generate(ids[0], nil)).JSON(t, &first)

	// 2 credits left for 4 attendees without a certificate; one named attendee is unknown.
	path := "/api/v1/events/" + s.event.String() + "/certificates/generate"
	res := s.acct.Client.Post(path, map[string]any{"attendeeIds": append(ids, uuid.New()), "sendEmail": false})
	var out bulkResult
	res.JSON(t, &out)
	require.Equal(t, 200, res.StatusCode, "bulk: status (body %s)", res.Body)
	require.Len(t, out.Data.Issued, 2, "bulk: out.Data.Issued")
	require.Len(t, out.Data.Skipped, 1, "bulk: out.Data.Skipped")
	require.Len(t, out.Data.Failed, 3, "bulk: out.Data.Failed")
	if out.Data.Skipped[0].Existing.ID != first.Data.ID {
		t.Fatalf("skipped: %+v", out.Data.Skipped)
	}
	codes := map[string]int{}
	for _, f := range out.Data.Failed {
		codes[f.Error.Code]++
	}
	require.Equal(t, 2, codes["CREDIT_LIMIT"], `failures: codes["CREDIT_LIMIT"]`)
	require.Equal(t, 1, codes["NOT_FOUND"], `failures: codes["NOT_FOUND"]`)

	// Drafts use no credit; issuing an attendee who holds a draft turns the draft into the certificate.
	testkit.SQL(t, s.env, `UPDATE accounts SET plan = 'pro' WHERE id = $1`, s.acct.ID)
	extra := s.acct.Attendee(t, s.event, "D", "Raft", "draft@example.org")
	res = s.acct.Client.Post(path, map[string]any{"attendeeIds": []uuid.UUID{extra}, "draft": true})
	res.JSON(t, &out)
	require.Len(t, out.Data.Issued, 1, "draft: out.Data.Issued")
	require.Equal(t, "draft", out.Data.Issued[0].Status, "draft: out.Data.Issued[0].Status")
	draft := out.Data.Issued[0].ID
	res = s.acct.Client.Get("/api/v1/certificates/" + draft + "/download")
	wantError(t, res, 409, res.StatusCode, "CONFLICT")
	res = s.acct.Client.Post("/api/v1/certificates/"+draft+"/revoke", map[string]any{"reason": "drafted by mistake"})
	wantError(t, res, 409, res.StatusCode, "CONFLICT") // a draft is deleted, not revoked
	var c certificateBody
	s.acct.Client.Post("/api/v1/certificates/generate", s.generate(extra, nil)).JSON(t, &c)
	require.Equal(t, draft, c.Data.ID, "the draft did not become the certificate: c.Data.ID")
	require.Equal(t, "valid", c.Data.Status, "the draft did not become the certificate: c.Data.Status")

	// The same attendee twice is refused by the contract, before anything is written.
	res = s.acct.Client.Post(path, map[string]any{"attendeeIds": []uuid.UUID{extra, extra}})
	wantError(t, res, 400, res.StatusCode, "VALIDATION_ERROR")
	res = s.acct.Client.Post(path+"/jobs", map[string]any{"attendeeIds": []uuid.UUID{extra, extra}})
	wantError(t, res, 400, res.StatusCode, "VALIDATION_ERROR")

	// More than 100 attendees without a certificate: name them, or start a job.
	var csv bytes.Buffer
	csv.WriteString("firstName,lastName,email\n")
	for i := range 101 {
		fmt.Fprintf(&csv, "B,%d,b%d@example.org\n", i, i)
	}
	s.acct.Client.Upload("/api/v1/attendees/import?eventId="+s.event.String(), "file", "b.csv", csv.Bytes())
	res = s.acct.Client.Post(path, map[string]any{})
	if e := wantError(t, res, 400, res.StatusCode, "VALIDATION_ERROR"); e.Error.Details[0].Field != "body.attendeeIds" {
		t.Fatalf("details: %+v", e.Error.Details)
	}
}

// Attendees who can all be issued are issued together, each as alone: a number, a credit, an
// event and an email of their own, in the order named.
func TestBulkGenerateOfPlainIssuances(t *testing.T) {
	t.Parallel()
	s := newIssuing(t)
	ids := someAttendees(t, s, "P", 6)
	res := s.acct.Client.Post("/api/v1/events/"+s.event.String()+"/certificates/generate", map[string]any{"attendeeIds": ids})
	var out bulkResult
	res.JSON(t, &out)
	require.Equal(t, 200, res.StatusCode, "bulk: status (body %s)", res.Body)
	require.Len(t, out.Data.Issued, 6, "bulk: out.Data.Issued")
	require.Empty(t, out.Data.Skipped, "bulk: out.Data.Skipped")
	require.Empty(t, out.Data.Failed, "bulk: out.Data.Failed")
	numbers := map[string]bool{}
	for i, c := range out.Data.Issued {
		var got certificateBody
		s.acct.Client.Get("/api/v1/certificates/"+c.ID).JSON(t, &got)
		require.Equal(t, ids[i].String(), c.AttendeeID, "issued %d: c.AttendeeID", i)
		require.Equal(t, "valid", c.Status, "issued %d: c.Status", i)
		require.NotEmpty(t, got.Data.CertificateNumber, "issued %d: got.Data.CertificateNumber", i)
		require.False(t, numbers[got.Data.CertificateNumber], "issued %d: certificate number %s given twice", i, got.Data.CertificateNumber)
		numbers[got.Data.CertificateNumber] = true
	}
	issued, used := s.certificates(t)
	var emails struct{ Meta struct{ Total int } }
	s.acct.Client.Get("/api/v1/email/deliveries?eventId="+s.event.String()).JSON(t, &emails)
	require.Equal(t, 6, issued, "certificates issued")
	require.Equal(t, 6, used, "credits used")
	require.Equal(t, 6, emails.Meta.Total, "emails")
}

// The synchronous bulk issuance honours an Idempotency-Key as single issuance does: the same
// request again is the first answer replayed, another body under the key is refused (422),
// and a key that a running request holds is refused (409), each without issuing twice.
func TestBulkGenerateHonoursItsIdempotencyKey(t *testing.T) {
	t.Parallel()
	s := newIssuing(t)
	ada := s.acct.Attendee(t, s.event, "Ada", "Lovelace", "ada@example.org")
	path := "/api/v1/events/" + s.event.String() + "/certificates/generate"
	post := func(key string, body map[string]any) *contract.Response {
		req := s.acct.Client.Request(http.MethodPost, path, body)
		req.Header.Set("Idempotency-Key", key)
		return s.acct.Client.Do(req)
	}
	body := map[string]any{"attendeeIds": []uuid.UUID{ada}, "sendEmail": false}
	first, again := post("batch-7", body), post("batch-7", body)
	require.Equal(t, 200, first.StatusCode, "first status (body %s)", first.Body)
	require.Equal(t, 200, again.StatusCode, "again status (body %s)", again.Body)
	require.Equal(t, "true", again.Header.Get("Idempotent-Replayed"), "again: Idempotent-Replayed")
	require.Equal(t, string(first.Body), string(again.Body), "the replayed body")
	res := post("batch-7", map[string]any{"attendeeIds": []uuid.UUID{ada}, "sendEmail": true})
	wantError(t, res, 422, res.StatusCode, "IDEMPOTENCY_KEY_REUSED")

	// Another instance is running this request right now.
	grace := s.acct.Attendee(t, s.event, "Grace", "Hopper", "grace@example.org")
	held := map[string]any{"attendeeIds": []uuid.UUID{grace}, "sendEmail": false}
	// The key's fingerprint is of the request as the contract reads it, its defaults filled in
	// (draft: false), so that leaving a default out and writing it are one request.
	raw, _ := json.Marshal(map[string]any{"attendeeIds": []uuid.UUID{grace}, "sendEmail": false, "draft": false})
	fp := sha256.Sum256(append([]byte("POST\n"+path+"\n"), raw...))
	if _, err := s.env.Service.Idempotency.Claim(t.Context(), s.acct.ID, "batch-8", fp[:], time.Minute); err != nil {
		t.Fatal(err)
	}
	res = post("batch-8", held)
	wantError(t, res, 409, res.StatusCode, "IDEMPOTENCY_IN_PROGRESS")
	issued, used := s.certificates(t)
	require.Equal(t, 1, issued, "certificates issued")
	require.Equal(t, 1, used, "credits used")
}

type jobBody struct {
	Data struct {
		ID, Status                                string
		Total, Processed, Issued, Skipped, Failed int
		Errors                                    []struct{ AttendeeID, Code string }
	}
}

// waitForJob watches the job in the database (polling through the API would spend the
// client's rate limit), then reads it once through the API.
func waitForJob(t *testing.T, s issuing, path string, done func(domain.BulkJob) bool) jobBody {
	t.Helper()
	id := uuid.MustParse(path[strings.LastIndex(path, "/")+1:])
	deadline := time.Now().Add(2 * time.Minute)
	for {
		j, err := s.env.Store.FindBulkJob(t.Context(), s.acct.ID, s.event, id)
		if err != nil {
			t.Fatal(err)
		}
		if done(j) {
			break
		}
		if time.Now().After(deadline) {
			// River's row tells why a job stopped moving: its state, attempts and errors.
			var river string
			testkit.QueryRow(t, s.env, `SELECT coalesce(json_agg(json_build_object('state', state, 'attempt', attempt,
				'scheduledAt', scheduled_at, 'errors', errors, 'metadata', metadata)), '[]')::text
				FROM river_job WHERE args->>'jobId' = $1`, []any{id.String()}, &river)
			t.Fatalf("job: %+v\nRiver: %s", j, river)
		}
		time.Sleep(20 * time.Millisecond)
	}
	var j jobBody
	s.acct.Client.Get(path).JSON(t, &j)
	return j
}

// someAttendees adds n attendees to the event, one request each (first name first, last names
// 0 to n-1), and answers their ids in order.
func someAttendees(t *testing.T, s issuing, first string, n int) []uuid.UUID {
	t.Helper()
	ids := make([]uuid.UUID, n)
	for i := range ids {
		ids[i] = s.acct.Attendee(t, s.event, first, fmt.Sprint(i), fmt.Sprintf("%s%d@example.org", strings.ToLower(first), i))
	}
	return ids
}

// importAttendees puts the account on the business plan and imports n attendees into the
// event (Ada 0 to Ada n-1).
func importAttendees(t *testing.T, s issuing, n int) {
	t.Helper()
	testkit.SQL(t, s.env, `UPDATE accounts SET plan = 'business' WHERE id = $1`, s.acct.ID)
	var csv bytes.Buffer
	csv.WriteString("firstName,lastName,email\n")
	for i := range n {
		fmt.Fprintf(&csv, "Ada,%d,ada%d@example.org\n", i, i)
	}
	if res := s.acct.Client.Upload("/api/v1/attendees/import?eventId="+s.event.String(), "file", "a.csv", csv.Bytes()); res.StatusCode != 200 {
		t.Fatalf("import: %s", res.Body)
	}
}

// bigJob imports 2,000 attendees and queues a job that issues and emails them all; it
// returns the job's path (its Location).
func bigJob(t *testing.T, s issuing) string {
	t.Helper()
	importAttendees(t, s, 2000)
	res := s.acct.Client.Post("/api/v1/events/"+s.event.String()+"/certificates/generate/jobs", map[string]any{"sendEmail": true})
	var j jobBody
	res.JSON(t, &j)
	require.Equal(t, 202, res.StatusCode, "create job: status (body %s)", res.Body)
	require.Equal(t, "queued", j.Data.Status, "create job: j.Data.Status")
	require.Equal(t, 2000, j.Data.Total, "create job: j.Data.Total")
	path := res.Header.Get("Location")
	if !strings.HasSuffix(path, "/jobs/"+j.Data.ID) {
		t.Fatalf("Location %s", path)
	}
	return path
}

// wantEveryoneOnce checks the end of a 2,000-attendee job: completed, 2,000 issued (none
// skipped, none failed), 2,000 certificates, 2,000 credits, 2,000 emails, nobody twice.
func wantEveryoneOnce(t *testing.T, s issuing, path string, midway int) {
	t.Helper()
	done := waitForJob(t, s, path, func(j domain.BulkJob) bool { return j.Status == "completed" })
	require.Equal(t, 2000, done.Data.Processed, "finished job: done.Data.Processed (midway %d)", midway)
	require.Equal(t, 2000, done.Data.Issued, "finished job: done.Data.Issued")
	require.Equal(t, 0, done.Data.Skipped, "finished job: done.Data.Skipped")
	require.Equal(t, 0, done.Data.Failed, "finished job: done.Data.Failed")
	issued, used := s.certificates(t)
	var emails struct{ Meta struct{ Total int } }
	s.acct.Client.Get("/api/v1/email/deliveries?eventId="+s.event.String()).JSON(t, &emails)
	require.Equal(t, 2000, issued, "certificates issued")
	require.Equal(t, 2000, used, "credits used")
	require.Equal(t, 2000, emails.Meta.Total, "emails")
	var dup int
	testkit.QueryRow(t, s.env, `SELECT count(*) - count(DISTINCT attendee_id) FROM certificates WHERE event_id = $1`, []any{s.event}, &dup)
	if dup != 0 {
		t.Fatalf("%d attendees hold two certificates", dup)
	}
}

// A job for 2,000 attendees stopped midway finishes after a restart: 2,000 certificates,
// 2,000 credits, 2,000 emails, nobody twice.
func TestABulkJobSurvivesARestart(t *testing.T) {
	t.Parallel()
	s := newIssuing(t)
	path := bigJob(t, s)
	// A second job for the event while this one waits: 409 pointing at it.
	again := s.acct.Client.Post("/api/v1/events/"+s.event.String()+"/certificates/generate/jobs", map[string]any{})
	wantError(t, again, 409, again.StatusCode, "CONFLICT")
	if again.Header.Get("Location") != path {
		t.Fatalf("409 Location %q, want %q", again.Header.Get("Location"), path)
	}

	first := s.env.Service.Jobs
	if err := first.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	waitForJob(t, s, path, func(j domain.BulkJob) bool { return j.Processed >= 300 })
	if err := first.StopAndCancel(context.Background()); err != nil {
		t.Fatal(err)
	}
	var midway jobBody
	s.acct.Client.Get(path).JSON(t, &midway)
	require.NotEqual(t, "completed", midway.Data.Status, "the job was not stopped midway: midway.Data.Status")
	require.Less(t, midway.Data.Processed, 2000, "the job was not stopped midway: midway.Data.Processed")

	// The service starts again: a new job-queue client over the same database.
	startAgain(t, s, bulk.Timing{})
	wantEveryoneOnce(t, s, path, midway.Data.Processed)
}

// startAgain starts a new job-queue client over the test's database, as a restarted service
// (or another instance) would; it stops with the test.
func startAgain(t *testing.T, s issuing, timing bulk.Timing) {
	t.Helper()
	jobs, err := bulkQueue(s.env.Store, s.env.Service.Logger, timing, s.env.Service.Certificates)
	if err != nil {
		t.Fatal(err)
	}
	if err := jobs.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = jobs.Stop(context.Background()) })
}

// crashWorkerEnv names the database a worker process started by
// TestABulkJobSurvivesACrash works on.
const crashWorkerEnv = "CREDENTIALD_TEST_CRASH_WORKER_DB"

// TestBulkWorkerProcess is not a test: it is the worker process TestABulkJobSurvivesACrash
// starts (this test binary again) and kills. It works jobs until it is killed.
func TestBulkWorkerProcess(t *testing.T) {
	dbURL := os.Getenv(crashWorkerEnv)
	if dbURL == "" {
		t.Skip("the worker process of TestABulkJobSurvivesACrash")
	}
	ctx := context.Background()
	st, err := store.Open(ctx, dbURL)
	if err != nil {
		t.Fatal(err)
	}
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	jobs, err := bulkQueue(st, logger, bulk.Timing{}, certificates.New(st, "https://certs.example.org", nil))
	if err != nil {
		t.Fatal(err)
	}
	if err := jobs.Start(ctx); err != nil {
		t.Fatal(err)
	}
	select {} // until killed
}

// A job for 2,000 attendees whose worker process is killed midway (SIGKILL: no Stop, no
// rollback sent, its connections just gone, its River client the leader) finishes once another
// instance rescues it: 2,000 certificates, 2,000 credits, 2,000 emails, nobody twice, and none
// skipped, so no attendee was issued without their item being recorded.
func TestABulkJobSurvivesACrash(t *testing.T) {
	t.Parallel()
	s := newIssuing(t)
	path := bigJob(t, s)

	worker := exec.Command(os.Args[0], "-test.run=^TestBulkWorkerProcess$", "-test.count=1")
	worker.Env = append(os.Environ(), crashWorkerEnv+"="+s.env.Config.DatabaseURL)
	var output bytes.Buffer
	worker.Stdout, worker.Stderr = &output, &output
	if err := worker.Start(); err != nil {
		t.Fatal(err)
	}
	killed := false
	t.Cleanup(func() {
		if !killed {
			_ = worker.Process.Kill()
			_ = worker.Wait()
		}
	})
	waitForJob(t, s, path, func(j domain.BulkJob) bool { return j.Processed >= 300 })
	if err := worker.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = worker.Wait()
	killed = true
	var midway jobBody
	s.acct.Client.Get(path).JSON(t, &midway)
	require.Equal(t, "running", midway.Data.Status, "the worker did not die midway: midway.Data.Status\n%s", output.String())
	require.Less(t, midway.Data.Processed, 2000, "the worker did not die midway: midway.Data.Processed\n%s", output.String())
	var state string
	testkit.QueryRow(t, s.env, `SELECT state FROM river_job WHERE args->>'jobId' = $1`, []any{midway.Data.ID}, &state)
	if state != "running" {
		t.Fatalf("the killed worker's job is %s in River, want running (abandoned)", state)
	}

	// Another instance takes over: once the dead one's leadership lapses, its River client
	// rescues the abandoned job (short timeouts, so the test need not wait minutes).
	startAgain(t, s, bulk.Timing{RunFor: 2 * time.Second, JobTimeout: 5 * time.Second, RescueAfter: 5 * time.Second})
	wantEveryoneOnce(t, s, path, midway.Data.Processed)
}

// slowIssuer issues as the service does, each issuance taking delay longer: a database slowed
// by a loaded machine.
type slowIssuer struct {
	*certificates.Service
	delay time.Duration
}

func (s slowIssuer) Issue(ctx context.Context, tx *store.Tx, p certificates.GenerateParams) (domain.Certificate, error) {
	time.Sleep(s.delay)
	return s.Service.Issue(ctx, tx, p)
}

func (s slowIssuer) IssueAll(ctx context.Context, tx *store.Tx, ps []certificates.GenerateParams) ([]domain.Certificate, error) {
	time.Sleep(s.delay * time.Duration(len(ps)))
	return s.Service.IssueAll(ctx, tx, ps)
}

// A job whose issuances are slow yields between batches instead of overrunning River's
// timeout: every run ends in a snooze, none in an error, so the job never waits out River's
// growing retry delays (which once left a job standing for minutes under a loaded CI).
func TestASlowBulkJobYieldsInsteadOfTimingOut(t *testing.T) {
	t.Parallel()
	s := newIssuing(t)
	importAttendees(t, s, 300)
	res := s.acct.Client.Post("/api/v1/events/"+s.event.String()+"/certificates/generate/jobs", map[string]any{})
	if res.StatusCode != 202 {
		t.Fatalf("create job: %d %s", res.StatusCode, res.Body)
	}
	path := res.Header.Get("Location")
	// 300 attendees in batches of 50, two at a time, each batch 2 s slower than it is (a
	// loaded database), in runs of 100 ms under a 16 s timeout (a run's own bound is 8 s): a
	// run yields once its first batches commit (about 2 s) and starts no batch after that, so
	// the job takes three runs, two of them snoozed. A run that looked at the time only after
	// all the batches it read (six, three rounds of lanes, 6 s), or that started a batch past
	// its time, would issue for everyone in one run and snooze none. (A 5 s bound left a CI
	// machine loaded by a second test run 3 s for a batch's own work, and once a run was cut
	// off there; 3 s a batch under it had once left 2 s.)
	slow := slowIssuer{Service: s.env.Service.Certificates, delay: 40 * time.Millisecond}
	jobs, err := bulkQueue(s.env.Store, s.env.Service.Logger, bulk.Timing{RunFor: 100 * time.Millisecond, JobTimeout: 16 * time.Second}, slow)
	if err != nil {
		t.Fatal(err)
	}
	if err := jobs.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = jobs.Stop(context.Background()) })
	done := waitForJob(t, s, path, func(j domain.BulkJob) bool { return j.Status == "completed" })
	if done.Data.Issued != 300 {
		t.Fatalf("job: %+v", done.Data)
	}
	var errs, snoozes int
	testkit.QueryRow(t, s.env, `SELECT coalesce(array_length(errors, 1), 0), coalesce((metadata->>'snoozes')::int, 0)
		FROM river_job WHERE args->>'jobId' = $1`, []any{done.Data.ID}, &errs, &snoozes)
	require.Equal(t, 0, errs, "errors River recorded")
	require.GreaterOrEqual(t, snoozes, 2, "snoozes River recorded, want one per run but the last")
}

// A draft job's drafts go with their event: deleting it answers 204, not a conflict of keys.
func TestAnEventWithDraftsFromAJobCanBeDeleted(t *testing.T) {
	t.Parallel()
	s := newIssuing(t)
	for i := range 3 {
		s.acct.Attendee(t, s.event, "A", fmt.Sprint(i), fmt.Sprintf("a%d@example.org", i))
	}
	res := s.acct.Client.Post("/api/v1/events/"+s.event.String()+"/certificates/generate/jobs", map[string]any{"draft": true})
	path := res.Header.Get("Location")
	if err := s.env.Service.Jobs.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.env.Service.Jobs.Stop(context.Background()) })
	done := waitForJob(t, s, path, func(j domain.BulkJob) bool { return j.Status == "completed" })
	if done.Data.Issued != 3 {
		t.Fatalf("job: %+v", done.Data)
	}
	if _, used := s.certificates(t); used != 0 {
		t.Fatalf("drafts used %d credits", used)
	}
	// Another account cannot see the job.
	other := testkit.SignUp(t, s.env)
	res = other.Client.Get(path)
	wantError(t, res, 404, res.StatusCode, "NOT_FOUND")
	if res := s.acct.Client.Delete("/api/v1/events/" + s.event.String()); res.StatusCode != 204 {
		t.Fatalf("delete: %d %s", res.StatusCode, res.Body)
	}
}

// A job of several batches whose attendees came to hold a certificate after it was queued (in
// batches that two lanes take at once): those batches go one by one, the others together, and
// in the end everyone holds exactly one certificate, each new one charged once and numbered
// once.
func TestAJobInTwoLanesWithSkipsIssuesEveryoneOnce(t *testing.T) {
	t.Parallel()
	s := newIssuing(t)
	// Nine batches of 50 at most, over two reads of the pending attendees (400, then 50).
	importAttendees(t, s, 450)
	res := s.acct.Client.Post("/api/v1/events/"+s.event.String()+"/certificates/generate/jobs", map[string]any{"sendEmail": false})
	if res.StatusCode != 202 {
		t.Fatalf("create job: %d %s", res.StatusCode, res.Body)
	}
	path := res.Header.Get("Location")
	// Before the job runs, single issuances for an attendee of the first, second, fourth and
	// ninth batches (the job takes its attendees in id order).
	var ids []uuid.UUID
	testkit.QueryRow(t, s.env, `SELECT array_agg(id ORDER BY id) FROM attendees WHERE event_id = $1`, []any{s.event}, &ids)
	for _, i := range []int{3, 60, 170, 420} {
		if r := s.acct.Client.Post("/api/v1/certificates/generate", s.generate(ids[i], nil)); r.StatusCode != 200 {
			t.Fatalf("generate: %d %s", r.StatusCode, r.Body)
		}
	}
	if err := s.env.Service.Jobs.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.env.Service.Jobs.Stop(context.Background()) })
	done := waitForJob(t, s, path, func(j domain.BulkJob) bool { return j.Status == "completed" })
	require.Equal(t, 450, done.Data.Processed, "job: done.Data.Processed")
	require.Equal(t, 446, done.Data.Issued, "job: done.Data.Issued")
	require.Equal(t, 4, done.Data.Skipped, "job: done.Data.Skipped")
	require.Equal(t, 0, done.Data.Failed, "job: done.Data.Failed")
	issued, used := s.certificates(t)
	var dup, numbers int
	testkit.QueryRow(t, s.env, `SELECT count(*) - count(DISTINCT attendee_id), count(DISTINCT certificate_number)
		FROM certificates WHERE event_id = $1`, []any{s.event}, &dup, &numbers)
	require.Equal(t, 450, issued, "certificates issued")
	require.Equal(t, 450, used, "credits used")
	require.Equal(t, 0, dup, "attendees twice")
	require.Equal(t, 450, numbers, "distinct certificate numbers")
}
