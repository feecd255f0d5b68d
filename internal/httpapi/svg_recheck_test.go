package httpapi_test

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"image/png"
	"net/http"
	"strings"
	"testing"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"
	"github.com/stretchr/testify/require"

	"github.com/certhub/credentiald/internal/jobs"
	"github.com/certhub/credentiald/internal/render"
	"github.com/certhub/credentiald/internal/svgrecheck"
	"github.com/certhub/credentiald/internal/testkit"
)

// activeSVG draws a square, and, opened by a browser, fetches src through an XHTML <img>: what
// the upload check let through before issue 49.
func activeSVG(colour, src string) string {
	svg := `<svg xmlns="http://www.w3.org/2000/svg" xmlns:h="http://www.w3.org/1999/xhtml" viewBox="0 0 40 20">` +
		`<rect width="40" height="20" fill="` + colour + `"/><h:img src="` + src + `"/></svg>`
	return "data:image/svg+xml;base64," + base64.StdEncoding.EncodeToString([]byte(svg))
}

// isPNGURI reports whether uri is a PNG data URI that decodes.
func isPNGURI(uri string) bool {
	raw, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(uri, "data:image/png;base64,"))
	if err != nil || !strings.HasPrefix(uri, "data:image/png;base64,") {
		return false
	}
	_, err = png.Decode(bytes.NewReader(raw))
	return err == nil
}

// runSVGRecheck queues the recheck as a start does and works its jobs, batch after batch, until
// none is due; it returns how many jobs it worked.
func runSVGRecheck(t *testing.T, env *testkit.Env) int {
	t.Helper()
	recheck := svgrecheck.New(env.Store, env.Service.Now, nil)
	if err := recheck.Enqueue(t.Context()); err != nil {
		t.Fatal(err)
	}
	j := testkit.NewJobs(t, env.Config.DatabaseURL, env.Service.Now)
	testkit.AddJobWorker(j, recheck.Worker())
	worked := 0
	for range 100 {
		due := j.WorkDue(jobs.RecheckSVGs{}.Kind())
		if len(due) == 0 {
			return worked
		}
		for _, job := range due {
			if job.State != rivertype.JobStateCompleted {
				t.Fatalf("job %d (%s): %s, %v", job.ID, job.EncodedArgs, job.State, job.Errors)
			}
		}
		worked += len(due)
	}
	t.Fatal("the recheck did not end")
	return 0
}

