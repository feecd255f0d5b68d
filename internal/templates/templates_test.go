package templates

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	dbfiles "github.com/certhub/credentiald/db"
	"github.com/certhub/credentiald/internal/store"
)

// Every system template passes the checks an account's template must pass, and has its
// preview in docs/ for the README (make docs renders them).
func TestSystemTemplatesAreValidAndPictured(t *testing.T) {
	files, err := fs.Glob(dbfiles.SystemTemplates, "system-templates/*.json")
	if err != nil || len(files) < 3 {
		t.Fatalf("system templates: %v %v", files, err)
	}
	ids := map[string]bool{}
	for _, f := range files {
		st, err := store.SystemTemplate(f)
		if err != nil {
			t.Fatal(err)
		}
		if ids[st.ID.String()] || st.ID.Version() != 7 {
			t.Errorf("%s: id %s is repeated or not a version 7 UUID", f, st.ID)
		}
		ids[st.ID.String()] = true
		if _, err := check(Fields{Name: st.Name, Description: st.Description, PageSize: st.PageSize, Orientation: st.Orientation, Layout: st.Layout}); err != nil {
			t.Errorf("%s: %v", f, err)
		}
		png := filepath.Join("..", "..", "docs", "template-"+strings.TrimSuffix(filepath.Base(f), ".json")+".png")
		if _, err := os.Stat(png); err != nil {
			t.Errorf("%s has no preview: %v (run make docs)", f, err)
		}
	}
}
