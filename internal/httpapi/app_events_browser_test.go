package httpapi_test

import (
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/certhub/credentiald/internal/testkit"
)

// An organiser's events in the application, at a phone's width and a desktop's (each its own
// account and tab): the empty list says so and links to the form; the form refuses an event
// without a name or a day in words, next to the fields; it creates one with a template chosen
// from the gallery (whose cards show their rendered previews); the list shows it, searches as
// one types, sorts by name and by date (aria-sort says how); the edit page renames it; deleting
// an event with an issued certificate is refused in the API's words; deleting an empty one
// succeeds and returns to the list. The list, the form, the refusals and the confirmation pass
// axe-core with no CSP violation and no complaint of the browser.
func TestTheApplicationsEventsPages(t *testing.T) {
	// The pages ask what a person's would (previews included), and the two sizes run one after
	// the other from one address within a minute: the address's rate limit is not what this
	// test is about.
	env, browserCtx, axe := newAppServer(t, testkit.WithLimiter(unlimited{}))
	for _, size := range appSizes {
		t.Run(size.name, func(t *testing.T) {
			acct := testkit.SignUp(t, env)
			a := openApp(t, env, browserCtx, axe, "/app/", size.width, size.height, size.mobile)
			a.on("Sign in")
			a.fill("Email address", acct.Email)
			a.fill("Password", testkit.Password)
			a.press("Sign in")
			a.on("Home")

			// No events yet: the list says so and leads to the form.
			a.press("Events")
			a.on("Events")
			a.sees("No events yet.")
			a.accessible("events, none yet")
			a.press("Create your first event")
			a.on("New event")
			eventsFormLoaded(a)

			// Refused: no name, no day. Each says so next to its field.
			a.press("Create event")
			a.sees("The request is not valid.")
			a.sees("Enter the event's name.")
			a.sees("Enter the day of the event.")
			require.GreaterOrEqual(t, a.invalidFields(), 2, "the name and the day are named")
			require.Equal(t, "Name", value(a, chromedp.Evaluate[string](`document.querySelector(".field.invalid input").labels[0].textContent`)))
			a.accessible("event form, refused")
			a.shot("app-event-form-refused-" + size.name + ".png")

			name := "Gopher Summit " + size.name
			a.fill("Name", name)
			a.fill("Description", "Two days of talks")
			eventsSetField(a, "Event date", "2026-11-12")
			a.fill("Location", "Berlin")
			eventsSetField(a, "Language of the certificates", "de")
			a.fill("Certificate validity in days", "365")
			eventsChooseTemplate(a, "Classic")
			eventsWaitPreviews(a)
			a.accessible("event form")
			a.shot("app-event-form-" + size.name + ".png")
			a.press("Create event")
			id := eventsWaitPath(a, `^/app/events/([0-9a-f-]{36})$`)

			var got struct {
				Data struct {
					Name, EventDate, Locale, TemplateID string
					Location                            *string
					CertificateValidityDays             *int
				}
			}
			acct.Client.Get("/api/v1/events/"+id).JSON(t, &got)
			require.Equal(t, name, got.Data.Name)
			require.Equal(t, "2026-11-12T09:00:00Z", got.Data.EventDate)
			require.Equal(t, "de", got.Data.Locale)
			require.Equal(t, "Berlin", *got.Data.Location)
			require.Equal(t, 365, *got.Data.CertificateValidityDays)
			require.Equal(t, eventsSystemTemplate(t, acct, "Classic"), got.Data.TemplateID)

			// Two more, for search and order.
			for _, e := range []struct{ name, date string }{{"Alpha Meetup", "2026-01-10T09:00:00Z"}, {"Zeta Workshop", "2026-12-01T09:00:00Z"}} {
				res := acct.Client.Post("/api/v1/events", map[string]any{"name": e.name, "eventDate": e.date, "templateId": got.Data.TemplateID})
				require.Equal(t, http.StatusCreated, res.StatusCode, "%s", res.Body)
			}
			a.press("Events")
			a.on("Events")
			a.sees(name)
			require.Equal(t, []string{"Zeta Workshop", "Alpha Meetup", name}, eventsRows(a), "newest first")
			a.accessible("events")
			a.shot("app-events-" + size.name + ".png")

			// The search follows the typing.
			a.fill("Search events", "zeta")
			eventsWaitRows(a, "Zeta Workshop")
			require.Contains(t, value(a, chromedp.Evaluate[string](`location.search`)), "q=zeta")
			a.fill("Search events", "nothing like it")
			a.sees("No events match “nothing like it”.")
			a.fill("Search events", "\b")
			eventsWaitRows(a, "Zeta Workshop", "Alpha Meetup", name)

			// Sorting: by name, then turned round, then by date; the header says which.
			a.press("Name")
			eventsWaitRows(a, "Alpha Meetup", name, "Zeta Workshop")
			require.Equal(t, "ascending", eventsSortOf(a, 1))
			a.press("Name")
			eventsWaitRows(a, "Zeta Workshop", name, "Alpha Meetup")
			require.Equal(t, "descending", eventsSortOf(a, 1))
			require.Equal(t, "", eventsSortOf(a, 2))
			a.press("Date")
			eventsWaitRows(a, "Alpha Meetup", name, "Zeta Workshop")
			require.Equal(t, "ascending", eventsSortOf(a, 2))
			require.Equal(t, "", eventsSortOf(a, 1))
			a.accessible("events, sorted")

			// Edit: renamed.
			a.do(chromedp.Click(fmt.Sprintf(`a[aria-label=%q]`, "Edit "+name)))
			a.on("Edit event")
			eventsFormLoaded(a)
			require.Equal(t, name, value(a, chromedp.Evaluate[string](`document.querySelector(".event-form input").value`)))
			require.Equal(t, "2026-11-12", value(a, chromedp.Evaluate[string](`document.querySelector(".event-form input[type=date]").value`)))
			a.fill("Name", name+" (renamed)")
			a.press("Save changes")
			require.Equal(t, id, eventsWaitPath(a, `^/app/events/([0-9a-f-]{36})$`))
			a.press("Events")
			a.on("Events")
			a.sees(name + " (renamed)")
			acct.Client.Get("/api/v1/events/"+id).JSON(t, &got)
			require.Equal(t, name+" (renamed)", got.Data.Name)
			require.Equal(t, "2026-11-12T09:00:00Z", got.Data.EventDate, "the day kept, its time too")

			// An event with an issued certificate is not deleted: the API says why.
			tmpl := acct.Template(t, env)
			held := acct.Event(t, env, "Held Forum")
			attendee := acct.Attendee(t, held, "Ada", "Lovelace", "ada@example.org")
			res := acct.Client.Post("/api/v1/certificates/generate", map[string]any{"templateId": tmpl, "eventId": held,
				"attendeeId": attendee, "sendEmail": false})
			require.Equal(t, 200, res.StatusCode, "%s", res.Body)
			a.do(chromedp.Navigate(env.URL + "/app/events/" + held.String() + "/edit"))
			a.on("Edit event")
			eventsFormLoaded(a)
			a.press("Delete event")
			a.sees("Delete “Held Forum”?")
			a.accessible("delete, asked")
			a.press("Yes, delete it")
			a.sees("1 issued certificate")
			a.accessible("delete, refused")
			a.shot("app-event-delete-refused-" + size.name + ".png")
			a.press("Keep the event")
			require.Equal(t, http.StatusOK, acct.Client.Get("/api/v1/events/"+held.String()).StatusCode)

			// An empty event is deleted, and the list no longer has it.
			alpha := eventsNamed(t, acct, "Alpha Meetup")
			a.do(chromedp.Navigate(env.URL + "/app/events/" + alpha + "/edit"))
			a.on("Edit event")
			eventsFormLoaded(a)
			a.press("Delete event")
			a.press("Yes, delete it")
			a.on("Events")
			a.sees("Held Forum")
			require.NotContains(t, eventsRows(a), "Alpha Meetup")
			require.Equal(t, http.StatusNotFound, acct.Client.Get("/api/v1/events/"+alpha).StatusCode)
			a.accessible("events, after a delete")
		})
	}
}

