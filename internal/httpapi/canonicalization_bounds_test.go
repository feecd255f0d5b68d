package httpapi_test

import (
	"crypto/ed25519"
	"crypto/sha256"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mr-tron/base58"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/certhub/credentiald/internal/testkit"
	"github.com/certhub/credentiald/internal/vc"
)

// The VC API exchange verifies a holder's DID authentication, and RDFC-1.0 canonicalizes it
// before its signature is checked: a presentation shaped to make its blank nodes alike used to
// hold a core for minutes (an @list of 800 equal items, 3 KB, took over 85 s). These tests send
// the probe's shapes to the exchange, the one entry point that canonicalizes JSON-LD from
// outside, and expect a 400 naming the bound that stopped each (see
// docs/decisions/bounded-canonicalization.md), in milliseconds.

// exchangeStarted is an offer's exchange, started: its path and the challenge and domain its
// DID authentication must sign.
type exchangeStarted struct{ path, challenge, domain string }

func startExchange(t *testing.T, s issuing) exchangeStarted {
	t.Helper()
	cert := s.issue(t, "Ada", "Lovelace", nil)
	var o walletOfferBody
	s.acct.Client.Post("/api/v1/certificates/"+cert.Data.ID+"/wallet-offers", nil).JSON(t, &o)
	interaction, err := url.Parse(o.Data.InteractionURL)
	require.NoError(t, err, "offer: err")
	require.NotEmpty(t, o.Data.InteractionURL, "offer: o.Data.InteractionURL")
	path := "/exchanges/" + interaction.Path[strings.LastIndex(interaction.Path, "/")+1:]
	var vpr struct {
		VerifiablePresentationRequest struct{ Challenge, Domain string }
	}
	res := s.env.Client.Post(path, map[string]any{})
	res.JSON(t, &vpr)
	require.Equal(t, http.StatusOK, res.StatusCode, "exchange start: status (body %s)", res.Body)
	require.NotEmpty(t, vpr.VerifiablePresentationRequest.Challenge, "exchange start: vpr.VerifiablePresentationRequest.Challenge")
	return exchangeStarted{path, vpr.VerifiablePresentationRequest.Challenge, vpr.VerifiablePresentationRequest.Domain}
}

// hostilePresentation is a DID authentication for the exchange's challenge and domain, by a
// real did:key, with a well-formed proof of no signature (the signature is checked after the
// canonicalization the bounds protect), and shape's members added.
func (x exchangeStarted) hostilePresentation(shape func(m map[string]any)) map[string]any {
	seed := sha256.Sum256([]byte("canonicalization bounds holder"))
	mb := vc.Multibase(ed25519.NewKeyFromSeed(seed[:]).Public().(ed25519.PublicKey))
	did := "did:key:" + mb
	m := map[string]any{"@context": []any{vc.ContextCredentialsV2}, "type": []any{"VerifiablePresentation"}, "holder": did}
	shape(m)
	m["proof"] = map[string]any{"type": vc.ProofType, "cryptosuite": vc.Cryptosuite, "created": "2026-12-07T10:00:00Z",
		"verificationMethod": did + "#" + mb, "proofPurpose": "authentication", "challenge": x.challenge, "domain": x.domain,
		"proofValue": "z" + base58.Encode(make([]byte, ed25519.SignatureSize))}
	return m
}

func inlineContext(m map[string]any, terms map[string]any) {
	m["@context"] = append(m["@context"].([]any), terms)
}

// equalItems is the probe's @list of n equal items: n blank nodes alike to RDFC-1.0.
func equalItems(n int, item any) func(m map[string]any) {
	return func(m map[string]any) {
		inlineContext(m, map[string]any{"items": map[string]any{"@id": "urn:example:items", "@container": "@list"}})
		items := make([]any, n)
		for i := range items {
			items[i] = item
		}
		m["items"] = items
	}
}

// relatedAlike relates each of from blank nodes to each of to others (from = to: rdf-canon's
// test074 clique, 10 nodes each related to all 10, itself included).
func relatedAlike(from, to int) func(m map[string]any) {
	return func(m map[string]any) {
		inlineContext(m, map[string]any{"p": map[string]any{"@id": "urn:example:p", "@type": "@id"}})
		prefix := "_:n"
		if from != to {
			prefix = "_:leaf"
		}
		nodes := make([]any, from)
		for i := range nodes {
			related := make([]any, to)
			for j := range related {
				related[j] = fmt.Sprint(prefix, j)
			}
			nodes[i] = map[string]any{"id": fmt.Sprint("_:n", i), "p": related}
		}
		m["@included"] = nodes
	}
}

