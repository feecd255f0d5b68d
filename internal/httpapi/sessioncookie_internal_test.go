package httpapi

import "testing"

// The refresh cookie is Secure everywhere but a plain-http site on a loopback address, where a
// browser would not send it back (decision "The application").
func TestTheRefreshCookieIsSecureButOnLoopbackHTTP(t *testing.T) {
	for site, secure := range map[string]bool{
		"https://certs.example.org": true,
		"https://127.0.0.1:8443":    true,
		"http://certs.example.org":  true,
		"http://10.0.0.5:8080":      true,
		"http://127.0.0.1:8080":     false,
		"http://localhost:8080":     false,
		"http://[::1]:8080":         false,
	} {
		if got := newSessionCookies(site).refresh("t").Secure; got != secure {
			t.Errorf("%s: Secure %v, want %v", site, got, secure)
		}
	}
}
