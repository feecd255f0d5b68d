package locale

import (
	"regexp"
	"testing"
	"time"

	"github.com/nicksnyder/go-i18n/v2/i18n/template"
)

// Every text of every catalog, each plural form, is written by the fields parser exactly as
// go-i18n's text/template parser writes it: with every field set, with one missing, with
// values that are not strings (integers, nil, a pointer, a Stringer, a float), and with data
// of another type than map[string]any.
func TestTheFieldsParserWritesEveryTextAsTextTemplateDoes(t *testing.T) {
	t.Parallel()
	names := regexp.MustCompile(`\{\{\s*\.([A-Za-z_][A-Za-z0-9_]*)`)
	var fast, slow template.Parser = fieldsParser{}, &template.TextParser{}
	split, kinds := 0, 0
	for _, code := range Codes {
		msgs, err := Messages(code)
		if err != nil {
			t.Fatal(err)
		}
		for id, m := range msgs {
			for _, src := range []string{m.Zero, m.One, m.Two, m.Few, m.Many, m.Other} {
				if src == "" {
					continue
				}
				full, missing, typed, other := map[string]any{}, map[string]any{}, map[string]any{}, map[string]string{}
				pointed, stringer := "pointed <x>", time.Duration(90e9)
				for i, n := range names.FindAllStringSubmatch(src, -1) {
					full[n[1]] = "<" + n[1] + " & 'x'>"
					other[n[1]] = "<" + n[1] + ">"
					// ints, nil, a pointer, a Stringer, a float: what text/template prints its own way
					typed[n[1]] = []any{40 + i, nil, &pointed, stringer, 2.5}[kinds%5]
					kinds++
					if i > 0 {
						missing[n[1]] = full[n[1]]
					}
				}
				pf, err := fast.Parse(src, "", "")
				ps, errSlow := slow.Parse(src, "", "")
				if err != nil || errSlow != nil {
					if (err == nil) != (errSlow == nil) {
						t.Errorf("%s %s: the fields parser says %v, text/template %v", code, id, err, errSlow)
					}
					continue // a certificate template's own text ({{event.name}}), read by Raw
				}
				if _, ok := pf.(*fieldsTemplate); ok {
					split++
				}
				for _, data := range []any{full, missing, typed, nil, other} {
					got, gotErr := pf.Execute(data)
					want, wantErr := ps.Execute(data)
					if got != want || (gotErr == nil) != (wantErr == nil) {
						t.Errorf("%s %s with %v:\n got %q (%v)\nwant %q (%v)", code, id, data, got, gotErr, want, wantErr)
					}
				}
			}
		}
	}
	if split < 100 {
		t.Errorf("only %d texts were split by the fields parser: it should take nearly all", split)
	}
}
