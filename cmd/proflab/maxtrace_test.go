package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A trace larger than --max-trace stops after its last whole event at
// the limit, and the terminal and result.json say so: a run's outputs
// cannot take minutes and gigabytes after its budget.
func TestMaxTrace(t *testing.T) {
	dir := t.TempDir()
	scen := writeScenario(t, dir, "s.lua", `local lab = require "proflab"
local m = lab.machine{ cpus = 2, hal = { "apic" } }
local p = m:process{ privileges = { "SeSystemProfilePrivilege" } }
m:start_kernel_logger{ profile = true }
p:NtSetIntervalProfile(1221, lab.ProfileTime)
m:run{ duration_us = 200000, workload = { process = p, functions = { { name = "f", base = 0x10000, size = 0x100, weight = 1 } } } }`)
	out := filepath.Join(dir, "out")
	code, stdout, stderr := runCLI("run", scen, "--out", out, "--max-trace", "64KiB")
	if code != ExitOK {
		t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
	}
	fi, err := os.Stat(filepath.Join(out, "trace.perfetto-trace"))
	if err != nil || fi.Size() > 64<<10 || fi.Size() < 32<<10 {
		t.Fatalf("trace: %v, %d bytes (the limit 65536)", err, fi.Size())
	}
	if !strings.Contains(stderr, "warning: trace.perfetto-trace was cut at") || !strings.Contains(stderr, "--max-trace") {
		t.Errorf("no warning on the terminal:\n%s", stderr)
	}
	b, _ := os.ReadFile(filepath.Join(out, "result.json"))
	var res struct{ Warnings []string }
	if json.Unmarshal(b, &res) != nil || len(res.Warnings) != 1 {
		t.Errorf("result.json warnings: %s", b)
	}
	// without the flag, the default limit is far away
	code, _, stderr = runCLI("run", scen, "--out", filepath.Join(dir, "whole"))
	if code != ExitOK || strings.Contains(stderr, "warning") {
		t.Errorf("the default limit: exit %d\n%s", code, stderr)
	}
	if fi, _ := os.Stat(filepath.Join(dir, "whole", "trace.perfetto-trace")); fi == nil || fi.Size() <= 64<<10 {
		t.Errorf("the whole trace is not larger than the cut one")
	}
}
