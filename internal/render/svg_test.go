package render

import (
	"errors"
	"fmt"
	"image"
	"strings"
	"testing"
	"time"

	"github.com/srwiley/rasterx"
)

// dashBombSVG is 160 bytes that made rasterx draw for half a minute: a line 8192 times the
// picture's width, dashed every 64th of a pixel (oksvg takes dash lengths in pixels).
const dashBombSVG = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 1 1"><path d="M0 0.5 L8192 0.5" stroke="#000" stroke-width="0.01" stroke-dasharray="0.02"/></svg>`

func repeatSVG(viewBox, element string, n int) string {
	return `<svg xmlns="http://www.w3.org/2000/svg" viewBox="` + viewBox + `">` + strings.Repeat(element, n) + `</svg>`
}

// SVGs whose drawing costs more than the work budget are refused at upload, quickly: a dash
// pattern repeated millions of times along one line or across many, thousands of shapes each
// covering much of the picture. The drawing stops when the budget is spent (or, on a machine
// too slow for the budget, such as under the race detector, at the deadline), not when the
// drawing ends.
func TestSVGsThatCostTooMuchToDrawAreRefused(t *testing.T) {
	t.Parallel()
	for name, svg := range map[string]string{
		"dash bomb":            dashBombSVG,
		"dashes on many lines": repeatSVG("0 0 100 100", `<path d="M0 50 L600 50" stroke="#000" stroke-dasharray="0.05"/>`, 100),
		"thousands of shapes":  repeatSVG("0 0 100 100", `<rect x="10" y="10" width="80" height="80" fill="#123" fill-opacity="0.01"/>`, 3000),
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			start := time.Now()
			err := CheckImage(svgURI(svg))
			took := time.Since(start)
			if !errors.Is(err, errSVGWork) && !errors.Is(err, errSVGPoints) && !errors.Is(err, errSVGDeadline) {
				t.Fatalf("not refused for its work: %v", err)
			}
			if !strings.Contains(err.Error(), "simplify it") {
				t.Errorf("%q does not say how to fix it", err)
			}
			if took > svgDeadline+2*time.Second {
				t.Fatalf("refusing it took %s", took)
			}
		})
	}
}

