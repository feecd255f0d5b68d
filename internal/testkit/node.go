package testkit

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// Node returns the node binary when the npm packages named are installed in dir (a folder
// with a package.json, such as test/vc-verify), for tests that run other people's code
// (verifiers, wallets). Where they are missing the test is skipped, except in CI (CI set),
// where that is a failure.
func Node(t testing.TB, dir string, packages ...string) string {
	t.Helper()
	node, err := exec.LookPath("node")
	for _, pkg := range packages {
		if err == nil {
			_, err = os.Stat(filepath.Join(dir, "node_modules", pkg))
		}
	}
	if err != nil {
		msg := "this test runs node and npm packages: (cd " + dir + " && npm ci): " + err.Error()
		if os.Getenv("CI") != "" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	return node
}
