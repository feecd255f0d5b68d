package httpapi_test

import (
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"html"
	"io"
	"mime/quotedprintable"
	"net/http"
	"net/url"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/certhub/credentiald/internal/testkit"
)

// nodeWith returns the node binary where the packages are installed in test/vc-verify.
func nodeWith(t *testing.T, packages ...string) string {
	t.Helper()
	return testkit.Node(t, verifierDir, packages...)
}

// runNode runs a script of test/vc-verify with input as JSON on stdin and decodes its output.
func runNode(t *testing.T, node, script string, input, output any) {
	t.Helper()
	in, _ := json.Marshal(input)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, filepath.Join(verifierDir, script))
	cmd.Stdin = bytes.NewReader(in)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s: %v\n%s", script, err, stderr.String())
	}
	if err := json.Unmarshal(out, output); err != nil {
		t.Fatalf("%s answered %s: %v", script, out, err)
	}
}

type walletOffer struct {
	ID, InteractionURL, CredentialOfferURI, WalletURL, LcwRequestURL string
	CertificateID, BadgeAssertionID, Holder, Protocol                *string
}

type walletOfferBody struct{ Data walletOffer }

// Real holders claim real offers from the running service: the OpenWallet Foundation's
// OpenID4VCI client (@openid4vc/openid4vci) in both formats, and a VC API exchange made as the
// Learner Credential Wallet makes it (@digitalcredentials/vc with Ed25519Signature2020 and a
// did:key). What they receive is the certificate bound to their DID: the DCC's verifier-core
// and Digital Bazaar's libraries verify it, and after the certificate is revoked through the
// API the wallet copies are reported revoked.
func TestWalletsClaimOffersOverBothProtocols(t *testing.T) {
	t.Parallel()
	node := nodeWith(t, "@openid4vc/openid4vci", "@digitalcredentials/vc", "@digitalcredentials/verifier-core", "@digitalbazaar/vc")
	s := newIssuing(t, testkit.WithSiteAtServer())
	cert := s.issue(t, "Ada", "Lovelace", nil)
	offer := func() walletOfferBody {
		t.Helper()
		res := s.acct.Client.Post("/api/v1/certificates/"+cert.Data.ID+"/wallet-offers", nil)
		var o walletOfferBody
		res.JSON(t, &o)
		require.Equal(t, http.StatusCreated, res.StatusCode, "offer: status (body %s)", res.Body)
		require.NotNil(t, o.Data.CertificateID, "offer: o.Data.CertificateID")
		require.Equal(t, cert.Data.ID, *o.Data.CertificateID, "offer: *o.Data.CertificateID")
		return o
	}
	ldpOffer, jwtOffer, vcapiOffer := offer(), offer(), offer()

	type claimed struct {
		Holder   string
		Response struct {
			Credentials []struct{ Credential json.RawMessage }
		}
	}
	var ldp, jwt claimed
	runNode(t, node, "oid4vci.mjs", map[string]any{"offer": ldpOffer.Data.WalletURL, "seed": strings.Repeat("11", 32),
		"configurationId": "OpenBadgeCredential_ldp_vc"}, &ldp)
	runNode(t, node, "oid4vci.mjs", map[string]any{"offer": jwtOffer.Data.WalletURL, "seed": strings.Repeat("22", 32),
		"configurationId": "OpenBadgeCredential_jwt_vc_json"}, &jwt)
	require.Len(t, ldp.Response.Credentials, 1, "OpenID4VCI answers: ldp.Response.Credentials")
	require.Len(t, jwt.Response.Credentials, 1, "OpenID4VCI answers: jwt.Response.Credentials")
	var jwtToken string
	if err := json.Unmarshal(jwt.Response.Credentials[0].Credential, &jwtToken); err != nil {
		t.Fatalf("the jwt_vc_json credential is not a string: %s", jwt.Response.Credentials[0].Credential)
	}

	// The exchange, as the LCW runs it from the interaction URL.
	public := s.env.Client
	interaction, _ := url.Parse(vcapiOffer.Data.InteractionURL)
	req := public.Request(http.MethodGet, interaction.RequestURI(), nil)
	req.Header.Set("Accept", "application/json")
	var protocols struct {
		Protocols struct{ Vcapi, OID4VCI string }
	}
	res := public.Do(req)
	res.JSON(t, &protocols)
	require.Equal(t, http.StatusOK, res.StatusCode, "interaction (JSON): status (body %s)", res.Body)
	require.Equal(t, vcapiOffer.Data.WalletURL, protocols.Protocols.OID4VCI, "interaction (JSON): protocols.Protocols.OID4VCI")
	exchange, _ := url.Parse(protocols.Protocols.Vcapi)
	var vpr struct {
		VerifiablePresentationRequest struct{ Challenge, Domain string }
	}
	res = public.Post(exchange.Path, map[string]any{})
	res.JSON(t, &vpr)
	require.Equal(t, http.StatusOK, res.StatusCode, "exchange start: status (body %s)", res.Body)
	require.NotEmpty(t, vpr.VerifiablePresentationRequest.Challenge, "exchange start: vpr.VerifiablePresentationRequest.Challenge")
	seed := bytes.Repeat([]byte{0x33}, 32)
	vp := lcwAuthentication(t, node, seed, vpr.VerifiablePresentationRequest.Challenge, vpr.VerifiablePresentationRequest.Domain)
	// A presentation for another challenge is refused and leaves the offer claimable.
	stale := lcwAuthentication(t, node, seed, "not-the-challenge", vpr.VerifiablePresentationRequest.Domain)
	res = public.Post(exchange.Path, map[string]any{"verifiablePresentation": stale})
	wantError(t, res, http.StatusBadRequest, res.StatusCode, "VALIDATION_ERROR")
	var answer struct {
		VerifiablePresentation struct{ VerifiableCredential []json.RawMessage }
	}
	res = public.Post(exchange.Path, map[string]any{"verifiablePresentation": vp})
	res.JSON(t, &answer)
	require.Equal(t, http.StatusOK, res.StatusCode, "exchange: status (body %s)", res.Body)
	require.Len(t, answer.VerifiablePresentation.VerifiableCredential, 1, "exchange: answer.VerifiablePresentation.VerifiableCredential")
	exchanged := answer.VerifiablePresentation.VerifiableCredential[0]

	// Each offer is claimed once: the exchange, the offer document and the page say so.
	res = public.Post(exchange.Path, map[string]any{"verifiablePresentation": vp})
	wantError(t, res, http.StatusGone, res.StatusCode, "OFFER_GONE")
	offerURI, _ := url.Parse(ldpOffer.Data.CredentialOfferURI)
	res = public.Get(offerURI.Path)
	wantError(t, res, http.StatusGone, res.StatusCode, "OFFER_GONE")
	page := public.Get(interaction.RequestURI())
	require.Equal(t, http.StatusGone, page.StatusCode, "the page of a claimed offer: status")
	require.Contains(t, string(page.Body), "no longer works", "the page of a claimed offer")
	var list struct {
		Data []walletOffer
		Meta struct{ Total int }
	}
	res = s.acct.Client.Get("/api/v1/certificates/" + cert.Data.ID + "/wallet-offers")
	res.JSON(t, &list)
	require.Equal(t, http.StatusOK, res.StatusCode, "offers: status (body %s)", res.Body)
	require.Equal(t, 3, list.Meta.Total, "offers: list.Meta.Total")
	holders := map[string]string{}
	for _, o := range list.Data {
		require.NotNil(t, o.Holder, "an offer not claimed: o.Holder")
		require.NotNil(t, o.Protocol, "an offer not claimed: o.Protocol")
		holders[*o.Holder] = *o.Protocol
	}
	require.Equal(t, "oid4vci", holders[ldp.Holder], "holders and protocols: holders[ldp.Holder]")
	require.Equal(t, "oid4vci", holders[jwt.Holder], "holders and protocols: holders[jwt.Holder]")
	require.Len(t, holders, 3, "holders and protocols: holders")

	// What the wallets hold verifies, bound to each holder, and is revoked with the certificate.
	for name, c := range map[string]json.RawMessage{"OpenID4VCI": ldp.Response.Credentials[0].Credential, "exchange": exchanged} {
		var bound struct {
			ID                string
			CredentialSubject struct{ ID string }
		}
		_ = json.Unmarshal(c, &bound)
		require.Equal(t, "urn:uuid:"+cert.Data.ID, bound.ID, "%s: bound.ID", name)
		require.True(t, strings.HasPrefix(bound.CredentialSubject.ID, "did:key:z6Mk"), "%s: %q should start with %q", name, bound.CredentialSubject.ID, "did:key:z6Mk")
	}
	account := s.acct.ID.String()
	get := func(path string) json.RawMessage {
		t.Helper()
		res := public.Get(path)
		if res.StatusCode != http.StatusOK {
			t.Fatalf("%s: %d %s", path, res.StatusCode, res.Body)
		}
		return res.Body
	}
	var fields struct {
		Issuer           struct{ ID string }
		CredentialStatus struct{ StatusListCredential string }
	}
	_ = json.Unmarshal(exchanged, &fields)
	listURL := fields.CredentialStatus.StatusListCredential
	listPath := listURL[strings.Index(listURL, "/issuers/"):]
	documents := map[string]any{fields.Issuer.ID: get("/issuers/" + account + "/did.json"), listURL: get(listPath)}
	jwks := get("/issuers/" + account + "/jwks.json")
	if res := s.acct.Client.Post("/api/v1/certificates/"+cert.Data.ID+"/revoke", map[string]any{"reasonCode": "superseded"}); res.StatusCode != http.StatusOK {
		t.Fatalf("revoke: %d %s", res.StatusCode, res.Body)
	}
	after := map[string]any{listURL: get(listPath)}
	core := func(revoked bool) map[string]any {
		return map[string]any{"verified": true, "revoked": revoked, "schema": true,
			"verifierCore": map[string]any{"fatal": nil, "valid_signature": true, "expiration": true, "revocation_status": !revoked, "schema_check": true}}
	}
	runNodeVerifier(t, node, map[string]any{
		"documents": documents,
		"credentials": []credentialCase{
			{Name: "claimed over OpenID4VCI (ldp_vc)", Credential: ldp.Response.Credentials[0].Credential, Expect: core(false)},
			{Name: "claimed over the VC API exchange", Credential: exchanged, Expect: core(false)},
			{Name: "OpenID4VCI copy after revocation", Credential: ldp.Response.Credentials[0].Credential, Documents: after, Expect: core(true)},
			{Name: "exchange copy after revocation", Credential: exchanged, Documents: after, Expect: core(true)},
		},
		"jwts": []jwtCase{{Name: "claimed over OpenID4VCI (jwt_vc_json)", Token: jwtToken, JWKS: jwks,
			Expect: map[string]any{"verified": true, "schema": true, "claims": true}}},
	}, 4, 1)

	// A revoked certificate's new offer is refused; the events say who claimed, and how.
	res = s.acct.Client.Post("/api/v1/certificates/"+cert.Data.ID+"/wallet-offers", nil)
	wantError(t, res, http.StatusConflict, res.StatusCode, "CONFLICT")
	events, err := s.env.Store.OutboxEvents(t.Context(), s.acct.ID)
	if err != nil {
		t.Fatal(err)
	}
	checkOutbox(t, events)
	n := 0
	for _, e := range events {
		if e.EventType == "certificate.claimed" {
			n++
		}
	}
	if n != 3 {
		t.Fatalf("%d certificate.claimed events, want 3", n)
	}
	// The claims count in the analytics, the account's and the event's.
	var dash struct{ Data struct{ Claims int } }
	s.acct.Client.Get("/api/v1/analytics/dashboard").JSON(t, &dash)
	var days struct{ Data []struct{ Claims int } }
	s.acct.Client.Get("/api/v1/analytics/events/"+s.event.String()).JSON(t, &days)
	claims := 0
	for _, d := range days.Data {
		claims += d.Claims
	}
	require.Equal(t, 3, dash.Data.Claims, "claims: dashboard")
	require.Equal(t, 3, claims, "claims: event")
}

