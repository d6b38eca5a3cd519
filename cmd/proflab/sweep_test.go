package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/proflab/proflab/halplugins/haltest"
)

// sweepFixture writes a scenario and a sweep file over it (in-process
// HALs) into a temporary folder and returns the sweep file.
func sweepFixture(t *testing.T, body string) string {
	t.Helper()
	dir := t.TempDir()
	writeScenario(t, dir, "s.lua", `local lab = require "proflab"
lab.check(lab.params.mode ~= "fail", "asked to fail")
lab.record{ x = lab.params.x, r = math.random() }`)
	writeScenario(t, dir, "lab.toml", "[hal.apic]\ntransport = \"inproc\"\n[hal.pmu]\ntransport = \"inproc\"\n[hal.pebs]\ntransport = \"inproc\"\n")
	return writeScenario(t, dir, "s.toml", "scenario = \"s.lua\"\nconfig_file = \"lab.toml\"\n"+body)
}

// What the reports leave out to stay bounded is said on the terminal,
// by sweep and by report: 20 metrics that vary get 12 plots, and a note
// names the 8 others.
func TestSweepNotesWhatTheReportLeftOut(t *testing.T) {
	dir := t.TempDir()
	writeScenario(t, dir, "s.lua", `local lab = require "proflab"
local t = {}
for i = 1, 20 do t[("m%02d"):format(i)] = lab.params.x * i end
lab.record(t)`)
	file := writeScenario(t, dir, "s.toml", "scenario = \"s.lua\"\n[grid]\nx = [1, 2]\n")
	out := filepath.Join(dir, "out")
	code, _, stderr := runCLI("sweep", file, "--out", out)
	want := "note: 8 metrics are not plotted (without [[plot]] a sweep gets at most 12 plots): m13, m14, m15, m16, m17 and 3 more; choose plots with [[plot]]."
	if code != ExitOK || !strings.Contains(stderr, want) {
		t.Errorf("sweep: code %d, stderr lacks %q:\n%s", code, want, stderr)
	}
	if code, _, stderr := runCLI("report", out); code != ExitOK || !strings.Contains(stderr, want) {
		t.Errorf("report: code %d, stderr lacks %q:\n%s", code, want, stderr)
	}
}

