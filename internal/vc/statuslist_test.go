package vc

import (
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"os"
	"strings"
	"testing"
)

// Index 0 is the most significant bit of the first byte (Bitstring Status List v1.0, 3.2):
// read back here from the raw bytes, not through Get.
func TestStatusListBitOrderIsMostSignificantFirst(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		index int
		byte  int
		mask  byte
	}{{0, 0, 0x80}, {1, 0, 0x40}, {7, 0, 0x01}, {8, 1, 0x80}, {94567, 11820, 0x01}, {StatusListSize - 1, StatusListSize/8 - 1, 0x01}} {
		l := NewStatusList()
		if err := l.Set(tc.index, true); err != nil {
			t.Fatal(err)
		}
		b := l.Bytes()
		if b[tc.byte] != tc.mask || l.Count() != 1 {
			t.Errorf("Set(%d): byte %d = %08b, want %08b", tc.index, tc.byte, b[tc.byte], tc.mask)
		}
		if on, _ := l.Get(tc.index); !on {
			t.Errorf("Get(%d) after Set", tc.index)
		}
		_ = l.Set(tc.index, false)
		if l.Count() != 0 {
			t.Errorf("Set(%d, false) left %d bits", tc.index, l.Count())
		}
	}
	l := NewStatusList()
	for _, i := range []int{-1, StatusListSize} {
		if err := l.Set(i, true); err == nil {
			t.Errorf("Set(%d) accepted", i)
		}
		if _, err := l.Get(i); err == nil {
			t.Errorf("Get(%d) accepted", i)
		}
	}
}

// encodedList is "u", then base64url without padding of the GZIP of exactly 16 KiB: decoded
// here with the standard library alone.
func TestStatusListEncodingIsMultibaseGzipOf16KiB(t *testing.T) {
	t.Parallel()
	l := NewStatusList()
	for _, i := range []int{0, 9, 94567, StatusListSize - 1} {
		_ = l.Set(i, true)
	}
	enc := l.Encode()
	if !strings.HasPrefix(enc, "u") || strings.ContainsAny(enc, "=+/") {
		t.Fatalf("encodedList %q is not multibase base64url without padding", enc)
	}
	z, err := base64.RawURLEncoding.DecodeString(enc[1:])
	if err != nil {
		t.Fatal(err)
	}
	zr, err := gzip.NewReader(bytes.NewReader(z))
	if err != nil {
		t.Fatalf("not GZIP: %v", err)
	}
	raw, _ := io.ReadAll(zr)
	if len(raw) != 16384 || !bytes.Equal(raw, l.Bytes()) {
		t.Fatalf("decompressed %d bytes", len(raw))
	}
	back, err := DecodeStatusList(enc)
	if err != nil || !bytes.Equal(back.Bytes(), l.Bytes()) {
		t.Fatalf("DecodeStatusList: %v", err)
	}
	if len(NewStatusList().Encode()) > 100 {
		t.Errorf("an empty list encodes to %d characters", len(NewStatusList().Encode()))
	}
}

// A list encoded by Digital Bazaar's library (testdata/statuslist/digitalbazaar.json) decodes
// here with the same bits set; TestDigitalBazaarVerifiesOurCredentials checks the other way.
func TestStatusListDecodesDigitalBazaarsEncoding(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile("testdata/statuslist/digitalbazaar.json")
	if err != nil {
		t.Fatal(err)
	}
	var fx struct {
		Set         []int
		EncodedList string
	}
	if err := json.Unmarshal(b, &fx); err != nil {
		t.Fatal(err)
	}
	l, err := DecodeStatusList(fx.EncodedList)
	if err != nil {
		t.Fatal(err)
	}
	want := NewStatusList()
	for _, i := range fx.Set {
		_ = want.Set(i, true)
	}
	if !bytes.Equal(l.Bytes(), want.Bytes()) {
		t.Fatalf("decoded %d set bits, want %v", l.Count(), fx.Set)
	}
}

func TestDecodeStatusListRefusesMalformedLists(t *testing.T) {
	t.Parallel()
	gz := func(b []byte) string {
		var buf bytes.Buffer
		zw := gzip.NewWriter(&buf)
		_, _ = zw.Write(b)
		_ = zw.Close()
		return "u" + base64.RawURLEncoding.EncodeToString(buf.Bytes())
	}
	for name, enc := range map[string]string{
		"no multibase prefix": NewStatusList().Encode()[1:],
		"base58btc":           "z" + NewStatusList().Encode()[1:],
		"not base64url":       "u***",
		"not GZIP":            "u" + base64.RawURLEncoding.EncodeToString([]byte("plain bytes")),
		"too short":           gz(make([]byte, 16383)),
		"too long":            gz(make([]byte, 16385)),
		"a bomb":              gz(make([]byte, 64<<20)), // 64 MiB of zeros: read no further than 16 KiB + 1
		"empty":               "",
	} {
		if _, err := DecodeStatusList(enc); err == nil {
			t.Errorf("%s: decoded", name)
		}
	}
	if _, err := StatusListFromBytes(make([]byte, 10)); err == nil {
		t.Error("StatusListFromBytes took 10 bytes")
	}
}

// RandomClearIndex draws only free indexes, reaches the last free one, and says when the list
// is full.
func TestRandomClearIndexDrawsFreeIndexesUntilFull(t *testing.T) {
	t.Parallel()
	taken := NewStatusList()
	seen := map[int]bool{}
	for range 200 {
		i, err := taken.RandomClearIndex()
		if err != nil {
			t.Fatal(err)
		}
		if on, _ := taken.Get(i); on || seen[i] {
			t.Fatalf("drew a taken index %d", i)
		}
		seen[i] = true
		_ = taken.Set(i, true)
	}
	full, _ := StatusListFromBytes(bytes.Repeat([]byte{0xff}, StatusListSize/8))
	if _, err := full.RandomClearIndex(); !errors.Is(err, ErrStatusListFull) {
		t.Fatalf("full list: %v", err)
	}
	_ = full.Set(77777, false)
	if i, err := full.RandomClearIndex(); err != nil || i != 77777 {
		t.Fatalf("the one free index: %d %v", i, err)
	}
}
