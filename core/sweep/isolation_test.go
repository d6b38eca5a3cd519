package sweep_test

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/proflab/proflab/core/sweep"
	"github.com/proflab/proflab/core/sweep/results"
)

// poisonScenario changes everything a run could share with the next one
// on the same worker — the string library, the proflab module and its
// constants (resolved lazily from a table every state shares), the
// library modules' tables, globals, metatables — after checking that
// none of it arrived poisoned from an earlier run.
const poisonScenario = `local lab = require "proflab"
local P = require "profile"
local clean = string.rep == string.rep and ("x"):upper() == "X"
  and lab.ProfileTime == 0 and lab.ProfileTotalIssues == 2
  and type(P.total) == "function" and rawget(_G, "poisoned") == nil
  and getmetatable("").__index == string and math.pi > 3
lab.record{ clean = clean and 1 or 0 }
string.upper = function() return "poisoned" end
getmetatable("").__index = { upper = function() return "poisoned" end }
lab.ProfileTime = 99
rawset(lab, "ProfileTotalIssues", 98)
setmetatable(lab, nil)
P.total = nil
poisoned = true
math.pi = 0
`

// TestRunsAreIsolated runs a scenario that poisons every shared-looking
// thing on one worker, so each run follows a poisoning run: each must
// still start clean (the compiled scenario and the constants are shared
// between runs, the states and their tables never are).
func TestRunsAreIsolated(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	scen := filepath.Join(dir, "poison.lua")
	if err := os.WriteFile(scen, []byte(poisonScenario), 0o644); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "poison.toml")
	if err := os.WriteFile(path, []byte("scenario = "+quote(scen)+"\nconfig_file = "+quote(inprocConfig(t))+"\nrepeats = 6\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	sum := run(t, plan(t, path), out, sweep.Options{Jobs: 1})
	if sum.OK != 6 {
		t.Fatalf("%v", sum)
	}
	lines, _, err := results.Read(filepath.Join(out, results.FileName))
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range lines {
		if fmt.Sprint(l.Metrics["clean"]) != "1" {
			t.Errorf("run %d (repeat %d) started with state poisoned by an earlier run: %v", l.Index, l.Repeat, l.Metrics)
		}
	}
}

// inprocConfig is the configuration with the shipped HALs in-process.
func inprocConfig(t testing.TB) string {
	t.Helper()
	p, err := filepath.Abs(filepath.Join("testdata", "inproc.toml"))
	if err != nil {
		t.Fatal(err)
	}
	return p
}
