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
	root := scaffoldRoot(t)
	dir := scaffoldAndRun(t, root, "jitter", nil, "ProfileTotalIssues interrupts:")
	// a second scaffold into the same folder is refused
	if code, _, errOut := runCLI("hal", "new", "jitter", "--dir", dir, "--proflab", root); code != ExitUsage || !strings.Contains(errOut, "not empty") {
		t.Errorf("second hal new: code %d %s", code, errOut)
	}
	if code, _, errOut := runCLI("hal", "new", "Bad_Name", "--dir", t.TempDir()+"/x", "--proflab", root); code != ExitUsage || !strings.Contains(errOut, "lower-case") {
		t.Errorf("bad name: code %d %s", code, errOut)
	}
}

// hal new --timer scaffolds a timer HAL (ProfileTime in jittered one-shot
// periods) that builds, passes hal check and owns ProfileTime in its
// scenario, which takes about 1000 interrupts a second at 1 ms: the
// jitter keeps the mean period.
func TestHalNewTimer(t *testing.T) {
	root := scaffoldRoot(t)
	dir := scaffoldAndRun(t, root, "jittery", []string{"--timer"}, "ProfileTime interrupts in 1 s at 1 ms:")
	main, _ := os.ReadFile(filepath.Join(dir, "main.go"))
	if !strings.Contains(string(main), "hal.TimerOneShot") || strings.Contains(string(main), "CounterBase") {
		t.Errorf("main.go is not the timer's:\n%s", main)
	}
	// a jitter beyond the setting's range is refused by name
	cfg, _ := os.ReadFile(filepath.Join(dir, "lab.toml"))
	bad := strings.Replace(string(cfg), "jitter = 10", "jitter = 80", 1)
	if err := os.WriteFile(filepath.Join(dir, "bad.toml"), []byte(bad), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, errOut := runCLI("run", "scenario.lua", "--config", "bad.toml"); code != ExitUsage || !strings.Contains(errOut, "setting jitter = 80, want 0…50") {
		t.Errorf("jitter = 80: code %d, %s", code, errOut)
	}
}

// scaffoldRoot is the proflab checkout a scaffold builds against; the
// tests that build one skip under -short.
func scaffoldRoot(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds a plugin")
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// scaffoldAndRun is `proflab hal new NAME ARGS` into a temporary folder,
// built and vetted with no edits, its tests and `hal check` passed, and
// its scenario run with its configuration (the current folder is left
// there); the scenario's output must hold want. It returns the folder.
func scaffoldAndRun(t *testing.T, root, name string, args []string, want string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), name)
	code, out, errOut := runCLI(append([]string{"hal", "new", name, "--dir", dir, "--proflab", root}, args...)...)
	if code != ExitOK || !strings.Contains(out, "go build -o proflab-hal-"+name) {
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
	gocmd("build", "-o", "proflab-hal-"+name, ".")
	gocmd("vet", ".")
	gocmd("test", ".") // the conformance suite, in-process

	plugin := filepath.Join(dir, "proflab-hal-"+name)
	if code, out, errOut := runCLI("hal", "check", plugin); code != ExitOK || !strings.Contains(out, " passed, 0 failed") {
		t.Fatalf("hal check: code %d\n%s\n%s", code, out, errOut)
	}
	// the scaffold's own configuration and scenario run as written
	t.Chdir(dir)
	code, out, errOut = runCLI("run", "scenario.lua", "--config", "lab.toml")
	if code != ExitOK || !strings.Contains(out, want) {
		t.Fatalf("run scenario.lua: code %d\n%s\n%s", code, out, errOut)
	}
	return dir
}
