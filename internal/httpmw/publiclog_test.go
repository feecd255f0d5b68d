package httpmw

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"
	"time"
)

// Public lookups are logged as one summary line per route and status every 10 seconds.
func TestPublicAccessLogIsASummary(t *testing.T) {
	var buf bytes.Buffer
	a := NewAccessSummary(slog.New(slog.NewJSONHandler(&buf, nil)))
	start := time.Date(2026, 11, 13, 10, 0, 0, 0, time.UTC)
	a.since = start
	for i := range 99 {
		a.add(accessKey{method: "GET", route: "/api/v1/verify/:code", status: 200}, time.Duration(i+1)*time.Millisecond, start.Add(time.Duration(i)*time.Millisecond))
	}
	a.add(accessKey{method: "GET", route: "/api/v1/verify/:code", status: 404}, time.Millisecond, start.Add(time.Second))
	if buf.Len() != 0 {
		t.Fatalf("logged before the window closed: %s", buf.String())
	}
	a.add(accessKey{method: "GET", route: "/verify/:code", status: 200}, time.Millisecond, start.Add(summaryEvery))
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(lines) != 3 {
		t.Fatalf("want one line per route and status, got:\n%s", buf.String())
	}
	var first struct {
		Msg, Method, Route string
		Status, Count      int
		MedianMS           float64 `json:"median_ms"`
		SlowestMS          float64 `json:"slowest_ms"`
	}
	if err := json.Unmarshal([]byte(lines[0]), &first); err != nil {
		t.Fatal(err)
	}
	if first.Msg != "public requests" || first.Route != "/api/v1/verify/:code" || first.Status != 200 || first.Count != 99 ||
		first.MedianMS != 50 || first.SlowestMS != 99 {
		t.Fatalf("summary: %s", lines[0])
	}
}
