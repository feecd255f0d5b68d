package main

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/certhub/credentiald/internal/testkit"
	"github.com/certhub/credentiald/internal/testkit/contract"
	"github.com/certhub/credentiald/internal/testkit/pdftext"
)

// Names with characters beyond the Basic Multilingual Plane once stopped the process: the PDF
// library panicked in the email worker, and again after every restart. Against the real
// binary, such names are issued (typed and imported by CSV), downloaded, previewed and emailed,
// and the server is still serving afterwards.
func TestNamesBeyondTheBMPAreIssuedAndEmailedWithoutStoppingTheServer(t *testing.T) {
	t.Parallel()
	dataDir := t.TempDir()
	cmd, addr, lines := startBinary(t, "DATA_DIR="+dataDir)
	exited := make(chan struct{})
	go func() {
		for range lines {
		}
		close(exited)
	}()
	env := &testkit.Env{Client: contract.NewClient(t, "http://"+addr)}
	acct := testkit.SignUp(t, env)
	c := acct.Client
	const classic = "00000000-0000-7000-8000-00000000c001"
	var ev struct{ Data struct{ ID string } }
	c.Post("/api/v1/events", map[string]any{"name": "Go 😀 Conference", "eventDate": "2026-11-12T09:00:00Z", "templateId": classic}).JSON(t, &ev)

	names := [][2]string{{"Ana 😀", "Lima"}, {"𝓐lice", "𝓑rown"}, {"𠀀𠮷", "田中"}, {"Jürgen", "鈴木 👍🏽"}}
	var attendees []string
	for i, n := range names {
		var a struct{ Data struct{ ID string } }
		res := c.Post("/api/v1/attendees", map[string]any{"eventId": ev.Data.ID, "firstName": n[0], "lastName": n[1],
			"email": "person" + string(rune('a'+i)) + "@example.org"})
		if res.StatusCode != 201 {
			t.Fatalf("attendee %q: %d %s", n, res.StatusCode, res.Body)
		}
		res.JSON(t, &a)
		attendees = append(attendees, a.Data.ID)
	}
	csv := "firstName,lastName,email\n🦊 Zoë,𝕏avier,zoe@example.org\n"
	if res := c.Upload("/api/v1/attendees/import?eventId="+ev.Data.ID, "file", "people.csv", []byte(csv)); res.StatusCode != 200 {
		t.Fatalf("import: %d %s", res.StatusCode, res.Body)
	}
	var list struct{ Data []struct{ ID, Email string } }
	c.Get("/api/v1/events/"+ev.Data.ID+"/attendees?pageSize=100").JSON(t, &list)
	for _, a := range list.Data {
		if a.Email == "zoe@example.org" {
			attendees = append(attendees, a.ID)
		}
	}
	names = append(names, [2]string{"🦊 Zoë", "𝕏avier"})
	if len(attendees) != len(names) {
		t.Fatalf("%d attendees for %d names", len(attendees), len(names))
	}

	for i, id := range attendees {
		var cert struct{ Data struct{ ID string } }
		res := c.Post("/api/v1/certificates/generate", map[string]any{"eventId": ev.Data.ID, "templateId": classic, "attendeeId": id, "sendEmail": true})
		if res.StatusCode != 200 {
			t.Fatalf("generate for %q: %d %s", names[i], res.StatusCode, res.Body)
		}
		res.JSON(t, &cert)
		res = c.Get("/api/v1/certificates/" + cert.Data.ID + "/download")
		if res.StatusCode != 200 {
			t.Fatalf("download for %q: %d %s", names[i], res.StatusCode, res.Body)
		}
		text, err := pdftext.Text(res.Body)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range names[i][0] + names[i][1] {
			if r <= 0xFFFF && r != ' ' && !strings.ContainsRune(text, r) {
				t.Fatalf("the PDF of %q lacks %q:\n%s", names[i], r, text)
			}
		}
		if res := c.Post("/api/v1/certificates/"+cert.Data.ID+"/send", nil); res.StatusCode != 202 {
			t.Fatalf("send for %q: %d %s", names[i], res.StatusCode, res.Body)
		}
	}
	for _, n := range names {
		req := c.Request(http.MethodPost, "/api/v1/templates/"+classic+"/preview",
			map[string]any{"sample": map[string]any{"recipient": map[string]any{"firstName": n[0], "lastName": n[1]}}})
		req.Header.Set("Accept", "image/png")
		if res := c.Do(req); res.StatusCode != 200 || res.Header.Get("Content-Type") != "image/png" {
			t.Fatalf("png preview of %q: %d %s", n, res.StatusCode, res.Body)
		}
	}

	// Every email (one at issuance, one sent again) goes out with its PDF.
	want := 2 * len(names)
	deadline := time.Now().Add(60 * time.Second)
	for {
		var sent struct{ Meta struct{ Total int } }
		c.Get("/api/v1/email/deliveries?status=sent&pageSize=1").JSON(t, &sent)
		if sent.Meta.Total == want {
			break
		}
		select {
		case <-exited:
			t.Fatalf("the server exited after %d of %d emails", sent.Meta.Total, want)
		default:
		}
		if time.Now().After(deadline) {
			var failed struct{ Data []struct{ LastError *string } }
			c.Get("/api/v1/email/deliveries?status=failed").JSON(t, &failed)
			t.Fatalf("%d of %d emails sent; failed: %+v", sent.Meta.Total, want, failed.Data)
		}
		time.Sleep(100 * time.Millisecond)
	}
	files, _ := filepath.Glob(filepath.Join(dataDir, "outbox", "*.eml"))
	pdfs := 0
	for _, f := range files {
		raw, _ := os.ReadFile(f)
		if strings.Contains(string(raw), "application/pdf") {
			pdfs++
		}
	}
	if pdfs < want {
		t.Fatalf("%d emails carry a PDF, want %d", pdfs, want)
	}
	if res := env.Client.Get("/readyz"); res.StatusCode != 200 || cmd.ProcessState != nil {
		t.Fatalf("after the names: readyz %d, process state %v", res.StatusCode, cmd.ProcessState)
	}
}
