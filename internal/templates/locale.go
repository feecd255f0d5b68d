package templates

import (
	"io/fs"
	"path"
	"strings"

	"github.com/google/uuid"

	dbfiles "github.com/certhub/credentiald/db"
	"github.com/certhub/credentiald/internal/domain"
	"github.com/certhub/credentiald/internal/locale"
	"github.com/certhub/credentiald/internal/render"
	"github.com/certhub/credentiald/internal/store"
)

// systemKeys name each system template by its file (classic, award, ...): the catalog's
// [template.<name>] table holds its fixed words in every language. Only these templates are
// translated: an account's own template, even a copy of a system one, holds what its owner
// typed, which is never translated.
var systemKeys = func() map[uuid.UUID]string {
	files, err := fs.Glob(dbfiles.SystemTemplates, "system-templates/*.json")
	if err != nil {
		panic(err)
	}
	keys := make(map[uuid.UUID]string, len(files))
	for _, f := range files {
		t, err := store.SystemTemplate(f)
		if err != nil {
			panic(err)
		}
		keys[t.ID] = strings.TrimSuffix(path.Base(f), ".json")
	}
	return keys
}()

// ForRenderingIn is ForRendering for a certificate of an event speaking lang: a system
// template's fixed words in lang, and its dates written as lang writes them unless the
// template pins a locale of its own. English leaves the template exactly as stored.
func ForRenderingIn(t domain.Template, lang string) (render.Template, error) {
	rt, err := ForRendering(t)
	if err != nil {
		return rt, err
	}
	lang = locale.Or(lang, locale.Default)
	if rt.Layout.Locale == "" && lang != locale.Default {
		rt.Layout.Locale = lang
	}
	key, system := systemKeys[t.ID]
	if !system || lang == locale.Default {
		return rt, nil
	}
	for i := range rt.Layout.Rows {
		for j := range rt.Layout.Rows[i].Cols {
			c := &rt.Layout.Rows[i].Cols[j].Content
			c.Text = locale.TemplateText(lang, key, c.Text)
			c.Title = locale.TemplateText(lang, key, c.Title)
			c.Name = locale.TemplateText(lang, key, c.Name)
		}
	}
	return rt, nil
}
