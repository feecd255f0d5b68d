package site

import (
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/certhub/credentiald/internal/verification"
)

func TestAcceptsGzipReadsTheWeights(t *testing.T) {
	for header, want := range map[string]bool{
		"": false, "gzip": true, "GZIP": true, "x-gzip": true, "gzip, deflate, br, zstd": true, "br": false,
		"gzip;q=0": false, "gzip; q=0.0": false, "gzip;q=0.001": true, "*": true, "*;q=0": false,
		"*, gzip;q=0": false, "gzip;q=0, *": false, "br, *;q=0.1": true, "identity": false, "deflate;q=1, gzip ; q=0.5": true,
	} {
		if got := acceptsGzip(header); got != want {
			t.Errorf("Accept-Encoding %q: %v, want %v", header, got, want)
		}
	}
}

// Pages past the budget of bytes go, the least recently used first; a page made twice is kept
// once.
func TestKeptPagesStayWithinTheirBudget(t *testing.T) {
	k := newKeptPages()
	page := keptPage{csp: "x", gz: make([]byte, 64<<10)}
	n := keptPagesBudget/len(page.gz) + 10
	for i := range n {
		k.put(fmt.Sprint(i), page)
		k.put(fmt.Sprint(i), page)
	}
	if used := k.used.Load(); used > keptPagesBudget || used < keptPagesBudget-int64(len(page.gz)) {
		t.Fatalf("%d bytes kept, budget %d", used, keptPagesBudget)
	}
	if _, ok := k.get("0"); ok {
		t.Fatal("the oldest page was kept past the budget")
	}
	if _, ok := k.get(fmt.Sprint(n - 1)); !ok {
		t.Fatal("the newest page is not kept")
	}
	html := []byte("<!doctype html><title>x</title>")
	if back, err := decompress(compress(html)); err != nil || string(back) != string(html) {
		t.Fatalf("%q %v", back, err)
	}
}

// Every field of the credential, the issuer's included, moves the page's key: a page that
// shows a field the key left out could be answered for another version of the credential.
func TestPageKeyNamesEveryFieldOfTheCredential(t *testing.T) {
	base := verification.Credential{}
	key := pageKey(base, "en", "/verify/X", "")
	var walk func(v reflect.Value, name string)
	walk = func(v reflect.Value, name string) {
		for i := range v.NumField() {
			f, sf := v.Field(i), v.Type().Field(i)
			if !sf.IsExported() {
				continue
			}
			if f.Kind() == reflect.Struct && f.Type() != reflect.TypeOf(time.Time{}) {
				walk(f, name+sf.Name+".")
				continue
			}
			old := reflect.New(f.Type()).Elem()
			old.Set(f)
			f.Set(differentFrom(t, f))
			if pageKey(base, "en", "/verify/X", "") == key {
				t.Errorf("%s%s is not in the page's key", name, sf.Name)
			}
			f.Set(old)
		}
	}
	walk(reflect.ValueOf(&base).Elem(), "")
	for _, other := range []string{pageKey(base, "de", "/verify/X", ""), pageKey(base, "en", "/verify/x", ""),
		pageKey(base, "en", "/verify/X", "code=1")} {
		if other == key {
			t.Error("the language, the path or the parameters are not in the page's key")
		}
	}
}

// differentFrom is a value of f's type other than f's zero value.
func differentFrom(t *testing.T, f reflect.Value) reflect.Value {
	switch v := f.Interface().(type) {
	case string:
		return reflect.ValueOf("x").Convert(f.Type())
	case *string:
		s := ""
		return reflect.ValueOf(&s)
	case bool:
		return reflect.ValueOf(true)
	case time.Time:
		return reflect.ValueOf(time.Unix(1, 0))
	case *time.Time:
		at := time.Unix(1, 0)
		return reflect.ValueOf(&at)
	case uuid.UUID:
		return reflect.ValueOf(uuid.New())
	default:
		if f.Kind() == reflect.String {
			return reflect.ValueOf("x").Convert(f.Type())
		}
		t.Fatalf("no other value made for %T", v)
		return f
	}
}
