package render

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strings"
	"unicode"

	"golang.org/x/net/html/charset"
)

// SVGCheckVersion names the rules of checkSVGContent. Raise it with any change that refuses
// an SVG the rules before accepted: the SVGs stored before are checked again (the SVG recheck
// job), and one that fails is replaced by its rasterisation as a PNG.
//
//   - 1: a deny-list of scripts, event handlers, foreignObject and external references.
//   - 2: an allow-list of SVG elements and attributes (this file).
const SVGCheckVersion = 2

// The namespaces an SVG's markup may use.
const (
	nsSVG   = "http://www.w3.org/2000/svg"
	nsXLink = "http://www.w3.org/1999/xlink"
	nsXML   = "http://www.w3.org/XML/1998/namespace"
)

// checkSVGContent refuses an SVG that holds more than a picture: what a browser shown the
// stored image would run, fetch or navigate to (a badge's image and an issuer's logo are
// served as they were uploaded, and a badge.svg saved to disk is opened without the
// Content-Security-Policy its answer carried), and what the rasteriser must not see.
//
// It is an allow-list, not a deny-list. A browser gives an SVG file the whole web platform: any
// element in the XHTML namespace is live HTML wherever it sits (<h:img src>, <h:iframe srcdoc>,
// <h:meta http-equiv="refresh">, <h:video poster>, <h:object data>, <h:form action>, under any
// prefix, or under a default namespace redeclared on any element), MathML is live too, and
// every new element or attribute a browser ships may load something. A deny-list must name
// every one of them, in every spelling, and missed the XHTML ones above; an allow-list only
// has to know what a picture needs, and refuses the rest with a message that names it. So:
//
//   - The document is XML read with its namespaces resolved (a prefix means what its
//     declaration says, whatever its spelling, character references included), UTF-8 or a
//     single-byte encoding (a multi-byte one could be decoded otherwise by a browser), without
//     DOCTYPE, entity declarations or processing instructions other than <?xml ...?>; its one
//     root is <svg> in the SVG namespace.
//   - Elements are SVG's drawing elements, in the SVG namespace: shapes, text, gradients,
//     patterns, clips, masks, markers, filters, <image>, <a>, <style>. Not <script>,
//     <foreignObject> (HTML inside the picture), <use> (see decodeSVG), animations, fonts
//     or anything else. Elements of the drawing programs' own namespaces (Inkscape, Sodipodi,
//     Illustrator, Sketch, RDF and Dublin Core metadata, Open Badges' baked assertion) are
//     kept: a browser makes them plain elements that draw, run and fetch nothing. Any other
//     namespace (XHTML, MathML, none) is refused.
//   - Attributes of SVG elements are those of SVG's presentation and geometry, in no
//     namespace, plus xlink:href, xml:space and xml:lang; event handlers (on...) and anything
//     unknown (src, poster, action, srcdoc, ping, xml:base...) are refused. A value that can
//     refer to a URL (href, xlink:href, url(...) in any attribute or style) may only name
//     something inside the file (#id) or embed a PNG, JPEG, GIF or WebP image as a data URI;
//     style sheets may not @import or use image-set(), nor CSS escapes where a URL may be.
func checkSVGContent(raw []byte) error {
	var encoding string
	d := xml.NewDecoder(bytes.NewReader(raw))
	d.Strict = true
	d.CharsetReader = func(label string, in io.Reader) (io.Reader, error) {
		if !singleByteEncodings[strings.ToLower(strings.TrimSpace(label))] {
			encoding = label
			return nil, errors.New("encoding not accepted")
		}
		return charset.NewReaderLabel(label, in)
	}
	var (
		depth, roots int
		prolog       = true // nothing read yet but a byte order mark
		// A style sheet's text is checked whole: XML comments and CDATA sections may split it
		// anywhere (@im<!-- -->port).
		style *strings.Builder
	)
	for {
		tok, err := d.Token()
		if err == io.EOF {
			if roots == 0 {
				return errNotSVGRoot
			}
			return nil
		}
		if err != nil {
			if encoding != "" {
				return fmt.Errorf("the SVG is written in %s, which is not accepted: save it as UTF-8", shorten(encoding))
			}
			return errors.New("the image is not a valid SVG: it is not well-formed XML")
		}
		atStart := prolog
		if cd, ok := tok.(xml.CharData); !ok || string(cd) != "\ufeff" {
			prolog = false
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if style != nil {
				// A browser reads the sheet from the <style>'s text on both sides of the element
				// (@im<g/>port); a style sheet holds no elements.
				return errors.New("the SVG's <style> holds elements, which is not accepted: keep only the style sheet's text in it")
			}
			if depth == 0 {
				if roots++; roots > 1 {
					return errors.New("the image is not a valid SVG: it has more than one root element")
				}
				if t.Name.Space != nsSVG || t.Name.Local != "svg" {
					return errNotSVGRoot
				}
			}
			depth++
			if err := checkSVGElement(t); err != nil {
				return err
			}
			if t.Name.Space == nsSVG && t.Name.Local == "style" {
				style = &strings.Builder{}
			}
		case xml.EndElement:
			depth--
			if style != nil {
				if err := checkCSS(style.String(), "a <style> element", true); err != nil {
					return err
				}
				style = nil
			}
		case xml.CharData:
			if style != nil {
				style.Write(t)
			}
			if depth == 0 && strings.TrimFunc(string(t), func(r rune) bool { return unicode.IsSpace(r) || r == '\ufeff' }) != "" {
				return errors.New("the image is not a valid SVG: it has text outside its <svg> element")
			}
		case xml.Directive:
			return errors.New("the SVG has a DOCTYPE or ENTITY declaration, which is not accepted: remove it (an SVG needs none)")
		case xml.ProcInst:
			if t.Target != "xml" {
				return fmt.Errorf("the SVG has a <?%s?> instruction, which is not accepted: remove it (put styles in a <style> element)", t.Target)
			}
			if !atStart {
				// A declaration anywhere else is an error to a browser, and would make the
				// decoder here change encodings midway.
				return errors.New("the image is not a valid SVG: its <?xml ...?> declaration is not at its start")
			}
		}
	}
}