// SVGs stored before the upload check refused XHTML (here written straight into the database,
// as they were then) are checked again by the recheck job: the issuer's logo, a signature, a
// badge's image and a template's images that fail today's check become their rasterisations
// as PNGs, and the logo is served as image/png; the badge's SVG now wraps the PNG. What passes
// stays as it was. The recheck runs once: a start after it queues nothing, and a batch worked
// again changes nothing.
func TestStoredSVGsThatFailTodaysCheckAreRasterised(t *testing.T) {
	t.Parallel()
	b := newBadging(t)
	env := b.env
	const sink = "https://tracker.example/pixel.png"
	if res := b.acct.Client.Put("/api/v1/branding", map[string]any{"issuerName": "Gophers e.V."}); res.StatusCode != http.StatusOK {
		t.Fatalf("branding: %d %s", res.StatusCode, res.Body)
	}
	badge := b.badge(t, map[string]any{"name": "Speaker"})
	clean := b.badge(t, map[string]any{"name": "Listener"})
	cleanSVG := "data:image/svg+xml;base64," + base64.StdEncoding.EncodeToString([]byte(
		`<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10"><circle cx="5" cy="5" r="4" fill="#0E7C66"/></svg>`))
	res := b.acct.Client.Post("/api/v1/templates", map[string]any{"name": "Framed", "layout": map[string]any{
		"background": map[string]any{"color": "#FFFFFF", "image": cleanSVG},
		"rows": []any{map[string]any{"height": 40, "cols": []any{
			map[string]any{"size": 6, "content": map[string]any{"type": "image", "image": cleanSVG}},
			map[string]any{"size": 6, "content": map[string]any{"type": "text", "text": "{{recipient.fullName}}", "fontSize": 20}}}}}}})
	var tmpl struct{ Data struct{ ID string } }
	res.JSON(t, &tmpl)
	if res.StatusCode != http.StatusCreated {
		t.Fatalf("template: %d %s", res.StatusCode, res.Body)
	}

	// Stored as before the stricter check.
	signatories, _ := json.Marshal([]map[string]any{{"name": "Grace Hopper", "signatureImage": activeSVG("#123456", sink)}})
	testkit.SQL(t, env, `UPDATE branding SET logo = $1, signatories = $2::jsonb WHERE account_id = $3`,
		activeSVG("#1F2A44", sink), string(signatories), b.acct.ID)
	testkit.SQL(t, env, `UPDATE badges SET image = $1 WHERE id = $2`, activeSVG("#C9A227", sink), badge.Data.ID)
	testkit.SQL(t, env, `UPDATE badges SET image = $1 WHERE id = $2`, cleanSVG, clean.Data.ID)
	testkit.SQL(t, env, `UPDATE templates SET layout = jsonb_set(jsonb_set(layout, '{background,image}', to_jsonb($1::text)),
		'{rows,0,cols,0,content,image}', to_jsonb($1::text)) WHERE id = $2`, activeSVG("#AA0000", sink), tmpl.Data.ID)
	_, issued := b.issue(t, b.acct.Client, badge.Data.ID, ids(b.attendee(t, "Ada")))
	code := issued.Data[0].VerificationCode
	if res := env.Client.Get("/api/v1/verify/" + code + "/issuer-logo"); res.Header.Get("Content-Type") != "image/svg+xml" {
		t.Fatalf("before the recheck, the logo is served as %q", res.Header.Get("Content-Type"))
	}

	if n := runSVGRecheck(t, env); n != 3 { // one batch of each stage: branding, badges, templates
		t.Fatalf("%d jobs worked, want 3", n)
	}

	var branding struct {
		Data struct {
			Logo        string
			Signatories []struct{ SignatureImage string }
		}
	}
	b.acct.Client.Get("/api/v1/branding").JSON(t, &branding)
	require.True(t, isPNGURI(branding.Data.Logo), "branding: logo %.40q is not a PNG", branding.Data.Logo)
	require.Len(t, branding.Data.Signatories, 1, "branding: signatories")
	require.True(t, isPNGURI(branding.Data.Signatories[0].SignatureImage), "branding: signature image %.40v is not a PNG", branding.Data.Signatories[0].SignatureImage)
	var got badgeBody
	b.acct.Client.Get("/api/v1/badges/"+badge.Data.ID).JSON(t, &got)
	if !isPNGURI(got.Data.Image) {
		t.Fatalf("the badge's image is %.40q", got.Data.Image)
	}
	b.acct.Client.Get("/api/v1/badges/"+clean.Data.ID).JSON(t, &got)
	if got.Data.Image != cleanSVG {
		t.Fatalf("a badge whose SVG passes was changed: %.60q", got.Data.Image)
	}
	var layout struct {
		Data struct {
			Layout struct {
				Background struct{ Image string }
				Rows       []struct {
					Cols []struct{ Content struct{ Image, Text string } }
				}
			}
		}
	}
	b.acct.Client.Get("/api/v1/templates/"+tmpl.Data.ID).JSON(t, &layout)
	l := layout.Data.Layout
	require.True(t, isPNGURI(l.Background.Image), "template: background %.40q is not a PNG", l.Background.Image)
	require.True(t, isPNGURI(l.Rows[0].Cols[0].Content.Image), "template: image %.40q is not a PNG", l.Rows[0].Cols[0].Content.Image)
	require.Equal(t, "{{recipient.fullName}}", l.Rows[0].Cols[1].Content.Text, "template: text")

	logo := env.Client.Get("/api/v1/verify/" + code + "/issuer-logo")
	require.Equal(t, http.StatusOK, logo.StatusCode, "the logo: status")
	require.Equal(t, "image/png", logo.Header.Get("Content-Type"), "the logo: Content-Type")
	baked := env.Client.Get("/api/v1/verify/" + code + "/badge.svg")
	require.Equal(t, http.StatusOK, baked.StatusCode, "badge.svg: status (body %.300s)", baked.Body)
	require.False(t, bytes.Contains(baked.Body, []byte(sink)), "badge.svg holds the hostile image: %.300s", baked.Body)
	require.True(t, bytes.Contains(baked.Body, []byte(`href="data:image/png;base64,`)), "badge.svg holds no PNG image: %.300s", baked.Body)
	if res := env.Client.Get("/api/v1/verify/" + code + "/badge.png"); res.StatusCode != http.StatusOK {
		t.Fatalf("badge.png: %d", res.StatusCode)
	}

	// Once finished, a start queues nothing; a batch worked again (its process died after its
	// commit, and River took it up) changes nothing.
	before := testkit.Fingerprint(t, env)
	if n := runSVGRecheck(t, env); n != 0 {
		t.Fatalf("a start after the recheck worked %d jobs", n)
	}
	w := svgrecheck.New(env.Store, env.Service.Now, nil).Worker()
	again := &river.Job[jobs.RecheckSVGs]{JobRow: &rivertype.JobRow{Attempt: 1, MaxAttempts: 10},
		Args: jobs.RecheckSVGs{Version: render.SVGCheckVersion, Stage: "badges"}}
	if err := w.Work(t.Context(), again); err != nil {
		t.Fatal(err)
	}
	if after := testkit.Fingerprint(t, env); after != before {
		t.Fatal("working a batch again changed the database")
	}
}

