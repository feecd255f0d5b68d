package httpapi_test

import (
	"bytes"
	"context"
	"fmt"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/browser"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
	"github.com/makiuchi-d/gozxing"
	gozxingqr "github.com/makiuchi-d/gozxing/qrcode"
	"github.com/stretchr/testify/require"

	"github.com/certhub/credentiald/internal/testkit"
)

// eventPageCSV is an attendee list of three rows, the second (line 3) with an address that is not one.
const eventPageCSV = "firstName,lastName,email\nKatherine,Johnson,katherine@example.org\nDorothy,Vaughan,not-an-email\nMary,Jackson,mary@example.org\n"

// eventPageClick clicks the first element that the XPath expr finds.
func eventPageClick(a *appTab, expr string) {
	a.t.Helper()
	sel := chromedp.Search(expr)
	a.do(chromedp.WaitVisible(sel), chromedp.Click(sel))
}

// eventPageWait waits until the script cond holds on the page.
func eventPageWait(a *appTab, cond string) {
	a.t.Helper()
	ctx, cancel := context.WithTimeout(a.tab, stepTimeout)
	defer cancel()
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](cond, chromedp.WithPollingTimeout(stepTimeout))); err != nil {
		a.t.Fatalf("waiting for %s: %v (the page: %.2000s; complaints: %v)", cond, err, a.page(), a.complaints())
	}
}

// eventPageShot saves a screenshot of the whole page as name under SCREENSHOT_DIR, when set.
func eventPageShot(a *appTab, name string) {
	a.t.Helper()
	dir := os.Getenv("SCREENSHOT_DIR")
	if dir == "" {
		return
	}
	png := value(a, chromedp.FullScreenshot(100))
	require.NoError(a.t, os.WriteFile(filepath.Join(dir, name), png, 0o644))
}

// eventPageIssueButtons is the script answering how many attendees' rows offer to issue.
const eventPageIssueButtons = `document.querySelectorAll("section[aria-labelledby=attendees-h] tbody button").length`

// eventPageColumn is the script answering the texts of column n (from 1) of the attendees' table.
func eventPageColumn(n int) string {
	return fmt.Sprintf(`[...document.querySelectorAll("section[aria-labelledby=attendees-h] tbody tr")].map(r => r.cells[%d].textContent.trim())`, n-1)
}

// eventPagePreview is the script answering the CSV preview's table: its header's and rows' texts.
const eventPagePreview = `[...document.querySelectorAll(".ev-preview tr")].map(r => [...r.cells].map(c => c.textContent.trim()))`

// eventPageDownload waits for the file name in dir, saved by the browser, and answers its lines.
func eventPageDownload(t *testing.T, dir, name string) []string {
	t.Helper()
	var text []byte
	require.Eventually(t, func() bool {
		var err error
		text, err = os.ReadFile(filepath.Join(dir, name))
		return err == nil && len(text) > 0
	}, stepTimeout, 100*time.Millisecond, "%s was saved", name)
	return strings.Split(strings.TrimRight(strings.ReplaceAll(string(text), "\r\n", "\n"), "\n"), "\n")
}

