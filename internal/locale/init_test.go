package locale

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// readyAtInit is read while the package's variables are initialised, as any package-level
// variable of the package (or of a package that imports it) may read the catalogs. Were the
// catalogs loaded by init functions, which run after every variable, it would be false.
var readyAtInit = Supported("de") && Text("de", "email.certificate.subject", map[string]any{"Event": "GoDays"}) == "Ihr Zertifikat: GoDays" &&
	TemplateText("de", "classic", "has attended {{event.name}}") == "an {{event.name}} teilgenommen hat"

func TestTheCatalogsAreLoadedBeforeAnyVariableReadsThem(t *testing.T) {
	t.Parallel()
	require.True(t, readyAtInit, "a package-level variable read the catalogs before they were loaded")
}

// Every locale is spoken from the start, and every fixed text of every system template is
// translated into it from the English catalog's ids.
func TestEveryLocaleAndTemplateTextIsLoaded(t *testing.T) {
	t.Parallel()
	en, err := Messages(Default)
	require.NoError(t, err, "reading en.toml")
	for _, code := range Codes {
		require.True(t, Supported(code), "%s is not supported", code)
		for id, m := range en {
			rest, ok := strings.CutPrefix(id, "template.")
			if !ok {
				continue
			}
			name, _, _ := strings.Cut(rest, ".")
			want := m.Other
			if code != Default {
				want = Raw(code, id)
			}
			require.Equal(t, want, TemplateText(code, name, m.Other), "%s: the text of %s", code, id)
		}
	}
	require.NotEmpty(t, templateIDs["classic"], "the classic template's texts")
}

// The catalogs' digest is made while the package loads, from every language's catalog.
func TestTheCatalogsHaveADigest(t *testing.T) {
	t.Parallel()
	require.Regexp(t, `^[0-9a-f]{24}$`, Digest, "the catalogs' digest")
}
