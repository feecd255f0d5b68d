package httpapi_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/certhub/credentiald/internal/ratelimit"
	"github.com/certhub/credentiald/internal/testkit"
	"github.com/certhub/credentiald/internal/testkit/contract"
)

// The lists' sort, search (q) and the account-wide certificate list (issue 30). Names are
// ASCII and capitalised alike, so that the database's collation orders them as bytes do.

// listPage is a page of any list, its items read loosely.
type listPage struct {
	Data []map[string]any
	Meta struct{ Page, PageSize, Total int }
}

func getList(t *testing.T, c *contract.Client, path string) listPage {
	t.Helper()
	res := c.Get(path)
	if res.StatusCode != http.StatusOK {
		t.Fatalf("%s: %d %s", path, res.StatusCode, res.Body)
	}
	var p listPage
	res.JSON(t, &p)
	return p
}

func withQuery(path, query string) string {
	if strings.Contains(path, "?") {
		return path + "&" + query
	}
	return path + "?" + query
}

func idsOf(items []map[string]any) []string {
	out := make([]string, len(items))
	for i, it := range items {
		out[i], _ = it["id"].(string)
	}
	return out
}

// timeFields are the sort fields compared as instants, not as text.
var timeFields = map[string]bool{"createdAt": true, "eventDate": true, "issuedAt": true, "expiresAt": true}

// sortKey is an item's value of a sort field: null, an instant or text.
type sortKey struct {
	null bool
	t    time.Time
	s    string
}

func keyOf(t *testing.T, item map[string]any, field string) sortKey {
	t.Helper()
	v, ok := item[field]
	if !ok {
		t.Fatalf("no %s in %v", field, item)
	}
	if v == nil {
		return sortKey{null: true}
	}
	s, ok := v.(string)
	if !ok {
		t.Fatalf("%s is not text: %v", field, v)
	}
	if !timeFields[field] {
		return sortKey{s: s}
	}
	at, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		t.Fatalf("%s: %v", field, err)
	}
	return sortKey{t: at}
}

// compare orders a and b, a null above every value when nullsHigh, below otherwise.
func (a sortKey) compare(b sortKey, nullsHigh bool) int {
	switch {
	case a.null && b.null:
		return 0
	case a.null != b.null:
		if a.null == nullsHigh {
			return 1
		}
		return -1
	}
	if c := a.t.Compare(b.t); c != 0 {
		return c
	}
	return strings.Compare(a.s, b.s)
}

// sortable is a list to check: where it is, who reads it, the ids it must hold, its sort
// fields and its default order.
type sortable struct {
	name        string
	c           *contract.Client
	path        string
	want        []string
	fields      []string
	defaultSort string
	// noTies names the fields whose values the list cannot repeat (an event's attendees'
	// emails), where ties are not looked for in the data.
	noTies map[string]bool
}

// checkSorts checks every order of l, both ways: the items come ordered by the field (times
// compared as instants; a null, which only issuedAt has (a draft's), comes after every value
// in both directions), ties broken by id in the same direction; paging through 2 at a time gives the same
// sequence as one large page, and every page's meta.total is the number of items. Without
// sort, the list is in its default order.
func checkSorts(t *testing.T, l sortable) {
	t.Helper()
	for _, field := range l.fields {
		for _, sort := range []string{field, "-" + field} {
			checkSort(t, l, sort)
		}
	}
	def := getList(t, l.c, withQuery(l.path, "pageSize=100"))
	named := getList(t, l.c, withQuery(l.path, "pageSize=100&sort="+url.QueryEscape(l.defaultSort)))
	if !slices.Equal(idsOf(def.Data), idsOf(named.Data)) {
		t.Errorf("%s: without sort %v, with sort=%s %v", l.name, idsOf(def.Data), l.defaultSort, idsOf(named.Data))
	}
}

func checkSort(t *testing.T, l sortable, sort string) {
	t.Helper()
	field, desc := strings.TrimPrefix(sort, "-"), strings.HasPrefix(sort, "-")
	big := getList(t, l.c, withQuery(l.path, "pageSize=100&sort="+url.QueryEscape(sort)))
	got := idsOf(big.Data)
	if !assert.Equal(t, len(l.want), big.Meta.Total, "%s sort=%s: total", l.name, sort) ||
		!assert.ElementsMatch(t, l.want, got, "%s sort=%s: items", l.name, sort) {
		return
	}
	want := slices.Clone(big.Data)
	slices.SortStableFunc(want, func(a, b map[string]any) int {
		ka, kb := keyOf(t, a, field), keyOf(t, b, field)
		if ka.null != kb.null { // nulls last, whichever the direction
			return ka.compare(kb, true)
		}
		c := ka.compare(kb, true)
		if c == 0 {
			c = strings.Compare(a["id"].(string), b["id"].(string))
		}
		if desc {
			c = -c
		}
		return c
	})
	ordered := slices.Equal(idsOf(want), got)
	if !ordered {
		var b strings.Builder
		for _, it := range big.Data {
			fmt.Fprintf(&b, "\n  %v %v", it[field], it["id"])
		}
		t.Errorf("%s sort=%s: out of order:%s", l.name, sort, b.String())
	}
	// The data must hold what the order is to be tested on: different values, and ties.
	ties, distinct := 0, 0
	for i := 1; i < len(big.Data); i++ {
		if keyOf(t, big.Data[i-1], field).compare(keyOf(t, big.Data[i], field), true) == 0 {
			ties++
		} else {
			distinct++
		}
	}
	assert.NotEqual(t, 0, distinct, "%s sort=%s: the test's data has no changes of %s", l.name, sort, field)
	if ties == 0 {
		assert.True(t, l.noTies[field], "%s sort=%s: the test's data has no ties of %s", l.name, sort, field)
	}
	var paged []string
	pages := (len(l.want) + 1) / 2
	for n := 1; n <= pages+1; n++ {
		p := getList(t, l.c, withQuery(l.path, fmt.Sprintf("pageSize=2&page=%d&sort=%s", n, url.QueryEscape(sort))))
		assert.Equal(t, len(l.want), p.Meta.Total, "%s sort=%s page %d: p.Meta.Total", l.name, sort, n)
		assert.Equal(t, n, p.Meta.Page, "%s sort=%s page %d: p.Meta.Page", l.name, sort, n)
		assert.Equal(t, 2, p.Meta.PageSize, "%s sort=%s page %d: p.Meta.PageSize", l.name, sort, n)
		if n > pages && len(p.Data) != 0 {
			t.Errorf("%s sort=%s: page %d after the last holds %v", l.name, sort, n, idsOf(p.Data))
		}
		paged = append(paged, idsOf(p.Data)...)
	}
	if !slices.Equal(paged, got) {
		t.Errorf("%s sort=%s: 2 a page %v, one page %v", l.name, sort, paged, got)
	}
}

