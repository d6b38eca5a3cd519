package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestHalNew scaffolds a HAL in a temporary folder, builds it with no
// edits, passes `hal check` and runs a scenario through it.
func TestHalNew(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a plugin")
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "jitter")
	code, out, errOut := runCLI("hal", "new", "jitter", "--dir", dir, "--proflab", root)
	if code != ExitOK || !strings.Contains(out, "go build -o proflab-hal-jitter") {
		t.Fatalf("hal new: code %d\n%s\n%s", code, out, errOut)
	}
	for _, f := range []string{"go.mod", "go.sum", "main.go", "main_test.go", "README.md", "lab.toml", "scenario.lua"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Error(err)
		}
	}
	mod, _ := os.ReadFile(filepath.Join(dir, "go.mod"))
	if !strings.Contains(string(mod), "replace github.com/proflab/proflab => "+filepath.ToSlash(root)) {
		t.Errorf("go.mod:\n%s", mod)
	}
	gocmd := func(args ...string) {
		t.Helper()
		c := exec.Command("go", args...)
		c.Dir = dir
		c.Env = append(os.Environ(), "GOFLAGS=-mod=readonly", "GOWORK=off")
		if b, err := c.CombinedOutput(); err != nil {
			t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, b)
		}
	}
	gocmd("build", "-o", "proflab-hal-jitter", ".")
	gocmd("vet", ".")
	gocmd("test", ".") // the conformance suite, in-process

	plugin := filepath.Join(dir, "proflab-hal-jitter")
	if code, out, errOut := runCLI("hal", "check", plugin); code != ExitOK || !strings.Contains(out, " passed, 0 failed") {
		t.Fatalf("hal check: code %d\n%s\n%s", code, out, errOut)
	}
	// the scaffold's own configuration and scenario run as written
	t.Chdir(dir)
	code, out, errOut = runCLI("run", "scenario.lua", "--config", "lab.toml")
	if code != ExitOK || !strings.Contains(out, "ProfileTotalIssues interrupts:") {
		t.Fatalf("run scenario.lua: code %d\n%s\n%s", code, out, errOut)
	}
	// a second scaffold into the same folder is refused
	if code, _, errOut := runCLI("hal", "new", "jitter", "--dir", dir, "--proflab", root); code != ExitUsage || !strings.Contains(errOut, "not empty") {
		t.Errorf("second hal new: code %d %s", code, errOut)
	}
	if code, _, errOut := runCLI("hal", "new", "Bad_Name", "--dir", t.TempDir()+"/x", "--proflab", root); code != ExitUsage || !strings.Contains(errOut, "lower-case") {
		t.Errorf("bad name: code %d %s", code, errOut)
	}
}
