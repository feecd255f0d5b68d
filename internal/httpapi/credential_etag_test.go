package httpapi_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/certhub/credentiald/gen/api"
	"github.com/certhub/credentiald/internal/app"
	"github.com/certhub/credentiald/internal/logging"
	"github.com/certhub/credentiald/internal/store"
	"github.com/certhub/credentiald/internal/testkit"
	"github.com/certhub/credentiald/internal/testkit/contract"
)

// A verifier revalidating a credential it holds, in either form, costs the service one query
// and no signature: a second instance over the same database, whose secrets cannot open the
// issuer's key, answers it 304 with the tag the first gave, in one query once its lookup holds
// the certificate, though it cannot answer the same request without the tag.
func TestRevalidatingACredentialCostsOneQueryAndNoSignature(t *testing.T) {
	t.Parallel()
	s := newIssuing(t)
	c := s.issue(t, "Ada", "Lovelace", nil)
	other := countedInstance(t, s.env)
	for _, form := range []string{"credential.json", "credential.jwt"} {
		path := "/api/v1/verify/" + c.Data.VerificationCode + "/" + form
		res := s.env.Client.Get(path)
		require.Equal(t, http.StatusOK, res.StatusCode, "%s: %s", path, res.Body)
		tag := res.Header.Get("ETag")
		require.NotEmpty(t, tag)
		if form == "credential.json" {
			var cred api.OpenBadgeCredential
			res.JSON(t, &cred)
			require.Equal(t, "urn:uuid:"+c.Data.ID, cred.Id)
		}

		// The first request looks the code up; the lookup keeps the certificate.
		require.Equal(t, http.StatusNotModified, other.revalidate(path, tag).StatusCode)
		other.queries.take()
		again := other.revalidate(path, tag)
		require.Equal(t, http.StatusNotModified, again.StatusCode)
		require.Equal(t, tag, again.Header.Get("ETag"))
		require.Empty(t, again.Body)
		if diff := cmp.Diff([]string{"CredentialVersion"}, other.queries.take()); diff != "" {
			t.Errorf("%s revalidated with (-want +got):\n%s", form, diff)
		}
		require.Equal(t, http.StatusInternalServerError, other.client.Get(path).StatusCode,
			"%s: answering in full signs, which the second instance's secrets cannot", form)
	}
}

// Revoking a certificate through the API moves its credential's tag on both routes: the tag
// held by a verifier no longer revalidates, and the new one does.
func TestRevokingACertificateMovesItsCredentialsTag(t *testing.T) {
	t.Parallel()
	s := newIssuing(t)
	c := s.issue(t, "Ada", "Lovelace", nil)
	public := s.env.Client
	paths := []string{"/api/v1/verify/" + c.Data.VerificationCode + "/credential.json", "/api/v1/verify/" + c.Data.VerificationCode + "/credential.jwt"}
	before := map[string]string{}
	for _, path := range paths {
		res := public.Get(path)
		require.Equal(t, http.StatusOK, res.StatusCode, "%s: %s", path, res.Body)
		before[path] = res.Header.Get("ETag")
	}
	res := s.acct.Client.Post("/api/v1/certificates/"+c.Data.ID+"/revoke", map[string]any{"reason": "typo"})
	require.Equal(t, http.StatusOK, res.StatusCode, "revoke: %s", res.Body)
	for _, path := range paths {
		res := public.Do(withHeader(public.Request(http.MethodGet, path, nil), "If-None-Match", before[path]))
		require.Equal(t, http.StatusOK, res.StatusCode, "%s with the tag from before the revocation", path)
		after := res.Header.Get("ETag")
		require.NotEqual(t, before[path], after, path)
		notModified(t, public, path, after)
	}
}

// counted is a second instance of the service over a test's database, with secrets of its own
// and every query of its store logged.
type counted struct {
	client  *contract.Client
	queries *queryLog
}

func countedInstance(t *testing.T, env *testkit.Env) counted {
	t.Helper()
	ctx := context.Background()
	queries := &queryLog{}
	st, err := store.Open(ctx, env.Config.DatabaseURL, store.WithTracer(queries))
	require.NoError(t, err)
	t.Cleanup(st.Close)
	cfg := env.Config
	cfg.SecretsKey, cfg.DataDir = testkit.SecretsKey(), t.TempDir()
	svc, err := app.Build(ctx, cfg, st, logging.New(io.Discard, slog.LevelError), app.Overrides{})
	require.NoError(t, err)
	t.Cleanup(svc.Close)
	svc.Changes().Listening() // the lookups keep what they read, as while listening for changes
	srv := httptest.NewServer(svc.Handler)
	t.Cleanup(srv.Close)
	return counted{client: contract.NewClient(t, srv.URL), queries: queries}
}

// revalidate asks for path with tag in If-None-Match.
func (c counted) revalidate(path, tag string) *contract.Response {
	return c.client.Do(withHeader(c.client.Request(http.MethodGet, path, nil), "If-None-Match", tag))
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
