package locale

import (
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/nicksnyder/go-i18n/v2/i18n/template"
)

// fieldsParser is the go-i18n template parser of every text: a message that only names its
// fields ({{.Name}}, as nearly every message of the catalogs does) is split once into its
// literal parts and fields, and filled by joining them; any other message goes to go-i18n's
// own text/template parser. text/template walked its parse tree by reflection for each text,
// which was an eighth of the verification page's CPU.
type fieldsParser struct{ fallback template.TextParser }

var texts template.Parser = fieldsParser{}

// fieldAction is one {{.Name}} action; a message with any other action is text/template's.
var fieldAction = regexp.MustCompile(`\{\{\s*\.([A-Za-z_][A-Za-z0-9_]*)\s*\}\}`)

func (fieldsParser) Cacheable() bool { return true }

func (p fieldsParser) Parse(src, leftDelim, rightDelim string) (template.ParsedTemplate, error) {
	if (leftDelim != "" && leftDelim != "{{") || (rightDelim != "" && rightDelim != "}}") {
		return p.fallback.Parse(src, leftDelim, rightDelim)
	}
	var t fieldsTemplate
	at := 0
	for _, m := range fieldAction.FindAllStringSubmatchIndex(src, -1) {
		t.literals = append(t.literals, src[at:m[0]])
		t.fields = append(t.fields, src[m[2]:m[3]])
		at = m[1]
	}
	t.literals = append(t.literals, src[at:])
	for _, l := range t.literals {
		if strings.Contains(l, "{{") || strings.Contains(l, "}}") {
			return p.fallback.Parse(src, leftDelim, rightDelim)
		}
	}
	t.slow = sync.OnceValues(func() (template.ParsedTemplate, error) { return p.fallback.Parse(src, leftDelim, rightDelim) })
	return &t, nil
}

// fieldsTemplate is a message as literals[0] fields[0] literals[1] ... literals[n]; slow is
// the same message parsed by text/template, for the data it alone prints.
type fieldsTemplate struct {
	literals, fields []string
	slow             func() (template.ParsedTemplate, error)
}

// Execute fills the fields from data, a map by field name: a string as it is, an integer in
// decimal, a missing or nil one as "<no value>" (go-i18n's missingkey=default), as
// text/template prints them. Any other value, or data of another type, is text/template's to
// print (pointers followed, Stringers asked).
func (t *fieldsTemplate) Execute(data any) (string, error) {
	if len(t.fields) == 0 {
		return t.literals[0], nil
	}
	m, ok := data.(map[string]any)
	if !ok && data != nil {
		return t.executeSlowly(data)
	}
	var b strings.Builder
	for i, f := range t.fields {
		b.WriteString(t.literals[i])
		switch v := m[f].(type) {
		case string:
			b.WriteString(v)
		case int:
			b.WriteString(strconv.Itoa(v))
		case nil:
			b.WriteString("<no value>")
		default:
			return t.executeSlowly(data)
		}
	}
	b.WriteString(t.literals[len(t.fields)])
	return b.String(), nil
}

func (t *fieldsTemplate) executeSlowly(data any) (string, error) {
	slow, err := t.slow()
	if err != nil {
		return "", err
	}
	return slow.Execute(data)
}
