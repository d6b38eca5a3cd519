package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
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
		!strings.Contains(stdout, "verdict: the lab agrees with the source within both samples' errors") ||
		!strings.Contains(stdout, "  function") || !strings.Contains(stdout, "compute") {
		t.Errorf("compare the source: code %d\n%s\n%s", code, stdout, errOut)
	}
	if text, _ := os.ReadFile(filepath.Join(out, "comparison.txt")); string(text) != stdout {
		t.Errorf("comparison.txt is not what compare prints:\n%s", text)
	}
	code, stdout, _ = runCLI("compare", other, filepath.Join(out, "accuracy.csv"), "--rows", "0")
	if code != ExitFailed || !strings.Contains(stdout, "verdict: the lab and the source differ beyond both samples' errors") || !strings.Contains(stdout, "differs") {
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
		{[]string{"compare", app, out, "--rows", "-1"}, "--rows -1"},
		{[]string{"compare", app, out, "--format", "nope"}, "--format"},
	} {
		code, _, errOut := runCLI(c.args...)
		if code != ExitUsage || !strings.Contains(errOut, c.want) {
			t.Errorf("%v: code %d, stderr %q; want 2 and %q", c.args, code, errOut, c.want)
		}
	}
}