var errNotSVGRoot = errors.New(`the image is not a valid SVG: its root element must be <svg xmlns="http://www.w3.org/2000/svg">`)

// singleByteEncodings are the encodings, besides UTF-8, an SVG may declare: each byte is one
// character and ASCII is ASCII, so a browser and this check read the same markup whatever
// decoder either uses.
var singleByteEncodings = map[string]bool{"us-ascii": true, "ascii": true, "iso-8859-1": true, "iso8859-1": true,
	"latin1": true, "iso_8859-1": true, "windows-1252": true, "cp1252": true}

func checkSVGElement(el xml.StartElement) error {
	name, ns := el.Name.Local, el.Name.Space
	switch strings.ToLower(name) {
	case "script":
		return errors.New("the SVG has a <script> element: images may not run scripts; remove it")
	case "foreignobject":
		return errors.New("the SVG has a <foreignObject> element, which is not accepted: draw its content as shapes or remove it")
	case "use":
		return errors.New("the SVG has <use> elements, which are not accepted: write their shapes out in place")
	}
	switch {
	case inertNamespaces[ns]:
		return nil // a drawing program's own element: a browser makes it a plain element
	case ns != nsSVG:
		return fmt.Errorf("the SVG's <%s> holds content of another language (%s), which is not accepted: remove it", name, namespaceName(ns))
	case svgAnimations[name]:
		return fmt.Errorf("the SVG's <%s> is an animation, which is not accepted: an image is drawn still; remove it", name)
	case !svgElements[name]:
		return fmt.Errorf("the SVG has a <%s> element, which is not accepted in an image: remove it", name)
	}
	seen := make(map[xml.Name]bool, len(el.Attr))
	for _, a := range el.Attr {
		if seen[a.Name] {
			return errors.New("the image is not a valid SVG: it is not well-formed XML (an attribute repeated)")
		}
		seen[a.Name] = true
		if err := checkSVGAttribute(name, a); err != nil {
			return err
		}
	}
	return nil
}