// The recheck goes in bounded batches, each queuing the next in the transaction that writes
// its own: forty badges with active SVGs take several jobs of each a few rasterisations, a
// process that starts in the middle (its River client gone, a new one working what is queued)
// carries on where the last batch committed, and every badge ends as a PNG.
func TestTheSVGRecheckGoesInBatchesAndSurvivesARestart(t *testing.T) {
	t.Parallel()
	b := newBadging(t)
	env := b.env
	// 17 badges: two full batches of 8 rasterisations and one of 1.
	var badges []string
	for i := range 17 {
		badges = append(badges, b.badge(t, map[string]any{"name": fmt.Sprintf("Badge %d", i)}).Data.ID)
	}
	testkit.SQL(t, env, `UPDATE badges SET image = $1 WHERE account_id = $2`, activeSVG("#1F2A44", "https://tracker.example/p.png"), b.acct.ID)

	recheck := svgrecheck.New(env.Store, env.Service.Now, nil)
	if err := recheck.Enqueue(t.Context()); err != nil {
		t.Fatal(err)
	}
	first := testkit.NewJobs(t, env.Config.DatabaseURL, env.Service.Now)
	testkit.AddJobWorker(first, recheck.Worker())
	first.WorkDue(jobs.RecheckSVGs{}.Kind()) // branding: nothing to do
	first.WorkDue(jobs.RecheckSVGs{}.Kind()) // the first batch of badges
	var pngs int
	testkit.QueryRow(t, env, `SELECT count(*) FROM badges WHERE account_id = $1 AND image LIKE 'data:image/png;%'`,
		[]any{b.acct.ID}, &pngs)
	require.NotEqual(t, 0, pngs, "after one batch, PNG badges of %d; want some, not all", len(badges))
	require.NotEqual(t, len(badges), pngs, "after one batch, PNG badges of %d; want some, not all", len(badges))

	// Another process, started now: Enqueue finds the job queued (unique), its client works on.
	if n := runSVGRecheck(t, env); n < 2 {
		t.Fatalf("the rest took %d jobs; batches rasterise at most 8 images", n)
	}
	for _, id := range badges {
		var got badgeBody
		b.acct.Client.Get("/api/v1/badges/"+id).JSON(t, &got)
		if !isPNGURI(got.Data.Image) {
			t.Fatalf("badge %s: %.40q", id, got.Data.Image)
		}
	}
	var finished int
	testkit.QueryRow(t, env, `SELECT count(*) FROM svg_rechecks WHERE check_version = $1`, []any{render.SVGCheckVersion}, &finished)
	if finished != 1 {
		t.Fatalf("the recheck of version %d is not recorded finished", render.SVGCheckVersion)
	}
}
