package credentials_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/certhub/credentiald/internal/accounts"
	"github.com/certhub/credentiald/internal/badges"
	"github.com/certhub/credentiald/internal/certificates"
	"github.com/certhub/credentiald/internal/credentials"
	"github.com/certhub/credentiald/internal/domain"
	"github.com/certhub/credentiald/internal/secretbox"
	"github.com/certhub/credentiald/internal/store"
	"github.com/certhub/credentiald/internal/testkit"
)

const site = "https://credentials.example.org"

// signing is an account that issues certificates and badges, on a stopped clock, over a store
// whose every query is logged.
type signing struct {
	st                       *store.Store
	dbURL                    string
	queries                  *queryLog
	clock                    *testkit.Clock
	box                      *secretbox.Box
	creds                    *credentials.Service
	certs                    *certificates.Service
	badges                   *badges.Service
	account, template, event uuid.UUID
}

func newSigning(t *testing.T) signing {
	t.Helper()
	ctx := context.Background()
	w := signing{dbURL: testkit.Database(t), queries: &queryLog{}, clock: &testkit.Clock{}, box: testkit.SecretBox(t)}
	var err error
	w.st, err = store.Open(ctx, w.dbURL, store.WithTracer(w.queries))
	require.NoError(t, err)
	t.Cleanup(w.st.Close)
	w.clock.Stop()
	w.creds = credentials.New(w.st, w.box, site, w.clock.Now)
	w.certs = certificates.New(w.st, site, w.clock.Now)
	w.badges = badges.New(w.st, site, "badges@example.org", w.clock.Now)
	acct, _, err := accounts.New(w.st, w.clock.Now, accounts.WithIssuerKeys(w.creds)).Create(ctx, accounts.CreateParams{
		Email: "owner@example.org", Password: testkit.Password, Name: "Owner", AccountName: "Analytical Society"})
	require.NoError(t, err)
	w.account = acct.ID
	tmpl, err := w.st.InsertTemplate(ctx, store.NewTemplate{AccountID: &w.account, Name: "Plain", PageSize: "A4", Orientation: "landscape",
		Layout: json.RawMessage(`{"rows":[{"height":40,"cols":[{"size":12,"content":{"type":"text","text":"{{recipient.fullName}}"}}]}]}`)}, w.clock.Now())
	require.NoError(t, err)
	w.template = tmpl.ID
	ev, err := w.st.CreateEvent(ctx, w.account, domain.EventFields{Name: "Congress", EventDate: w.clock.Now(), TemplateID: w.template, Locale: "en"}, w.clock.Now())
	require.NoError(t, err)
	w.event = ev.ID
	return w
}

// attendee adds an attendee to the event.
func (w signing) attendee(t *testing.T, first string) uuid.UUID {
	t.Helper()
	a, err := w.st.CreateAttendee(context.Background(), w.account, w.event, domain.AttendeeFields{FirstName: first, LastName: "Lovelace",
		Email: strings.ToLower(first) + "@example.org"}, w.clock.Now())
	require.NoError(t, err)
	return a.ID
}

// certificate issues a certificate to a new attendee and names its credential.
func (w signing) certificate(t *testing.T) credentials.Ref {
	t.Helper()
	c, err := w.certs.Generate(context.Background(), certificates.GenerateParams{AccountID: w.account, EventID: w.event,
		AttendeeID: w.attendee(t, "Ada"), TemplateID: w.template})
	require.NoError(t, err)
	return credentials.Ref{Kind: store.KindCertificate, ID: c.ID, AccountID: w.account, VerificationCode: c.VerificationCode}
}

// assertion issues a new badge to a new attendee and names the assertion's credential.
func (w signing) assertion(t *testing.T) credentials.Ref {
	t.Helper()
	ctx := context.Background()
	b, err := w.badges.Create(ctx, w.account, domain.BadgeFields{Name: "Speaker"})
	require.NoError(t, err)
	issued, err := w.badges.Issue(ctx, badges.IssueParams{AccountID: w.account, BadgeID: b.ID, AttendeeIDs: []uuid.UUID{w.attendee(t, "Grace")}})
	require.NoError(t, err)
	require.Len(t, issued, 1)
	a := issued[0]
	return credentials.Ref{Kind: store.KindBadgeAssertion, ID: a.ID, AccountID: w.account, VerificationCode: a.VerificationCode}
}

// queryLog records the queries a store sends, each by its sqlc name ("-- name: X"), or its
// first line when it has none.
type queryLog struct {
	mu    sync.Mutex
	names []string
}

func (l *queryLog) add(sql string) {
	name, _, _ := strings.Cut(strings.TrimSpace(sql), "\n")
	if rest, ok := strings.CutPrefix(name, "-- name: "); ok {
		name, _, _ = strings.Cut(rest, " ")
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.names = append(l.names, name)
}

// take returns the names logged since the last take and forgets them.
func (l *queryLog) take() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	names := l.names
	l.names = nil
	return names
}

func (l *queryLog) TraceQueryStart(ctx context.Context, _ *pgx.Conn, d pgx.TraceQueryStartData) context.Context {
	l.add(d.SQL)
	return ctx
}

func (l *queryLog) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData) {}

func (l *queryLog) TraceBatchStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceBatchStartData) context.Context {
	return ctx
}

func (l *queryLog) TraceBatchQuery(_ context.Context, _ *pgx.Conn, d pgx.TraceBatchQueryData) {
	l.add(d.SQL)
}

func (l *queryLog) TraceBatchEnd(context.Context, *pgx.Conn, pgx.TraceBatchEndData) {}

// advance moves the clock on, as the time between two requests.
func (w signing) advance(d time.Duration) { w.clock.Advance(d) }