func checkSVGAttribute(element string, a xml.Attr) error {
	where := "the " + a.Name.Local + " attribute of <" + element + ">"
	switch space, local := a.Name.Space, a.Name.Local; {
	case space == "xmlns" || (space == "" && local == "xmlns"):
		return nil // a namespace declaration: the elements it names are judged by it
	case (space == nsXLink || space == "xlink") && local == "href", space == "" && local == "href":
		// An undeclared xlink: prefix, common in SVGs written for HTML pages, is read as
		// XLink's: no browser opens such a file (the prefix is unbound), and the renderer
		// follows it as it follows xlink:href.
		if !localReference(a.Value) {
			return fmt.Errorf("the SVG's <%s> refers to %q; only references inside the file (#id) and embedded PNG, JPEG, GIF or WebP images (data:image/png;base64,...) are accepted: embed or remove it",
				element, shorten(a.Value))
		}
		return nil
	case (space == nsXLink || space == "xlink") && xlinkAttributes[local], space == nsXML && xmlAttributes[local]:
		return nil
	case space == nsXLink || space == "xlink" || space == nsXML:
		prefix := "xlink:"
		if space == nsXML {
			prefix = "xml:"
		}
		return fmt.Errorf("the SVG's <%s> has the attribute %s, which is not accepted in an image: remove it", element, prefix+local)
	case inertNamespaces[space]:
		return nil // a drawing program's note on the element (inkscape:label)
	case space != "":
		return fmt.Errorf("the SVG's <%s> has an attribute of another language (%s), which is not accepted: remove it",
			element, namespaceName(space)+" "+local)
	case strings.HasPrefix(strings.ToLower(local), "on"):
		return fmt.Errorf("the SVG has an event handler attribute (%s on <%s>): images may not run scripts; remove it", local, element)
	case local == "style":
		return checkCSS(a.Value, where, true)
	case !svgAttributes[local] && !strings.HasPrefix(local, "data-") && !strings.HasPrefix(local, "aria-"):
		return fmt.Errorf("the SVG's <%s> has the attribute %s, which is not accepted in an image: remove it", element, local)
	case cssURLAttributes[local] && strings.Contains(a.Value, `\`):
		return fmt.Errorf("the SVG's styles have a backslash escape (in %s), which is not accepted: write the characters themselves", where)
	}
	return checkCSS(a.Value, where, false)
}

// namespaceName is how an error names a namespace.
func namespaceName(ns string) string {
	switch {
	case ns == "":
		return `no namespace: declare xmlns="http://www.w3.org/2000/svg"`
	case ns == "http://www.w3.org/1999/xhtml":
		return "HTML"
	case ns == "http://www.w3.org/1998/Math/MathML":
		return "MathML"
	case !strings.Contains(ns, ":"):
		return "the undeclared prefix " + ns + ":"
	}
	return shorten(ns)
}

// svgElements are the elements of a picture, by their names in the SVG namespace. The
// flow* elements are Inkscape's text frames (SVG 1.2, in the SVG namespace), which browsers
// neither draw nor run.
var svgElements = setOf("svg", "g", "defs", "desc", "title", "metadata", "symbol", "switch", "a", "style",
	"path", "rect", "circle", "ellipse", "line", "polyline", "polygon", "image",
	"text", "tspan", "textPath",
	"linearGradient", "radialGradient", "stop", "pattern", "clipPath", "mask", "marker",
	"meshgradient", "meshrow", "meshpatch", "hatch", "hatchpath", "solidcolor",
	"filter", "feBlend", "feColorMatrix", "feComponentTransfer", "feComposite", "feConvolveMatrix",
	"feDiffuseLighting", "feDisplacementMap", "feDistantLight", "feDropShadow", "feFlood", "feFuncA", "feFuncB",
	"feFuncG", "feFuncR", "feGaussianBlur", "feImage", "feMerge", "feMergeNode", "feMorphology", "feOffset",
	"fePointLight", "feSpecularLighting", "feSpotLight", "feTile", "feTurbulence",
	"flowRoot", "flowRegion", "flowPara", "flowSpan", "flowDiv")

// svgAnimations are named apart for their message: a still picture has no use for them, and
// they can set any attribute (an href, a handler) after the check.
var svgAnimations = setOf("animate", "animateColor", "animateMotion", "animateTransform", "set", "discard", "mpath")

// svgAttributes are the attributes of SVG elements a picture uses, in no namespace: geometry,
// presentation, text, paint servers, filters, and the document's own. href and style are
// judged apart.
var svgAttributes = setOf(
	// the document, identity, accessibility
	"id", "class", "lang", "tabindex", "role", "focusable", "version", "baseProfile", "viewBox", "preserveAspectRatio",
	"zoomAndPan", "contentScriptType", "contentStyleType", "requiredFeatures", "requiredExtensions", "systemLanguage",
	"externalResourcesRequired", "target", "type", "media", "title", "crossorigin", "decoding",
	// geometry
	"x", "y", "x1", "y1", "x2", "y2", "cx", "cy", "r", "rx", "ry", "fx", "fy", "fr", "width", "height", "d", "points",
	"pathLength", "transform", "transform-origin", "transform-box",
	// presentation
	"fill", "fill-opacity", "fill-rule", "stroke", "stroke-width", "stroke-linecap", "stroke-linejoin", "stroke-miterlimit",
	"stroke-dasharray", "stroke-dashoffset", "stroke-opacity", "opacity", "color", "color-interpolation",
	"color-interpolation-filters", "color-rendering", "color-profile", "display", "visibility", "overflow", "clip", "clip-path",
	"clip-rule", "mask", "mask-type", "filter", "marker", "marker-start", "marker-mid", "marker-end", "cursor",
	"pointer-events", "shape-rendering", "image-rendering", "text-rendering", "paint-order", "vector-effect",
	"mix-blend-mode", "isolation", "enable-background", "flood-color", "flood-opacity", "lighting-color", "stop-color",
	"stop-opacity", "solid-color", "solid-opacity",
	// text
	"font", "font-family", "font-size", "font-size-adjust", "font-stretch", "font-style", "font-variant", "font-weight",
	"font-feature-settings", "font-kerning", "text-anchor", "text-decoration", "dominant-baseline", "alignment-baseline",
	"baseline-shift", "letter-spacing", "word-spacing", "writing-mode", "direction", "unicode-bidi", "kerning",
	"glyph-orientation-horizontal", "glyph-orientation-vertical", "line-height", "text-align", "white-space",
	"inline-size", "shape-inside", "shape-subtract", "shape-padding", "shape-margin", "dx", "dy", "rotate",
	"textLength", "lengthAdjust", "startOffset", "method", "spacing", "side",
	// paint servers, clips, masks, markers
	"gradientUnits", "gradientTransform", "spreadMethod", "offset", "patternUnits", "patternContentUnits",
	"patternTransform", "clipPathUnits", "maskUnits", "maskContentUnits", "markerWidth", "markerHeight", "markerUnits",
	"refX", "refY", "orient", "hatchUnits", "hatchContentUnits", "pitch",
	// filters
	"filterUnits", "primitiveUnits", "filterRes", "in", "in2", "result", "mode", "operator", "k1", "k2", "k3", "k4",
	"values", "tableValues", "slope", "intercept", "amplitude", "exponent", "stdDeviation", "edgeMode", "order",
	"kernelMatrix", "divisor", "bias", "targetX", "targetY", "kernelUnitLength", "preserveAlpha", "surfaceScale",
	"diffuseConstant", "specularConstant", "specularExponent", "azimuth", "elevation", "z", "pointsAtX", "pointsAtY",
	"pointsAtZ", "limitingConeAngle", "scale", "xChannelSelector", "yChannelSelector", "radius", "baseFrequency",
	"numOctaves", "seed", "stitchTiles")

// cssURLAttributes are the presentation attributes that take url(): a browser reads their
// values as CSS, escapes included (\75rl( is url().
var cssURLAttributes = setOf("fill", "stroke", "clip-path", "mask", "filter", "marker", "marker-start", "marker-mid",
	"marker-end", "cursor", "shape-inside", "shape-subtract")

// xlinkAttributes are the XLink attributes besides href, which only describe a link.
var xlinkAttributes = setOf("title", "type", "role", "arcrole", "show", "actuate")

// xmlAttributes are the attributes of the xml: prefix a picture may carry; not xml:base,
// which would make #id refer to another document.
var xmlAttributes = setOf("space", "lang", "id")

// inertNamespaces are the drawing programs' and metadata's own namespaces: their elements and
// attributes carry the program's notes (layers, guides, the export's file name) and the
// document's metadata, which a browser keeps as plain markup, never drawn, run or fetched.
var inertNamespaces = setOf(
	"http://www.inkscape.org/namespaces/inkscape",
	"http://sodipodi.sourceforge.net/DTD/sodipodi-0.dtd",
	"http://www.w3.org/1999/02/22-rdf-syntax-ns#",
	"http://purl.org/dc/elements/1.1/",
	"http://purl.org/dc/terms/",
	"http://creativecommons.org/ns#",
	"http://web.resource.org/cc/",
	"http://ns.adobe.com/AdobeIllustrator/10.0/",
	"http://ns.adobe.com/AdobeSVGViewerExtensions/3.0/",
	"http://ns.adobe.com/Extensibility/1.0/",
	"http://ns.adobe.com/Flows/1.0/",
	"http://ns.adobe.com/Graphs/1.0/",
	"http://ns.adobe.com/ImageReplacement/1.0/",
	"http://ns.adobe.com/SaveForWeb/1.0/",
	"http://ns.adobe.com/Variables/1.0/",
	"http://ns.adobe.com/xap/1.0/",
	"http://www.bohemiancoding.com/sketch/ns",
	"http://openbadges.org", // a badge baked elsewhere: <openbadges:assertion verify="...">
)

func setOf(names ...string) map[string]bool {
	m := make(map[string]bool, len(names))
	for _, n := range names {
		m[n] = true
	}
	return m
}

// cssURL finds url(...) in a style sheet or attribute, with or without quotes.
var cssURL = regexp.MustCompile(`(?i)url\(\s*(?:"([^"]*)"|'([^']*)'|([^)]*))\s*\)`)

// checkCSS refuses styles that fetch from outside the file: url() other than a local #id or
// an embedded image, in any attribute, and in a style sheet (sheet) also @import and
// image-set(), which fetches strings, and backslashes, which CSS reads as escapes (\75rl( is
// url().
func checkCSS(css, where string, sheet bool) error {
	lower := strings.ToLower(css)
	if sheet {
		switch {
		case strings.Contains(lower, "@import"):
			return fmt.Errorf("the SVG imports a style sheet (@import in %s): put the styles in the file", where)
		case strings.Contains(lower, "image-set("):
			return fmt.Errorf("the SVG's styles use image-set() (in %s), which is not accepted: remove it", where)
		case strings.Contains(css, `\`):
			return fmt.Errorf("the SVG's styles have a backslash escape (in %s), which is not accepted: write the characters themselves", where)
		}
	}
	if !strings.Contains(lower, "url(") {
		return nil
	}
	for _, m := range cssURL.FindAllStringSubmatch(css, -1) {
		if ref := m[1] + m[2] + m[3]; !localReference(ref) {
			return fmt.Errorf("the SVG refers to %q (in %s); only url(#id) and embedded PNG, JPEG, GIF or WebP images are accepted: embed or remove it", shorten(ref), where)
		}
	}
	if strings.Count(lower, "url(") != len(cssURL.FindAllStringIndex(css, -1)) {
		return fmt.Errorf("the SVG has a url( that is not closed (in %s): write url(#id)", where)
	}
	return nil
}

// localReference reports whether ref names something inside the file: a #fragment, or an
// embedded raster image (a data URI fetches nothing; an embedded SVG could refer further).
func localReference(ref string) bool {
	ref = strings.ToLower(strings.TrimSpace(ref))
	if strings.HasPrefix(ref, "#") {
		return true
	}
	for _, t := range []string{"png", "jpeg", "jpg", "gif", "webp"} {
		if strings.HasPrefix(ref, "data:image/"+t+";") || strings.HasPrefix(ref, "data:image/"+t+",") {
			return true
		}
	}
	return false
}

// shorten keeps a quoted value readable in an error message (a data URI can be megabytes).
func shorten(s string) string {
	if r := []rune(s); len(r) > 60 {
		return string(r[:60]) + "…"
	}
	return s
}

// hasUseElement reports whether the SVG document has a <use> element (in any namespace). A
// document that is not well-formed XML is left to the SVG decoder to refuse. It guards the
// rasteriser (see decodeSVG), so it runs on every SVG drawn, stored ones included, whereas
// checkSVGContent judges uploads.
func hasUseElement(raw []byte) bool {
	d := xml.NewDecoder(bytes.NewReader(raw))
	d.Strict = false
	d.CharsetReader = charset.NewReaderLabel
	for {
		tok, err := d.RawToken()
		if err != nil {
			return false
		}
		if el, ok := tok.(xml.StartElement); ok && strings.EqualFold(el.Name.Local, "use") {
			return true
		}
	}
}
