package scripts_test

import (
	"context"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"

	"github.com/proflab/proflab/core/scenario"
	"github.com/proflab/proflab/scripts"
)

// exampleWorkloads is examples/workloads, which the tests' scenarios may
// read workload files from (--workload-dir).
func exampleWorkloads(t *testing.T) []string {
	t.Helper()
	dir, err := filepath.Abs(filepath.Join("..", "examples", "workloads"))
	if err != nil {
		t.Fatal(err)
	}
	return []string{dir}
}

// runLua runs src as a scenario named t.lua in an empty folder (so that
// require finds the embedded library, not this folder's files), allowed to
// read examples/workloads, and returns its result.
func runLua(t *testing.T, src string) scenario.Result {
	t.Helper()
	file := filepath.Join(t.TempDir(), "t.lua")
	return scenario.Run(context.Background(), scenario.Options{File: file, Source: []byte(src), Seed: 1, WorkloadDirs: exampleWorkloads(t)})
}

// mustPass runs src, in which every lab.check must pass.
func mustPass(t *testing.T, src string) {
	t.Helper()
	r := runLua(t, "local lab = require 'proflab'\nlocal stats = require 'stats'\nlocal A = require 'assert'\n"+src)
	if r.Error != nil {
		t.Fatal(r.Error.Detail())
	}
	for _, c := range r.Failed() {
		t.Errorf("%s: %s", c.Where, c.Message)
	}
	if len(r.Checks) == 0 {
		t.Error("no checks ran")
	}
}

func TestLibraryIsEmbedded(t *testing.T) {
	for _, name := range []string{"stats.lua", "assert.lua"} {
		if _, err := fs.Stat(scripts.FS, name); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}

func TestStats(t *testing.T) {
	mustPass(t, `
local function near(a, b) return math.abs(a - b) < 1e-12 end
lab.check(stats.sum{1, 2, 3} == 6, "sum")
lab.check(stats.sum{} == 0, "empty sum")
lab.check(stats.mean{1, 2, 3, 4} == 2.5, "mean")
lab.check(stats.mean{} == nil, "empty mean")
lab.check(stats.mean{lab.u64(2), 4} == 3, "mean of u64")
lab.check(near(stats.variance{2, 4, 4, 4, 5, 5, 7, 9}, 32 / 7), "sample variance")
lab.check(near(stats.stddev{2, 4, 4, 4, 5, 5, 7, 9}, math.sqrt(32 / 7)), "stddev")
lab.check(stats.stddev{5} == 0, "stddev of one")
lab.check(stats.min{3, 1, 2} == 1 and stats.max{3, 1, 2} == 3, "min max")
lab.check(stats.median{3, 1, 2} == 2 and stats.median{4, 1, 3, 2} == 2.5, "median")
lab.check(stats.total{ f = 3, g = 1 } == 4, "total")
local s = stats.shares{ f = 30, g = 10 }
lab.check(s.f == 0.75 and s.g == 0.25, "shares")
local z = stats.shares{ f = 0 }
lab.check(z.f == 0, "shares of nothing")
local a = stats.shares{ 1, 3 }
lab.check(a[1] == 0.25 and a[2] == 0.75, "shares of an array")
lab.check(stats.total_variation({ a = 1, b = 1 }, { a = 2, b = 2 }) == 0, "tv equal (counts normalised)")
lab.check(stats.total_variation({ a = 1 }, { b = 1 }) == 1, "tv disjoint")
lab.check(near(stats.total_variation({ a = 0.5, b = 0.5 }, { a = 1 }), 0.5), "tv half")
local e, at = stats.max_abs_error({ a = 0.7, b = 0.3 }, { a = 0.5, b = 0.5 })
lab.check(near(e, 0.2), "max abs error")
lab.check(at == "a" or at == "b", "max abs error key")
local chi, df = stats.chi_square({ a = 50, b = 50 }, { a = 0.5, b = 0.5 })
lab.check(chi == 0 and df == 1, "chi-square equal")
chi, df = stats.chi_square({ a = 60, b = 40 }, { a = 1, b = 1 })
lab.check(near(chi, 4) and df == 1, "chi-square (10^2/50 * 2)")
chi = stats.chi_square({ a = 1, c = 1 }, { a = 1 })
lab.check(chi == math.huge, "chi-square, observed but never expected")
`)
	r := runLua(t, `local stats = require "stats" stats.mean{1, "x"}`)
	if r.Error == nil || !strings.Contains(r.Error.Message, "element [2] is a string") {
		t.Errorf("error = %+v", r.Error)
	}
}

func TestAssert(t *testing.T) {
	r := runLua(t, `local lab = require "proflab"
local A = require "assert"
A.expect_status(0, lab.STATUS_SUCCESS, "ok status")
A.expect_status(0xC0000061, lab.STATUS_SUCCESS, "start")
A.expect_success(0x40000000, "info")
A.expect_success(0xC0000005)
A.expect_win32(24, lab.ERROR_BAD_LENGTH, "w")
A.expect_win32(87, lab.ERROR_BAD_LENGTH, "w2")
A.expect_eq(lab.u64("0xFFFFF80000001000"), lab.u64("0xFFFFF80000001000"), "u64 eq")
A.expect_eq(lab.u64(3), 3, "mixed eq")
A.expect_eq("a", "b", "strings")
A.expect_ne(1, 2, "ne")
A.expect_near(0.26, 0.25, 0.02, "near")
A.expect_near(0.5, 0.25, 0.02, "far")
A.expect_error(function() lab.u64("zz") end, "not an integer", "raises")
A.expect_error(function() end, nil, "does not raise")
`)
	if r.Error != nil {
		t.Fatal(r.Error.Detail())
	}
	want := []struct {
		passed bool
		line   string
		msg    string
	}{
		{true, "t.lua:3", "ok status: STATUS_SUCCESS"},
		{false, "t.lua:4", "start: got STATUS_PRIVILEGE_NOT_HELD (0xC0000061), want STATUS_SUCCESS (0x00000000)"},
		{true, "t.lua:5", "info: 0x40000000"},
		{false, "t.lua:6", "STATUS_ACCESS_VIOLATION is not a success status"},
		{true, "t.lua:7", "w: ERROR_BAD_LENGTH"},
		{false, "t.lua:8", "w2: got ERROR_INVALID_PARAMETER (87), want ERROR_BAD_LENGTH (24)"},
		{true, "t.lua:9", "u64 eq: 0xFFFFF80000001000"},
		{true, "t.lua:10", "mixed eq: 0x3"},
		{false, "t.lua:11", `strings: got "a", want "b"`},
		{true, "t.lua:12", "ne: 1"},
		{true, "t.lua:13", "near: got 0.26, want 0.25 ± 0.02"},
		{false, "t.lua:14", "far: got 0.5, want 0.25 ± 0.02"},
		{true, "t.lua:15", "raises: raised: "},
		{false, "t.lua:16", "does not raise: expected an error, but the call succeeded"},
	}
	if len(r.Checks) != len(want) {
		t.Fatalf("checks = %+v", r.Checks)
	}
	for i, w := range want {
		c := r.Checks[i]
		if c.Passed != w.passed || !strings.HasSuffix(c.Where, "/"+w.line) || !strings.HasPrefix(c.Message, w.msg) {
			t.Errorf("check %d = %+v, want %+v", i, c, w)
		}
	}
}
