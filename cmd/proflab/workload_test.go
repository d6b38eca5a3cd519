package main

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/proflab/proflab/core/workload"
	"github.com/proflab/proflab/core/workload/importer/importtest"
)

func TestWorkloadImport(t *testing.T) {
	dir := t.TempDir()
	folded := writeScenario(t, dir, "app.folded", "app;main;work 30\napp;main;work;inner 10\n")
	legacy := filepath.Join(dir, "legacy.prof")
	if err := os.WriteFile(legacy, importtest.LegacyExample(), 0o644); err != nil {
		t.Fatal(err)
	}
	big := filepath.Join(dir, "big.pb.gz")
	if err := os.WriteFile(big, importtest.Synthetic(2000, 20000, 5), 0o644); err != nil {
		t.Fatal(err)
	}
	perf := filepath.Join("..", "..", "core", "workload", "importer", "testdata", "perf_events.txt")

	// To standard output, with the summary on standard error.
	code, out, errOut := runCLI("workload", "import", folded, "--process", "app")
	if code != ExitOK || !strings.HasPrefix(out, "# Imported by `proflab workload import` from "+folded) ||
		!strings.Contains(errOut, "folded, 4 functions in 1 images, 2 stacks, 1 processes, 1 threads, 40 samples") {
		t.Fatalf("folded: code %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	if s, err := workload.Parse("out", []byte(out)); err != nil || s.Processes[0].Name != "app" {
		t.Errorf("the output does not parse as the workload of process app: %v", err)
	}
	// To -o, for each kind of input.
	for _, c := range []struct {
		file string
		args []string
		want string
	}{
		{legacy, []string{"--arch", "x86"}, "pprof, "},
		{big, nil, "pprof, "},
		{perf, []string{"--format", "perf"}, "perf, 2 functions"},
		{folded, []string{"--drop-idle"}, "folded, "},
	} {
		o := filepath.Join(dir, filepath.Base(c.file)+".toml")
		code, out, errOut := runCLI(append([]string{"workload", "import", c.file, "-o", o}, c.args...)...)
		if code != ExitOK || out != "" || !strings.Contains(errOut, c.want) {
			t.Errorf("%s: code %d, stdout %q, stderr %q; want 0, nothing, a summary with %q", c.file, code, out, errOut, c.want)
			continue
		}
		if _, err := workload.Load(o); err != nil {
			t.Errorf("%s: %v", o, err)
		}
		// and the workload runs, on a machine of its architecture, with
		// no process made for it
		arch := "x64"
		if len(c.args) == 2 && c.args[0] == "--arch" {
			arch = c.args[1]
		}
		sc := writeScenario(t, dir, "run-"+filepath.Base(c.file)+".lua", `local lab = require "proflab"
local m = lab.machine{ arch = "`+arch+`", cpus = 2 }
m:kernel{}:NtSetIntervalProfile(1221, lab.ProfileTime)
local res = m:run{ duration_us = 200000, workload = "`+filepath.Base(o)+`" }
local busy = 0
for name, f in pairs(res.truth) do
  if name ~= "KiIdleLoop" then busy = busy + f.instructions end
end
lab.check(busy > 0, "the imported workload ran")
`)
		if code, out, errOut := runCLI("run", sc); code != ExitOK {
			t.Errorf("running %s: code %d\n%s%s", o, code, out, errOut)
		}
	}
	// Bad input: exit 2 with a message naming the file (and line).
	bad := writeScenario(t, dir, "bad.folded", "# no good line\na;b -3\n")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{bad}, "bad.folded:2: count \"-3\" is negative"},
		{[]string{filepath.Join(dir, "missing.pb.gz")}, "missing.pb.gz does not exist"},
		{[]string{dir}, "not a regular file"},
		{[]string{folded, "--format", "json"}, "--format"},
		{[]string{folded, "--arch", "arm"}, "--arch"},
		{[]string{folded, "--format", "pprof"}, "app.folded: not a profile pprof reads"},
		{[]string{}, "one profile file"},
	} {
		code, _, errOut := runCLI(append([]string{"workload", "import"}, c.args...)...)
		if code != ExitUsage || !strings.Contains(errOut, c.want) {
			t.Errorf("%v: code %d, stderr %q; want 2 and %q", c.args, code, errOut, c.want)
		}
	}
}

// -o to a device writes to it and leaves it a device (a rename over
// /dev/null once made it a regular file); -o --force through a symbolic
// link replaces the link's target and keeps the link.
func TestWorkloadImportOutputIsWrittenNotReplaced(t *testing.T) {
	dir := t.TempDir()
	folded := writeScenario(t, dir, "app.folded", "app;main;work 30\n")
	fifo := filepath.Join(dir, "pipe")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("no fifo here: %v", err)
	}
	got := make(chan string, 1)
	go func() {
		b, _ := os.ReadFile(fifo)
		got <- string(b)
	}()
	if code, _, errOut := runCLI("workload", "import", folded, "-o", fifo); code != ExitOK {
		t.Fatalf("-o a fifo: code %d: %s", code, errOut)
	}
	select {
	case text := <-got:
		if !strings.HasPrefix(text, "# Imported by") {
			t.Errorf("the fifo's reader got %q", text)
		}
	case <-time.After(10 * time.Second):
		t.Error("nothing was written to the fifo")
	}
	if fi, err := os.Lstat(fifo); err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
		t.Errorf("the fifo is now %v (err %v)", fi.Mode(), err)
	}
	target := filepath.Join(dir, "real.toml")
	link := filepath.Join(dir, "link.toml")
	if err := os.WriteFile(target, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	// the target exists: --force replaces it
	if code, _, errOut := runCLI("workload", "import", folded, "-o", link, "--force"); code != ExitOK {
		t.Fatalf("-o a link: code %d: %s", code, errOut)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link was replaced (mode %v, err %v)", fi.Mode(), err)
	}
	if b, err := os.ReadFile(target); err != nil || !strings.HasPrefix(string(b), "# Imported by") {
		t.Errorf("the link's target holds %q (err %v)", b, err)
	}
}

// FILE - reads the profile from standard input: perf script | proflab
// workload import -.
func TestWorkloadImportFromStandardInput(t *testing.T) {
	var out, errOut strings.Builder
	cmd := newRootCmd(&out, &errOut)
	cmd.SetIn(strings.NewReader("app;main;work 30\napp;main 10\n"))
	cmd.SetArgs([]string{"workload", "import", "-"})
	if err := cmd.Execute(); err != nil {
		t.Fatalf("import -: %v (%s)", err, errOut.String())
	}
	if !strings.HasPrefix(out.String(), "# Imported by `proflab workload import` from stdin") || !strings.Contains(errOut.String(), "stdin: folded, ") {
		t.Errorf("stdout %q\nstderr %q", out.String(), errOut.String())
	}
	if _, err := workload.Parse("out", []byte(out.String())); err != nil {
		t.Errorf("the output does not parse: %v", err)
	}
}
