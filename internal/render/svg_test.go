package render

import (
	"bytes"
	"errors"
	"fmt"
	"image"
	"image/png"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
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
		{open + `<rect width="1" height="1"><set attributeName="onmouseover" to="alert(1)"/></rect></svg>`, "<set> is an animation"},
		{open + `<a><animate attributeName="href" values="javascript:alert(1)"/><rect width="1" height="1"/></a></svg>`, "<animate> is an animation"},
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

// xhtmlProbes are the shapes of issue 49's probe: an XHTML element that loads, runs or
// navigates (each of img src, iframe src and srcdoc, video poster, meta refresh, object data,
// embed src, form action) in every spelling a browser reads as HTML, a prefix declared on the
// root or on the element, the svg prefix bound to XHTML, a default namespace redeclared on the
// element or on a parent, inside foreignObject, a namespace name written with character
// references, and a prefixed root whose default namespace is XHTML. Each shape is its name and
// a function of the element's markup (without namespace) to a document.
var xhtmlProbes = struct {
	elements []string
	shapes   []struct {
		name string
		doc  func(el string) string
	}
}{
	elements: []string{
		`img src="https://evil.example/p.png"`,
		`iframe src="https://evil.example/"`,
		`iframe srcdoc="&lt;img src=https://evil.example/p.png&gt;"`,
		`video poster="https://evil.example/p.png"`,
		`meta http-equiv="refresh" content="0;url=https://evil.example/"`,
		`object data="https://evil.example/x.swf"`,
		`embed src="https://evil.example/x.swf"`,
		`form action="https://evil.example/"`,
	},
	shapes: []struct {
		name string
		doc  func(el string) string
	}{
		{"prefix declared on the root", func(el string) string {
			return `<svg xmlns="http://www.w3.org/2000/svg" xmlns:h="http://www.w3.org/1999/xhtml" viewBox="0 0 10 10"><h:` + el + `/></svg>`
		}},
		{"prefix declared on the element", func(el string) string {
			name, attrs, _ := strings.Cut(el, " ")
			return `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10"><x:` + name + ` xmlns:x="http://www.w3.org/1999/xhtml" ` + attrs + `/></svg>`
		}},
		{"the svg prefix bound to XHTML", func(el string) string {
			name, attrs, _ := strings.Cut(el, " ")
			return `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10"><svg:` + name + ` xmlns:svg="http://www.w3.org/1999/xhtml" ` + attrs + `/></svg>`
		}},
		{"no prefix, default namespace on the element", func(el string) string {
			name, attrs, _ := strings.Cut(el, " ")
			return `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10"><` + name + ` xmlns="http://www.w3.org/1999/xhtml" ` + attrs + `/></svg>`
		}},
		{"no prefix, default namespace redeclared on a parent", func(el string) string {
			return `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10"><g><g xmlns="http://www.w3.org/1999/xhtml"><` + el + `/></g></g></svg>`
		}},
		{"no prefix, inside foreignObject", func(el string) string {
			return `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10"><foreignObject width="10" height="10"><div xmlns="http://www.w3.org/1999/xhtml"><` + el + `/></div></foreignObject></svg>`
		}},
		{"namespace name in character references", func(el string) string {
			return `<svg xmlns="http://www.w3.org/2000/svg" xmlns:h="http&#58;//www.w3.org/1999/&#x78;html" viewBox="0 0 10 10"><h:` + el + `/></svg>`
		}},
		{"prefixed root, XHTML as the default namespace", func(el string) string {
			return `<s:svg xmlns:s="http://www.w3.org/2000/svg" xmlns="http://www.w3.org/1999/xhtml" viewBox="0 0 10 10"><` + el + `/></s:svg>`
		}},
	},
}

// No spelling of an XHTML element passes the upload check, wherever it stands: the check knows
// the elements of a picture and refuses every other, in whatever namespace its prefix names.
// (The prefixed ones passed the deny-list the check was before: issue 49.)
func TestSVGsWithXHTMLElementsAreRefused(t *testing.T) {
	t.Parallel()
	for _, shape := range xhtmlProbes.shapes {
		for _, el := range xhtmlProbes.elements {
			svg := shape.doc(el)
			err := checkSVGContent([]byte(svg))
			if err == nil || !strings.Contains(err.Error(), "another language (HTML)") && !strings.Contains(err.Error(), "<foreignObject>") {
				t.Errorf("%s: %s\n  refused with %v", shape.name, svg, err)
			}
		}
	}
}

// The other ways around the check are refused too, each saying what to remove: markup of
// another namespace or of none, an attribute a picture does not have (src, xml:base, an
// attribute in the XHTML namespace), elements a picture does not have, a DOCTYPE declaring
// the namespace or an entity, a style sheet split around an element or across CDATA sections,
// a second root, and encodings a browser could read otherwise.
func TestSVGsThatHideMarkupAreRefused(t *testing.T) {
	t.Parallel()
	const open = `<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" viewBox="0 0 10 10">`
	for _, c := range []struct{ svg, says string }{
		{open + `<m:math xmlns:m="http://www.w3.org/1998/Math/MathML"><m:mtext>x</m:mtext></m:math></svg>`, "another language (MathML)"},
		{open + `<g xmlns=""><img src="https://evil.example/p.png"/></g></svg>`, "another language (no namespace"},
		{open + `<h:img src="https://evil.example/p.png"/></svg>`, "undeclared prefix h:"},
		{`<svg viewBox="0 0 10 10"><rect width="1" height="1"/></svg>`, `root element must be <svg xmlns="http://www.w3.org/2000/svg">`},
		{`<html xmlns="http://www.w3.org/1999/xhtml"><svg xmlns="http://www.w3.org/2000/svg"/></html>`, "root element must be"},
		{open + `<image width="1" height="1" src="https://evil.example/p.png"/></svg>`, "the attribute src"},
		{open + `<rect width="1" height="1" xmlns:h="http://www.w3.org/1999/xhtml" h:src="https://evil.example/p.png"/></svg>`, "attribute of another language (HTML src)"},
		{open + `<a xml:base="https://evil.example/" href="#x"><rect width="1" height="1"/></a></svg>`, "the attribute xml:base"},
		{open + `<a xlink:arcrole="x" xlink:base="https://evil.example/" href="#x"><rect width="1" height="1"/></a></svg>`, "the attribute xlink:base"},
		{open + `<a href="#x" ping="https://evil.example/"><rect width="1" height="1"/></a></svg>`, "the attribute ping"},
		{open + `<iframe src="https://evil.example/"/></svg>`, "<iframe> element"},
		{`<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10"><image width="1" height="1" xlink:href="https://evil.example/p.png"/></svg>`, `refers to "https://evil.example/p.png"`},
		{open + `<font-face-uri xlink:href="https://evil.example/f.svg"/></svg>`, "<font-face-uri> element"},
		{`<!DOCTYPE svg [<!ENTITY ns "http://www.w3.org/1999/xhtml">]>` + open + `<h:img xmlns:h="&ns;" src="x"/></svg>`, "DOCTYPE or ENTITY"},
		{`<!DOCTYPE svg [<!ENTITY img "<h:img src='x'/>">]>` + open + `&img;</svg>`, "DOCTYPE or ENTITY"},
		{open + `<h:img xmlns:h="&xhtml;" src="x"/></svg>`, "not well-formed"}, // an entity nobody declared
		{open + `<style>rect { fill: u<![CDATA[rl(https://evil.example/p.svg#p)]]> }</style></svg>`, "https://evil.example/p.svg#p"},
		{open + `<style>@im<g/>port url(https://evil.example/a.css);</style></svg>`, "<style> holds elements"},
		{open + `<rect width="1" height="1" fill="\75rl(https://evil.example/p.svg#p)"/></svg>`, "backslash"},
		{open + `</svg><svg xmlns="http://www.w3.org/2000/svg"><h:img xmlns:h="http://www.w3.org/1999/xhtml" src="x"/></svg>`, "more than one root"},
		{open + `</svg>text after the root`, "text outside"},
		{`<?xml version="1.0" encoding="Shift_JIS"?>` + open + `</svg>`, "written in Shift_JIS"},
		{`<?xml version="1.0" encoding="UTF-16"?>` + open + `</svg>`, "UTF-16"},
		{`<?XML-stylesheet href="https://evil.example/a.css"?>` + open + `</svg>`, "<?XML-stylesheet?>"},
		{open + `<?xml version="1.0" encoding="ISO-8859-1"?></svg>`, "declaration is not at its start"},
		{open + `<rect width="1" height="1" fill="#000" fill="url(https://evil.example/p#p)"/></svg>`, "attribute repeated"},
	} {
		err := checkSVGContent([]byte(c.svg))
		if err == nil || !strings.Contains(err.Error(), c.says) {
			t.Errorf("%s\n  refused with %v; want it to say %q", c.svg, err, c.says)
		}
	}
}

// What a picture holds passes: the generated badge and QR codes, the SVGs of this repository's
// tests and documentation, the output of the drawing programs (their own namespaces and
// metadata kept), text that looks like markup (escaped, or in CDATA, is text), a byte order
// mark and a single-byte encoding.
func TestSVGsOfPicturesAreAccepted(t *testing.T) {
	t.Parallel()
	badge, err := BadgeSVG(BadgeArt{Name: "Certified Facilitator", Issuer: "Academy", Color: "#8A5A00"})
	if err != nil {
		t.Fatal(err)
	}
	qr, err := QRCodeSVG("https://certs.example.org/verify/ABCD-EFGH", "QR code")
	if err != nil {
		t.Fatal(err)
	}
	const open = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10">`
	for name, svg := range map[string]string{
		"generated badge": string(badge),
		"QR code":         qr,
		"the sample logo of the docs and browser tests": `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 120 120">
<polygon points="60,6 107,33 107,87 60,114 13,87 13,33" fill="#1F2A44"/>
<polygon points="60,24 91,42 91,78 60,96 29,78 29,42" fill="#C9A227"/>
<circle cx="60" cy="60" r="14" fill="#FFFFFF"/></svg>`,
		"the email test's logo": `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 100 40"><rect width="100" height="40" fill="#0E7C66"/></svg>`,
		"the baking test's SVG": `<?xml version="1.0"?>` + "\n" + `<!-- a comment with <svg> in it -->` +
			`<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10" data-x="a&gt;b"><title>T</title><rect width="10" height="10"/></svg>`,
		"a badge baked elsewhere": `<svg xmlns="http://www.w3.org/2000/svg" xmlns:openbadges="http://openbadges.org" viewBox="0 0 10 10">` +
			`<openbadges:assertion verify="https://issuer.example/assertions/1"><![CDATA[{"id":"x"}]]></openbadges:assertion><circle cx="5" cy="5" r="4"/></svg>`,
		"Illustrator": `<?xml version="1.0" encoding="utf-8"?>` + "\n" + `<!-- Generator: Adobe Illustrator 27.0.0, SVG Export Plug-In -->` + "\n" +
			`<svg version="1.1" id="Layer_1" xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" xmlns:i="http://ns.adobe.com/AdobeIllustrator/10.0/" x="0px" y="0px" viewBox="0 0 100 100" style="enable-background:new 0 0 100 100;" xml:space="preserve">` +
			`<style type="text/css">.st0{fill:#1F2A44;} .st1{font-family:'MyriadPro-Regular'; font-size:12px;}</style>` +
			`<g i:extraneous="self"><path class="st0" d="M10,10h80v80H10z"/><text transform="matrix(1 0 0 1 20 50)" class="st1">Academy</text></g></svg>`,
		"Figma": `<svg width="24" height="24" viewBox="0 0 24 24" fill="none" xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink">` +
			`<g clip-path="url(#clip0_1_2)" filter="url(#filter0_d_1_2)"><rect width="24" height="24" fill="url(#pattern0)"/></g><defs>` +
			`<filter id="filter0_d_1_2" x="0" y="0" width="28" height="28" filterUnits="userSpaceOnUse" color-interpolation-filters="sRGB">` +
			`<feFlood flood-opacity="0" result="BackgroundImageFix"/><feColorMatrix in="SourceAlpha" type="matrix" values="0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 127 0" result="hardAlpha"/>` +
			`<feOffset dy="4"/><feGaussianBlur stdDeviation="2"/><feComposite in2="hardAlpha" operator="out"/><feBlend mode="normal" in2="BackgroundImageFix" result="effect1"/></filter>` +
			`<pattern id="pattern0" patternContentUnits="objectBoundingBox" width="1" height="1"><image width="1" height="1" xlink:href="data:image/png;base64,iVBORw0KGgo="/></pattern>` +
			`<clipPath id="clip0_1_2"><rect width="24" height="24" fill="white"/></clipPath></defs></svg>`,
		"Inkscape": `<?xml version="1.0" encoding="UTF-8" standalone="no"?>` + "\n" +
			`<svg xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:cc="http://creativecommons.org/ns#" xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns:svg="http://www.w3.org/2000/svg" xmlns="http://www.w3.org/2000/svg" xmlns:sodipodi="http://sodipodi.sourceforge.net/DTD/sodipodi-0.dtd" xmlns:inkscape="http://www.inkscape.org/namespaces/inkscape" width="100mm" height="100mm" viewBox="0 0 100 100" version="1.1" id="svg8" inkscape:version="1.0" sodipodi:docname="logo.svg" inkscape:export-filename="C:\logo.png">` +
			`<sodipodi:namedview id="base" pagecolor="#ffffff" inkscape:zoom="1"><inkscape:grid type="xygrid" id="grid1"/></sodipodi:namedview>` +
			`<metadata id="metadata5"><rdf:RDF><cc:Work rdf:about=""><dc:format>image/svg+xml</dc:format><dc:type rdf:resource="http://purl.org/dc/dcmitype/StillImage"/></cc:Work></rdf:RDF></metadata>` +
			`<svg:g inkscape:label="Layer 1" inkscape:groupmode="layer" id="layer1"><path style="fill:#123456;stroke:none" d="M 10,10 H 90 V 90 Z" id="path1" sodipodi:nodetypes="cccc"/>` +
			`<text xml:space="preserve" style="font-size:10px;line-height:1.25;font-family:sans-serif" x="10" y="95" id="text1"><tspan sodipodi:role="line" id="tspan1" x="10" y="95">Logo</tspan></text></svg:g></svg>`,
		"markup as escaped text":              open + `<text>&lt;h:img src="https://evil.example/p.png"/&gt;</text></svg>`,
		"markup as CDATA text":                open + `<text><![CDATA[<h:img xmlns:h="http://www.w3.org/1999/xhtml" src="https://evil.example/p.png"/>]]></text></svg>`,
		"a byte order mark":                   "\ufeff" + open + `<rect width="1" height="1"/></svg>`,
		"a byte order mark and a declaration": "\ufeff" + `<?xml version="1.0" encoding="UTF-8"?>` + "\n" + open + `</svg>`,
		"ISO-8859-1":                          `<?xml version="1.0" encoding="ISO-8859-1"?>` + open + "<title>Caf\xe9</title></svg>",
		"an accessible link home":             open + `<a href="#top" target="_blank" aria-label="Top"><rect width="1" height="1" role="img"/></a></svg>`,
		"an undeclared xlink: prefix": open + `<defs><linearGradient id="g"><stop offset="0" stop-color="#f00"/></linearGradient>` +
			`<linearGradient id="h" xlink:href="#g"/></defs><rect width="1" height="1" fill="url(#h)"/></svg>`,
	} {
		if err := checkSVGContent([]byte(svg)); err != nil {
			t.Errorf("%s: refused: %v", name, err)
		}
	}
}

// The rasteriser fetches nothing: an SVG stored before the check refused its references (an
// image's URL, an XHTML <img>, a style's url() and @import) is drawn, and the server it names
// hears nothing.
func TestTheRasteriserFetchesNothing(t *testing.T) {
	t.Parallel()
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hits.Add(1) }))
	t.Cleanup(srv.Close)
	u := srv.URL
	svg := `<svg xmlns="http://www.w3.org/2000/svg" xmlns:h="http://www.w3.org/1999/xhtml" xmlns:xlink="http://www.w3.org/1999/xlink" viewBox="0 0 10 10">` +
		`<style>@import url(` + u + `/a.css); rect { fill: url(` + u + `/p.svg#p) }</style>` +
		`<image width="10" height="10" href="` + u + `/i.png"/><image width="10" height="10" xlink:href="` + u + `/x.png"/>` +
		`<h:img src="` + u + `/h.png"/><h:iframe src="` + u + `/f"/><h:meta http-equiv="refresh" content="0;url=` + u + `/m"/>` +
		`<rect width="5" height="5" fill="#123" filter="url(` + u + `/f.svg#f)"/></svg>`
	if checkSVGContent([]byte(svg)) == nil {
		t.Fatal("the upload check accepted it")
	}
	out, err := SVGToPNG([]byte(svg))
	if err != nil {
		t.Fatalf("the stored SVG does not draw: %v", err)
	}
	if _, err := png.Decode(bytes.NewReader(out)); err != nil {
		t.Fatal(err)
	}
	if n := hits.Load(); n != 0 {
		t.Fatalf("drawing it made %d requests", n)
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
