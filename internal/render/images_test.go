package render

import (
	"encoding/base64"
	"strings"
	"testing"
)

// An SVG with <use> is refused before the SVG library sees it: one that uses its own
// ancestor made the library recurse until the stack overflowed, which no recover catches.
// Well-formed SVGs without it still draw, and a <use> in another namespace is refused too.
func TestSVGsWithUseElementsAreRefused(t *testing.T) {
	uri := func(svg string) string { return "data:image/svg+xml;base64," + base64.StdEncoding.EncodeToString([]byte(svg)) }
	for _, svg := range []string{
		`<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10"><g id="a"><use href="#a"/></g></svg>`,
		`<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" viewBox="0 0 10 10"><defs><rect id="r" width="1" height="1"/></defs><svg:use xmlns:svg="http://www.w3.org/2000/svg" xlink:href="#r"/></svg>`,
	} {
		if err := CheckImage(uri(svg)); err == nil || !strings.Contains(err.Error(), "<use>") {
			t.Errorf("%s: %v", svg, err)
		}
	}
	if err := CheckImage(uri(`<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10"><rect width="10" height="5" fill="#123"/></svg>`)); err != nil {
		t.Fatalf("a plain SVG: %v", err)
	}
}