// created posts body to path and returns the new resource's id.
func created(t *testing.T, c *contract.Client, path string, body any) string {
	t.Helper()
	res := c.Post(path, body)
	if res.StatusCode != http.StatusCreated && res.StatusCode != http.StatusOK {
		t.Fatalf("%s: %d %s", path, res.StatusCode, res.Body)
	}
	var out struct{ Data struct{ ID string } }
	res.JSON(t, &out)
	return out.Data.ID
}

// unlimited lets every request through: these tests send more than the global limit allows
// one client in a minute, on a clock that does not give tokens back.
type unlimited struct{}

func (unlimited) Take(_ context.Context, l ratelimit.Limit, _ string) (ratelimit.Result, error) {
	return ratelimit.Result{Limit: l, Allowed: true, Remaining: l.Burst - 1}, nil
}

// stoppedIssuing is newIssuing on a stopped clock, which only Advance moves (what is made
// between two moves is made at the same instant), without a rate limit.
func stoppedIssuing(t *testing.T) (issuing, *testkit.Clock) {
	t.Helper()
	clock := &testkit.Clock{}
	clock.Stop()
	return newIssuing(t, testkit.WithClock(clock.Now), testkit.WithLimiter(unlimited{})), clock
}

func (s issuing) newEvent(t *testing.T, name, date string) string {
	t.Helper()
	return created(t, s.acct.Client, "/api/v1/events", map[string]any{"name": name, "eventDate": date,
		"templateId": s.template, "certificateValidityDays": 365})
}

func (s issuing) newTemplate(t *testing.T, name string) string {
	t.Helper()
	return created(t, s.acct.Client, "/api/v1/templates", map[string]any{"name": name, "layout": layout("{{recipient.fullName}}")})
}

// generateOn issues a certificate of attendee on event, with the template if set, else with s's.
func (s issuing) generateOn(t *testing.T, event, template string, attendee uuid.UUID, sendEmail bool) certificateBody {
	t.Helper()
	body := s.generate(attendee, map[string]any{"eventId": event, "sendEmail": sendEmail})
	if template != "" {
		body["templateId"] = template
	}
	res := s.acct.Client.Post("/api/v1/certificates/generate", body)
	if res.StatusCode != http.StatusOK {
		t.Fatalf("generate: %d %s", res.StatusCode, res.Body)
	}
	var c certificateBody
	res.JSON(t, &c)
	return c
}

// draft prepares a draft certificate of attendee on event and returns its id.
func (s issuing) draft(t *testing.T, event string, attendee uuid.UUID) string {
	t.Helper()
	res := s.acct.Client.Post("/api/v1/events/"+event+"/certificates/generate", map[string]any{
		"attendeeIds": []string{attendee.String()}, "draft": true, "sendEmail": false})
	var out struct {
		Data struct{ Issued []struct{ ID, Status string } }
	}
	res.JSON(t, &out)
	require.Equal(t, http.StatusOK, res.StatusCode, "draft: status (body %s)", res.Body)
	require.Len(t, out.Data.Issued, 1, "draft: out.Data.Issued")
	require.Equal(t, "draft", out.Data.Issued[0].Status, "draft: out.Data.Issued[0].Status")
	return out.Data.Issued[0].ID
}

