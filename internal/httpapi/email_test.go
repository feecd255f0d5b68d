package httpapi_test

import (
	"fmt"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"
)

func TestSendBulkAndTheDeliveriesList(t *testing.T) {
	t.Parallel()
	s := newIssuing(t)
	var ids []string
	for i := range 3 {
		a := s.acct.Attendee(t, s.event, "A", fmt.Sprint(i), fmt.Sprintf("a%d@example.org", i))
		var c certificateBody
		s.acct.Client.Post("/api/v1/certificates/generate", s.generate(a, map[string]any{"sendEmail": i == 0})).JSON(t, &c)
		ids = append(ids, c.Data.ID)
	}
	s.acct.Client.Post("/api/v1/certificates/"+ids[2]+"/revoke", nil)

	// Valid and not yet emailed: only the second. The revoked third and the emailed first are skipped.
	res := s.acct.Client.Post("/api/v1/email/send-bulk", map[string]any{"eventId": s.event})
	var out struct{ Data struct{ Queued, Skipped int } }
	res.JSON(t, &out)
	require.Equal(t, 202, res.StatusCode, "send-bulk: status (body %s)", res.Body)
	require.Equal(t, 1, out.Data.Queued, "send-bulk: out.Data.Queued")
	require.Equal(t, 1, out.Data.Skipped, "send-bulk: out.Data.Skipped")
	res = s.acct.Client.Post("/api/v1/email/send-bulk", map[string]any{"eventId": s.event, "onlyUnsent": false, "certificateIds": []string{ids[0], ids[2]}})
	res.JSON(t, &out)
	require.Equal(t, 1, out.Data.Queued, "named, resend: out.Data.Queued")
	require.Equal(t, 1, out.Data.Skipped, "named, resend: out.Data.Skipped")
	res = s.acct.Client.Post("/api/v1/email/send-bulk", map[string]any{"eventId": uuid.New()})
	wantError(t, res, 404, res.StatusCode, "NOT_FOUND")

	var page struct {
		Data []struct{ CertificateID, Status string }
		Meta struct{ Total int }
	}
	s.acct.Client.Get("/api/v1/email/deliveries?eventId="+s.event.String()).JSON(t, &page)
	if page.Meta.Total != 3 {
		t.Fatalf("deliveries: %+v", page)
	}
	s.acct.Client.Get("/api/v1/email/deliveries?certificateId="+ids[0]+"&status=queued").JSON(t, &page)
	require.Equal(t, 2, page.Meta.Total, "filtered: page.Meta.Total")
	require.Equal(t, ids[0], page.Data[0].CertificateID, "filtered: page.Data[0].CertificateID")
	if _, err := runEmail(t, s.env); err != nil {
		t.Fatal(err)
	}
	s.acct.Client.Get("/api/v1/email/deliveries?status=sent").JSON(t, &page)
	if page.Meta.Total != 3 {
		t.Fatalf("sent: %+v", page)
	}
	s.acct.Client.Get("/api/v1/email/deliveries?eventId="+uuid.NewString()).JSON(t, &page)
	if page.Meta.Total != 0 {
		t.Fatalf("another event: %+v", page)
	}
}
