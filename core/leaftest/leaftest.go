// Package leaftest checks, from a package's tests, that the package is a
// leaf of proflab's dependency graph: that what it imports, directly or
// not, is the standard library or in an allowed list, and that its own
// files leave out the standard packages it must not use (the kernel model
// has no I/O, clock or goroutine tools). Every leaf's test uses it — the
// kernel, the HAL contract, the simulator and the workload model — so the
// rule reads the same everywhere.
//
// It is imported by test files only (the kernel and the HAL contract
// import nothing of core/ in the code they ship, which the check itself
// enforces), and imports the standard library only. It is not under an
// internal/ folder because the kernel and the HAL contract, outside core/,
// use it too.
package leaftest

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// Rule is what a leaf may depend on.
type Rule struct {
	// Why says what the package must stay free of, for the failure
	// message.
	Why string
	// Packages are the packages the rule covers, as `go list` takes them
	// (relative to the test's folder): "" means ".", the package itself;
	// "./..." covers the folder's subpackages too.
	Packages string
	// Allow are the non-standard import paths the packages may depend on,
	// directly or not (their non-test files); a path ending in "/..."
	// allows the tree under it. The module's own packages the rule covers
	// are always allowed.
	Allow []string
	// Tests holds the packages' tests to Allow too (their dependencies
	// as `go list -deps -test` finds them).
	Tests bool
	// ForbidStd are standard-library packages (a path ending in "/..."
	// forbids a tree) that the packages' own non-test files may not
	// import (the standard library may use them underneath).
	ForbidStd []string
	// Except are packages among Packages that ForbidStd does not cover:
	// test support that only tests import (it may read test files).
	Except []string
}

// Check fails t for every dependency of the rule's packages that the rule
// does not allow.
func Check(t *testing.T, r Rule) {
	t.Helper()
	gotool, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("the go command is needed to list the package's dependencies: %v", err)
	}
	pkgs := r.Packages
	if pkgs == "" {
		pkgs = "."
	}
	run := func(args ...string) []string {
		t.Helper()
		out, err := exec.Command(gotool, args...).CombinedOutput()
		if err != nil {
			t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return strings.Split(strings.TrimSpace(string(out)), "\n")
	}
	self := run("list", pkgs)
	allowed := append(slices.Clone(r.Allow), self...)
	args := []string{"list", "-deps", "-f", "{{if not .Standard}}{{.ImportPath}}{{end}}", pkgs}
	if r.Tests {
		args = []string{"list", "-deps", "-test", "-f", "{{if not .Standard}}{{.ImportPath}}{{end}}", pkgs}
	}
	for _, dep := range run(args...) {
		// a test's variants: "p [p.test]", "p.test", "p_test [p.test]"
		dep, _, _ = strings.Cut(dep, " ")
		dep = strings.TrimSuffix(strings.TrimSuffix(dep, ".test"), "_test")
		if dep != "" && !slices.ContainsFunc(allowed, func(a string) bool { return allows(a, dep) }) {
			t.Errorf("depends on %s: %s", dep, r.Why)
		}
	}
	if len(r.ForbidStd) == 0 {
		return
	}
	for _, line := range run("list", "-f", "{{.ImportPath}}:{{join .Imports \" \"}}", pkgs) {
		pkg, imports, _ := strings.Cut(line, ":")
		if slices.Contains(r.Except, pkg) {
			continue
		}
		for _, imp := range strings.Fields(imports) {
			if slices.ContainsFunc(r.ForbidStd, func(f string) bool { return allows(f, imp) }) {
				t.Errorf("%s imports %s: %s", pkg, imp, r.Why)
			}
		}
	}
}

// allows reports whether pattern (a path, or a path ending in "/...")
// matches the import path p.
func allows(pattern, p string) bool {
	if tree, ok := strings.CutSuffix(pattern, "/..."); ok {
		return p == tree || strings.HasPrefix(p, tree+"/")
	}
	return p == pattern
}
