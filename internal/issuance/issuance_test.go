package issuance_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/certhub/credentiald/internal/apperr"
	"github.com/certhub/credentiald/internal/credentials"
	"github.com/certhub/credentiald/internal/domain"
	"github.com/certhub/credentiald/internal/issuance"
	"github.com/certhub/credentiald/internal/store"
	"github.com/certhub/credentiald/internal/testkit"
)

func TestMain(m *testing.M) { testkit.Main(m) }

// world is an account on the free plan (12 credits a month) with a template and an event.
type world struct{ testkit.World }

func (w world) attendee(t *testing.T, first string) domain.Attendee {
	t.Helper()
	a, err := w.Store.CreateAttendee(t.Context(), w.Account, w.Event, domain.AttendeeFields{FirstName: first, LastName: "Lovelace",
		Email: strings.ToLower(first) + "@example.org"}, w.Clock.Now())
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func recipient(a domain.Attendee) domain.Recipient {
	return domain.Recipient{FirstName: a.FirstName, LastName: a.LastName, Email: a.Email}
}

// newCertificate is a new certificate (or draft) for the attendee; its code is left to Issue.
func (w world) newCertificate(a domain.Attendee, draft bool) *store.NewCertificate {
	c := &store.NewCertificate{AccountID: w.Account, CertificateKey: store.CertificateKey{AttendeeID: a.ID, EventID: w.Event,
		TemplateID: w.Template}, Number: store.NumberFormat{Prefix: "T-", Digits: 4}, Draft: draft, Recipient: recipient(a),
		Snapshot: json.RawMessage(`{}`)}
	if !draft {
		at := w.Clock.Now().UTC()
		c.IssuedAt = &at
	}
	return c
}

func certificateEvent(c domain.Certificate) any {
	return map[string]any{"type": "certificate.issued", "data": map[string]any{"id": c.ID, "certificateNumber": ""}}
}

func (w world) certificateEmail(c domain.Certificate) domain.OutboundEmail {
	return domain.OutboundEmail{AccountID: w.Account, Kind: "certificate", CertificateID: &c.ID, ToAddress: c.Email,
		Subject: "Your certificate " + c.Number, BodyText: c.Number}
}

// issue runs Issue in a transaction of its own, rolled back when Issue fails.
func (w world) issue(t *testing.T, r issuance.Request) (issuance.Issued, error) {
	t.Helper()
	return store.InTx(t.Context(), w.Store, func(tx *store.Tx) (issuance.Issued, error) { return issuance.Issue(t.Context(), tx, r) })
}

// writes are what issuances wrote, in the account (the codes, in the test's database).
// Waiting are the outbox events not recorded dispatched: those a webhook subscription takes,
// whose fan-out jobs are FanOuts.
type writes struct {
	Credits, Codes, Entries, Events, Counted, Emails, Waiting, FanOuts int
}

// subscribe gives the account an active webhook subscription to kinds.
func (w world) subscribe(t *testing.T, kinds ...string) {
	t.Helper()
	testkit.SQLAt(t, w.DBURL, `INSERT INTO webhook_subscriptions (account_id, url, events, secret_sealed)
		VALUES ($1, 'https://hooks.example.org/in', $2, '\x00')`, w.Account, kinds)
}

func (w world) writes(t *testing.T) writes {
	t.Helper()
	var n writes
	testkit.QueryRowAt(t, w.DBURL, `SELECT
		(SELECT coalesce(sum(used), 0) FROM credit_usage WHERE account_id = $1)::integer,
		(SELECT count(*) FROM verification_codes)::integer,
		(SELECT count(*) FROM verifiable_credentials WHERE account_id = $1)::integer,
		(SELECT count(*) FROM outbox_events WHERE account_id = $1)::integer,
		(SELECT coalesce(sum(issued), 0) FROM analytics_daily WHERE account_id = $1)::integer,
		(SELECT count(*) FROM email_deliveries WHERE account_id = $1)::integer,
		(SELECT count(*) FROM outbox_events WHERE account_id = $1 AND dispatched_at IS NULL)::integer,
		(SELECT count(*) FROM river_job WHERE kind = 'webhook_fan_out')::integer`, []any{w.Account},
		&n.Credits, &n.Codes, &n.Entries, &n.Events, &n.Counted, &n.Emails, &n.Waiting, &n.FanOuts)
	return n
}

func (n writes) minus(m writes) writes {
	return writes{Credits: n.Credits - m.Credits, Codes: n.Codes - m.Codes, Entries: n.Entries - m.Entries, Events: n.Events - m.Events,
		Counted: n.Counted - m.Counted, Emails: n.Emails - m.Emails, Waiting: n.Waiting - m.Waiting, FanOuts: n.FanOuts - m.FanOuts}
}

// subscribed is what w wrote when the account has a webhook subscription that takes its
// events: they wait for their fan-out, one job for them all.
func (n writes) subscribed() writes {
	n.Waiting = n.Events
	if n.Events > 0 {
		n.FanOuts = 1
	}
	return n
}

// credential is what a test checks of one issued credential in the database.
type credential struct {
	id   uuid.UUID
	kind string
	code string
}

// kind is one kind of issuance: arrange prepares what it needs (a draft, a badge) before the
// figures are read, and answers the request and what it issues.
type kind struct {
	name    string
	arrange func(t *testing.T, w world) issuance.Request
	want    writes
	// issued are the credentials the request issues, from Issue's answer.
	issued func(out issuance.Issued) []credential
	// codeOf, when set, is the code the request says its credential has (reserved by its caller).
	codeOf func(r issuance.Request) string
}

func certificatesOf(out issuance.Issued) []credential {
	var cs []credential
	for _, c := range out.Certificates {
		cs = append(cs, credential{id: c.ID, kind: store.KindCertificate, code: c.VerificationCode})
	}
	return cs
}

func assertionsOf(out issuance.Issued) []credential {
	var cs []credential
	for _, a := range out.Assertions {
		cs = append(cs, credential{id: a.ID, kind: store.KindBadgeAssertion, code: a.VerificationCode})
	}
	return cs
}

// draft writes a draft for a new attendee, through Issue, and returns it.
func (w world) draft(t *testing.T, first string) domain.Certificate {
	t.Helper()
	out, err := w.issue(t, issuance.Request{AccountID: w.Account, Now: w.Clock.Now(),
		Certificates: []issuance.Certificate{{New: w.newCertificate(w.attendee(t, first), true), Event: certificateEvent}}})
	if err != nil {
		t.Fatal(err)
	}
	return out.Certificates[0]
}

func kinds() []kind {
	return []kind{{
		name: "a new certificate",
		arrange: func(t *testing.T, w world) issuance.Request {
			return issuance.Request{AccountID: w.Account, Now: w.Clock.Now(), Certificates: []issuance.Certificate{{
				New: w.newCertificate(w.attendee(t, "Ada"), false), Event: certificateEvent, Email: w.certificateEmail}}}
		},
		want:   writes{Credits: 1, Codes: 1, Entries: 1, Events: 1, Counted: 1, Emails: 1},
		issued: certificatesOf,
	}, {
		name: "a new certificate whose code its caller reserved",
		arrange: func(t *testing.T, w world) issuance.Request {
			c := w.newCertificate(w.attendee(t, "Ada"), false)
			c.VerificationCode = "RESERVED00001"
			testkit.SQLAt(t, w.DBURL, `INSERT INTO verification_codes (code, kind) VALUES ($1, 'certificate')`, c.VerificationCode)
			return issuance.Request{AccountID: w.Account, Now: w.Clock.Now(), Certificates: []issuance.Certificate{{
				New: c, Event: certificateEvent}}}
		},
		want:   writes{Credits: 1, Codes: 0, Entries: 1, Events: 1, Counted: 1},
		issued: certificatesOf,
		codeOf: func(r issuance.Request) string { return r.Certificates[0].New.VerificationCode },
	}, {
		name: "a new draft",
		arrange: func(t *testing.T, w world) issuance.Request {
			return issuance.Request{AccountID: w.Account, Now: w.Clock.Now(), Certificates: []issuance.Certificate{{
				New: w.newCertificate(w.attendee(t, "Ada"), true), Event: certificateEvent, Email: w.certificateEmail}}}
		},
		want: writes{Codes: 1}, // a draft costs nothing, has no entry, no event, no count and no email
		issued: func(out issuance.Issued) []credential {
			return nil // not issued: checked by the figures alone
		},
	}, {
		name: "a draft turned issued",
		arrange: func(t *testing.T, w world) issuance.Request {
			d := w.draft(t, "Ada")
			return issuance.Request{AccountID: w.Account, Now: w.Clock.Now(), Certificates: []issuance.Certificate{{
				Draft: &d, Issuance: store.Issuance{Recipient: recipient(w.attendee(t, "Grace")), Snapshot: json.RawMessage(`{}`),
					IssuedAt: w.Clock.Now().UTC()}, Event: certificateEvent, Email: w.certificateEmail}}}
		},
		want:   writes{Credits: 1, Codes: 0, Entries: 1, Events: 1, Counted: 1, Emails: 1}, // it keeps its code
		issued: certificatesOf,
		codeOf: func(r issuance.Request) string { return r.Certificates[0].Draft.VerificationCode },
	}, {
		name: "new certificates, a new draft and a draft turned issued, together",
		arrange: func(t *testing.T, w world) issuance.Request {
			return w.mixedRequest(t)
		},
		want: writes{Credits: 4, Codes: 4, Entries: 4, Events: 4, Counted: 4, Emails: 4}, // the draft turned issued keeps its code
		issued: func(out issuance.Issued) []credential {
			var issued []credential
			for _, c := range certificatesOf(out) {
				if !slices.ContainsFunc(out.Certificates, func(d domain.Certificate) bool { return d.ID == c.id && d.Status == domain.CertificateDraft }) {
					issued = append(issued, c)
				}
			}
			return issued
		},
	}, {
		name: "a badge issued to three attendees",
		arrange: func(t *testing.T, w world) issuance.Request {
			return w.badgeRequest(t, 3)
		},
		want:   writes{Credits: 3, Codes: 3, Entries: 3, Events: 3, Counted: 3, Emails: 3},
		issued: assertionsOf,
	}}
}

// mixedRequest is one issuance of three new certificates, a new draft and a draft (written
// first) turned issued, in that order but for the draft turned issued, which comes second.
func (w world) mixedRequest(t *testing.T) issuance.Request {
	t.Helper()
	d := w.draft(t, "Drafted")
	news := func(first string, draft bool) issuance.Certificate {
		return issuance.Certificate{New: w.newCertificate(w.attendee(t, first), draft), Event: certificateEvent, Email: w.certificateEmail}
	}
	return issuance.Request{AccountID: w.Account, Now: w.Clock.Now(), Certificates: []issuance.Certificate{
		news("Ada", false),
		{Draft: &d, Issuance: store.Issuance{Recipient: domain.Recipient{FirstName: d.FirstName, LastName: d.LastName, Email: d.Email},
			Snapshot: json.RawMessage(`{}`), IssuedAt: w.Clock.Now().UTC()}, Event: certificateEvent, Email: w.certificateEmail},
		news("Grace", false),
		news("Hedy", true),
		news("Karen", false),
	}}
}

// Certificates issued together are answered in the order asked, each as its row says, and
// the new ones are numbered in that order after the account's last number; the draft turned
// issued keeps the number and code it had.
func TestCertificatesIssuedTogetherAreNumberedInTheOrderAsked(t *testing.T) {
	t.Parallel()
	w := world{testkit.NewWorld(t)}
	r := w.mixedRequest(t) // its draft took T-0001
	out, err := w.issue(t, r)
	if err != nil {
		t.Fatal(err)
	}
	want := []struct{ number, first string }{{"T-0002", "Ada"}, {"T-0001", "Drafted"}, {"T-0003", "Grace"}, {"T-0004", "Hedy"}, {"T-0005", "Karen"}}
	if len(out.Certificates) != len(want) {
		t.Fatalf("answered %d certificates, want %d", len(out.Certificates), len(want))
	}
	for i, c := range out.Certificates {
		var number, first, status string
		testkit.QueryRowAt(t, w.DBURL, `SELECT certificate_number, recipient_first_name, status FROM certificates WHERE id = $1`,
			[]any{c.ID}, &number, &first, &status)
		if c.Number != want[i].number || number != c.Number || first != want[i].first || c.FirstName != first {
			t.Fatalf("certificate %d answered %s for %s, stored %s for %s; want %s for %s", i, c.Number, c.FirstName, number, first,
				want[i].number, want[i].first)
		}
		if wantDraft := i == 3; (c.Status == domain.CertificateDraft) != wantDraft || (status == "draft") != wantDraft {
			t.Fatalf("certificate %d is %s (stored %s)", i, c.Status, status)
		}
	}
	if out.Certificates[1].VerificationCode != r.Certificates[1].Draft.VerificationCode {
		t.Fatalf("the draft turned issued has code %s, it had %s", out.Certificates[1].VerificationCode, r.Certificates[1].Draft.VerificationCode)
	}
}

// The entries written by one statement never share an index: credentials of the statement that
// drew the same candidates take the next free one each, and one left without a free candidate
// is written nothing (its issuance draws it the long way); an index taken before is skipped.
func TestStatusEntriesOfOneStatementTakeDifferentIndexes(t *testing.T) {
	t.Parallel()
	w := world{testkit.NewWorld(t)}
	now := w.Clock.Now().UTC()
	entry := func(salt string) store.VerifiableCredential {
		return store.VerifiableCredential{CredentialID: uuid.New(), Kind: store.KindCertificate, AccountID: w.Account,
			Salt: "salt-of-sixteen-" + salt, SignedAt: now}
	}
	taken := entry("taken")
	vs := []store.VerifiableCredential{entry("one"), entry("two"), entry("three"), entry("four")}
	plan := func(vs []store.VerifiableCredential, candidates [][]int) store.IssuancePlan {
		p := store.IssuancePlan{AccountID: w.Account, Now: now, CreditPeriod: issuance.CreditPeriod(now)}
		for i, v := range vs {
			p.Entries = append(p.Entries, store.PlannedEntry{Credential: v, Candidates: candidates[i]})
		}
		return p
	}
	applied, err := store.InTx(t.Context(), w.Store, func(tx *store.Tx) (store.Applied, error) {
		if err := tx.EnsureStatusList(t.Context(), w.Account, 1, now); err != nil {
			return store.Applied{}, err
		}
		first, err := tx.ApplyIssuance(t.Context(), plan([]store.VerifiableCredential{taken}, [][]int{{7, 7, 7}}))
		if err != nil || len(first.Unassigned) > 0 {
			return store.Applied{}, fmt.Errorf("the first entry: %v (unassigned %v)", err, first.Unassigned)
		}
		return tx.ApplyIssuance(t.Context(), plan(vs, [][]int{{5, 7, 9}, {5, 7, 9}, {7, 5, 9}, {9, 5, 7}}))
	})
	if err != nil {
		t.Fatal(err)
	}
	assigned := make([]bool, len(vs))
	for i := range assigned {
		assigned[i] = !slices.Contains(applied.Unassigned, i)
	}
	// 5 and 9 are left: two of the four take them, the others find every candidate taken.
	n := 0
	for i, a := range assigned {
		var rows int
		testkit.QueryRowAt(t, w.DBURL, `SELECT count(*)::integer FROM verifiable_credentials WHERE credential_id = $1`,
			[]any{vs[i].CredentialID}, &rows)
		if a != (rows == 1) {
			t.Fatalf("entry %d answered %v, has %d rows", i, a, rows)
		}
		if a {
			n++
		}
	}
	if n != 2 {
		t.Fatalf("%d entries written, want 2", n)
	}
	var indexes []int32
	testkit.QueryRowAt(t, w.DBURL, `SELECT array_agg(status_index ORDER BY status_index) FROM verifiable_credentials
		WHERE account_id = $1 AND list = 1`, []any{w.Account}, &indexes)
	if !slices.Equal(indexes, []int32{5, 7, 9}) {
		t.Fatalf("indexes %v, want [5 7 9]", indexes)
	}
}

func (w world) badgeRequest(t *testing.T, n int) issuance.Request {
	t.Helper()
	now := w.Clock.Now()
	b, err := w.Store.InsertBadge(t.Context(), w.Account, domain.BadgeFields{Name: "Speaker"}, now)
	if err != nil {
		t.Fatal(err)
	}
	req := &issuance.Badge{Issuance: store.BadgeIssuance{AccountID: w.Account, BadgeID: b.ID, IssuedAt: now.UTC()},
		EventOf: map[uuid.UUID]uuid.UUID{}, Claims: credentials.BadgeClaimsOf(b, "Analytical Society", "", false),
		Event: func(a domain.BadgeAssertion) any {
			return map[string]any{"type": "badge.issued", "data": map[string]any{"id": a.ID}}
		},
		Email: func(a domain.BadgeAssertion) domain.OutboundEmail {
			return domain.OutboundEmail{AccountID: w.Account, Kind: "badge", BadgeAssertionID: &a.ID, ToAddress: a.Recipient.Email,
				Subject: "Your badge", BodyText: "A badge"}
		}}
	for i := range n {
		a := w.attendee(t, fmt.Sprintf("Speaker%d", i))
		req.EventOf[a.ID] = w.Event
		req.Assertions = append(req.Assertions, store.NewBadgeAssertion{AttendeeID: a.ID, Recipient: recipient(a),
			RecipientSalt: fmt.Sprintf("salt-%016d", i), Locale: "en"})
	}
	return issuance.Request{AccountID: w.Account, Now: now, Badge: req}
}

// One issuance of each kind writes what issuing entails, once per credential: its credit, its
// code (reserved under its kind, and naming it), its status list entry, its outbox event, the
// day's count and, when asked, its email; a draft only its row and its code. The events wait
// for a webhook fan-out, with its job (one for the issuance), only when a subscription of the
// account takes them; else they are recorded dispatched, with no job.
func TestIssueWritesWhatOneIssuanceEntails(t *testing.T) {
	t.Parallel()
	for _, k := range kinds() {
		// A subscription to every kind takes the events; one to revocations takes none of them.
		for _, subscribed := range []string{"", "*", "certificate.revoked"} {
			name := k.name + ", no webhook subscription"
			if subscribed != "" {
				name = k.name + ", a subscription to " + subscribed
			}
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				w := world{testkit.NewWorld(t)}
				if subscribed != "" {
					w.subscribe(t, subscribed)
				}
				want := k.want
				if subscribed == "*" {
					want = want.subscribed()
				}
				r := k.arrange(t, w)
				// What the caller read with its sources (store.Tx.ReadIssuances); a badge's
				// issuance reads it itself.
				r.Subscribed = subscribed == "*"
				before := w.writes(t)
				out, err := w.issue(t, r)
				if err != nil {
					t.Fatal(err)
				}
				if got := w.writes(t).minus(before); got != want {
					t.Fatalf("wrote %+v, want %+v", got, want)
				}
				issued := k.issued(out)
				if len(issued) != want.Entries {
					t.Fatalf("answered %d credentials, want %d", len(issued), want.Entries)
				}
				for _, c := range issued {
					w.checkIssued(t, c)
					if k.codeOf != nil && c.code != k.codeOf(r) {
						t.Fatalf("code %s, want %s (the one the request had)", c.code, k.codeOf(r))
					}
				}
			})
		}
	}
}

