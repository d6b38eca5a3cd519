package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Issue 29 case 1: deeply nested input ended the process with Go's fatal
// stack overflow (exit 2 and a 117 KB goroutine dump), even read inside
// pcall; in a sweep it killed the sweep, and --resume died at the same
// run. Every parser is bounded now: a configuration, a sweep file or a
// --set/--config-set value is bad input (exit 2) naming the file and the
// limit; a workload file fails its run (exit 1 under run, the run's
// failure in a sweep, which goes on).
func TestDeepNestingIsRefused(t *testing.T) {
	dir := t.TempDir()
	deepArrays := "a = " + strings.Repeat("[", 2e6) + "\n"
	writeScenario(t, dir, "deep.toml", deepArrays)
	writeScenario(t, dir, "cfg.toml", "[hal.apic.settings]\nx = "+strings.Repeat("[", 2e6)+"\n")
	ok := writeScenario(t, dir, "ok.lua", "print('ran')")
	for _, tc := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"--config", []string{"run", ok, "--config", filepath.Join(dir, "cfg.toml")}, ExitUsage,
			"cfg.toml:2: tables, arrays and inline tables nest more than 64 levels deep here"},
		{"--config-set", []string{"run", ok, "--config-set", "machine.cpus=" + strings.Repeat("[", 1e5)}, ExitUsage,
			"nest more than 64 levels deep"},
		{"--set", []string{"run", ok, "--set", "x=" + strings.Repeat("[", 1e5)}, ExitUsage,
			"the value nests more than 63 lists and tables deep"},
		{"a sweep file", []string{"sweep", filepath.Join(dir, "deep.toml"), "--dry-run"}, ExitUsage,
			"deep.toml:1: tables, arrays and inline tables nest more than 64 levels deep here"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errOut := runCLI(tc.args...)
			if code != tc.code || !strings.Contains(out+errOut, tc.want) {
				t.Errorf("exit %d, want %d; output lacks %q:\n%.2000s\n%.2000s", code, tc.code, tc.want, out, errOut)
			}
		})
	}

	// a workload file, read inside pcall: the scenario's error
	s := writeScenario(t, dir, "w.lua", `local lab = require "proflab"
local m = lab.machine{ hal = {} }
local ok, err = pcall(m.run, m, { duration_us = 1000, workload = "deep.toml" })
print(ok, err)
lab.check(ok, "the workload ran")`)
	code, out, errOut := runCLI("run", s)
	if code != ExitFailed || !strings.Contains(out, "deep.toml:1: tables, arrays and inline tables nest more than 64 levels deep here") {
		t.Errorf("workload: exit %d, want %d:\n%.2000s\n%.2000s", code, ExitFailed, out, errOut)
	}

	// in a sweep, the run fails and the sweep goes on
	writeScenario(t, dir, "lab.toml", "[hal.apic]\ntransport = \"inproc\"\n[hal.pmu]\ntransport = \"inproc\"\n[hal.pebs]\ntransport = \"inproc\"\n")
	writeScenario(t, dir, "sw.lua", `local lab = require "proflab"
local m = lab.machine{}
if lab.params.w == "deep" then m:run{ duration_us = 1000, workload = "deep.toml" } end
lab.record{ w = lab.params.w }`)
	sweep := writeScenario(t, dir, "sw.toml", "scenario = \"sw.lua\"\nconfig_file = \"lab.toml\"\n[grid]\nw = [\"deep\", \"fine\"]\n")
	out2 := filepath.Join(dir, "out")
	code, stdout, stderr := runCLI("sweep", sweep, "--out", out2)
	if !strings.Contains(stdout, "2 runs: 1 ok, 0 failed, 1 error") {
		t.Errorf("sweep: exit %d\n%.2000s\n%.2000s", code, stdout, stderr)
	}
	if b, err := os.ReadFile(filepath.Join(out2, "results.jsonl")); err != nil || !strings.Contains(string(b), "nest more than 64 levels deep") {
		t.Errorf("results.jsonl: %v\n%.2000s", err, b)
	}
}
