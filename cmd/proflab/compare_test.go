package main

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// proflab compare SOURCE RUN_DIR: a run that profiled an imported
// profile, compared with that profile (agree: exit 0), with one whose
// shares differ (exit 1), and the bad inputs (exit 2, saying what to do).
func TestCompareCommand(t *testing.T) {
	dir := t.TempDir()
	app := writeScenario(t, dir, "app.folded", "app;main;compute 300\napp;main;compute;hash 200\napp;main;parse 250\napp;main;write 250\n")
	other := writeScenario(t, dir, "other.folded", "app;main;compute 300\napp;main;compute;hash 200\napp;main;parse 250\napp;main;write 2500\n")
	unrelated := writeScenario(t, dir, "unrelated.folded", "x;y;z 10\n")
	scen := writeScenario(t, dir, "s.lua", `local lab, P = require "proflab", require "profile"
local m = lab.machine{ cpus = 1 }
local img = m:images{ workload = "app.folded" }.images[1]
local p = m:process{ privileges = { "SeSystemProfilePrivilege" } }
P.create_and_start(p, { process = false, base = img.base, size = img.size, bucket = 2 })
p:NtSetIntervalProfile(1221, lab.ProfileTime)
m:run{ duration_us = 500000, workload = "app.folded" }
`)
	out := filepath.Join(dir, "out")
	if code, _, errOut := runCLI("run", scen, "--out", out); code != ExitOK {
		t.Fatalf("run: %d %s", code, errOut)
	}
	if _, err := os.Stat(filepath.Join(out, "comparison.txt")); err != nil {
		t.Errorf("the run folder has no comparison with its source: %v", err)
	}
	code, stdout, errOut := runCLI("compare", app, out)
	if code != ExitOK || !strings.Contains(stdout, "app.folded (folded, count) against profile-m1-") ||
		!strings.Contains(stdout, "test: goodness of fit: the run replayed this source") ||
		!strings.Contains(stdout, "verdict: the lab agrees with the source within the lab's sampling error") ||
		!strings.Contains(stdout, "power: with 4,") ||
		!strings.Contains(stdout, "  function") || !strings.Contains(stdout, "compute") {
		t.Errorf("compare the source: code %d\n%s\n%s", code, stdout, errOut)
	}
	if text, _ := os.ReadFile(filepath.Join(out, "comparison.txt")); string(text) != stdout {
		t.Errorf("comparison.txt is not what compare prints:\n%s", text)
	}
	code, stdout, _ = runCLI("compare", other, filepath.Join(out, "accuracy.csv"), "--rows", "0")
	if code != ExitFailed || !strings.Contains(stdout, "test: two-sample: the run did not replay this source") ||
		!strings.Contains(stdout, "verdict: the lab and the source differ beyond both samples' errors") || !strings.Contains(stdout, "differs") {
		t.Errorf("compare another profile: code %d\n%s", code, stdout)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"compare", app}, "compare takes a source profile and a run folder, got 1 arguments"},
		{[]string{"compare", filepath.Join(dir, "missing.folded"), out}, "does not exist: check the path"},
		{[]string{"compare", app, dir}, "has no accuracy.csv: give the folder of a run made with --out"},
		{[]string{"compare", app, out, "--profile", "nothing"}, `--profile "nothing": no profile of`},
		{[]string{"compare", unrelated, out}, "shares a function with"},
		// a filter that matches only profiles of something else names itself
		{[]string{"compare", unrelated, out, "--profile", "m1"}, `--profile "m1": the 1 profiles of ` + out + ` with it in their name (profile-m1-`},
		{[]string{"compare", app, out, "--rows", "-1"}, "--rows -1"},
		{[]string{"compare", app, out, "--format", "nope"}, "--format"},
	} {
		code, _, errOut := runCLI(c.args...)
		if code != ExitUsage || !strings.Contains(errOut, c.want) {
			t.Errorf("%v: code %d, stderr %q; want 2 and %q", c.args, code, errOut, c.want)
		}
	}
}

// The run folder's files as compare reads them (issue 36 items 4, 8, 12):
// an accuracy.csv that is a FIFO is refused at once, not waited on; one
// with a header alone says the folder has no profile, not that a flag
// nobody gave matched nothing; counts past what a profile holds are bad
// input naming their line.
func TestCompareRunFolderFiles(t *testing.T) {
	dir := t.TempDir()
	app := writeScenario(t, dir, "app.folded", "app;main;compute 300\napp;main;parse 250\n")
	head := "profile,machine,owner_pid,handle,source,function,samples,sampled_share,truth_share,ci95_low,ci95_high,difference,p_value,p_holm,beyond_sampling_error,profile_outcome,profile_total_variation,profile_p_value\n"
	folder := func(name, accuracy string) string {
		d := filepath.Join(dir, name)
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
		if accuracy != "" {
			if err := os.WriteFile(filepath.Join(d, "accuracy.csv"), []byte(accuracy), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return d
	}
	fifo := folder("fifo", "")
	if err := syscall.Mkfifo(filepath.Join(fifo, "accuracy.csv"), 0o644); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	row := func(fn, n string) string {
		return "p.pb.gz,1,12,h4,ProfileTime," + fn + "," + n + ",,0.5,,,,,,,no truth,,\n"
	}
	for _, c := range []struct {
		name string
		run  string
		want string
	}{
		{"a FIFO", fifo, "accuracy file " + filepath.Join(fifo, "accuracy.csv") + ": not a regular file: it is a FIFO (named pipe)"},
		{"a header alone", folder("empty", head), filepath.Join(dir, "empty", "accuracy.csv") + " has no profile (a header alone)"},
		{"counts past a profile", folder("overflow", head+row("compute", "4611686018427387904")+row("parse", "4611686018427387904")),
			filepath.Join(dir, "overflow", "accuracy.csv") + ":2: samples 4611686018427387904: p.pb.gz's samples add up to more than 2^53"},
		{"a line without end", folder("long", head+strings.Repeat("x", 2<<20)), filepath.Join(dir, "long", "accuracy.csv") + ": line 2: line too long"},
	} {
		done := make(chan struct{})
		var code int
		var errOut string
		go func() {
			defer close(done)
			code, _, errOut = runCLI("compare", app, c.run)
		}()
		select {
		case <-done:
		case <-time.After(20 * time.Second):
			t.Fatalf("%s: compare still reading after 20 s", c.name)
		}
		if code != ExitUsage || !strings.Contains(errOut, c.want) || strings.Contains(errOut, "--profile") {
			t.Errorf("%s: code %d, stderr %q; want 2 and %q", c.name, code, errOut, c.want)
		}
	}
}

// compare --help names its flags' values, not the words of their usage
// that pflag would take for the name (issue 35: "--format workload import
// --format").
func TestCompareHelpNamesValues(t *testing.T) {
	code, stdout, _ := runCLI("compare", "--help")
	for _, want := range []string{"--format FORMAT ", "--process PROCESS ", "--profile TEXT ", "--drop-idle  "} {
		if code != ExitOK || !strings.Contains(stdout, want) {
			t.Errorf("compare --help: code %d, no %q in\n%s", code, want, stdout)
		}
	}
	if strings.Contains(stdout, "--format workload") || strings.Contains(stdout, "--drop-idle workload") {
		t.Errorf("compare --help takes usage words for value names:\n%s", stdout)
	}
}