// checkIssued checks one issued credential in the database: its code registered under its
// kind, its status entry, and, for a certificate, its number in its event.
func (w world) checkIssued(t *testing.T, c credential) {
	t.Helper()
	var codeKind string
	var entries int
	testkit.QueryRowAt(t, w.DBURL, `SELECT (SELECT kind FROM verification_codes WHERE code = $1),
		(SELECT count(*) FROM verifiable_credentials WHERE credential_id = $2 AND kind = $3)::integer`,
		[]any{c.code, c.id, c.kind}, &codeKind, &entries)
	if codeKind != c.kind || entries != 1 {
		t.Fatalf("%s %s: code %s registered as %q, %d status entries", c.kind, c.id, c.code, codeKind, entries)
	}
	if c.kind != store.KindCertificate {
		return
	}
	var number, inEvent, code string
	testkit.QueryRowAt(t, w.DBURL, `SELECT c.certificate_number, coalesce(e.payload->'data'->>'certificateNumber', ''), c.verification_code
		FROM certificates c LEFT JOIN outbox_events e ON e.event_type = 'certificate.issued' AND e.payload->'data'->>'id' = c.id::text
		WHERE c.id = $1`, []any{c.id}, &number, &inEvent, &code)
	if number == "" || inEvent != number || code != c.code {
		t.Fatalf("certificate %s numbered %q, its event says %q; code %s, answered %s", c.id, number, inEvent, code, c.code)
	}
}