// Drawing an SVG stops when its steps pass the budget given, or its deadline passes, wherever
// it is; with room for it, the same SVG draws.
func TestSVGDrawingStopsAtItsBudgetOrDeadline(t *testing.T) {
	t.Parallel()
	icon, err := readSVG([]byte(repeatSVG("0 0 100 100", `<circle cx="50" cy="50" r="40" stroke="#000" stroke-width="3" stroke-dasharray="1 2"/>`, 5)))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := rasterizeSVG(icon, 600, 600, 100_000, time.Now().Add(time.Minute)); !errors.Is(err, errSVGWork) {
		t.Fatalf("over its budget: %v", err)
	}
	if _, err := rasterizeSVG(icon, 600, 600, svgWorkBudget, time.Now()); !errors.Is(err, errSVGDeadline) {
		t.Fatalf("past its deadline: %v", err)
	}
	img, err := rasterizeSVG(icon, 600, 600, svgWorkBudget, time.Now().Add(time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	if ink(img, img.Bounds()) == 0 {
		t.Fatal("nothing was drawn")
	}
}

// The scanner draws each shape over the rectangle it covers rather than over the whole image
// (which made a shape cost 30 ms), and draws what rasterx's own scanner draws: the same pixels,
// but for a rounding step where the two sum coverage from a different first pixel.
func TestSVGsDrawAsRasterxDrawsThem(t *testing.T) {
	t.Parallel()
	badge, err := BadgeSVG(BadgeArt{Name: "Certified Facilitator", Issuer: "Academy", Color: "#8A5A00"})
	if err != nil {
		t.Fatal(err)
	}
	for i, svg := range []string{
		string(badge),
		`<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 100 60"><defs><linearGradient id="g" x1="0" x2="1"><stop offset="0" stop-color="#f00"/><stop offset="1" stop-color="#00f"/></linearGradient></defs>` +
			`<rect x="5" y="5" width="60" height="40" fill="url(#g)" stroke="#000" stroke-width="2"/>` +
			`<circle cx="70" cy="30" r="25" fill="#0a0" fill-opacity="0.5" stroke="#123" stroke-dasharray="3 2" stroke-width="1.5"/>` +
			`<path d="M-50 -50 C 200 0, -100 100, 150 150 Z" fill="#ff0" fill-opacity="0.3"/>` +
			`<ellipse cx="85" cy="30" rx="10" ry="28" fill="#345" stroke="#abc" stroke-width="3"/></svg>`,
	} {
		const side = 540
		want := rasterxDraws(t, svg, side)
		icon, _ := readSVG([]byte(svg))
		got, err := rasterizeSVG(icon, want.Bounds().Dx(), want.Bounds().Dy(), svgWorkBudget, time.Now().Add(time.Minute))
		if err != nil {
			t.Fatal(err)
		}
		worst, differ := 0, 0
		for j := range want.Pix {
			if d := max(int(want.Pix[j])-int(got.Pix[j]), int(got.Pix[j])-int(want.Pix[j])); d > 0 {
				worst, differ = max(worst, d), differ+1
			}
		}
		if worst > 3 || differ > len(want.Pix)/100 {
			t.Errorf("SVG %d: %d of %d samples differ, by up to %d", i, differ, len(want.Pix), worst)
		}
	}
}

// rasterxDraws draws svg as rasterx's own scanner does, its longer side side pixels.
func rasterxDraws(t *testing.T, svg string, side float64) *image.RGBA {
	t.Helper()
	icon, err := readSVG([]byte(svg))
	if err != nil {
		t.Fatal(err)
	}
	scale := side / max(icon.ViewBox.W, icon.ViewBox.H)
	w, h := int(icon.ViewBox.W*scale), int(icon.ViewBox.H*scale)
	icon.SetTarget(0, 0, float64(w), float64(h))
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	icon.Draw(rasterx.NewDasher(w, h, rasterx.NewScannerGV(w, h, img, img.Bounds())), 1)
	return img
}

// SVGs with active content are refused at upload, each with what to remove; pictures that
// only refer inside themselves are accepted.
func TestSVGsWithActiveContentAreRefused(t *testing.T) {
	t.Parallel()
	const open = `<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" viewBox="0 0 10 10">`
	for _, c := range []struct{ svg, says string }{
		{open + `<script>alert(1)</script></svg>`, "<script>"},
		{open + `<svg:script xmlns:svg="http://www.w3.org/2000/svg">alert(1)</svg:script></svg>`, "<script>"},
		{open + `<SCRIPT>alert(1)</SCRIPT></svg>`, "<script>"},
		{`<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10" onload="alert(1)"><rect width="1" height="1"/></svg>`, "event handler attribute (onload on <svg>)"},
		{open + `<rect width="1" height="1" ONCLICK="alert(1)"/></svg>`, "event handler attribute"},
		{open + `<foreignObject width="10" height="10"><p xmlns="http://www.w3.org/1999/xhtml">hi</p></foreignObject></svg>`, "<foreignObject>"},
		{open + `<image width="10" height="10" href="https://tracker.example/pixel.png"/></svg>`, `"https://tracker.example/pixel.png"`},
		{open + `<image width="10" height="10" xlink:href="file:///etc/passwd"/></svg>`, "only references inside the file"},
		{open + `<image width="10" height="10" href="data:image/svg+xml;base64,PHN2Zy8+"/></svg>`, "only references inside the file"},
		{open + `<a href="javascript:alert(1)"><rect width="1" height="1"/></a></svg>`, `"javascript:alert(1)"`},
		{open + `<a xlink:href=" &#x6A;avascript:alert(1)"><rect width="1" height="1"/></a></svg>`, "only references inside the file"},
		{open + `<rect width="1" height="1" fill="url(https://evil.example/x.svg#p)"/></svg>`, "https://evil.example/x.svg#p"},
		{open + `<rect width="1" height="1" style="filter: url('//evil.example/f.svg#f')"/></svg>`, "//evil.example/f.svg#f"},
		{open + `<style>@import url(https://evil.example/a.css);</style></svg>`, "@import"},
		{open + `<style>@im<!-- split -->port "https://evil.example/a.css";</style></svg>`, "@import"},
		{open + `<style><![CDATA[rect { fill: url(http://evil.example/p.svg#p) }]]></style></svg>`, "http://evil.example/p.svg#p"},
		{open + `<style>rect { fill: \75rl(http://evil.example/p.svg#p) }</style></svg>`, "backslash"},
		{open + `<style>rect { mask-image: image-set("https://evil.example/m.png" 1x) }</style></svg>`, "image-set()"},
		{open + `<rect width="1" height="1"><set attributeName="onmouseover" to="alert(1)"/></rect></svg>`, "animates onmouseover"},
		{open + `<a><animate attributeName="href" values="javascript:alert(1)"/><rect width="1" height="1"/></a></svg>`, "animates href"},
		{open + `<g xmlns="http://www.w3.org/1999/xhtml"><iframe src="https://evil.example"/></g></svg>`, "another language"},
		{`<?xml-stylesheet href="https://evil.example/a.css"?>` + open + `<rect width="1" height="1"/></svg>`, "<?xml-stylesheet?>"},
		{`<!DOCTYPE svg [<!ENTITY lol "lol">]>` + open + `<text>&lol;</text></svg>`, "DOCTYPE or ENTITY"},
		{`<!DOCTYPE svg PUBLIC "-//W3C//DTD SVG 1.1//EN" "http://www.w3.org/Graphics/SVG/1.1/DTD/svg11.dtd">` + open + `</svg>`, "DOCTYPE"},
		{open + `<g id="a"><use href="#a"/></g></svg>`, "<use>"},
		{open + `<rect width="1" height="1"</svg>`, "not well-formed"},
	} {
		err := CheckImage(svgURI(c.svg))
		if err == nil || !strings.Contains(err.Error(), c.says) {
			t.Errorf("%s\n  refused with %v; want it to say %q", c.svg, err, c.says)
		}
	}
	for _, svg := range []string{
		open + `<defs><linearGradient id="g"><stop offset="0" stop-color="#f00"/></linearGradient><clipPath id="c"><rect width="5" height="5"/></clipPath></defs>` +
			`<rect width="2" height="2" fill="url(#g)" clip-path="url( '#c' )" style="stroke: url(#g); opacity: 0.5"/></svg>`,
		open + `<style>rect { fill: #123 } .a { stroke: url("#g") }</style><rect class="a" width="1" height="1"/></svg>`,
		open + `<image width="1" height="1" href="data:image/png;base64,iVBORw0KGgo="/><a href="#top"><rect width="1" height="1"/></a></svg>`,
		`<?xml version="1.0" encoding="UTF-8" standalone="no"?>` + "\n<!-- Created with Inkscape -->\n" +
			`<svg xmlns="http://www.w3.org/2000/svg" xmlns:inkscape="http://www.inkscape.org/namespaces/inkscape" xmlns:sodipodi="http://sodipodi.sourceforge.net/DTD/sodipodi-0.dtd" viewBox="0 0 10 10" inkscape:export-filename="C:\logo.png">` +
			`<sodipodi:namedview id="base" inkscape:zoom="1"/><metadata><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"/></metadata><path d="M0 0 L2 2 L0 2 Z" fill="#123" opacity="0.5"/></svg>`,
	} {
		if err := checkSVGContent([]byte(svg)); err != nil { // CheckImage would draw it too: slow under the race detector
			t.Errorf("%s\n  refused: %v", svg, err)
		}
	}
}

// What uploads refuse only because a browser would run or fetch it (a DOCTYPE, a link) still
// draws when it is already stored: the renderer never runs or fetches anything.
func TestStoredSVGsWithInertContentStillDraw(t *testing.T) {
	t.Parallel()
	uri := svgURI(`<!DOCTYPE svg PUBLIC "-//W3C//DTD SVG 1.1//EN" "http://www.w3.org/Graphics/SVG/1.1/DTD/svg11.dtd">` +
		`<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10"><a href="https://example.org"><rect width="2" height="1" fill="#123"/></a></svg>`)
	if CheckImage(uri) == nil {
		t.Fatal("the upload was accepted")
	}
	if _, err := ImagePNG(uri, 100); err != nil {
		t.Fatalf("the stored image does not draw: %v", err)
	}
}

func ExampleCheckImage() {
	fmt.Println(CheckImage(svgURI(`<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10" onload="alert(1)"/>`)))
	// Output: the SVG has an event handler attribute (onload on <svg>): images may not run scripts; remove it
}
