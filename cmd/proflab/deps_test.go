package main

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// The proflab binary links no test framework of its own: no package of
// this module that it depends on imports "testing" (the conformance
// suite it runs for `hal check` included). go-plugin itself imports
// testing (its testing.go helpers), so `go list -deps` lists testing
// through it; this test names every importer and allows only packages
// outside the module.
func TestBinaryLinksNoTestFrameworkOfItsOwn(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "-f", "{{.ImportPath}}:{{join .Imports \" \"}}", ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	var importers []string
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		pkg, imports, _ := strings.Cut(line, ":")
		if slices.Contains(strings.Fields(imports), "testing") {
			importers = append(importers, pkg)
		}
	}
	for _, p := range importers {
		if strings.HasPrefix(p, "github.com/proflab/proflab") {
			t.Errorf("%s imports testing, so the proflab binary links it", p)
		}
	}
	if len(importers) == 0 {
		t.Log("nothing in the binary imports testing")
	}
}