// With fewer credits left than an issuance needs, every kind is refused with CREDIT_LIMIT and
// the figures, and, its transaction rolled back, leaves the database as it was: no credit,
// code, row, entry, event, count, job or email. A badge issuance is all or nothing.
func TestCreditLimitWritesNothing(t *testing.T) {
	t.Parallel()
	for _, k := range kinds() {
		if k.want.Credits == 0 {
			continue // a draft costs nothing
		}
		t.Run(k.name, func(t *testing.T) {
			t.Parallel()
			w := world{testkit.NewWorld(t)}
			r := k.arrange(t, w)
			left := k.want.Credits - 1 // one short
			testkit.SQLAt(t, w.DBURL, `INSERT INTO credit_usage (account_id, period, used) VALUES ($1, $2, $3)
				ON CONFLICT (account_id, period) DO UPDATE SET used = excluded.used`,
				w.Account, issuance.CreditPeriod(w.Clock.Now()), 12-left)
			before, err := w.Store.Fingerprint(t.Context())
			if err != nil {
				t.Fatal(err)
			}
			_, err = w.issue(t, r)
			e, ok := apperr.As(err)
			if !ok || e.Code != apperr.CreditLimit {
				t.Fatalf("got %v, want CREDIT_LIMIT", err)
			}
			if e.Credits == nil || *e.Credits.Limit != 12 || e.Credits.Used != 12-left || *e.Credits.Remaining != left {
				t.Fatalf("figures %+v", e.Credits)
			}
			if after, err := w.Store.Fingerprint(t.Context()); err != nil || after != before {
				t.Fatalf("CREDIT_LIMIT changed the database (%v)", err)
			}
		})
	}
}

