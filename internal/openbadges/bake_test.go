package openbadges

import (
	"bytes"
	"encoding/json"
	"errors"
	"image"
	"image/color"
	"image/png"
	"testing"
	"time"
)

func smallPNG(t *testing.T) []byte {
	t.Helper()
	img := image.NewNRGBA(image.Rect(0, 0, 4, 4))
	img.Set(1, 1, color.NRGBA{200, 10, 10, 255})
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// A baked PNG still decodes as the same picture and carries exactly one iTXt chunk under the
// keyword, holding the assertion byte for byte; baking again replaces it instead of adding one.
func TestBakedPNGCarriesOneAssertion(t *testing.T) {
	issued := time.Date(2026, 11, 20, 10, 0, 0, 0, time.FixedZone("CET", 3600))
	a := NewAssertion("https://certs.example.org/ob/v2/assertions/1", "https://certs.example.org/ob/v2/badges/2",
		" Ana@Example.org ", "deadbeef", "https://certs.example.org/api/v1/verify/ABC/badge.png", issued, nil)
	text, _ := json.Marshal(a)
	plain := smallPNG(t)
	baked, err := BakePNG(plain, PNGKeywordAssertion, text)
	if err != nil {
		t.Fatal(err)
	}
	rebaked, err := BakePNG(baked, PNGKeywordAssertion, text)
	if err != nil {
		t.Fatal(err)
	}
	for _, img := range [][]byte{baked, rebaked} {
		got, err := UnbakePNG(img, PNGKeywordAssertion)
		if err != nil || len(got) != 1 || !bytes.Equal(got[0], text) {
			t.Fatalf("unbaked %d chunks (%v): %q", len(got), err, got)
		}
		if n := bytes.Count(img, []byte("iTXtopenbadges\x00")); n != 1 {
			t.Fatalf("%d iTXt chunks with the keyword", n)
		}
		decoded, err := png.Decode(bytes.NewReader(img))
		if err != nil || decoded.At(1, 1) != (color.NRGBA{200, 10, 10, 255}) {
			t.Fatalf("the baked image does not decode as the same picture: %v", err)
		}
	}
	var back Assertion
	got, _ := UnbakePNG(baked, PNGKeywordAssertion)
	if err := json.Unmarshal(got[0], &back); err != nil {
		t.Fatal(err)
	}
	if back.ID != a.ID || back.Recipient.Identity != RecipientIdentity("ana@example.org", "deadbeef") || back.IssuedOn != "2026-11-20T09:00:00Z" {
		t.Fatalf("assertion read back: %+v", back)
	}
	if _, err := BakePNG([]byte("GIF89a"), PNGKeywordAssertion, text); !errors.Is(err, ErrNotPNG) {
		t.Fatalf("a GIF: %v", err)
	}
	broken := bytes.Clone(plain)
	broken[len(broken)-20] ^= 0xff
	if _, err := BakePNG(broken, PNGKeywordAssertion, text); !errors.Is(err, ErrNotPNG) {
		t.Fatalf("a PNG with a broken CRC: %v", err)
	}
}

// The identity is sha256$ and the hex SHA-256 of the trimmed, lower-cased email followed by
// the salt; the expected value comes from coreutils: printf 'ana@example.orgdeadbeef' | sha256sum.
func TestRecipientIdentity(t *testing.T) {
	const want = "sha256$5ef2eb97c5cfe4cc1ad0c944e9dc930729e1852ddfeef0d646fdd856d6677e55"
	if got := RecipientIdentity("  ANA@example.org ", "deadbeef"); got != want {
		t.Fatalf("%s, want %s", got, want)
	}
	if RecipientIdentity("ana@example.org", "other") == want {
		t.Fatal("the salt does not change the hash")
	}
}

// A baked SVG declares the namespace once, holds the assertion in CDATA under its verify URL
// (even when the JSON holds "]]>"), and the rest of the picture is unchanged.
func TestBakedSVGCarriesTheAssertion(t *testing.T) {
	svg := []byte(`<?xml version="1.0"?>` + "\n" + `<!-- a comment with <svg> in it -->` +
		`<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10" data-x="a&gt;b"><title>T</title><rect width="10" height="10"/></svg>`)
	text := []byte(`{"id":"https://x.example/1","note":"odd ]]> text"}`)
	baked, err := BakeSVG(svg, SVGElementAssertion, "https://x.example/1?a=1&b=2", text)
	if err != nil {
		t.Fatal(err)
	}
	verify, texts, err := UnbakeSVG(baked, SVGElementAssertion)
	if err != nil || len(texts) != 1 || !bytes.Equal(texts[0], text) || verify[0] != "https://x.example/1?a=1&b=2" {
		t.Fatalf("unbaked %q %q (%v) from:\n%s", verify, texts, err, baked)
	}
	if !bytes.Contains(baked, []byte(`xmlns:openbadges="http://openbadges.org"`)) || !bytes.HasSuffix(baked, []byte(`<title>T</title><rect width="10" height="10"/></svg>`)) {
		t.Fatalf("baked:\n%s", baked)
	}
	for _, bad := range []string{`<html></html>`, `<svg xmlns="http://www.w3.org/2000/svg"/>`, `not xml`} {
		if _, err := BakeSVG([]byte(bad), SVGElementAssertion, "", text); !errors.Is(err, ErrNotSVG) {
			t.Fatalf("%s: %v", bad, err)
		}
	}
}