// Events (createdAt, name, eventDate), the account's and an event's attendees (createdAt,
// lastName, email) and templates (createdAt, name) are ordered as asked, ties broken by id, and
// page through without repeats or gaps.
func TestSortEventsAttendeesAndTemplates(t *testing.T) {
	t.Parallel()
	s, clock := stoppedIssuing(t)
	c := s.acct.Client
	events := []string{s.event.String()} // "Go Conference", 2026-11-12T09:00:00Z
	clock.Advance(time.Second)
	events = append(events, s.newEvent(t, "Bravo", "2026-01-01T00:00:00Z"), s.newEvent(t, "Alpha", "2026-03-01T00:00:00Z"))
	clock.Advance(time.Second)
	events = append(events, s.newEvent(t, "Bravo", "2026-03-01T00:00:00Z"), s.newEvent(t, "Delta", "2026-11-12T09:00:00Z"),
		s.newEvent(t, "Charlie", "2025-06-30T12:00:00Z"))
	checkSorts(t, sortable{name: "events", c: c, path: "/api/v1/events", want: events,
		fields: []string{"createdAt", "name", "eventDate"}, defaultSort: "-createdAt"})

	other := uuid.MustParse(events[1])
	attendee := func(event uuid.UUID, first, last, email string) string {
		return s.acct.Attendee(t, event, first, last, email).String()
	}
	clock.Advance(time.Second)
	mine := []string{attendee(s.event, "Ada", "Lovelace", "ada@example.org"), attendee(s.event, "Grace", "Hopper", "grace@example.org")}
	elsewhere := []string{attendee(other, "Ada", "Lovelace", "ada@example.org")}
	clock.Advance(time.Second)
	mine = append(mine, attendee(s.event, "Alan", "Turing", "alan@example.org"), attendee(s.event, "Byron", "Lovelace", "byron@example.org"))
	elsewhere = append(elsewhere, attendee(other, "Edsger", "Dijkstra", "edsger@example.org"))
	fields := []string{"createdAt", "lastName", "email"}
	checkSorts(t, sortable{name: "attendees", c: c, path: "/api/v1/attendees", want: append(slices.Clone(mine), elsewhere...),
		fields: fields, defaultSort: "-createdAt"})
	checkSorts(t, sortable{name: "event attendees", c: c, path: "/api/v1/events/" + s.event.String() + "/attendees", want: mine,
		fields: fields, defaultSort: "-createdAt", noTies: map[string]bool{"email": true}})
	// The filters keep the order.
	checkSorts(t, sortable{name: "attendees of an event", c: c, path: "/api/v1/attendees?eventId=" + s.event.String(), want: mine,
		fields: fields, defaultSort: "-createdAt", noTies: map[string]bool{"email": true}})

	clock.Advance(time.Second)
	templates := []string{s.template.String(), s.newTemplate(t, "Bravo"), s.newTemplate(t, "Alpha")}
	clock.Advance(time.Second)
	templates = append(templates, s.newTemplate(t, "Bravo"), s.newTemplate(t, "Plain"))
	checkSorts(t, sortable{name: "templates", c: c, path: "/api/v1/templates", want: templates,
		fields: []string{"createdAt", "name"}, defaultSort: "-createdAt"})
}

// The account's and an event's certificates (createdAt, issuedAt, drafts included), the email
// deliveries (createdAt) and a certificate's wallet offers (createdAt, expiresAt) are ordered
// as asked, ties broken by id, and page through without repeats or gaps.
func TestSortCertificatesEmailsAndWalletOffers(t *testing.T) {
	t.Parallel()
	s, clock := stoppedIssuing(t)
	c := s.acct.Client
	event := s.event.String()
	other := s.newEvent(t, "Bravo", "2026-01-01T00:00:00Z")
	otherID := uuid.MustParse(other)
	clock.Advance(time.Second)
	first := s.generateOn(t, event, "", s.acct.Attendee(t, s.event, "Ada", "Lovelace", "ada@example.org"), true)
	second := s.generateOn(t, event, "", s.acct.Attendee(t, s.event, "Grace", "Hopper", "grace@example.org"), true)
	elsewhere := []string{s.generateOn(t, other, "", s.acct.Attendee(t, otherID, "Ada", "Lovelace", "ada@example.org"), false).Data.ID}
	clock.Advance(time.Second)
	mine := []string{first.Data.ID, second.Data.ID,
		s.draft(t, event, s.acct.Attendee(t, s.event, "Alan", "Turing", "alan@example.org")),
		s.draft(t, event, s.acct.Attendee(t, s.event, "Barbara", "Liskov", "barbara@example.org")),
		s.generateOn(t, event, "", s.acct.Attendee(t, s.event, "Edsger", "Dijkstra", "edsger@example.org"), true).Data.ID}
	elsewhere = append(elsewhere, s.generateOn(t, other, "", s.acct.Attendee(t, otherID, "Donald", "Knuth", "donald@example.org"), false).Data.ID)
	// Issue times that the creation times do not predict, one of them shared across events.
	testkit.SQL(t, s.env, `UPDATE certificates SET issued_at = '2026-01-02T00:00:00Z' WHERE id = ANY($1::uuid[])`, []string{first.Data.ID, elsewhere[1]})
	fields := []string{"createdAt", "issuedAt"}
	checkSorts(t, sortable{name: "certificates", c: c, path: "/api/v1/certificates", want: append(slices.Clone(mine), elsewhere...),
		fields: fields, defaultSort: "-createdAt"})
	checkSorts(t, sortable{name: "event certificates", c: c, path: "/api/v1/events/" + event + "/certificates", want: mine,
		fields: fields, defaultSort: "-createdAt"})
	checkSorts(t, sortable{name: "valid certificates", c: c, path: "/api/v1/certificates?status=valid",
		want: []string{first.Data.ID, second.Data.ID, mine[4], elsewhere[0], elsewhere[1]}, fields: fields, defaultSort: "-createdAt"})

	// Four deliveries: two made at one instant, one later, and a resend later still.
	clock.Advance(time.Second)
	if res := c.Post("/api/v1/certificates/"+second.Data.ID+"/send", nil); res.StatusCode/100 != 2 {
		t.Fatalf("send: %d %s", res.StatusCode, res.Body)
	}
	deliveries := getList(t, c, "/api/v1/email/deliveries?pageSize=100")
	if deliveries.Meta.Total != 4 {
		t.Fatalf("deliveries: %+v", deliveries)
	}
	checkSorts(t, sortable{name: "email deliveries", c: c, path: "/api/v1/email/deliveries", want: idsOf(deliveries.Data),
		fields: []string{"createdAt"}, defaultSort: "-createdAt"})

	offersPath := "/api/v1/certificates/" + second.Data.ID + "/wallet-offers"
	var offers []string
	for i := range 4 {
		if i == 2 {
			clock.Advance(time.Second)
		}
		offers = append(offers, created(t, c, offersPath, nil))
	}
	// Expiry times that the creation times do not predict: the last offer's before the others'.
	testkit.SQL(t, s.env, `UPDATE wallet_offers SET expires_at = expires_at - interval '1 hour' WHERE id = $1`, offers[3])
	checkSorts(t, sortable{name: "wallet offers", c: c, path: offersPath, want: offers,
		fields: []string{"createdAt", "expiresAt"}, defaultSort: "-createdAt"})
}