// poisonPresentations are the probe's shapes and the bound each is refused by: (a) an @list of
// 800 equal items, (b) one of 7,000 items (14 KB), (c) test074's clique, all over the JSON
// values; a list of 20, within the JSON bounds, over the blank nodes; and 3 blank nodes related
// alike to 12, within every bound on the JSON and the dataset, stopped by the canonicalizer's
// count of its Hash N-Degree Quads calls.
var poisonPresentations = []struct {
	name, says string
	shape      func(m map[string]any)
}{
	{"an @list of 800 equal items", "over the bound of 128 JSON values", equalItems(800, "a")},
	{"an @list of 7,000 items", "over the bound of 128 JSON values", equalItems(7000, 0)},
	{"a clique of 10 blank nodes (rdf-canon test074)", "over the bound of 128 JSON values", relatedAlike(10, 10)},
	{"an @list of 20 items", "over the bound of 16 blank nodes", equalItems(20, "a")},
	{"3 blank nodes related alike to 12", "over the bound of 1000 Hash N-Degree Quads calls", relatedAlike(3, 12)},
}

func TestTheExchangeRefusesPoisonPresentationsNamingTheBound(t *testing.T) {
	t.Parallel()
	s := newIssuing(t)
	x := startExchange(t, s)
	for _, p := range poisonPresentations {
		res := s.env.Client.Post(x.path, map[string]any{"verifiablePresentation": x.hostilePresentation(p.shape)})
		e := wantError(t, res, http.StatusBadRequest, res.StatusCode, "VALIDATION_ERROR")
		if assert.Len(t, e.Error.Details, 1, "%s: e.Error.Details", p.name) {
			assert.Equal(t, "body.verifiablePresentation", e.Error.Details[0].Field, "%s: e.Error.Details[0].Field", p.name)
			assert.Contains(t, e.Error.Details[0].Message, p.says, "%s: e.Error.Details[0].Message", p.name)
		}
	}
	// What made the JSON-LD processor panic (a 500) is a 400 too.
	emptyKey := x.hostilePresentation(func(m map[string]any) {
		inlineContext(m, map[string]any{"p": map[string]any{"@id": "urn:example:p"}})
		m["p"] = map[string]any{"": []any{0}}
	})
	res := s.env.Client.Post(x.path, map[string]any{"verifiablePresentation": emptyKey})
	e := wantError(t, res, http.StatusBadRequest, res.StatusCode, "VALIDATION_ERROR")
	if assert.Len(t, e.Error.Details, 1, "an empty member name: e.Error.Details") {
		assert.Contains(t, e.Error.Details[0].Message, "JSON-LD expansion failed", "an empty member name: e.Error.Details[0].Message")
	}
	// The offer stays claimable: the exchange still starts.
	if res := s.env.Client.Post(x.path, map[string]any{}); res.StatusCode != http.StatusOK {
		t.Fatalf("the exchange after the refusals: %d %s", res.StatusCode, res.Body)
	}
}

// processCPU is the CPU time this process has used, user and system.
func processCPU(t *testing.T) time.Duration {
	t.Helper()
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		t.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// Each refusal costs the process (client, server and all) under 50 ms of CPU: a check that the
// work is bounded, not a benchmark (without the bounds, the first shape took over 85 s). The
// test is not parallel, so that no other test's work is counted. The race detector multiplies
// every cost several times over: the bound is the production build's, so `make test` checks it
// in its pass without the detector (test/run.sh); under it the test skips.
func TestPoisonPresentationsCostMillisecondsOfCPU(t *testing.T) {
	if testkit.RaceDetector {
		t.Skip("a bound on the production build's CPU: make test checks it without the race detector (test/run.sh)")
	}
	s := newIssuing(t)
	x := startExchange(t, s)
	const bound = 50 * time.Millisecond
	for _, p := range poisonPresentations {
		body := map[string]any{"verifiablePresentation": x.hostilePresentation(p.shape)}
		before := processCPU(t)
		res := s.env.Client.Post(x.path, body)
		used := processCPU(t) - before
		if res.StatusCode != http.StatusBadRequest {
			t.Fatalf("%s: %d %s", p.name, res.StatusCode, res.Body)
		}
		t.Logf("%s: %v of CPU", p.name, used)
		if used > bound {
			t.Errorf("%s: %v of CPU, over %v", p.name, used, bound)
		}
	}
}
