package main

import (
	"syscall"
	"testing"

	"github.com/certhub/credentiald/internal/testkit"
	"github.com/certhub/credentiald/internal/testkit/contract"
)

// Verification activity is counted in memory and written in batches: a clean shutdown
// (SIGTERM) writes what was counted, so a lookup just before it is not lost.
func TestBinaryWritesVerificationActivityWhenItStops(t *testing.T) {
	t.Parallel()
	dbURL := testkit.Database(t)
	cmd, addr, lines := startBinary(t, "DATABASE_URL="+dbURL)
	go func() {
		for range lines {
		}
	}()
	client := contract.NewClient(t, "http://"+addr)
	var session struct{ Data struct{ AccessToken string } }
	client.Post("/api/v1/auth/register", map[string]string{"email": "ada@example.org", "password": "correct horse battery",
		"name": "Ada", "accountName": "Analytical Society"}).JSON(t, &session)
	owner := client.WithBearer(session.Data.AccessToken)
	var event, attendee struct{ Data struct{ ID string } }
	owner.Post("/api/v1/events", map[string]any{"name": "Go Conference", "eventDate": "2026-11-12T09:00:00Z",
		"templateId": "00000000-0000-7000-8000-00000000c003"}).JSON(t, &event)
	owner.Post("/api/v1/attendees", map[string]any{"eventId": event.Data.ID, "firstName": "Grace", "lastName": "Hopper",
		"email": "grace@example.org"}).JSON(t, &attendee)
	var cert struct {
		Data struct{ VerificationCode string }
	}
	res := owner.Post("/api/v1/certificates/generate", map[string]any{"eventId": event.Data.ID, "attendeeId": attendee.Data.ID,
		"templateId": "00000000-0000-7000-8000-00000000c003", "sendEmail": false})
	res.JSON(t, &cert)
	if res.StatusCode != 200 {
		t.Fatalf("generate: %d %s", res.StatusCode, res.Body)
	}
	if res := client.Get("/api/v1/verify/" + cert.Data.VerificationCode); res.StatusCode != 200 {
		t.Fatalf("verify: %d %s", res.StatusCode, res.Body)
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("exit: %v", err)
	}
	var verifications int
	var verified bool
	testkit.QueryRowAt(t, dbURL, `SELECT coalesce(sum(verifications), 0)::int,
		(SELECT first_verified_at IS NOT NULL FROM certificates WHERE verification_code = $1) FROM analytics_daily`,
		[]any{cert.Data.VerificationCode}, &verifications, &verified)
	if verifications != 1 || !verified {
		t.Fatalf("after the shutdown: %d verifications, first verified %v", verifications, verified)
	}
}
