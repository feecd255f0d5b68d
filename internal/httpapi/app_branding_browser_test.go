package httpapi_test

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"github.com/certhub/credentiald/internal/config"
	"github.com/certhub/credentiald/internal/testkit"
)

// brandingPNG writes a small valid PNG (w x h, one colour) as name under dir and returns its
// path and bytes.
func brandingPNG(t *testing.T, dir, name string, w, h int) (string, []byte) {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			img.Set(x, y, color.RGBA{R: 0x1f, G: 0x4e, B: 0x79, A: 0xff})
		}
	}
	var buf bytes.Buffer
	require.NoError(t, png.Encode(&buf, img))
	path := filepath.Join(dir, name)
	require.NoError(t, os.WriteFile(path, buf.Bytes(), 0o644))
	return path, buf.Bytes()
}

// brandingUpload chooses file in the file input labelled label.
func brandingUpload(a *appTab, label, file string) {
	a.t.Helper()
	sel := chromedp.Search(fmt.Sprintf(`//label[normalize-space(.)=%q]/following::input[@type="file"][1]`, label))
	a.do(chromedp.WaitVisible(sel), chromedp.SetUploadFiles(sel, []string{file}))
}

// brandingChoose picks the option whose text is option in the select labelled label, as the
// keyboard would (the change event the page listens to).
func brandingChoose(a *appTab, label, option string) {
	a.t.Helper()
	require.True(a.t, value(a, chromedp.Evaluate[bool](fmt.Sprintf(`(() => {
		const l = [...document.querySelectorAll("label")].find(l => l.textContent.trim() === %q);
		const s = l && document.getElementById(l.htmlFor);
		const o = s && [...s.options].find(o => o.textContent.trim() === %q);
		if (!o) return false;
		s.value = o.value;
		s.dispatchEvent(new Event("change", { bubbles: true }));
		return true;
	})()`, label, option))), "the option %q of %q", option, label)
}

// brandingFieldError is the error shown in the field whose label is label ("" when none).
func brandingFieldError(a *appTab, label string) string {
	a.t.Helper()
	return value(a, chromedp.Evaluate[string](fmt.Sprintf(`(() => {
		const l = [...document.querySelectorAll(".field > label")].find(l => l.textContent.trim() === %q);
		return l?.parentElement.querySelector(":scope > .error")?.textContent ?? "";
	})()`, label)))
}

// brandingInput is the value of the input labelled label.
func brandingInput(a *appTab, label string) string {
	a.t.Helper()
	return value(a, chromedp.Evaluate[string](fmt.Sprintf(`(() => {
		const l = [...document.querySelectorAll("label")].find(l => l.textContent.trim() === %q);
		return document.getElementById(l?.htmlFor ?? "")?.value ?? "(none)";
	})()`, label)))
}

type brandingSignatory struct {
	Name           string
	Title          *string
	SignatureImage *string
}

type brandingBody struct {
	Data struct {
		IssuerName, Website, Logo, PrimaryColor    *string
		EmailFromName, EmailReplyTo, DefaultLocale *string
		PublicEmail                                *string
		Signatories                                []brandingSignatory
	}
}

