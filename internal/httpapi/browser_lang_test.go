package httpapi_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"

	"github.com/certhub/credentiald/internal/testkit"
	"github.com/certhub/credentiald/internal/testkit/browser"
	"github.com/certhub/credentiald/internal/testkit/coverage"
)

// A real browser of a German reader, at a phone's width, reads the page of a German event's
// certificate in German (its Accept-Language) and in Japanese (?lang=ja, which comes first): the status in the language, nothing
// wider than the screen, no console error or CSP violation. UPDATE_SCREENSHOTS=1 writes
// docs/verify-de-phone.png and docs/verify-ja-phone.png, shown in the README.
func TestTheVerificationPageInGermanAndJapaneseInABrowser(t *testing.T) {
	chrome := browser.Binary(t)
	clock := &testkit.Clock{}
	clock.Stop()
	clock.Advance(time.Date(2026, time.November, 13, 10, 0, 0, 0, time.UTC).Sub(clock.Now()))
	env := testkit.NewServer(t, testkit.WithClock(clock.Now))
	acct := testkit.SignUp(t, env)
	if res := acct.Client.Put("/api/v1/branding", map[string]any{"issuerName": "Gophers e.V.", "primaryColor": "#1F2A44"}); res.StatusCode != 200 {
		t.Fatalf("branding: %d %s", res.StatusCode, res.Body)
	}
	const classic = "00000000-0000-7000-8000-00000000c001"
	res := acct.Client.Post("/api/v1/events", map[string]any{"name": "Gophertage 2026", "eventDate": "2026-11-12T09:00:00Z",
		"location": "Berlin", "templateId": classic, "certificateValidityDays": 730, "locale": "de"})
	var ev eventBody
	res.JSON(t, &ev)
	s := issuing{env: env, acct: acct, event: uuid.MustParse(ev.Data.ID), template: uuid.MustParse(classic)}
	cert := s.issue(t, "Friederike", "Müller-Lüdenscheidt", nil)

	// A German reader's browser: its Accept-Language asks for German.
	browserCtx := startBrowser(t, chrome, chromedp.Flag("lang", "de-DE"), chromedp.Flag("accept-lang", "de-DE,de"))
	for _, tc := range []struct {
		lang, query, status, badge string
	}{
		{"de", "", "Dieses Zertifikat ist gültig", "Gültig"},
		{"ja", "?lang=ja", "この証明書は有効です", "有効"},
	} {
		t.Run(tc.lang, func(t *testing.T) {
			seen, problems, shot := loadInBrowser(t, browserCtx, env.URL+"/verify/"+cert.Data.VerificationCode+tc.query, 390, 844, true, axeSource(t))
			if len(problems) > 0 {
				t.Errorf("the browser reported:\n  %s", strings.Join(problems, "\n  "))
			}
			assert.Equal(t, tc.status, seen.Status, "seen.Status")
			assert.Equal(t, tc.badge, seen.Badge, "seen.Badge")
			assert.Equal(t, "Friederike Müller-Lüdenscheidt", seen.Recipient, "seen.Recipient")
			assert.Equal(t, "Gophertage 2026", seen.Name, "seen.Name")
			if seen.Overflow {
				t.Error("the page is wider than the phone's screen")
			}
			if len(seen.Violations) > 0 {
				t.Errorf("CSP violations: %v", seen.Violations)
			}
			if os.Getenv("UPDATE_SCREENSHOTS") == "1" {
				out := filepath.Join(coverage.ModuleRoot(), "docs", "verify-"+tc.lang+"-phone.png")
				if err := os.WriteFile(out, shot, 0o644); err != nil {
					t.Fatal(err)
				}
			}
		})
	}
}

// fontconfigWithCJK is a fontconfig file that adds the renderer's own fonts (IPAGothic,
// Droid Sans Fallback) to the system's, for Chromium: a machine without CJK fonts installed
// would draw Japanese and Chinese as empty boxes, which no visitor's phone does.
func fontconfigWithCJK(t *testing.T) string {
	t.Helper()
	conf := filepath.Join(t.TempDir(), "fonts.conf")
	fonts := filepath.Join(coverage.ModuleRoot(), "internal", "render", "fonts")
	if err := os.WriteFile(conf, []byte(`<?xml version="1.0"?><!DOCTYPE fontconfig SYSTEM "fonts.dtd"><fontconfig>
<include ignore_missing="yes">/etc/fonts/fonts.conf</include><dir>`+fonts+`</dir><cachedir>`+t.TempDir()+`</cachedir></fontconfig>`), 0o644); err != nil {
		t.Fatal(err)
	}
	return conf
}
