package rdfc

import (
	"context"
	"os"
	"testing"

	"github.com/piprate/json-gold/ld"
)

// testdata/credential.nq is the RDF dataset of a typical credential this service issues (the
// certificate of internal/vc/testdata/canonical/input.json, through json-gold's ToRDF): 31
// quads, 4 blank nodes, all of unique first-degree hashes.
func credentialDataset(b *testing.B) *ld.RDFDataset {
	b.Helper()
	nq, err := os.ReadFile("testdata/credential.nq")
	if err != nil {
		b.Fatal(err)
	}
	ds, err := ld.ParseNQuads(string(nq))
	if err != nil {
		b.Fatal(err)
	}
	return ds
}

// BenchmarkCanonicalizeCredential canonicalizes a typical credential's dataset with this
// package (the conversion from json-gold's dataset included) and with json-gold's URDNA2015,
// which internal/vc used before, so that the cost of the change is known. Both give the same
// bytes for it.
func BenchmarkCanonicalizeCredential(b *testing.B) {
	ds := credentialDataset(b)
	opts := ld.NewJsonLdOptions("")
	opts.Algorithm = ld.AlgorithmURDNA2015
	opts.Format = "application/n-quads"
	want, err := ld.NewJsonLdApi().Normalize(ds, opts)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("rdfc", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			quads, err := FromRDFDataset(ds)
			if err != nil {
				b.Fatal(err)
			}
			got, err := Canonicalize(context.Background(), quads, Options{})
			if err != nil || got.NQuads != want {
				b.Fatalf("%v\n%s\nwant\n%s", err, got.NQuads, want)
			}
		}
	})
	b.Run("json-gold", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := ld.NewJsonLdApi().Normalize(ds, opts); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkPoisonRefused is the cost of refusing the suite's poison clique (test074) at the
// default limits.
func BenchmarkPoisonRefused(b *testing.B) {
	quads := readQuads(b, "rdfc10/test074-in.nq")
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Canonicalize(context.Background(), quads, Options{}); err == nil {
			b.Fatal("the clique canonicalized")
		}
	}
}