// Issue's own round trips, warmed up (each statement prepared on the connection), on the
// common path (every status entry's first candidate free): the codes it reserves (none when
// its caller did), the kind's rows that take no hot row (badge assertions), the emails of
// assertions, whether a subscription takes a badge's event, the plan applied (every write under
// the hot rows, one round trip). BEGIN and COMMIT are the caller's. A webhook subscription
// adds the fan-out job, inserted through River's client.
func TestIssueRoundTrips(t *testing.T) {
	t.Parallel()
	const fanOutJob = 1 // River's InsertManyTx
	cases := []struct {
		name    string
		request func(t *testing.T, w world, st *store.Store) issuance.Request
		want    int64
	}{
		{"a new certificate, its code reserved by its caller", func(t *testing.T, w world, _ *store.Store) issuance.Request {
			c := w.newCertificate(w.attendee(t, "Ada"), false)
			code, err := issuance.DrawVerificationCode()
			if err != nil {
				t.Fatal(err)
			}
			c.VerificationCode = code
			testkit.SQLAt(t, w.DBURL, `INSERT INTO verification_codes (code, kind) VALUES ($1, 'certificate')`, code)
			return issuance.Request{AccountID: w.Account, Now: w.Clock.Now(), Certificates: []issuance.Certificate{{New: c, Event: certificateEvent}}}
		}, 1}, // the plan
		{"a new certificate", func(t *testing.T, w world, _ *store.Store) issuance.Request {
			return issuance.Request{AccountID: w.Account, Now: w.Clock.Now(), Certificates: []issuance.Certificate{{
				New: w.newCertificate(w.attendee(t, "Ada"), false), Event: certificateEvent}}}
		}, 2}, // code, the plan
		{"a draft turned issued", func(t *testing.T, w world, _ *store.Store) issuance.Request {
			d := w.draft(t, "Ada")
			return issuance.Request{AccountID: w.Account, Now: w.Clock.Now(), Certificates: []issuance.Certificate{{
				Draft: &d, Issuance: store.Issuance{Recipient: domain.Recipient{FirstName: d.FirstName, LastName: d.LastName, Email: d.Email}, Snapshot: json.RawMessage(`{}`), IssuedAt: w.Clock.Now().UTC()},
				Event: certificateEvent}}}
		}, 1}, // the plan
		{"a badge issued to three attendees, with their emails", func(t *testing.T, w world, _ *store.Store) issuance.Request {
			return w.badgeRequest(t, 3)
		}, 10}, // codes, assertions, 3 emails (a row and a River job each), subscribed?, the plan
	}
	for _, c := range cases {
		for _, subscribed := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s, subscribed to webhooks %v", c.name, subscribed), func(t *testing.T) {
				t.Parallel()
				w := world{testkit.NewWorld(t)}
				testkit.SQLAt(t, w.DBURL, `UPDATE accounts SET plan = 'unlimited' WHERE id = $1`, w.Account)
				if subscribed {
					w.subscribe(t, "*")
				}
				st, rt := testkit.CountingStore(t, w.DBURL)
				// Twice to warm up: the account's first entry is drawn the long way (its first
				// status list), the second issuance takes the common path.
				least := int64(1 << 30)
				for i := range 5 {
					r := c.request(t, w, st)
					r.Subscribed = subscribed
					_, err := store.InTx(t.Context(), st, func(tx *store.Tx) (issuance.Issued, error) {
						n := rt.Count()
						out, err := issuance.Issue(context.Background(), tx, r)
						if i >= 2 {
							least = min(least, rt.Count()-n)
						}
						return out, err
					})
					if err != nil {
						t.Fatal(err)
					}
				}
				want := c.want
				if subscribed {
					want += fanOutJob
				}
				if least != want {
					t.Fatalf("%d round trips, want %d", least, want)
				}
			})
		}
	}
}

