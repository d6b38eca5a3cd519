package scenario

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/proflab/proflab/core/luavm"
	"github.com/proflab/proflab/core/runerr"
)

// profileScenario makes a profile and runs a workload through it: its
// outputs are every kind of file.
const profileScenario = `
local lab = require "proflab"
local m = lab.machine{ cpus = 2 }
local p = m:process{ name = "app", privileges = {"SeSystemProfilePrivilege"} }
local buf, hp = p:alloc(0x1000), p:alloc(8)
p:NtCreateProfile(hp, -1, 0x10000, 0x800, 8, buf, 0x1000, lab.ProfileTime, 3)
p:NtStartProfile(p:read_u64(hp))
p:NtSetIntervalProfile(10000, lab.ProfileTime)
m:run{ duration_us = 100000, workload = { process = p, functions = { { name = "main", base = 0x10000, size = 0x800, weight = 1 } } } }
`

// runForOutputs runs profileScenario with the budgets of opt.
func runForOutputs(t *testing.T, opt Options) Result {
	t.Helper()
	opt.File, opt.Source = filepath.Join(t.TempDir(), "s.lua"), []byte(profileScenario)
	r := Run(context.Background(), opt)
	if !r.Passed() {
		t.Fatalf("%+v", r.Error)
	}
	return r
}

// checkNothingWritten checks that neither dir nor a temporary folder of
// it is there.
func checkNothingWritten(t *testing.T, dir string) {
	t.Helper()
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("%s exists (err %v): nothing should have been written", dir, err)
	}
	if m, _ := filepath.Glob(filepath.Join(filepath.Dir(dir), ".*")); len(m) > 0 {
		t.Errorf("left behind: %v", m)
	}
}

// A run carries its budgets to WriteResult: the defaults, none, or what
// was given.
func TestRunCarriesItsBudgets(t *testing.T) {
	for _, c := range []struct {
		timeout time.Duration
		memory  int64
		want    budget
	}{
		{0, 0, budget{DefaultTimeout, luavm.DefaultMemoryLimit}},
		{-1, -1, budget{}},
		{2 * time.Second, 512 << 20, budget{2 * time.Second, 512 << 20}},
	} {
		r := Run(context.Background(), Options{File: "x.lua", Source: []byte("local x = 1"), Timeout: c.timeout, Memory: c.memory})
		if r.budget != c.want {
			t.Errorf("timeout %v, memory %d: budget %+v, want %+v", c.timeout, c.memory, r.budget, c.want)
		}
	}
}

// Writing the outputs keeps the run's time budget (issue 29 case 3: 12 s
// of writing under --timeout 2s): past it the writing stops, nothing is
// written, and the error says what to do.
func TestWritingTheOutputsKeepsTheTimeBudget(t *testing.T) {
	r := runForOutputs(t, Options{})
	r.budget.timeout = time.Nanosecond
	dir := filepath.Join(t.TempDir(), "out")
	err := WriteResult(dir, r)
	var be *OutputBudgetError
	if !errors.As(err, &be) || be.Kind != runerr.KindTimeout ||
		!strings.HasPrefix(be.Message, "writing the run's outputs took longer than its time budget of 1ns (--timeout, counted again from the end of the run), and nothing was written: raise --timeout (0: none), or write less: output.pprof = false") {
		t.Fatalf("error %v", err)
	}
	checkNothingWritten(t, dir)
	// with the run's budget, the same outputs are written
	r.budget.timeout = DefaultTimeout
	if err := WriteResult(dir, r); err != nil {
		t.Fatal(err)
	}
}

// Writing the outputs keeps the run's memory budget, under the watchdog
// of the runs in progress (issue 29 case 3: 4.3 GB of writing under
// --memory 512MiB): when it ends the writing, nothing is written.
func TestWritingTheOutputsKeepsTheMemoryBudget(t *testing.T) {
	r := runForOutputs(t, Options{Memory: 512 << 20})
	var watched int64
	watchMemory = func(limit int64, cancel context.CancelCauseFunc) func() {
		watched = limit
		cancel(&luavm.MemoryBudgetError{Limit: limit, Heap: 600 << 20, Runs: 1})
		return func() {}
	}
	defer func() { watchMemory = luavm.WatchMemory }()
	dir := filepath.Join(t.TempDir(), "out")
	err := WriteResult(dir, r)
	var be *OutputBudgetError
	if !errors.As(err, &be) || be.Kind != runerr.KindMemory || watched != 512<<20 ||
		!strings.HasPrefix(be.Message, "writing the run's outputs exceeded its memory budget of 512 MiB (--memory; the heap reached 600 MiB), and nothing was written: raise --memory (0: none), or write less") {
		t.Fatalf("error %v (watched %d)", err, watched)
	}
	checkNothingWritten(t, dir)
}