// eventsFieldJS is the script that finds the input, textarea or select labelled label.
func eventsFieldJS(label string) string {
	return fmt.Sprintf(`[...document.querySelectorAll("label")].find((l) => l.textContent.trim() === %q).control`, label)
}

// eventsSetField sets a date input or a select the way the browser's own picker would: its value,
// then the events a person's choice sends (typing into a date input depends on the locale).
func eventsSetField(a *appTab, label, v string) {
	a.t.Helper()
	value(a, chromedp.Evaluate[bool](fmt.Sprintf(`(() => { const f = %s; f.value = %q;
		f.dispatchEvent(new Event("input", { bubbles: true })); f.dispatchEvent(new Event("change", { bubbles: true }));
		return true; })()`, eventsFieldJS(label), v)))
}

// eventsChooseTemplate clicks the gallery's card of the template named name.
func eventsChooseTemplate(a *appTab, name string) {
	a.t.Helper()
	card := fmt.Sprintf(`//label[contains(@class, "template-card")][.//span[normalize-space(text())=%q]]//input`, name)
	a.do(chromedp.WaitVisible(card), chromedp.Click(card))
	require.True(a.t, value(a, chromedp.Evaluate[bool](`document.querySelector(".template-card input:checked").closest("label").textContent.includes(`+fmt.Sprintf("%q", name)+`)`)))
}

