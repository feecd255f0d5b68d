package httpapi_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The wallet endpoints, public and outside the request validator, refuse a body they cannot
// read with a 4xx the contract describes, never a 500: a form with a broken escape or a
// broken multipart body at the token endpoint, a body that is not JSON at the exchange and
// the credential endpoint.
func TestTheWalletEndpointsRefuseBodiesTheyCannotRead(t *testing.T) {
	t.Parallel()
	s := newIssuing(t)
	cert := s.issue(t, "Ada", "Lovelace", nil)
	var o walletOfferBody
	s.acct.Client.Post("/api/v1/certificates/"+cert.Data.ID+"/wallet-offers", nil).JSON(t, &o)
	interaction, err := url.Parse(o.Data.InteractionURL)
	require.NoError(t, err, "offer: %+v", o)
	require.NotEmpty(t, o.Data.InteractionURL, "offer: o.Data.InteractionURL")
	token := interaction.Path[strings.LastIndex(interaction.Path, "/")+1:]
	issuer := "/issuers/" + s.acct.ID.String()
	public := s.env.Client
	for _, c := range []struct{ name, path, contentType, body, says string }{
		{"a form with a broken escape", issuer + "/token", "application/x-www-form-urlencoded", "grant_type=%zz", "The form cannot be read"},
		{"a broken multipart body", issuer + "/token", "multipart/form-data; boundary=x", "--x\r\nbroken", "The form cannot be read"},
		{"a token request that is not a form", issuer + "/token", "text/plain", "grant_type=x", "unsupported_grant_type"},
		{"an exchange body that is not JSON", "/exchanges/" + token, "text/plain", "{}", "header.Content-Type"},
		{"a credential request that is not JSON", issuer + "/credential", "text/plain", "{}", "header.Content-Type"},
	} {
		req := public.Request(http.MethodPost, c.path, []byte(c.body))
		req.Header.Set("Content-Type", c.contentType)
		res := public.Do(req)
		assert.Equal(t, http.StatusBadRequest, res.StatusCode, "%s: status (body %s)", c.name, res.Body)
		assert.Contains(t, string(res.Body), c.says, "%s: body", c.name)
	}
}