// A certificate's snapshot is compressed with lz4 where the server has it (migration 00032),
// with the server's default elsewhere.
func TestSnapshotsAreCompressedWithLZ4WhereTheServerHasIt(t *testing.T) {
	t.Parallel()
	w := world{testkit.NewWorld(t)}
	c := w.newCertificate(w.attendee(t, "Ada"), false)
	c.Snapshot = json.RawMessage(`{"layout": "` + strings.Repeat("a certificate's layout, ", 200) + `"}`) // 4.8 KB, compressed when stored
	out, err := w.issue(t, issuance.Request{AccountID: w.Account, Now: w.Clock.Now(), Certificates: []issuance.Certificate{{New: c, Event: certificateEvent}}})
	if err != nil {
		t.Fatal(err)
	}
	var hasLZ4 bool
	var method string
	testkit.QueryRowAt(t, w.DBURL, `SELECT 'lz4' = ANY ((SELECT enumvals FROM pg_settings WHERE name = 'default_toast_compression')::text[]),
		coalesce(pg_column_compression(snapshot), 'none') FROM certificates WHERE id = $1`, []any{out.Certificates[0].ID}, &hasLZ4, &method)
	want := "pglz"
	if hasLZ4 {
		want = "lz4"
	}
	if method != want {
		t.Fatalf("the snapshot is stored compressed with %s, want %s (the server has lz4: %v)", method, want, hasLZ4)
	}
}

// A plan whose parts are not all of its account is refused by the executor before anything is
// written (store's TestAMixedPlanIsRefused has every kind); here, in a transaction that goes on.
func TestAMixedPlanWritesNothing(t *testing.T) {
	t.Parallel()
	w := world{testkit.NewWorld(t)}
	now := w.Clock.Now().UTC()
	_, err := store.InTx(t.Context(), w.Store, func(tx *store.Tx) (store.Applied, error) {
		return tx.ApplyIssuance(t.Context(), store.IssuancePlan{AccountID: w.Account, Now: now, CreditPeriod: issuance.CreditPeriod(now), Credits: 1,
			Certificates: []store.NewCertificate{{ID: uuid.New(), AccountID: uuid.New(), VerificationCode: "X"}}})
	})
	if err == nil || !strings.Contains(err.Error(), "another account") {
		t.Fatalf("a plan with another account's certificate: %v", err)
	}
	var rows int
	testkit.QueryRowAt(t, w.DBURL, `SELECT (SELECT count(*) FROM certificates) + (SELECT count(*) FROM credit_usage)`, nil, &rows)
	if rows != 0 {
		t.Fatalf("%d rows written", rows)
	}
}