// lcwAuthentication is a DID authentication made by the Learner Credential Wallet's libraries.
func lcwAuthentication(t *testing.T, node string, seed []byte, challenge, domain string) map[string]any {
	t.Helper()
	var vp map[string]any
	runNode(t, node, "didauth.mjs", map[string]any{"seed": hex.EncodeToString(seed), "challenge": challenge, "domain": domain}, &vp)
	return vp
}

// The delivery email of a certificate offers it to the recipient's wallet: a fresh offer made
// when the message is sent, its link in the text and as the HTML part's second button.
func TestTheDeliveryEmailCarriesAFreshWalletOffer(t *testing.T) {
	t.Parallel()
	s := newIssuing(t)
	a := s.acct.Attendee(t, s.event, "Grace", "Hopper", "grace@example.org")
	var cert certificateBody
	s.acct.Client.Post("/api/v1/certificates/generate", s.generate(a, map[string]any{"sendEmail": true})).JSON(t, &cert)
	n, err := runEmail(t, s.env)
	require.NoError(t, err, "email worker")
	require.Equal(t, 1, n, "messages the email worker sent")
	_, raw := onlyMessageSent(t, s.env)
	text, _ := io.ReadAll(quotedprintable.NewReader(bytes.NewReader(raw)))
	var list struct {
		Data []walletOffer
		Meta struct{ Total int }
	}
	res := s.acct.Client.Get("/api/v1/certificates/" + cert.Data.ID + "/wallet-offers")
	res.JSON(t, &list)
	require.Equal(t, http.StatusOK, res.StatusCode, "offers after the email: status (body %s)", res.Body)
	require.Equal(t, 1, list.Meta.Total, "offers after the email: list.Meta.Total")
	link := list.Data[0].InteractionURL
	if !bytes.Contains(text, []byte("Keep it in your digital wallet:\r\n"+link)) && !bytes.Contains(text, []byte("Keep it in your digital wallet:\n"+link)) {
		t.Fatalf("the text lacks the wallet link %s:\n%s", link, text)
	}
	require.Contains(t, string(text), ">Add to your wallet</a>", "the HTML part lacks its wallet button")
	require.NotContains(t, string(text), "[[wallet-link]]", "the HTML part keeps the marker")
	// The recipient's page (the email's verification link, with its token) shows the same
	// offer again, with its QR code; the public page shows none.
	verify := regexp.MustCompile(`/verify/[0-9A-Z]+\?t=[A-Za-z0-9_-]+`).Find(text)
	if verify == nil {
		t.Fatalf("no verification link with a token in:\n%s", text)
	}
	page := s.env.Client.Get(string(verify))
	require.Equal(t, http.StatusOK, page.StatusCode, "the recipient's page lacks the wallet card of %s: status", list.Data[0].WalletURL)
	require.Contains(t, string(page.Body), "Keep it in your digital wallet", "the recipient's page lacks the wallet card of %s", list.Data[0].WalletURL)
	require.Contains(t, string(page.Body), `href="`+html.EscapeString(list.Data[0].WalletURL)+`"`, "the recipient's page lacks the wallet card of %s", list.Data[0].WalletURL)
	require.Contains(t, string(page.Body), "<svg", "the recipient's page lacks the wallet card of %s: QR code", list.Data[0].WalletURL)
	public := s.env.Client.Get("/verify/" + cert.Data.VerificationCode)
	if bytes.Contains(public.Body, []byte("Keep it in your digital wallet")) {
		t.Fatal("the public page offers the credential to a wallet")
	}
	if res := s.acct.Client.Get("/api/v1/certificates/" + cert.Data.ID + "/wallet-offers"); !bytes.Contains(res.Body, []byte(`"total":1`)) {
		t.Fatalf("the page made another offer instead of showing the email's: %s", res.Body)
	}
}
