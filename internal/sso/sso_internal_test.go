package sso

import "testing"

// An ID token another party obtained, with this client among its audiences, does not sign
// anyone in here (OpenID Connect Core 3.1.3.7). The provider of the browser tests issues its
// tokens to this client alone, so the rule is tried here on its own.
func TestAnIDTokenIssuedToAnotherPartyIsRefused(t *testing.T) {
	const client = "credentiald"
	for _, c := range []struct {
		name string
		aud  []string
		azp  string
		want bool
	}{
		{"this client alone, no azp", []string{client}, "", true},
		{"this client alone, azp this client", []string{client}, client, true},
		{"this client alone, azp another", []string{client}, "other-app", false},
		{"several audiences, azp this client", []string{client, "api"}, client, true},
		{"several audiences, azp another", []string{"other-app", client}, "other-app", false},
		{"several audiences, no azp", []string{client, "other-app"}, "", false},
	} {
		if got := issuedTo(c.aud, c.azp, client); got != c.want {
			t.Errorf("%s: issuedTo = %v, want %v", c.name, got, c.want)
		}
	}
}