func TestSweepCommand(t *testing.T) {
	file := sweepFixture(t, "repeats = 2\n[grid]\nx = [1, 2, 3]\n")
	out := filepath.Join(filepath.Dir(file), "out")

	code, stdout, _ := runCLI("sweep", file, "--dry-run", "--shard", "1/2")
	if code != ExitOK || !strings.Contains(stdout, "3 runs (shard 1/2 of a sweep of 6)") || strings.Contains(stdout, "repeat 0") || !strings.Contains(stdout, "\nrepeat 1") && !strings.Contains(stdout, "\trepeat 1\tseed") || !strings.Contains(stdout, "x=3") {
		t.Errorf("--dry-run: code %d\n%s", code, stdout)
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("--dry-run wrote an output folder")
	}
	code, stdout, stderr := runCLI("sweep", file, "-j", "2", "--out", out)
	if code != ExitOK || !strings.Contains(stdout, "6 runs: 6 ok, 0 failed, 0 error") {
		t.Fatalf("sweep: code %d\n%s\n%s", code, stdout, stderr)
	}
	if !strings.Contains(stderr, "sweep: 6/6 runs, 0 failed") {
		t.Errorf("no plain progress line on a non-terminal:\n%s", stderr)
	}
	for _, f := range []string{"results.jsonl", "results.csv", "summary.md", "report.html", "sweep.json"} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
	if code, _, stderr := runCLI("sweep", file, "--out", out); code != ExitUsage || !strings.Contains(stderr, "--resume") {
		t.Errorf("rerun into a full folder: code %d, %s", code, stderr)
	}
	if code, stdout, _ := runCLI("sweep", file, "--out", out, "--resume"); code != ExitOK || !strings.Contains(stdout, "(6 from before --resume)") {
		t.Errorf("--resume: code %d, %s", code, stdout)
	}
	if code, stdout, _ := runCLI("report", out); code != ExitOK || !strings.Contains(stdout, "report in") {
		t.Errorf("report: code %d, %s", code, stdout)
	}
	// --format: the figures in other formats, kept for the next report;
	// an unknown one is a usage error
	if code, _, stderr := runCLI("report", out, "--format", "pdf,png"); code != ExitOK {
		t.Errorf("report --format pdf,png: code %d, %s", code, stderr)
	}
	pdfs, _ := filepath.Glob(filepath.Join(out, "plots", "*.pdf"))
	svgs, _ := filepath.Glob(filepath.Join(out, "plots", "*.svg"))
	if len(pdfs) == 0 || len(svgs) != 0 {
		t.Errorf("after --format pdf,png: %d PDFs and %d SVGs, want PDFs only", len(pdfs), len(svgs))
	}
	if m, _ := os.ReadFile(filepath.Join(out, "sweep.json")); !strings.Contains(string(m), `"formats": [`) {
		t.Error("sweep.json does not record the formats")
	}
	if code, _, stderr := runCLI("report", out, "--format", "eps"); code != ExitUsage || !strings.Contains(stderr, `"eps" is not a figure format`) {
		t.Errorf("report --format eps: code %d, %s", code, stderr)
	}

	// --run-outputs: a folder per run
	ro := filepath.Join(t.TempDir(), "ro")
	if code, _, _ := runCLI("sweep", file, "--out", ro, "--run-outputs"); code != ExitOK {
		t.Errorf("--run-outputs: code %d", code)
	}
	if runs, _ := filepath.Glob(filepath.Join(ro, "runs", "*", "result.json")); len(runs) != 6 {
		t.Errorf("--run-outputs wrote %d result.json files, want 6", len(runs))
	}

	// --set pins a parameter and a failing run gives exit status 1
	code, stdout, _ = runCLI("sweep", file, "--out", filepath.Join(t.TempDir(), "f"), "--set", "mode=fail", "--set", "x=9")
	if code != ExitFailed || !strings.Contains(stdout, "2 runs: 0 ok, 2 failed") {
		t.Errorf("failing runs: code %d, %s", code, stdout)
	}

	// shards by the environment, then merge
	shards := []string{}
	for _, k := range []string{"0", "1"} {
		t.Setenv("SLURM_ARRAY_TASK_ID", k)
		d := filepath.Join(t.TempDir(), "shard")
		if code, _, stderr := runCLI("sweep", file, "--shard", "auto/2", "--out", d); code != ExitOK || !strings.Contains(stderr, "shard "+k+"/2 (index from SLURM_ARRAY_TASK_ID)") {
			t.Errorf("--shard auto/2 with task %s: code %d, %s", k, code, stderr)
		}
		shards = append(shards, d)
	}
	if code, _, stderr := runCLI("sweep", "merge", filepath.Join(t.TempDir(), "m"), shards[0]); code != ExitUsage || !strings.Contains(stderr, "shard 1/2 of") {
		t.Errorf("merge with a missing shard: code %d, %s", code, stderr)
	}
	merged := filepath.Join(t.TempDir(), "m")
	if code, stdout, _ := runCLI(append([]string{"sweep", "merge", merged}, shards...)...); code != ExitOK || !strings.Contains(stdout, "merged 2 shards") {
		t.Errorf("merge: code %d, %s", code, stdout)
	}
	a, _ := os.ReadFile(filepath.Join(out, "results.csv"))
	b, _ := os.ReadFile(filepath.Join(merged, "results.csv"))
	if string(a) != string(b) || len(a) == 0 {
		t.Error("the merged shards' results.csv differs from the unsharded sweep's")
	}
}

// Bad sweep files and flags exit 2 with the file, line and key.
func TestSweepCommandErrors(t *testing.T) {
	bad := sweepFixture(t, "[grid]\nx = []\n")
	good := sweepFixture(t, "")
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"sweep", bad}, `s.toml:4: key "grid.x": an empty list`},
		{[]string{"sweep", good, "--shard", "2/2"}, "--shard 2/2"},
		{[]string{"sweep", good, "--shard", "auto/2"}, "neither SLURM_ARRAY_TASK_ID nor JOB_COMPLETION_INDEX"},
		{[]string{"sweep", good, "--set", "=1"}, "expected key=value"},
		{[]string{"sweep", "nope.toml"}, "nope.toml"},
		{[]string{"report", t.TempDir()}, "sweep.json"},
	} {
		t.Setenv("SLURM_ARRAY_TASK_ID", "")
		t.Setenv("JOB_COMPLETION_INDEX", "")
		code, _, stderr := runCLI(tt.args...)
		if code != ExitUsage || !strings.Contains(stderr, tt.want) {
			t.Errorf("%v: code %d, stderr %q, want 2 and %q", tt.args, code, stderr, tt.want)
		}
	}
}

