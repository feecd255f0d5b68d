package render

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strings"

	"golang.org/x/net/html/charset"
)

// checkSVGContent refuses an SVG that holds more than a picture: what a browser shown the
// stored image (a badge's image is served as it was uploaded) would run or fetch, and what the
// rasteriser must not see. It reads the document as XML tokens (with the SVG decoder's own
// charset handling), so that no spelling of an element or attribute escapes it:
//
//   - <script>, event handler attributes (on...), <foreignObject> (HTML inside the picture);
//   - references to anything outside the file: href and xlink:href other than a local
//     #fragment or an embedded PNG, JPEG, GIF or WebP image, url(...) other than url(#id) in
//     attributes and style sheets, @import, <?xml-stylesheet?>, and animations that set an
//     href or an event handler;
//   - <use> (see decodeSVG), and DOCTYPE or ENTITY declarations.
//
// Namespace prefixes are ignored and names compared without case, so that svg:script and
// SCRIPT are refused as script is.
func checkSVGContent(raw []byte) error {
	d := xml.NewDecoder(bytes.NewReader(raw))
	d.CharsetReader = charset.NewReaderLabel
	// A style sheet's text is checked whole: XML comments and CDATA sections may split it
	// anywhere (@im<!-- -->port).
	var style *strings.Builder
	for {
		tok, err := d.RawToken()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return errors.New("the image is not a valid SVG: it is not well-formed XML")
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if err := checkSVGElement(t); err != nil {
				return err
			}
			if strings.EqualFold(t.Name.Local, "style") {
				style = &strings.Builder{}
			}
		case xml.EndElement:
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
		case xml.Directive:
			return errors.New("the SVG has a DOCTYPE or ENTITY declaration, which is not accepted: remove it (an SVG needs none)")
		case xml.ProcInst:
			if !strings.EqualFold(t.Target, "xml") {
				return fmt.Errorf("the SVG has a <?%s?> instruction, which is not accepted: remove it (put styles in a <style> element)", t.Target)
			}
		}
	}
}

func checkSVGElement(el xml.StartElement) error {
	name := strings.ToLower(el.Name.Local)
	switch name {
	case "script":
		return errors.New("the SVG has a <script> element: images may not run scripts; remove it")
	case "foreignobject":
		return errors.New("the SVG has a <foreignObject> element, which is not accepted: draw its content as shapes or remove it")
	case "use":
		return errors.New("the SVG has <use> elements, which are not accepted: write their shapes out in place")
	}
	for _, a := range el.Attr {
		attr := strings.ToLower(a.Name.Local)
		switch {
		case strings.HasPrefix(attr, "on"):
			return fmt.Errorf("the SVG has an event handler attribute (%s on <%s>): images may not run scripts; remove it", a.Name.Local, el.Name.Local)
		case attr == "href":
			if !localReference(a.Value) {
				return fmt.Errorf("the SVG's <%s> refers to %q; only references inside the file (#id) and embedded PNG, JPEG, GIF or WebP images (data:image/png;base64,...) are accepted: embed or remove it",
					el.Name.Local, shorten(a.Value))
			}
		case attr == "xmlns" && a.Name.Space == "" && a.Value != "http://www.w3.org/2000/svg":
			return fmt.Errorf("the SVG's <%s> holds content of another language (%s), which is not accepted: remove it", el.Name.Local, shorten(a.Value))
		case attr == "attributename" && (strings.HasPrefix(name, "animate") || name == "set"):
			if target := strings.ToLower(strings.TrimSpace(a.Value)); strings.HasSuffix(target, "href") || strings.HasPrefix(target, "on") {
				return fmt.Errorf("the SVG's <%s> animates %s, which is not accepted: remove it", el.Name.Local, a.Value)
			}
		}
		if err := checkCSS(a.Value, "the "+a.Name.Local+" attribute of <"+el.Name.Local+">", attr == "style"); err != nil {
			return err
		}
	}
	return nil
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
