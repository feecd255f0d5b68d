package httpmw

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strconv"
	"unicode"
	"unicode/utf8"

	"github.com/labstack/echo/v4"

	"github.com/certhub/credentiald/internal/apperr"
)

// maxTextProblems bounds the details of one refused body.
const maxTextProblems = 20

// CheckJSONText refuses, before the contract validator reads it, a JSON body that Go's decoder
// would silently alter or cut short: bytes that are not UTF-8 and lone surrogate escapes (both
// would become U+FFFD), U+0000 (PostgreSQL cannot store it), and anything after the first JSON
// value (the decoder stops there and ignores the rest). Each problem names its field.
func CheckJSONText(ops Operations) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			req := c.Request()
			if !ops[routeKey(req.Method, c.Path())].JSONBody || req.Body == nil || req.Body == http.NoBody {
				return next(c)
			}
			if mt, _, err := mime.ParseMediaType(req.Header.Get(echo.HeaderContentType)); err != nil || mt != echo.MIMEApplicationJSON {
				return next(c) // the validator names the expected content type
			}
			body, err := io.ReadAll(req.Body)
			if err != nil {
				return err
			}
			req.Body = io.NopCloser(bytes.NewReader(body))
			if problems := jsonTextProblems(body); len(problems) > 0 {
				return &apperr.Error{Code: apperr.ValidationError, Message: "The request body holds text that cannot be accepted as sent; see details.", Details: problems}
			}
			return next(c)
		}
	}
}

// jsonLevel is an open object or array while walking a body.
type jsonLevel struct {
	field   string // the container's own field name: body.layout.rows
	object  bool
	wantKey bool
	key     string
	index   int
}

func (l *jsonLevel) child() string {
	if l.object {
		return l.field + "." + l.key
	}
	return l.field + "[" + strconv.Itoa(l.index) + "]"
}

// jsonTextProblems walks a JSON body token by token and checks the raw text of each string.
// A body that is not JSON at all yields nothing here: the contract validator reports it.
func jsonTextProblems(body []byte) []apperr.Detail {
	var out []apperr.Detail
	add := func(field, msg string) {
		if len(out) < maxTextProblems {
			out = append(out, apperr.Detail{Field: field, Message: msg})
		}
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var stack []*jsonLevel
	// valueDone moves the enclosing container past the value just read.
	valueDone := func() {
		if len(stack) == 0 {
			return
		}
		top := stack[len(stack)-1]
		if top.object {
			top.wantKey = true
		} else {
			top.index++
		}
	}
	started := false
	for {
		start := dec.InputOffset()
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			return out
		}
		if started && len(stack) == 0 {
			at := int(start) + len(body[start:]) - len(bytes.TrimLeft(body[start:], " \t\r\n"))
			add("body", fmt.Sprintf("holds more than one JSON value: remove what follows it (after byte %d)", at))
			return out
		}
		if err != nil {
			return out // not JSON: the validator says so
		}
		started = true
		field := "body"
		var top *jsonLevel
		if len(stack) > 0 {
			top = stack[len(stack)-1]
			field = top.child()
		}
		switch t := tok.(type) {
		case json.Delim:
			switch t {
			case '{', '[':
				stack = append(stack, &jsonLevel{field: field, object: t == '{', wantKey: t == '{'})
			default:
				stack = stack[:len(stack)-1]
				valueDone()
			}
		case string:
			raw := body[start:dec.InputOffset()]
			if top != nil && top.object && top.wantKey {
				if msg := stringProblem(raw); msg != "" {
					add(top.field, "has a property name that "+msg)
				}
				top.key, top.wantKey = t, false
				continue
			}
			if msg := stringProblem(raw); msg != "" {
				add(field, msg)
			}
			valueDone()
		default:
			valueDone()
		}
	}
}

// What the text rules tell a client, whether the text came in a JSON body or a parameter.
const nulMessage = "holds U+0000 (NUL), which cannot be stored; remove it"

func notUTF8Message(b byte) string {
	return fmt.Sprintf("is not valid UTF-8 (byte 0x%02X); send the text as UTF-8", b)
}

// textProblem checks the decoded text of a parameter by the rules of a body's text: bytes
// that are not UTF-8, and U+0000; and, since a parameter's value is one short line, any other
// control character (a line break, a tab, C1 controls). "" when the text may be taken.
func textProblem(v string) string {
	pos := 0
	for i, r := range v {
		pos++
		switch {
		case r == utf8.RuneError:
			if _, size := utf8.DecodeRuneInString(v[i:]); size == 1 {
				return notUTF8Message(v[i])
			}
		case r == 0:
			return nulMessage
		case unicode.IsControl(r):
			return fmt.Sprintf("holds %U (a control character) at character %d, which is not allowed; remove it", r, pos)
		}
	}
	return ""
}

// plainText reports whether s holds printable ASCII only, which textProblem would take as it
// is, and which no percent escape can hide anything in: most parameters, checked for nothing
// more than that.
func plainText(s string) bool {
	for i := 0; i < len(s); i++ {
		if b := s[i]; b < 0x20 || b >= 0x7f || b == '%' {
			return false
		}
	}
	return true
}

// stringProblem checks the raw text of one JSON string token (with any separator before it):
// bytes that are not UTF-8, an escaped surrogate without its other half, or U+0000.
func stringProblem(raw []byte) string {
	q := bytes.IndexByte(raw, '"')
	if q < 0 || len(raw) < q+2 {
		return ""
	}
	s := raw[q+1 : len(raw)-1]
	for i := 0; i < len(s); {
		switch b := s[i]; {
		case b == '\\' && i+1 < len(s) && s[i+1] == 'u':
			u, ok := hex4(s[i+2:])
			if !ok {
				return ""
			}
			switch {
			case u == 0:
				return nulMessage
			case u >= 0xD800 && u <= 0xDBFF:
				if len(s) >= i+12 && s[i+6] == '\\' && s[i+7] == 'u' {
					if lo, ok := hex4(s[i+8:]); ok && lo >= 0xDC00 && lo <= 0xDFFF {
						i += 12
						continue
					}
				}
				return fmt.Sprintf("holds \\u%04x, half of a UTF-16 surrogate pair without its other half, which is no character; send the text as UTF-8", u)
			case u >= 0xDC00 && u <= 0xDFFF:
				return fmt.Sprintf("holds \\u%04x, half of a UTF-16 surrogate pair without its other half, which is no character; send the text as UTF-8", u)
			}
			i += 6
		case b == '\\':
			i += 2
		case b < utf8.RuneSelf:
			i++
		default:
			r, size := utf8.DecodeRune(s[i:])
			if r == utf8.RuneError && size == 1 {
				return notUTF8Message(b)
			}
			i += size
		}
	}
	return ""
}

func hex4(b []byte) (rune, bool) {
	if len(b) < 4 {
		return 0, false
	}
	v, err := strconv.ParseUint(string(b[:4]), 16, 32)
	return rune(v), err == nil
}