// SIGTERM stops a sweep of the real executable cleanly: exit status 130,
// finished runs kept, no plugin process left, and --resume completes it.
func TestSweepSIGTERM(t *testing.T) {
	if testing.Short() {
		t.Skip("builds proflab and a plugin")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "bin")
	os.MkdirAll(bin, 0o755)
	proflab, err := haltest.Build(bin, "github.com/proflab/proflab/cmd/proflab")
	if err != nil {
		t.Fatal(err)
	}
	plugin, err := haltest.Build(bin, "github.com/proflab/proflab/halplugins/apic/cmd/proflab-hal-apic")
	if err != nil {
		t.Fatal(err)
	}
	writeScenario(t, dir, "s.lua", `local lab = require "proflab"
local m = lab.machine{ cpus = 1, hal = { "apic" } }
local p = m:process{ privileges = { "SeSystemProfilePrivilege" } }
m:run{ duration_us = 100000, workload = { process = p, functions = { { name = "f", base = 0x30000, size = 0x100, weight = 1 } } } }
lab.record{ r = math.random() }`)
	file := writeScenario(t, dir, "s.toml", "scenario = \"s.lua\"\nrepeats = 400\n")
	out := filepath.Join(dir, "out")
	cmd := exec.Command(proflab, "sweep", file, "-j", "2", "--out", out)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(60 * time.Second)
	for {
		b, _ := os.ReadFile(filepath.Join(out, "results.jsonl"))
		if strings.Count(string(b), "\n") >= 3 {
			break
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatal("no 3 runs in 60 s")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if len(pluginsFrom(plugin)) == 0 {
		t.Fatal("no plugin process runs: the test would prove nothing")
	}
	cmd.Process.Signal(syscall.SIGTERM)
	err = cmd.Wait()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != ExitInterrupted {
		t.Fatalf("after SIGTERM: %v, want exit status %d", err, ExitInterrupted)
	}
	if kids := pluginsFrom(plugin); len(kids) > 0 {
		t.Errorf("plugin processes left behind: %v", kids)
	}
	cmd = exec.Command(proflab, "sweep", file, "-j", "2", "--out", out, "--resume")
	b, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(b), "400 runs: 400 ok") {
		t.Fatalf("--resume: %v\n%s", err, b)
	}
}

// pluginsFrom lists the live processes running the executable at path
// (Linux): a test's own plugin build, so other processes' plugins do not
// count.
func pluginsFrom(path string) []string {
	entries, _ := os.ReadDir("/proc")
	var out []string
	for _, e := range entries {
		exe, err := os.Readlink(filepath.Join("/proc", e.Name(), "exe"))
		if err != nil || exe != path {
			continue
		}
		stat, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		s := string(stat)
		if f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:]); len(f) > 0 && f[0] != "Z" {
			out = append(out, e.Name())
		}
	}
	return out
}

// A sweep refused before any run — its folder locked by another writer,
// or finished without --resume — says why (exit 2) and prints no
// "N runs: 0 ok…" line, which would read as a sweep whose runs all went
// wrong (issue 29.22).
func TestRefusedSweepCountsNoRuns(t *testing.T) {
	file := sweepFixture(t, "repeats = 3\n")
	out := filepath.Join(filepath.Dir(file), "out")
	if code, stdout, stderr := runCLI("sweep", file, "--out", out); code != ExitOK || !strings.Contains(stdout, "3 runs: 3 ok") {
		t.Fatalf("sweep: code %d\n%s\n%s", code, stdout, stderr)
	}
	code, stdout, stderr := runCLI("sweep", file, "--out", out)
	if code != ExitUsage || !strings.Contains(stderr, "--resume") || strings.Contains(stdout, "runs:") {
		t.Errorf("finished folder without --resume: code %d, stdout %q, stderr %q; want 2, the error, and no count of runs", code, stdout, stderr)
	}
	lock, err := os.OpenFile(filepath.Join(out, ".lock"), os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Close()
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr = runCLI("sweep", file, "--out", out, "--resume")
	if code != ExitUsage || !strings.Contains(stderr, "another proflab is writing") || strings.Contains(stdout, "runs:") {
		t.Errorf("locked folder: code %d, stdout %q, stderr %q; want 2, the error, and no count of runs", code, stdout, stderr)
	}
}
