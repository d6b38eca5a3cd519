// Package leaftest checks, from a package's tests, that the package is a
// leaf of the lab's dependency graph: that everything it imports,
// directly or not, is the standard library or in an allowed list.
package leaftest

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// Check fails t for every package that the package in the current
// directory depends on (`go list -deps`, test files aside) that is
// neither in the standard library nor allowed. allowed holds import
// paths; a path ending in "/..." allows the tree under it. why says what
// the package must stay free of, for the failure message.
func Check(t *testing.T, why string, allowed ...string) {
	t.Helper()
	gotool, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("the go command is needed to list the package's dependencies: %v", err)
	}
	out, err := exec.Command(gotool, "list", "-deps", "-f", "{{if not .Standard}}{{.ImportPath}}{{end}}", ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go list -deps: %v\n%s", err, out)
	}
	self, err := exec.Command(gotool, "list", ".").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	allowed = append(allowed, strings.TrimSpace(string(self)))
	for _, dep := range strings.Fields(string(out)) {
		if !slices.ContainsFunc(allowed, func(a string) bool { return allows(a, dep) }) {
			t.Errorf("depends on %s: %s", dep, why)
		}
	}
}

// allows reports whether pattern (a path, or a path ending in "/...")
// allows the import path p.
func allows(pattern, p string) bool {
	if tree, ok := strings.CutSuffix(pattern, "/..."); ok {
		return p == tree || strings.HasPrefix(p, tree+"/")
	}
	return p == pattern
}