// eventsWaitPreviews waits for the gallery's first card to show its rendered preview.
func eventsWaitPreviews(a *appTab) {
	a.t.Helper()
	a.do(chromedp.WaitVisible(`.template-card img[src^="blob:"]`))
}

// eventsFormLoaded waits until the form shows a template chosen (a new event starts on the
// first): the gallery is in, and the page no longer moves under a click.
func eventsFormLoaded(a *appTab) {
	a.t.Helper()
	a.do(chromedp.WaitVisible(`.template-card input:checked`))
}

// eventsWaitPath waits until the address's path matches pattern and answers its first group.
func eventsWaitPath(a *appTab, pattern string) string {
	a.t.Helper()
	re := regexp.MustCompile(pattern)
	deadline := time.Now().Add(stepTimeout)
	for {
		path := value(a, chromedp.Evaluate[string](`location.pathname`))
		if m := re.FindStringSubmatch(path); m != nil {
			return m[1]
		}
		if time.Now().After(deadline) {
			a.t.Fatalf("the address stays %s, not %s (the page: %.1000s; complaints: %v)", path, pattern, a.page(), a.complaints())
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// eventsRows are the names of the events the list's table shows, in its order.
func eventsRows(a *appTab) []string {
	a.t.Helper()
	return value(a, chromedp.Evaluate[[]string](`[...document.querySelectorAll("table tbody th")].map((th) => th.textContent.trim())`))
}

// eventsWaitRows waits until the table shows exactly names, in that order.
func eventsWaitRows(a *appTab, names ...string) {
	a.t.Helper()
	deadline := time.Now().Add(stepTimeout)
	for {
		got := eventsRows(a)
		if strings.Join(got, "\n") == strings.Join(names, "\n") {
			return
		}
		if time.Now().After(deadline) {
			a.t.Fatalf("the table shows %q, not %q", got, names)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// eventsSortOf is the aria-sort of the table's column n (1-based), "" when it has none.
func eventsSortOf(a *appTab, n int) string {
	a.t.Helper()
	return value(a, chromedp.Evaluate[string](fmt.Sprintf(`document.querySelector("thead th:nth-child(%d)").getAttribute("aria-sort") ?? ""`, n)))
}

// eventsSystemTemplate is the id of the system template named name.
func eventsSystemTemplate(t *testing.T, acct *testkit.Account, name string) string {
	t.Helper()
	var list struct{ Data []struct{ ID, Name string } }
	acct.Client.Get("/api/v1/system-templates").JSON(t, &list)
	for _, s := range list.Data {
		if s.Name == name {
			return s.ID
		}
	}
	t.Fatalf("no system template %q", name)
	return ""
}

// eventsNamed is the id of the account's event named name.
func eventsNamed(t *testing.T, acct *testkit.Account, name string) string {
	t.Helper()
	var list struct {
		Data []struct {
			ID   uuid.UUID
			Name string
		}
	}
	acct.Client.Get("/api/v1/events?pageSize=100").JSON(t, &list)
	for _, e := range list.Data {
		if e.Name == name {
			return e.ID.String()
		}
	}
	t.Fatalf("no event %q", name)
	return ""
}