// An organiser opens the page of an event in the application, at a phone's width and a
// desktop's: its attendees are listed (searched, ordered by a column whose header says so);
// one added by hand with no address is refused next to the field, then added; a CSV file of
// three rows is previewed in the browser (header, rows, count; nothing sent yet; another file
// may be chosen), then adds two and names the refused one by its line, whose row downloads as
// a CSV written in the browser; one attendee is issued a certificate (with an
// Idempotency-Key); a background job issues to everyone else, followed to its end; the
// attendees download as CSV; a PDF downloads; a certificate is emailed again (the delivery is
// listed) and offered to a wallet in a dialog; a certificate is revoked after a confirmation
// in a dialog with a reason, and its status changes (the status filter finds it alone), and
// its holder, issued again with no credits left, is refused in words; one revoked elsewhere is
// not emailed, in the service's words. Every state passes axe-core with no complaint of the
// browser, and the phone's page never scrolls sideways (the tables scroll in their own box).
func TestTheApplicationsEventPage(t *testing.T) {
	env, browserCtx, axe := newAppServer(t)
	// Bulk jobs run on the service's job queue, which a test server starts only when asked.
	require.NoError(t, env.Service.Jobs.Start(context.Background()))
	t.Cleanup(func() { _ = env.Service.Jobs.Stop(context.Background()) })

	csvFile := filepath.Join(t.TempDir(), "attendees.csv")
	require.NoError(t, os.WriteFile(csvFile, []byte(eventPageCSV), 0o600))

	for _, size := range appSizes {
		t.Run(size.name, func(t *testing.T) {
			acct := testkit.SignUp(t, env)
			event := acct.Event(t, env, "GopherCon EU")
			acct.Attendee(t, event, "Ada", "Lovelace", "ada@example.org")
			acct.Attendee(t, event, "Grace", "Hopper", "grace@example.org")

			a := openApp(t, env, browserCtx, axe, "/app/", size.width, size.height, size.mobile)
			a.on("Sign in")
			a.fill("Email address", acct.Email)
			a.fill("Password", testkit.Password)
			a.press("Sign in")
			a.on("Home")
			a.do(chromedp.Navigate(env.URL + "/app/events/" + event.String()))
			a.on("GopherCon EU")
			a.sees("ada@example.org")
			a.sees("grace@example.org")
			a.sees("No certificates yet.")
			wide := fmt.Sprintf(`document.documentElement.scrollWidth <= %d`, size.width)
			require.True(t, value(a, chromedp.Evaluate[bool](wide)), "the page scrolls sideways")
			a.accessible("event page")
			eventPageShot(a, "event-"+size.name+".png")

			// Ordered by last name: the header says so, and Hopper comes first.
			eventPageClick(a, `//th[starts-with(normalize-space(.), "Last name")]/button`)
			eventPageWait(a, `document.querySelector("th[aria-sort=ascending]")?.textContent.startsWith("Last name") && `+eventPageColumn(2)+`[0] === "Hopper"`)
			// Searched: only Ada; the search cleared, both again.
			a.fill("Search attendees", "Lovelace")
			eventPageWait(a, `JSON.stringify(`+eventPageColumn(1)+`) === '["Ada"]'`)
			a.fill("Search attendees", kb.Backspace)
			eventPageWait(a, eventPageColumn(1)+`.length === 2`)

			// One added by hand: without an address, refused next to the field.
			a.fill("First name", "Alan")
			a.fill("Last name", "Turing")
			a.press("Add attendee")
			a.sees("The request is not valid.")
			require.Equal(t, 1, a.invalidFields(), "the empty address says what is wrong with it")
			a.accessible("add attendee, refused")
			a.fill("Email address", "alan@example.org")
			a.press("Add attendee")
			a.sees("Alan Turing was added.")
			a.sees("alan@example.org")
			require.Equal(t, 0, a.invalidFields(), "no field is refused after the attendee was added")

			// Files the page saves land here: the rejected rows, the export, a PDF.
			downloads := t.TempDir()
			_, err := chromedp.CallBrowser(a.tab, browser.SetDownloadBehavior, browser.SetDownloadBehaviorParams{
				Behavior: browser.SetDownloadBehaviorBehaviorAllow, BrowserContextID: chromedp.FromContext(a.tab).BrowserContextID, DownloadPath: downloads})
			require.NoError(t, err)

			// A CSV file is read in the browser first: its header, first rows and count show, and
			// nothing is sent until the import is confirmed.
			a.do(chromedp.SetUploadFiles(chromedp.CSS(`input[type=file]`), []string{csvFile}))
			a.sees("Check attendees.csv")
			a.sees("3 rows to import.")
			eventPageWait(a, `JSON.stringify(`+eventPagePreview+`) === '[["Line","firstName","lastName","email"],["2","Katherine","Johnson","katherine@example.org"],["3","Dorothy","Vaughan","not-an-email"],["4","Mary","Jackson","mary@example.org"]]'`)
			var attendees int
			testkit.QueryRow(t, env, `SELECT count(*) FROM attendees WHERE event_id = $1`, []any{event}, &attendees)
			require.Equal(t, 3, attendees, "nothing is imported before the preview is confirmed")
			require.True(t, value(a, chromedp.Evaluate[bool](wide)), "the page scrolls sideways")
			a.accessible("import preview")
			eventPageShot(a, "event-preview-"+size.name+".png")
			// Another file may be chosen instead: the file input comes back, focused.
			a.press("Choose another file")
			eventPageWait(a, `document.activeElement?.type === "file"`)
			a.do(chromedp.SetUploadFiles(chromedp.CSS(`input[type=file]`), []string{csvFile}))

			// Imported: two added, line 3 refused for its address.
			a.press("Import these 3 rows")
			a.sees("2 added, 0 skipped, 1 rejected.")
			a.sees("Line 3:")
			a.sees("The email address is not valid.")
			a.sees("katherine@example.org")
			a.accessible("import done")
			eventPageShot(a, "event-import-"+size.name+".png")
			// The refused rows download as a CSV written in the browser.
			link := value(a, chromedp.Evaluate[[]string](`(a => a ? [a.href, a.download] : [])([...document.querySelectorAll("a[download]")].find(a => a.textContent.trim() === "Download the rejected rows (CSV)"))`))
			require.Len(t, link, 2, "a link downloads the rejected rows")
			require.True(t, strings.HasPrefix(link[0], "blob:"), "the rejected rows' link is a blob: URL, not %q", link[0])
			require.Equal(t, "attendees-rejected.csv", link[1])
			a.press("Download the rejected rows (CSV)")
			rejected := eventPageDownload(t, downloads, "attendees-rejected.csv")
			require.Len(t, rejected, 2, "the header and the one refused row")
			require.Equal(t, "\ufeffline,email,reason,message", rejected[0])
			require.True(t, strings.HasPrefix(rejected[1], "3,not-an-email,INVALID_EMAIL,"), "the refused row: %q", rejected[1])

			// One certificate, issued from Ada's row, with an Idempotency-Key.
			a.press("Issue a certificate to Ada Lovelace")
			a.sees("issued to Ada Lovelace.")
			eventPageWait(a, `document.querySelectorAll("section[aria-labelledby=certificates-h] tbody tr").length === 1`)
			var keys int
			testkit.QueryRow(t, env, `SELECT count(*) FROM idempotency_keys WHERE account_id = $1`, []any{acct.ID}, &keys)
			require.Equal(t, 1, keys, "the issuance was sent with an Idempotency-Key")
			a.accessible("one issued")

			// Everyone else: a job, followed until it finishes.
			a.press("Issue to everyone without a certificate")
			a.sees("4 issued, 0 skipped, 0 failed.")
			eventPageWait(a, `document.querySelectorAll("section[aria-labelledby=certificates-h] tbody tr").length === 5`)
			eventPageWait(a, `document.querySelectorAll("section[aria-labelledby=attendees-h] .ev-status-valid").length === 5`)
			require.Zero(t, value(a, chromedp.Evaluate[int](eventPageIssueButtons)), "no Issue for attendees holding a valid certificate")
			a.accessible("job done")
			eventPageShot(a, "event-issued-"+size.name+".png")

			// The attendees download as CSV through the API (with the session's token), a byte
			// order mark first for spreadsheets, under the event's name.
			a.press("Download attendees (CSV)")
			export := eventPageDownload(t, downloads, "GopherCon EU-attendees.csv")
			require.Equal(t, "\ufeffid,firstName,lastName,email,createdAt,certificateStatus,certificateNumber,verificationCode", export[0])
			require.Len(t, export, 6, "the header and the 5 attendees")
			require.Contains(t, strings.Join(export, "\n"), ",Katherine,Johnson,katherine@example.org,")

			// The PDF downloads through the API with the session's token, under its number's name.
			eventPageClick(a, `//section[@aria-labelledby="certificates-h"]//button[normalize-space(.)="PDF CERT-2026-000001"]`)
			require.Eventually(t, func() bool {
				pdf, err := os.ReadFile(filepath.Join(downloads, "CERT-2026-000001.pdf"))
				return err == nil && bytes.HasPrefix(pdf, []byte("%PDF"))
			}, stepTimeout, 100*time.Millisecond, "the PDF was saved")

			// Emailed again: the page says to whom, and the delivery is listed.
			var first string
			testkit.QueryRow(t, env, `SELECT id FROM certificates WHERE account_id = $1 AND certificate_number = 'CERT-2026-000001'`, []any{acct.ID}, &first)
			eventPageClick(a, `//section[@aria-labelledby="certificates-h"]//button[normalize-space(.)="Resend email CERT-2026-000001"]`)
			a.sees("Sent to ada@example.org.")
			var deliveries struct {
				Data []struct{ To, Subject string }
				Meta struct{ Total int }
			}
			acct.Client.Get("/api/v1/email/deliveries?certificateId="+first).JSON(t, &deliveries)
			require.Equal(t, 1, deliveries.Meta.Total, "one email of the certificate")
			require.Equal(t, "ada@example.org", deliveries.Data[0].To)
			a.accessible("resent")

			// A wallet offer, in a dialog: its link to copy or open, and the wallet links.
			eventPageClick(a, `//section[@aria-labelledby="certificates-h"]//button[normalize-space(.)="Wallet offer CERT-2026-000001"]`)
			a.sees("Wallet offer for Ada Lovelace")
			eventPageWait(a, `document.querySelector("dialog[open] input[readonly]")?.value.startsWith(`+fmt.Sprintf("%q", env.URL+"/interactions/")+`)`)
			eventPageWait(a, `[...document.querySelectorAll("dialog[open] a")].map(a => a.getAttribute("href").split(":")[0]).join() === "http,openid-credential-offer,https"`)
			a.accessible("wallet offer")
			a.shot("event-wallet-" + size.name + ".png")
			// The link shown is the offer's (the email sent above made one of its own).
			shown := value(a, chromedp.Evaluate[string](`document.querySelector("dialog[open] input[readonly]").value`))
			var offers struct {
				Data []struct{ InteractionURL string }
			}
			acct.Client.Get("/api/v1/certificates/"+first+"/wallet-offers").JSON(t, &offers)
			var links []string
			for _, o := range offers.Data {
				links = append(links, o.InteractionURL)
			}
			require.Contains(t, links, shown, "the dialog shows an offer of the certificate")
			// Its QR code, read by a QR reader from the pixels on the screen, is that link (on the
			// desktop: under phone emulation Chromium captures a modal dialog's element from the
			// wrong place; there the code is checked to be drawn).
			eventPageWait(a, `document.querySelector("dialog[open] svg.ev-qr path")?.getAttribute("d").length > 100`)
			if !size.mobile {
				shot := value(a, chromedp.Screenshot(chromedp.CSS("dialog[open] svg.ev-qr")))
				img, err := png.Decode(bytes.NewReader(shot))
				require.NoError(t, err)
				bmp, err := gozxing.NewBinaryBitmapFromImage(img)
				require.NoError(t, err)
				read, err := gozxingqr.NewQRCodeReader().Decode(bmp, nil)
				require.NoError(t, err, "the QR code on the screen reads")
				require.Equal(t, shown, read.GetText())
			}
			a.press("Close")
			eventPageWait(a, `!document.querySelector("dialog")`)

			// A certificate revoked, after a confirmation that asks why.
			eventPageClick(a, `(//section[@aria-labelledby="certificates-h"]//button[starts-with(normalize-space(.), "Revoke")])[1]`)
			a.sees("will verify as revoked from now on")
			a.fill("Reason", "Name misspelt; reissued")
			a.accessible("revoke dialog")
			a.shot("event-revoke-" + size.name + ".png")
			a.press("Revoke certificate")
			a.sees("was revoked.")
			a.sees("Name misspelt; reissued")
			eventPageWait(a, `document.querySelectorAll("section[aria-labelledby=certificates-h] .ev-status-revoked").length === 1`)
			var revoked int
			testkit.QueryRow(t, env, `SELECT count(*) FROM certificates WHERE event_id = $1 AND revoked_at IS NOT NULL AND revocation_reason = 'Name misspelt; reissued'`, []any{event}, &revoked)
			require.Equal(t, 1, revoked, "the certificate was revoked with the reason")
			require.True(t, value(a, chromedp.Evaluate[bool](wide)), "the page scrolls sideways")
			a.accessible("revoked")
			// Filtered by status: the revoked one alone.
			value(a, chromedp.Evaluate[bool](`(s => (s.value = "revoked", s.dispatchEvent(new Event("change", {bubbles: true})), true))(document.querySelector("section[aria-labelledby=certificates-h] select"))`))
			eventPageWait(a, `[...document.querySelectorAll("section[aria-labelledby=certificates-h] tbody tr")].map(r => r.cells[2].textContent).join() === "RevokedName misspelt; reissued"`)

			// Its holder may be issued one again; with no credits left, the refusal is said in words.
			eventPageWait(a, eventPageIssueButtons+` === 1`)
			testkit.SQL(t, env, `UPDATE credit_usage SET used = 12 WHERE account_id = $1`, acct.ID)
			eventPageClick(a, `//section[@aria-labelledby="attendees-h"]//button[starts-with(normalize-space(.), "Issue a certificate to")]`)
			a.sees("No credits left this month")
			a.accessible("no credits left")

			// Revoked meanwhile elsewhere, a certificate is not emailed: the page says so in the
			// service's words and reads the list again.
			value(a, chromedp.Evaluate[bool](`(s => (s.value = "", s.dispatchEvent(new Event("change", {bubbles: true})), true))(document.querySelector("section[aria-labelledby=certificates-h] select"))`))
			eventPageWait(a, `document.querySelectorAll("section[aria-labelledby=certificates-h] tbody tr").length === 5`)
			res := acct.Client.Post("/api/v1/certificates/"+first+"/revoke", map[string]string{"reasonCode": "other"})
			require.Equal(t, 200, res.StatusCode, "%s", res.Body)
			eventPageClick(a, `//section[@aria-labelledby="certificates-h"]//button[normalize-space(.)="Resend email CERT-2026-000001"]`)
			a.sees("CERT-2026-000001: A revoked certificate is not sent.")
			eventPageWait(a, `document.querySelectorAll("section[aria-labelledby=certificates-h] .ev-status-revoked").length === 2`)
			a.accessible("resend refused")

			// Searched by the recipient's name (the search index follows within seconds).
			a.fill("Search certificates", "Hopper")
			eventPageWait(a, `(r => r.length === 1 && r[0].textContent.includes("Grace Hopper"))(document.querySelectorAll("section[aria-labelledby=certificates-h] tbody tr"))`)
			a.accessible("certificates searched")
		})
	}
}
