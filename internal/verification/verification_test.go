package verification

import (
	"context"
	"fmt"
	"testing"
	"time"
)

func TestCodesAreReadAsPeopleTypeThem(t *testing.T) {
	for _, tc := range []struct {
		in, want string
		ok       bool
	}{
		{"7K2M9QXRT4VZ1", "7K2M9QXRT4VZ1", true},
		{"7k2m9qxrt4vz1", "7K2M9QXRT4VZ1", true},
		{"7K2M-9QXR-T4VZ1", "7K2M9QXRT4VZ1", true},
		{"oIl0", "0110", true}, // Crockford: O is 0, I and L are 1
		{"UUU", "UUU", true},   // well shaped; no stored code has a U, so it is not found
		{"", "", false},
		{"---", "", false},
		{"7K2M_9QX", "", false},
		{"7K2M 9QX", "", false},
		{"ÄBC", "", false},
		{string(make([]byte, 65)), "", false},
	} {
		got, ok := NormalizeCode(tc.in)
		if got != tc.want || ok != tc.ok {
			t.Errorf("NormalizeCode(%q) = %q, %v; want %q, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
	if got, ok := NormalizeTypedCode("  7k2m 9qxr t4vz1 "); !ok || got != "7K2M9QXRT4VZ1" {
		t.Errorf("a typed code with spaces: %q %v", got, ok)
	}
}

func TestCrawlersAndUnfurlersAreRecognised(t *testing.T) {
	for _, ua := range []string{
		"LinkedInBot/1.0 (compatible; Mozilla/5.0; Apache-HttpClient +http://www.linkedin.com)",
		"facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)",
		"Twitterbot/1.0",
		"Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)",
		"Slackbot 1.0 (+https://api.slack.com/robots)",
		"Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)",
		"Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)",
		"Mozilla/5.0 (compatible; Discordbot/2.0; +https://discordapp.com)",
		"TelegramBot (like TwitterBot)",
		"WhatsApp/2.23.20.0 A",
		"Mozilla/5.0 (Macintosh; Intel Mac OS X 10_11_1) AppleWebKit/601.2.4 (KHTML, like Gecko) Version/9.0.1 Safari/601.2.4 facebookexternalhit/1.1 Facebot Twitterbot/1.0",
		"Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.2; +https://openai.com/gptbot)",
		"Mastodon/4.2.0 (http.rb/5.1.1; +https://mastodon.social/)",
		"Mozilla/5.0 (compatible; YandexBot/3.0; +http://yandex.com/bots)",
	} {
		if !IsCrawler(ua) {
			t.Errorf("not recognised as a crawler: %s", ua)
		}
	}
	for _, ua := range []string{
		"",
		"Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36",
		"Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1",
		"Mozilla/5.0 (Linux; Android 10; CUBOT X20 PRO) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Mobile Safari/537.36",
		"curl/8.5.0",
		"Go-http-client/1.1",
	} {
		if IsCrawler(ua) {
			t.Errorf("a person or an integration taken for a crawler: %s", ua)
		}
	}
}

// Expiry is read from the time: an issued certificate past its expiresAt is expired whether
// or not anything wrote so; revoked wins over expired.
func TestStatusAtATime(t *testing.T) {
	now := time.Date(2026, 11, 13, 10, 0, 0, 0, time.UTC)
	past, future := now.Add(-time.Second), now.Add(time.Second)
	for _, tc := range []struct {
		stored  string
		expires *time.Time
		want    Status
	}{
		{"issued", nil, Valid},
		{"issued", &future, Valid},
		{"issued", &now, Expired},
		{"issued", &past, Expired},
		{"expired", &past, Expired},
		{"revoked", &future, Revoked},
		{"revoked", &past, Revoked},
	} {
		if got := statusAt(tc.stored, tc.expires, now); got != tc.want {
			t.Errorf("statusAt(%s, %v) = %s, want %s", tc.stored, tc.expires, got, tc.want)
		}
	}
}

// A render that panics gives its slot back and ends its call with an error, which wakes
// whoever waits on the same key; the next render of the key runs, and so do renders of other
// keys, more of them than there are slots.
func TestARenderThatPanicsReleasesItsSlotAndItsWaiters(t *testing.T) {
	c := newRenderCache(1 << 20)
	ctx := context.Background()
	var call *renderCall // what a waiter on the key would wait for
	func() {
		defer func() { _ = recover() }()
		_, _ = c.get(ctx, "k", func() ([]byte, error) {
			c.mu.Lock()
			call = c.inflight["k"]
			c.mu.Unlock()
			panic("boom")
		})
	}()
	select {
	case <-call.done:
		if call.err == nil {
			t.Fatal("the panicked call ended without an error")
		}
	default:
		t.Fatal("the panicked call never ended: its waiters would hang")
	}
	for i := range 2 * cap(c.slots) {
		got, err := c.get(ctx, fmt.Sprint("other", i), func() ([]byte, error) { return []byte("ok"), nil })
		if err != nil || string(got) != "ok" {
			t.Fatalf("render %d after the panic: %q %v", i, got, err)
		}
	}
	if got, err := c.get(ctx, "k", func() ([]byte, error) { return []byte("again"), nil }); err != nil || string(got) != "again" {
		t.Fatalf("the key after the panic: %q %v", got, err)
	}
}