// Badges (createdAt, name) and a badge's assertions (issuedAt, by default newest first) are
// ordered as asked, ties broken by id, and page through without repeats or gaps.
func TestSortBadgesAndAssertions(t *testing.T) {
	t.Parallel()
	s, clock := stoppedIssuing(t)
	c := s.acct.Client
	badge := func(name string) string {
		return created(t, c, "/api/v1/badges", map[string]any{"name": name})
	}
	clock.Advance(time.Second)
	badges := []string{badge("Bravo"), badge("Alpha")}
	clock.Advance(time.Second)
	badges = append(badges, badge("Bravo"), badge("Charlie"))
	checkSorts(t, sortable{name: "badges", c: c, path: "/api/v1/badges", want: badges,
		fields: []string{"createdAt", "name"}, defaultSort: "-createdAt"})

	var attendees []string
	for _, name := range []string{"Ada", "Grace", "Alan", "Barbara", "Edsger"} {
		attendees = append(attendees, s.acct.Attendee(t, s.event, name, "Lovelace", strings.ToLower(name)+"@example.org").String())
	}
	var assertions []string
	for _, group := range [][]string{attendees[:2], attendees[2:3], attendees[3:]} {
		clock.Advance(time.Second)
		res := c.Post("/api/v1/badges/"+badges[0]+"/issue", map[string]any{"attendeeIds": group})
		var out issuedBody
		res.JSON(t, &out)
		require.Equal(t, http.StatusOK, res.StatusCode, "issue: status (body %s)", res.Body)
		require.Len(t, out.Data, len(group), "issue: out.Data")
		for _, a := range out.Data {
			assertions = append(assertions, a.ID)
		}
	}
	checkSorts(t, sortable{name: "badge assertions", c: c, path: "/api/v1/badges/" + badges[0] + "/assertions", want: assertions,
		fields: []string{"issuedAt"}, defaultSort: "-issuedAt"})

	offersPath := "/api/v1/badges/" + badges[0] + "/assertions/" + assertions[0] + "/wallet-offers"
	var offers []string
	for i := range 4 {
		if i%2 == 0 {
			clock.Advance(time.Second)
		}
		offers = append(offers, created(t, c, offersPath, nil))
	}
	testkit.SQL(t, s.env, `UPDATE wallet_offers SET expires_at = expires_at - interval '1 hour' WHERE id = $1`, offers[3])
	checkSorts(t, sortable{name: "assertion wallet offers", c: c, path: offersPath, want: offers,
		fields: []string{"createdAt", "expiresAt"}, defaultSort: "-createdAt"})
}

// A sort value that the list does not offer (another list's field, a case or a sign of its
// own, none) is 400 naming query.sort.
func TestSortRefusesAnUnknownValue(t *testing.T) {
	t.Parallel()
	s := newIssuing(t, testkit.WithLimiter(unlimited{}))
	cert := s.issue(t, "Ada", "Lovelace", nil)
	badge := created(t, s.acct.Client, "/api/v1/badges", map[string]any{"name": "Speaker"})
	event := s.event.String()
	for _, path := range []string{
		"/api/v1/events?sort=title",
		"/api/v1/events?sort=%2Bname",
		"/api/v1/events?sort=--name",
		"/api/v1/events?sort=Name",
		"/api/v1/events?sort=",
		"/api/v1/events?sort=name,-createdAt",
		"/api/v1/attendees?sort=firstName",
		"/api/v1/events/" + event + "/attendees?sort=name",
		"/api/v1/certificates?sort=expiresAt",
		"/api/v1/events/" + event + "/certificates?sort=lastName",
		"/api/v1/templates?sort=eventDate",
		"/api/v1/badges?sort=issuedAt",
		"/api/v1/badges/" + badge + "/assertions?sort=createdAt",
		"/api/v1/events/" + event + "/certificates/generate/jobs?sort=name",
		"/api/v1/email/deliveries?sort=sentAt",
		"/api/v1/webhooks/" + uuid.NewString() + "/deliveries?sort=name",
		"/api/v1/certificates/" + cert.Data.ID + "/wallet-offers?sort=issuedAt",
		"/api/v1/badges/" + badge + "/assertions/" + uuid.NewString() + "/wallet-offers?sort=name",
	} {
		res := s.acct.Client.Get(path)
		if res.StatusCode != http.StatusBadRequest {
			t.Errorf("%s: %d %s", path, res.StatusCode, res.Body)
			continue
		}
		if e := wantError(t, res, 400, res.StatusCode, "VALIDATION_ERROR"); !hasDetail(e, "query.sort", "") {
			t.Errorf("%s: %s", path, res.Body)
		}
	}
}

// searched asks for path and checks that it answers exactly the items want, with their total.
func searched(t *testing.T, c *contract.Client, path string, want ...string) {
	t.Helper()
	p := getList(t, c, withQuery(path, "pageSize=100"))
	assert.Equal(t, len(want), p.Meta.Total, "%s: p.Meta.Total", path)
	assert.ElementsMatch(t, want, idsOf(p.Data), "%s: the items found", path)
	// meta.total counts every match, not the page.
	if len(want) > 1 {
		p := getList(t, c, withQuery(path, "pageSize=1"))
		assert.Equal(t, len(want), p.Meta.Total, "%s one a page: p.Meta.Total", path)
		assert.Len(t, p.Data, 1, "%s one a page: p.Data", path)
	}
}