// An organisation's admin sets its branding in the application, at a phone's width and a
// desktop's: an empty branding says so; a colour not written #RRGGBB and a logo over 256 KiB
// are refused in words at their fields before anything is sent, and a file that is no image the
// API refuses in its words at the logo; then the issuer's name, website, a PNG logo, the
// colour, the emails' sender and reply-to, the default language and a signatory are saved
// ("Saved"), and the API answers them; a reload shows them, and a signatory removed is gone.
// A viewer sees the branding in a form they cannot change, which the API would refuse. Every
// state passes axe-core with no complaint of the browser.
func TestTheApplicationsBranding(t *testing.T) {
	smtp := testkit.SMTPServer(t)
	env, browserCtx, axe := newAppServer(t, testkit.WithConfig(func(c *config.Config) { c.SMTPURL = smtp.URL() }))
	dir := t.TempDir()
	logo, logoBytes := brandingPNG(t, dir, "logo.png", 48, 24)
	big := filepath.Join(dir, "big.png")
	require.NoError(t, os.WriteFile(big, bytes.Repeat([]byte{0x89}, 300<<10), 0o644))
	broken := filepath.Join(dir, "broken.png")
	require.NoError(t, os.WriteFile(broken, []byte("this is not a picture at all"), 0o644))

	for _, size := range appSizes {
		t.Run(size.name, func(t *testing.T) {
			acct := testkit.SignUp(t, env)
			a := openApp(t, env, browserCtx, axe, "/app/", size.width, size.height, size.mobile)
			a.on("Sign in")
			a.fill("Email address", acct.Email)
			a.fill("Password", testkit.Password)
			a.press("Sign in")
			a.on("Home")
			a.do(chromedp.Navigate(env.URL + "/app/branding"))
			a.on("Branding")
			a.sees("No logo yet.")
			a.sees("No signatories yet.")
			a.accessible("branding, empty")
			eventPageShot(a, "branding-empty-"+size.name+".png")

			// A colour not written #RRGGBB: refused at its field, nothing sent.
			a.fill("Issuer name", "Gophers e.V.")
			a.fill("Primary colour", "#1F4E7")
			a.press("Save the branding")
			a.sees("Write the colour as # and six hexadecimal digits")
			require.Equal(t, 1, a.invalidFields(), "the colour says what is wrong with it")
			require.Contains(t, brandingFieldError(a, "Primary colour"), "for example #1F4E79")
			focusOn(a, `document.activeElement.value === "#1F4E7"`, "the colour")
			var b brandingBody
			acct.Client.Get("/api/v1/branding").JSON(t, &b)
			require.Nil(t, b.Data.IssuerName, "nothing was saved")
			a.accessible("branding, colour refused")

			// A logo over 256 KiB: refused before it is sent, with its size and the limit.
			brandingUpload(a, "Logo", big)
			a.sees("big.png is 300 KiB; at most 256 KiB are accepted")
			require.Contains(t, brandingFieldError(a, "Logo"), "scale the image down or save it as SVG")
			a.accessible("branding, logo too large")
			eventPageShot(a, "branding-refused-"+size.name+".png")

			// A file called .png that is no image: the API refuses it, in its words, at the logo.
			a.fill("Primary colour", "#1F4E79")
			brandingUpload(a, "Logo", broken)
			a.sees("broken.png is chosen")
			a.press("Save the branding")
			a.sees("The branding is not valid.")
			require.Equal(t, 1, a.invalidFields(), "only the logo is refused")
			require.Contains(t, brandingFieldError(a, "Logo"), "cannot be drawn")
			require.Empty(t, brandingFieldError(a, "Primary colour"))
			a.accessible("branding, logo refused by the API")

			// Everything, saved.
			brandingUpload(a, "Logo", logo)
			a.sees("logo.png is chosen")
			require.Empty(t, brandingFieldError(a, "Logo"), "a new file clears the refusal")
			a.fill("Website", "https://gophers.example.org")
			a.fill("Email sender name", "Gophers Certificates")
			a.fill("Reply-to address", "certificates@gophers.example.org")
			brandingChoose(a, "Default language", "German")
			a.press("Add a signatory")
			focusOn(a, `document.activeElement.closest("fieldset.branding-signatory") !== null`, "the new signatory's name")
			a.fill("Name", "Grace Hopper")
			a.fill("Title", "Programme Chair")
			a.press("Save the branding")
			a.sees("Saved.")
			require.Equal(t, 0, a.invalidFields(), "no field is refused after saving")
			require.Equal(t, 1, value(a, chromedp.Evaluate[int](`document.querySelectorAll("[role=status] .success").length`)), "Saved in the status region")
			a.accessible("branding, saved")
			eventPageShot(a, "branding-saved-"+size.name+".png")
			a.shot("branding-saved-top-" + size.name + ".png")
			if size.mobile {
				require.LessOrEqual(t, value(a, chromedp.Evaluate[int](`document.documentElement.scrollWidth`)), int(size.width), "the page overflows")
			}

			b = brandingBody{}
			acct.Client.Get("/api/v1/branding").JSON(t, &b)
			d := b.Data
			str := func(p *string) string {
				if p == nil {
					return "(null)"
				}
				return *p
			}
			require.Equal(t, "Gophers e.V.", str(d.IssuerName))
			require.Equal(t, "https://gophers.example.org", str(d.Website))
			require.Equal(t, "#1F4E79", str(d.PrimaryColor))
			require.Equal(t, "Gophers Certificates", str(d.EmailFromName))
			require.Equal(t, "certificates@gophers.example.org", str(d.EmailReplyTo))
			require.Equal(t, "de", str(d.DefaultLocale))
			require.Equal(t, "(null)", str(d.PublicEmail))
			require.Equal(t, "data:image/png;base64,"+base64.StdEncoding.EncodeToString(logoBytes), str(d.Logo), "the logo is the file's bytes")
			require.Len(t, d.Signatories, 1)
			require.Equal(t, "Grace Hopper", d.Signatories[0].Name)
			require.Equal(t, "Programme Chair", str(d.Signatories[0].Title))
			require.Nil(t, d.Signatories[0].SignatureImage)

			// A reload shows what was saved; a signatory removed and saved is gone, the rest kept.
			a.do(chromedp.Reload())
			a.on("Branding")
			a.do(chromedp.WaitVisible(chromedp.CSS(`img[alt="Your logo"]`)))
			require.Equal(t, "Gophers e.V.", brandingInput(a, "Issuer name"))
			require.Equal(t, "#1F4E79", brandingInput(a, "Primary colour"))
			require.Equal(t, "de", brandingInput(a, "Default language"))
			require.Equal(t, "Grace Hopper", brandingInput(a, "Name"))
			a.accessible("branding, reloaded")
			a.press("Remove signatory 1")
			a.sees("No signatories yet.")
			focusOn(a, `document.activeElement.textContent === "Add a signatory"`, "the add button")
			a.press("Save the branding")
			a.sees("Saved.")
			b = brandingBody{}
			acct.Client.Get("/api/v1/branding").JSON(t, &b)
			require.Empty(t, b.Data.Signatories)
			require.Equal(t, "Gophers e.V.", str(b.Data.IssuerName), "the rest is kept")
			require.NotNil(t, b.Data.Logo, "the logo is kept")
		})
	}

	// A viewer sees the owner's branding in a form they cannot change; the API refuses them.
	t.Run("viewer", func(t *testing.T) {
		tm := &team{env: env, smtp: smtp, owner: testkit.SignUp(t, env)}
		res := tm.owner.Client.Put("/api/v1/branding", map[string]any{"issuerName": "Owners' Society", "primaryColor": "#123456"})
		require.Equal(t, 200, res.StatusCode, "%s", res.Body)
		viewer := tm.join(t, "viewer")
		res = viewer.Client.Put("/api/v1/branding", map[string]any{"issuerName": "Viewers' Society"})
		wantError(t, res, 403, res.StatusCode, "INSUFFICIENT_ROLE")

		a := openApp(t, env, browserCtx, axe, "/app/", 1280, 800, false)
		a.on("Sign in")
		a.fill("Email address", viewer.Email)
		a.fill("Password", testkit.Password)
		a.press("Sign in")
		a.on("Home")
		a.do(chromedp.Navigate(env.URL + "/app/branding"))
		a.on("Branding")
		a.sees("Only the account's owner and admins can change the branding")
		require.Equal(t, "Owners' Society", brandingInput(a, "Issuer name"))
		require.True(t, value(a, chromedp.Evaluate[bool](`document.querySelector("fieldset.branding-all").disabled &&
			[...document.querySelectorAll("form input, form select, form button")].every(e => e.matches(":disabled"))`)), "the form is disabled")
		a.accessible("branding, viewer")
		a.shot("branding-viewer-desktop.png")
	})
}
