package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/proflab/proflab/core/workload/importer/importtest"
)

// Issue 36 item 6: a profile imported by a scenario (m:run) or by
// compare holds the memory budget as `workload import --memory` does:
// the 16,000-node chain (2.6 MB, which made 3.7 GB of stacks under
// --memory 256MiB) stops at the budget's count with the import's error,
// a run's memory budget failure (exit 1) through m:run and bad input
// (exit 2, as workload import's) through compare.
func TestImportsHoldTheMemoryBudget(t *testing.T) {
	dir := t.TempDir()
	deep := writeScenario(t, dir, "deep.cpuprofile", string(importtest.V8DeepChain(16000)))
	scen := writeScenario(t, dir, "s.lua", `local lab = require "proflab"
local m = lab.machine{ hal = { "apic" } }
m:run{ duration_us = 1000, workload = "deep.cpuprofile" }
`)
	const stopped = "deep.cpuprofile: the import stopped: its stacks would hold more than the import's memory budget of 64 MiB"
	code, out, errOut := runCLI("run", scen, "--memory", "64MiB")
	if code != ExitFailed || !strings.Contains(out+errOut, stopped) || !strings.Contains(out+errOut, "memory") {
		t.Errorf("run --memory 64MiB: code %d\n%s\n%s", code, out, errOut)
	}
	code, out, errOut = runCLI("compare", deep, filepath.Join(dir, "no-run"), "--memory", "64MiB")
	if code != ExitUsage || !strings.Contains(errOut, stopped) || !strings.Contains(errOut, "raise the budget (--memory)") {
		t.Errorf("compare --memory 64MiB: code %d\n%s\n%s", code, out, errOut)
	}
}
