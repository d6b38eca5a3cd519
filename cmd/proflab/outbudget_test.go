package main

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/proflab/proflab/core/runerr"
	"github.com/proflab/proflab/core/scenario"
)

// run --out writes a profile of a 512 MiB buffer that counted once in a
// few MiB (issue 29 case 3: a profile of 2 GB took 4.3 GB and 12 s to
// write under --memory 512MiB --timeout 2s, and three were OOM-killed
// with the run folder lost).
func TestRunOutOfAnUntouchedBuffer(t *testing.T) {
	dir := t.TempDir()
	sc := writeScenario(t, dir, "big.lua", `local lab = require "proflab"
local P = require "profile"
local m = lab.machine{ version = "10.0.19041", cpus = 1 }
local app = m:process{ name = "app", privileges = { "SeSystemProfilePrivilege" } }
for i = 1, 2 do
  P.create_and_start(app, { base = 0x10000000, size = 0x20000000, bucket = 2 })
end
m:interrupt{ cpu = 0, ip = 0x10000010, process = app }
`)
	out := filepath.Join(dir, "out")
	var a, b runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&a)
	code, stdout, stderr := runCLI("run", sc, "--memory", "256MiB", "--timeout", "20s", "--out", out)
	runtime.ReadMemStats(&b)
	if code != ExitOK {
		t.Fatalf("code %d\n%s%s", code, stdout, stderr)
	}
	if n := b.TotalAlloc - a.TotalAlloc; n > 256<<20 {
		t.Errorf("the run and its outputs allocated %d MiB; want far less than its two 512 MiB buffers", n>>20)
	}
	csv, err := os.ReadFile(filepath.Join(out, "buckets.csv"))
	if err != nil || strings.Count(string(csv), "\n") != 3 {
		t.Errorf("buckets.csv: %q %v; want the header and a row per profile", csv, err)
	}
}

// A run whose outputs go past its budget while they are written fails
// of it: exit 1, its error naming --out and what to do, nothing written.
func TestOutputsOverBudgetFailTheRun(t *testing.T) {
	be := &scenario.OutputBudgetError{Kind: runerr.KindMemory, Message: "writing the run's outputs exceeded its memory budget of 512 MiB (--memory; …)"}
	var stderr bytes.Buffer
	cmd := &cobra.Command{}
	cmd.SetErr(&stderr)
	r := scenario.Result{Status: scenario.StatusPassed}
	if !outputsOverBudget(cmd, &r, "o1", be) || r.Error == nil || r.Status != scenario.StatusError ||
		r.Error.Message != "--out o1: "+be.Message || exitCodeFor(r) != ExitFailed || !strings.Contains(scenario.Summary(r), "FAIL") {
		t.Errorf("result %+v, exit %d", r, exitCodeFor(r))
	}
	// a run that failed already keeps its error; the budget's goes to
	// standard error
	r = scenario.Result{Status: scenario.StatusError, Error: &scenario.Error{Kind: runerr.KindLua, Message: "s.lua:3: bad"}}
	if !outputsOverBudget(cmd, &r, "o1", be) || r.Error.Message != "s.lua:3: bad" || !strings.Contains(stderr.String(), "proflab: --out o1: writing the run's outputs exceeded") {
		t.Errorf("result %+v, stderr %q", r, stderr.String())
	}
	if outputsOverBudget(cmd, &r, "o1", errors.New("disk full")) {
		t.Error("another error was taken for the budget's")
	}
}
