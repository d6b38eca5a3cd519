package main

import (
	"strings"
	"testing"
	"time"
)

// m:run with 30,000 started profiles stops at its time budget: the event
// loop looks at the run's context every 16 events (one interrupt walks
// every profile), and the end of the run lists the profiles without
// walking a list per profile (that was quadratic: seconds past the budget,
// and the run was abandoned instead of stopped).
func TestManyProfilesStopAtTheBudget(t *testing.T) {
	if testing.Short() {
		t.Skip("creates 30,000 profiles")
	}
	dir := t.TempDir()
	scen := writeScenario(t, dir, "many.lua", `local lab = require "proflab"
local P = require "profile"
local m = lab.machine{ cpus = 4, hal = { "apic" } }
local p = m:process{ privileges = { "SeSystemProfilePrivilege" } }
for i = 1, 30000 do P.create_and_start(p, { base = 0x10000, size = 0x1000, bucket = 8 }) end
m:run{ duration_us = 60000000, workload = { process = p, functions = { { name = "f", base = 0x10000, size = 0x1000, weight = 1 } } } }`)
	start := time.Now()
	code, stdout, stderr := runCLI("run", scen, "--timeout", "4s")
	took := time.Since(start)
	out := stdout + stderr
	if code != ExitFailed || !strings.Contains(out, "exceeded its time budget of 4s") || strings.Contains(out, "abandoned") {
		t.Errorf("exit %d after %s:\n%s", code, took, out)
	}
	if took > 7*time.Second {
		t.Errorf("took %s to stop at a 4 s budget", took)
	}
}
