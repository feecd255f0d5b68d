package locale

import (
	"fmt"
	"regexp"
	"strings"

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
	return &t, nil
}

// fieldsTemplate is a message as literals[0] fields[0] literals[1] ... literals[n].
type fieldsTemplate struct {
	literals, fields []string
}

// Execute fills the fields from data, a map by field name, printing each value as
// text/template does: a string as it is, another value as fmt prints it, a missing one as
// "<no value>" (go-i18n's missingkey=default).
func (t *fieldsTemplate) Execute(data any) (string, error) {
	if len(t.fields) == 0 {
		return t.literals[0], nil
	}
	m, ok := data.(map[string]any)
	if !ok && data != nil {
		return "", fmt.Errorf("locale: the fields of a text are a map[string]any, not %T", data)
	}
	var b strings.Builder
	for i, f := range t.fields {
		b.WriteString(t.literals[i])
		switch v, ok := m[f]; s := v.(type) {
		case string:
			b.WriteString(s)
		default:
			if !ok {
				b.WriteString("<no value>")
			} else {
				fmt.Fprint(&b, s)
			}
		}
	}
	b.WriteString(t.literals[len(t.fields)])
	return b.String(), nil
}
