package locale

import "strings"

// The system certificate templates are stored in English, as db/system-templates holds them
// and as the API shows them. Their fixed words are translated when a certificate is drawn: the
// English catalog's [template.<name>] table says which id each English text has, and the
// certificate's locale says which translation replaces it. Keyed by template, not by text
// alone, because one English word ("CERTIFICATE") reads differently in two layouts.
var templateIDs = templateTextIDs() // template name -> English text -> id

// templateTextIDs reads the English catalog's template.<name>.* messages.
func templateTextIDs() map[string]map[string]string {
	en, err := Messages(Default)
	if err != nil {
		panic("locale: " + err.Error())
	}
	out := map[string]map[string]string{}
	for id, m := range en {
		rest, ok := strings.CutPrefix(id, "template.")
		if !ok {
			continue
		}
		name, _, _ := strings.Cut(rest, ".")
		if out[name] == nil {
			out[name] = map[string]string{}
		}
		out[name][m.Other] = id
	}
	return out
}

// TemplateText is english, a fixed text of the system template named name ("classic"), in
// locale; any other text (a placeholder alone, what a user typed) comes back unchanged.
func TemplateText(locale, name, english string) string {
	id, ok := templateIDs[name][english]
	if !ok || locale == Default {
		return english
	}
	return Raw(locale, id)
}