// q finds events, templates and badges by name: case-insensitively, "contains", with % _ and \
// taken literally; meta.total counts the matches.
func TestSearchEventsTemplatesAndBadgesByName(t *testing.T) {
	t.Parallel()
	s := newIssuing(t, testkit.WithLimiter(unlimited{}))
	c := s.acct.Client
	q := func(path, text string) string { return path + "?q=" + url.QueryEscape(text) }

	const date = "2026-05-01T10:00:00Z"
	goConf := s.event.String() // "Go Conference"
	rust := s.newEvent(t, "Rust Meetup", date)
	underscore := s.newEvent(t, "go_lang day", date)
	golang := s.newEvent(t, "golang day", date)
	percent := s.newEvent(t, "100% Go", date)
	hundred := s.newEvent(t, "100 Go", date)
	backslash := s.newEvent(t, `Back\slash`, date)
	stranger := testkit.SignUp(t, s.env)
	stranger.Event(t, s.env, "Go Theirs")
	for _, path := range []string{"/api/v1/events?q=go", "/api/v1/events?q=GO", "/api/v1/events?q=gO"} {
		searched(t, c, path, goConf, underscore, golang, percent, hundred)
	}
	searched(t, c, q("/api/v1/events", "conference"), goConf)
	searched(t, c, q("/api/v1/events", "MEETUP"), rust)
	searched(t, c, q("/api/v1/events", "_"), underscore)
	searched(t, c, q("/api/v1/events", "o_l"), underscore)
	searched(t, c, q("/api/v1/events", "%"), percent)
	searched(t, c, q("/api/v1/events", "0%"), percent)
	searched(t, c, q("/api/v1/events", `\`), backslash)
	searched(t, c, q("/api/v1/events", `k\s`), backslash)
	searched(t, c, q("/api/v1/events", "zzz"))
	// The search and the sort combine.
	p := getList(t, c, "/api/v1/events?q=day&sort=name")
	got := idsOf(p.Data)
	assert.Equal(t, 2, p.Meta.Total, "q=day&sort=name: p.Meta.Total")
	assert.Equal(t, []string{underscore, golang}, got, "q=day&sort=name: the items found")

	workshop := s.newTemplate(t, "Workshop A")
	workUnderscore := s.newTemplate(t, "work_shop")
	workX := s.newTemplate(t, "workxshop")
	fifty := s.newTemplate(t, "50% Off")
	s.newTemplate(t, "50 Off")
	searched(t, c, q("/api/v1/templates", "WORK"), workshop, workUnderscore, workX)
	searched(t, c, q("/api/v1/templates", "k_s"), workUnderscore)
	searched(t, c, q("/api/v1/templates", "%"), fifty)
	searched(t, c, q("/api/v1/templates", "plain"), s.template.String())
	searched(t, c, "/api/v1/templates?active=true&q=workshop", workshop)

	badge := func(name string) string { return created(t, c, "/api/v1/badges", map[string]any{"name": name}) }
	speaker, gold, hundredSpeaker := badge("Speaker"), badge("Speaker_Gold"), badge("100% Speaker")
	silver := badge("SpeakerxSilver")
	badge("Organiser")
	searched(t, c, q("/api/v1/badges", "sPeAkEr"), speaker, gold, hundredSpeaker, silver)
	searched(t, c, q("/api/v1/badges", "r_"), gold)
	searched(t, c, q("/api/v1/badges", "% s"), hundredSpeaker)
	searched(t, c, q("/api/v1/badges", "organizer"))

	long := url.QueryEscape(strings.Repeat("x", 101))
	for _, path := range []string{"/api/v1/events?q=", "/api/v1/templates?q=", "/api/v1/badges?q=",
		"/api/v1/events?q=" + long, "/api/v1/templates?q=" + long, "/api/v1/badges?q=" + long} {
		res := c.Get(path)
		if e := wantError(t, res, 400, res.StatusCode, "VALIDATION_ERROR"); !hasDetail(e, "query.q", "") {
			t.Errorf("%s: %s", path, res.Body)
		}
	}
}

// q finds attendees (the account's and an event's) by "first last email" and certificates (the
// account's and an event's) by "number code first last email": case-insensitively, "contains",
// % and _ taken literally; shorter than 3 characters it is 400 naming query.q.
func TestSearchAttendeesAndCertificates(t *testing.T) {
	t.Parallel()
	s := newIssuing(t, testkit.WithLimiter(unlimited{}))
	c := s.acct.Client
	other := uuid.MustParse(s.newEvent(t, "Bravo", "2026-01-01T00:00:00Z"))
	att := func(event uuid.UUID, first, last, email string) uuid.UUID {
		return s.acct.Attendee(t, event, first, last, email)
	}
	ada := att(s.event, "Ada", "Lovelace", "countess@example.org")
	adaThere := att(other, "Ada", "Lovelace", "ada.lovelace@example.net")
	grace := att(s.event, "Grace", "Hopper", "grace_h@example.org")
	graceX := att(s.event, "Grace", "Hooper", "gracexh@example.org")
	fifty := att(s.event, "Fifi", "Fifty%Fifty", "fifi@example.org")
	fiftyX := att(s.event, "Fifo", "Fifty Fifty", "fifo@example.org")
	alan := att(other, "Alan", "Turing", "alan@example.com")
	stranger := testkit.SignUp(t, s.env)
	stranger.Attendee(t, stranger.Event(t, s.env, "Theirs"), "Ada", "Lovelace", "countess@example.org")

	all := func(ids ...uuid.UUID) []string {
		out := make([]string, len(ids))
		for i, id := range ids {
			out[i] = id.String()
		}
		return out
	}
	account, inEvent := "/api/v1/attendees", "/api/v1/events/"+s.event.String()+"/attendees"
	for _, tc := range []struct {
		q           string
		both, there []uuid.UUID // matches in the event, and in the other event
	}{
		{"ada", []uuid.UUID{ada}, []uuid.UUID{adaThere}},          // first name (and email)
		{"LOVELACE", []uuid.UUID{ada}, []uuid.UUID{adaThere}},     // last name
		{"Ada Lovelace", []uuid.UUID{ada}, []uuid.UUID{adaThere}}, // full name
		{"ada lovelace", []uuid.UUID{ada}, []uuid.UUID{adaThere}}, // full name, other case
		{"COUNTESS@", []uuid.UUID{ada}, nil},                      // email
		{"example.com", nil, []uuid.UUID{alan}},                   // email's domain
		{"gRaCe", []uuid.UUID{grace, graceX}, nil},                // two matches
		{"e_h", []uuid.UUID{grace}, nil},                          // _ literal
		{"y%F", []uuid.UUID{fifty}, nil},                          // % literal
		{"fifty fifty", []uuid.UUID{fiftyX}, nil},                 // the space is a space
		{"%%%", nil, nil},                  // nothing has it
		{"ace cou", []uuid.UUID{ada}, nil}, // across last name and email
		{"zzz", nil, nil},                  // nothing
	} {
		searched(t, c, account+"?q="+url.QueryEscape(tc.q), all(append(slices.Clone(tc.both), tc.there...)...)...)
		searched(t, c, inEvent+"?q="+url.QueryEscape(tc.q), all(tc.both...)...)
	}
	searched(t, c, account+"?eventId="+other.String()+"&q=lovelace", adaThere.String())

	certs := map[uuid.UUID]certificateBody{}
	for _, a := range []uuid.UUID{ada, grace, graceX, fifty, fiftyX} {
		certs[a] = s.generateOn(t, s.event.String(), "", a, false)
	}
	certs[adaThere] = s.generateOn(t, other.String(), "", adaThere, false)
	id := func(a uuid.UUID) string { return certs[a].Data.ID }
	allCerts, eventCerts := "/api/v1/certificates", "/api/v1/events/"+s.event.String()+"/certificates"
	number, code := certs[grace].Data.CertificateNumber, certs[grace].Data.VerificationCode
	for _, tc := range []struct {
		q           string
		both, there []uuid.UUID
	}{
		{number, []uuid.UUID{grace}, nil},                         // number
		{strings.ToLower(number), []uuid.UUID{grace}, nil},        // number, other case
		{code, []uuid.UUID{grace}, nil},                           // verification code
		{strings.ToLower(code), []uuid.UUID{grace}, nil},          // verification code, other case
		{"ADA ", []uuid.UUID{ada}, []uuid.UUID{adaThere}},         // first name (with its space: a code may hold ADA)
		{"hopper", []uuid.UUID{grace}, nil},                       // last name
		{"Ada Lovelace", []uuid.UUID{ada}, []uuid.UUID{adaThere}}, // full name
		{"countess@example", []uuid.UUID{ada}, nil},               // email
		{"example.net", nil, []uuid.UUID{adaThere}},               // email's domain
		{"e_h", []uuid.UUID{grace}, nil},                          // _ literal
		{"y%F", []uuid.UUID{fifty}, nil},                          // % literal
		{"quux", nil, nil},                                        // nothing (no code holds a U)
	} {
		want := func(ids []uuid.UUID) []string {
			var out []string
			for _, a := range ids {
				out = append(out, id(a))
			}
			return out
		}
		searched(t, c, allCerts+"?q="+url.QueryEscape(tc.q), append(want(tc.both), want(tc.there)...)...)
		searched(t, c, eventCerts+"?q="+url.QueryEscape(tc.q), want(tc.both)...)
	}
	// Every certificate number of the account starts alike: the search counts them all.
	prefix := number[:len("CERT-2026-")]
	searched(t, c, allCerts+"?q="+prefix, id(ada), id(grace), id(graceX), id(fifty), id(fiftyX), id(adaThere))
	searched(t, c, allCerts+"?q=grace&status=valid&eventId="+s.event.String(), id(grace), id(graceX))

	for _, path := range []string{account, inEvent, allCerts, eventCerts} {
		for _, text := range []string{"ad", "%_", "a"} {
			res := c.Get(path + "?q=" + url.QueryEscape(text))
			if res.StatusCode != http.StatusBadRequest {
				t.Errorf("%s?q=%s: %d %s", path, text, res.StatusCode, res.Body)
				continue
			}
			if e := wantError(t, res, 400, res.StatusCode, "VALIDATION_ERROR"); !hasDetail(e, "query.q", "") {
				t.Errorf("%s?q=%s: %s", path, text, res.Body)
			}
		}
	}
}

// GET /api/v1/certificates: each filter alone and with the others, every status, issue days
// (UTC) bounded inclusively, drafts left out by either bound; another account's certificates
// never appear; it needs certificates:read; it takes no parameter it does not declare.
func TestCertificatesListFilters(t *testing.T) {
	t.Parallel()
	s := newIssuing(t, testkit.WithLimiter(unlimited{}))
	c := s.acct.Client
	event, other := s.event.String(), s.newEvent(t, "Bravo", "2026-01-01T00:00:00Z")
	otherID := uuid.MustParse(other)
	tmpl, tmpl2 := s.template.String(), s.acct.Template(t, s.env).String()
	adaAttendee := s.acct.Attendee(t, s.event, "Ada", "Lovelace", "ada@example.org")
	ada := s.generateOn(t, event, "", adaAttendee, false).Data.ID
	grace := s.generateOn(t, event, tmpl2, s.acct.Attendee(t, s.event, "Grace", "Hopper", "grace@example.org"), false).Data.ID
	alan := s.generateOn(t, other, "", s.acct.Attendee(t, otherID, "Alan", "Turing", "alan@example.org"), false).Data.ID
	edsger := s.generateOn(t, other, "", s.acct.Attendee(t, otherID, "Edsger", "Dijkstra", "edsger@example.org"), false).Data.ID
	draft := s.draft(t, event, s.acct.Attendee(t, s.event, "Barbara", "Liskov", "barbara@example.org"))
	if res := c.Post("/api/v1/certificates/"+alan+"/revoke", nil); res.StatusCode != http.StatusOK {
		t.Fatalf("revoke: %d %s", res.StatusCode, res.Body)
	}
	// Issue times on the edges of 1 March 2026 (UTC); Edsger's certificate is past its expiry,
	// still stored as issued.
	for id, at := range map[string]string{
		ada:   "2026-03-01T00:00:00Z",
		grace: "2026-03-01T23:59:59.999999Z",
		alan:  "2026-02-28T23:59:59.999999Z",
	} {
		testkit.SQL(t, s.env, `UPDATE certificates SET issued_at = $2 WHERE id = $1`, id, at)
	}
	testkit.SQL(t, s.env, `UPDATE certificates SET issued_at = '2026-03-02T00:00:00Z', expires_at = '2026-03-03T00:00:00Z' WHERE id = $1`, edsger)

	stranger := testkit.SignUp(t, s.env)
	theirEvent := stranger.Event(t, s.env, "Theirs")
	theirAttendee := stranger.Attendee(t, theirEvent, "Ada", "Lovelace", "ada@example.org")
	var theirTemplate struct{ Data struct{ TemplateID string } }
	stranger.Client.Get("/api/v1/events/"+theirEvent.String()).JSON(t, &theirTemplate)
	res := stranger.Client.Post("/api/v1/certificates/generate", map[string]any{"eventId": theirEvent, "attendeeId": theirAttendee,
		"templateId": theirTemplate.Data.TemplateID, "sendEmail": false})
	if res.StatusCode != http.StatusOK {
		t.Fatalf("their certificate: %d %s", res.StatusCode, res.Body)
	}
	var theirs certificateBody
	res.JSON(t, &theirs)

	for query, want := range map[string][]string{
		"":                                            {ada, grace, alan, edsger, draft},
		"eventId=" + event:                            {ada, grace, draft},
		"eventId=" + other:                            {alan, edsger},
		"eventId=" + theirEvent.String():              nil,
		"eventId=" + uuid.NewString():                 nil,
		"attendeeId=" + adaAttendee.String():          {ada},
		"attendeeId=" + theirAttendee.String():        nil,
		"templateId=" + tmpl:                          {ada, alan, edsger, draft},
		"templateId=" + tmpl2:                         {grace},
		"templateId=" + theirTemplate.Data.TemplateID: nil,
		"status=valid":                                {ada, grace},
		"status=draft":                                {draft},
		"status=revoked":                              {alan},
		"status=expired":                              {edsger},
		"issuedFrom=2026-03-01":                       {ada, grace, edsger},
		"issuedTo=2026-03-01":                         {ada, grace, alan},
		"issuedFrom=2026-03-01&issuedTo=2026-03-01":   {ada, grace},
		"issuedFrom=2026-03-02":                       {edsger},
		"issuedTo=2026-02-28":                         {alan},
		"issuedFrom=2026-02-28&issuedTo=2026-03-02":   {ada, grace, alan, edsger},
		"issuedFrom=2026-03-03":                       nil,
		"issuedTo=2026-02-27":                         nil,
		"issuedFrom=2026-03-02&issuedTo=2026-03-01":   nil,
		"issuedFrom=2000-01-01":                       {ada, grace, alan, edsger},
		"issuedFrom=0001-01-01":                       {ada, grace, alan, edsger},
		"issuedTo=9999-12-31":                         {ada, grace, alan, edsger},
		"issuedTo=0001-01-01":                         nil,
		"issuedFrom=9999-12-31":                       nil,
		"eventId=" + event + "&status=valid&templateId=" + tmpl:                    {ada},
		"eventId=" + event + "&templateId=" + tmpl:                                 {ada, draft},
		"eventId=" + other + "&issuedFrom=2026-03-01":                              {edsger},
		"eventId=" + other + "&status=valid":                                       nil,
		"status=valid&issuedFrom=2026-03-01&issuedTo=2026-03-01&q=grace":           {grace},
		"attendeeId=" + adaAttendee.String() + "&eventId=" + other:                 nil,
		"attendeeId=" + adaAttendee.String() + "&status=valid&issuedTo=2026-03-01": {ada},
		"templateId=" + tmpl + "&status=expired&eventId=" + other:                  {edsger},
		"q=lovelace":                     {ada},
		"q=liskov&status=draft":          {draft},
		"q=liskov&issuedFrom=2000-01-01": nil,
	} {
		searched(t, c, "/api/v1/certificates?"+query, want...)
	}
	// The list's items are the certificates as GET /certificates/{id} shows them.
	p := getList(t, c, "/api/v1/certificates?status=expired")
	if assert.Len(t, p.Data, 1, "expired: p.Data") {
		assert.Equal(t, "expired", p.Data[0]["status"], `expired: p.Data[0]["status"]`)
		assert.Equal(t, other, p.Data[0]["eventId"], `expired: p.Data[0]["eventId"]`)
		assert.Equal(t, "2026-03-02T00:00:00Z", p.Data[0]["issuedAt"], `expired: p.Data[0]["issuedAt"]`)
	}
	searched(t, stranger.Client, "/api/v1/certificates", theirs.Data.ID)
	searched(t, stranger.Client, "/api/v1/certificates?eventId="+event)

	_, reader := s.acct.APIKey(t, "certificates:read")
	searched(t, reader, "/api/v1/certificates?eventId="+other, alan, edsger)
	_, others := s.acct.APIKey(t, "certificates:generate", "certificates:write", "events:read", "attendees:read", "templates:read", "badges:read")
	res = others.Get("/api/v1/certificates")
	if e := wantError(t, res, 403, res.StatusCode, "INSUFFICIENT_SCOPE"); !strings.Contains(string(res.Body), `"required":"certificates:read"`) {
		t.Errorf("without certificates:read: %+v %s", e, res.Body)
	}

	for path, field := range map[string]string{
		"/api/v1/certificates?eventID=" + event:              "query.eventID",
		"/api/v1/certificates?event=" + event:                "query.event",
		"/api/v1/certificates?search=ada":                    "query.search",
		"/api/v1/certificates?issuedAt=2026-03-01":           "query.issuedAt",
		"/api/v1/certificates?issuedFrom=2026-02-30":         "query.issuedFrom",
		"/api/v1/certificates?issuedTo=2026-03-01T00:00:00Z": "query.issuedTo",
		"/api/v1/certificates?status=issued":                 "query.status",
		"/api/v1/certificates?templateId=plain":              "query.templateId",
		"/api/v1/certificates?attendeeId=1":                  "query.attendeeId",
	} {
		res := c.Get(path)
		if res.StatusCode != http.StatusBadRequest {
			t.Errorf("%s: %d %s", path, res.StatusCode, res.Body)
			continue
		}
		if e := wantError(t, res, 400, res.StatusCode, "VALIDATION_ERROR"); !hasDetail(e, field, "") {
			t.Errorf("%s: %s", path, res.Body)
		}
	}
}

// q compares case-insensitively beyond ASCII too: "ŻÓŁĆ" finds "Żółć", "zürich" finds "Zürich",
// on the service's own PostgreSQL too (initdb --locale=C, where lower() alone folds A-Z only).
func TestSearchFoldsCaseBeyondASCII(t *testing.T) {
	t.Parallel()
	s := newIssuing(t, testkit.WithLimiter(unlimited{}))
	c := s.acct.Client
	zurich := s.newEvent(t, "Zürich Meetup", "2026-05-01T10:00:00Z")
	lukasz := s.acct.Attendee(t, s.event, "Łukasz", "Żółć", "lukasz@example.org")
	cert := s.generateOn(t, s.event.String(), "", lukasz, false).Data.ID
	// The same case: found.
	searched(t, c, "/api/v1/events?q="+url.QueryEscape("Zürich"), zurich)
	searched(t, c, "/api/v1/attendees?q="+url.QueryEscape("Żółć"), lukasz.String())
	// Another case.
	searched(t, c, "/api/v1/events?q="+url.QueryEscape("ZÜRICH"), zurich)
	searched(t, c, "/api/v1/events?q="+url.QueryEscape("zürich"), zurich)
	searched(t, c, "/api/v1/attendees?q="+url.QueryEscape("żółć"), lukasz.String())
	searched(t, c, "/api/v1/attendees?q="+url.QueryEscape("ŁUKASZ ŻÓŁĆ"), lukasz.String())
	searched(t, c, "/api/v1/certificates?q="+url.QueryEscape("łukasz"), cert)
}

// Names sort as people read them, whatever the database's locale: case does not put "Zed"
// before "adam", and accented letters sort with their base letter ("Émile" after "adam",
// "Żółć" after "Zed"), for events, templates and badges by name and attendees by last name.
func TestNamesSortAsPeopleReadThem(t *testing.T) {
	t.Parallel()
	s := newIssuing(t, testkit.WithLimiter(unlimited{}))
	c := s.acct.Client
	names := []string{"Zed", "adam", "Żółć", "Émile"}
	want := []string{"adam", "Émile", "Zed", "Żółć"}
	for _, n := range names {
		s.newEvent(t, n, "2026-05-01T10:00:00Z")
		s.newTemplate(t, n)
		s.acct.Attendee(t, s.event, "Ada", n, strings.ToLower(strings.ReplaceAll(n, "ó", "o"))+"x@example.org")
		created(t, c, "/api/v1/badges", map[string]any{"name": n})
	}
	for path, field := range map[string]string{
		"/api/v1/events?sort=name":                                         "name",
		"/api/v1/templates?sort=name":                                      "name",
		"/api/v1/badges?sort=name":                                         "name",
		"/api/v1/attendees?sort=lastName":                                  "lastName",
		"/api/v1/events/" + s.event.String() + "/attendees?sort=-lastName": "lastName",
	} {
		var got []string
		for _, it := range getList(t, c, withQuery(path, "pageSize=100")).Data {
			if v := it[field].(string); slices.Contains(names, v) {
				got = append(got, v)
			}
		}
		w := slices.Clone(want)
		if strings.HasPrefix(path[strings.Index(path, "sort=")+5:], "-") {
			slices.Reverse(w)
		}
		if !slices.Equal(got, w) {
			t.Errorf("%s: %q, want %q", path, got, w)
		}
	}
}
