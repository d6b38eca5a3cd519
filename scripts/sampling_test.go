package scripts_test

import (
	"strings"
	"testing"
)

// sampling.accuracy charges buckets to functions (the one holding the
// bucket's start, else the first starting inside it), compares the shares
// with m:run's truth in the range only, and judges them with
// lab.sampling_test: two functions' p is both binomial tails, checked by
// hand; samples where the truth has none are beyond sampling error; a
// profile without samples has the verdict "no samples" and no distance;
// buckets that hold no function count as "(no function)", where the
// truth has nothing; event_of names a source's truth. u64 bases above
// 2^53 work.
func TestSamplingAccuracy(t *testing.T) {
	src := `local lab = require 'proflab'
local S = require 'sampling'
-- three functions in the range 0x1000 + 4 buckets of 16 bytes, one outside
local res = { truth = {
  a = { base = 0x1000, size = 0x10, cycles = 600, instructions = 600 },
  b = { base = 0x1014, size = 0x2C, cycles = 400, instructions = 100, events = { cache_misses = 7 } },
  out = { base = 0x2000, size = 0x10, cycles = 1e9, instructions = 1e9 },
} }
-- P(X <= lo) + P(X >= hi) of X ~ Binomial(n, p)
local function tails(n, p, lo, hi)
  local q, s = 1 - p, 0
  local f = q ^ n
  for k = 0, n do
    if k <= lo or k >= hi then s = s + f end
    f = f * (n - k) / (k + 1) * p / q
  end
  return s
end
-- bucket 2 (0x1010) holds b's start at 0x1014: b's; buckets 3, 4 are b's
local a = S.accuracy({ 50, 20, 20, 10 }, 0x1000, 4, res)
lab.check(a.samples == 100 and a.functions == 2, "samples and functions: " .. a.samples .. " " .. a.functions)
lab.check(a.rows[1].name == "a" and a.rows[1].sampled == 0.5 and a.rows[1].truth == 0.6, "a's row")
lab.check(math.abs(a.tv - 0.1) < 1e-12, "tv " .. a.tv)
-- a's 50 of 100 samples against its 60%: both tails beyond 10 away
local p = tails(100, 0.6, 50, 70)
lab.check(math.abs(a.p - p) < 1e-9 and a.method == "exact", "p " .. a.p .. " want " .. p)
lab.check(a.within and not a.beyond and a.verdict == "within sampling error", "within: " .. a.verdict)
lab.check(S.p_text(a) == "p = 0.05" and a.p_text == "p = 0.05" and a.draws == 0 and a.exceedances == 0, "p_text " .. S.p_text(a))
local i = S.accuracy({ 50, 20, 20, 10 }, 0x1000, 4, res, "instructions")
lab.check(math.abs(i.tv - (6 / 7 - 0.5)) < 1e-12 and i.beyond and i.verdict == "beyond sampling error" and i.p < 1e-9, "by instructions: tv " .. i.tv)
local m = S.accuracy({ 50, 20, 20, 10 }, 0x1000, 4, res, "cache_misses")
lab.check(m.rows[1].name == "b" and m.rows[1].truth == 1 and m.p == 0 and m.beyond, "by an event: a's samples where the truth has none")
local none = S.accuracy({ 0, 0, 0, 0 }, 0x1000, 4, res)
lab.check(none.samples == 0 and not none.within and not none.beyond and none.verdict == "no samples"
  and none.tv == nil and none.p == nil and S.p_text(none) == "-" and #none.rows == 2, "no samples")
-- a fifth bucket (0x1040), after b's end: samples in no function
local x = S.accuracy({ 50, 20, 20, 10, 5 }, 0x1000, 4, res)
lab.check(x.samples == 105 and x.rows[3].name == "(no function)" and x.rows[3].samples == 5 and x.p == 0 and x.beyond, "samples in no function")
local k = S.accuracy({ 3 }, lab.u64("0xFFFFF80000001000"), 4,
  { truth = { kf = { base = lab.u64("0xFFFFF80000001000"), size = 0x10, cycles = 5, instructions = 5 } } })
lab.check(k.samples == 3 and k.tv == 0 and k.p == 1, "kernel addresses")
lab.check(S.event_of(lab.ProfileTime) == "cycles" and S.event_of(lab.ProfileTotalIssues) == "instructions"
  and S.event_of(lab.ProfileCacheMisses) == "cache_misses", "event_of")
`
	r := runLua(t, src)
	if r.Error != nil {
		t.Fatal(r.Error.Detail())
	}
	if len(r.Checks) != 12 || len(r.Failed()) > 0 {
		t.Errorf("checks %+v", r.Checks)
	}
}

// A truth name m:run does not give is an error naming the valid ones
// (it used to read as a truth of 0 everywhere: TV 0), in accuracy and
// truth alike; and it points at the scenario's line.
func TestSamplingUnknownTruth(t *testing.T) {
	for _, call := range []string{
		`S.accuracy({ 1 }, 0x1000, 4, { truth = {} }, "cylces")`,
		`S.truth({ truth = {} }, { { name = "f" } }, "cylces")`,
	} {
		r := runLua(t, "local S = require 'sampling'\n"+call)
		if r.Error == nil || !strings.Contains(r.Error.Message, `"cylces" is not a truth m:run gives: give one of "instructions", "cycles", "branches", "branch_mispredicts", "cache_misses", "cache_references"`) ||
			!strings.Contains(r.Error.Message, "t.lua:2") {
			t.Errorf("%s: error %+v", call, r.Error)
		}
	}
}

// The names sampling.truths lists are exactly the truths m:run gives
// per function (instructions and cycles, and the events).
func TestSamplingTruthsAreRunTruths(t *testing.T) {
	mustPass(t, `
local S = require 'sampling'
local m = lab.machine{}
local p = m:process{}
local res = m:run{ duration_us = 1000, workload = { process = p, functions = { { name = "f", base = 0x10000, size = 0x100, weight = 1 } } } }
local names = { instructions = true, cycles = true }
for k in pairs(res.truth.f.events) do names[k] = true end
local listed = {}
for _, k in ipairs(S.truths) do listed[k] = true; lab.check(names[k], k .. " is a truth of m:run") end
for k in pairs(names) do lab.check(listed[k], k .. " is listed") end
`)
}

// lab.sampling_test: the calibrated test of counts against a truth.
func TestLabSamplingTest(t *testing.T) {
	mustPass(t, `
local t = lab.sampling_test({ 3, 0 }, { 1, 1 })
-- 3 of 3 heads: TV ½, p = P(0) + P(3) = 1/4
lab.check(t.tv == 0.5 and math.abs(t.p - 0.25) < 1e-12 and t.method == "exact" and not t.beyond and math.abs(t.expected - 0.25) < 1e-12 and t.draws == 0, "a fair coin")
local u = lab.sampling_test({ lab.u64(5), 1 }, { lab.u64(1), 0 })
lab.check(u.p == 0 and u.beyond, "samples where the truth has none")
`)
}

// A Monte Carlo p is printed with its resolution, by lab.sampling_test's
// p_text and by sampling.p_text, as compare prints it: none of 2,999
// draws reaching the distance is "p < 0.0004", never the floor 1/3,000
// as "p = 0.0003"; an estimate comes with its 95% interval; a table
// without p_text says its resolution is not known.
func TestSamplingPTextMonteCarlo(t *testing.T) {
	mustPass(t, `
local S = require 'sampling'
local ten = { 1, 1, 1, 1, 1, 1, 1, 1, 1, 1 }
-- 40 samples moved from the last two functions to the first two: beyond, no draw reaches it
local far = lab.sampling_test({ 140, 140, 100, 100, 100, 100, 100, 100, 60, 60 }, ten)
lab.check(far.method == "monte carlo" and far.draws == 2999 and far.exceedances == 0 and far.beyond, "far: " .. far.method .. " " .. far.draws)
lab.check(far.p_text == "p < 0.0004" and S.p_text(far) == "p < 0.0004", "far's p: " .. far.p_text .. ", " .. S.p_text(far))
lab.check(not S.p_text(far):find("0.0003", 1, true), "the floor as a value: " .. S.p_text(far))
-- 20 moved: within, ten draws reached it
local near = lab.sampling_test({ 120, 120, 100, 100, 100, 100, 100, 100, 80, 80 }, ten)
lab.check(near.method == "monte carlo" and near.exceedances == 10 and not near.beyond, "near: " .. near.method)
lab.check(S.p_text(near) == near.p_text and near.p_text:find("^p ≈ 0%.%d%d %[0%.%d%d, 0%.%d%d%]$"), "near's p: " .. near.p_text)
lab.check(S.p_text({ p = far.p, method = "monte carlo" }) == "p ≈ 0.00033 (Monte Carlo, resolution not known)", "without p_text: " .. S.p_text({ p = far.p, method = "monte carlo" }))
`)
	for _, c := range []struct{ call, want string }{
		{"lab.sampling_test({ 1, 2 }, { 1 })", "counts has 2 elements and truth 1"},
		{"lab.sampling_test({ 0, 0 }, { 1, 1 })", "no samples: a profile that counted nothing has no verdict"},
		{"lab.sampling_test({ 1, -2 }, { 1, 1 })", "argument #1 (counts): element [2]"},
		{"lab.sampling_test({ 1, 2 }, { 1, 'x' })", "argument #2 (truth): element [2]: expected a number, got string"},
		{"lab.sampling_test({ 1, 2 }, { 1, -1 })", "truth [2] is -1"},
	} {
		r := runLua(t, "local lab = require 'proflab'\n"+c.call)
		if r.Error == nil || !strings.Contains(r.Error.Message, c.want) || !strings.Contains(r.Error.Message, "lab.sampling_test") {
			t.Errorf("%s: error %+v, want %q", c.call, r.Error, c.want)
		}
	}
}

// sampling.control_areas sends SYSTEM_PROCESSOR_PROFILE_CONTROL_AREA in
// the machine's layout (x86: 8 bytes, Allocate at +4; x64: 0x10 bytes,
// Allocate at +8), so PEBS samples arrive on both; the x64 structure sent
// to an x86 kernel is STATUS_INFO_LENGTH_MISMATCH. A failure is an error
// at the scenario's line that says why.
func TestControlAreasInTheMachinesLayout(t *testing.T) {
	mustPass(t, `
local P, S = require 'profile', require 'sampling'
for _, arch in ipairs { "x86", "x64" } do
  local m = lab.machine{ version = "10.0.19041", arch = arch, cpus = 2, hal = { "apic", "pebs" } }
  S.control_areas(m)
  local ptr = arch == "x86" and 4 or 8
  for cpu = 0, 1 do
    local k = m:kernel{ cpu = cpu }
    local buf = k:alloc(2 * ptr)
    k:write_u8(buf + ptr, 1)
    A.expect_status(k:NtSetSystemInformation(lab.SystemProcessorProfileControlArea, buf, 2 * ptr),
      lab.STATUS_ADDRESS_ALREADY_EXISTS, arch .. ": processor " .. cpu .. " has its area")
  end
  local p = m:process{ privileges = { "SeSystemProfilePrivilege" } }
  local pr = P.create_and_start(p, { base = 0x20000, size = 0x80, bucket = 6, source = lab.ProfileTotalIssues })
  p:NtSetIntervalProfile(10007, lab.ProfileTotalIssues)
  m:run{ duration_us = 50000, workload = { process = p, functions = { { name = "hot", base = 0x20000, size = 0x40, weight = 1 } } } }
  lab.check(P.total(pr) > 0, arch .. ": PEBS samples " .. P.total(pr))
end
`)
	r := runLua(t, "local S = require 'sampling'\nlocal lab = require 'proflab'\nS.control_areas(lab.machine{ version = '6.1' })\n")
	const want = "t.lua:3: sampling.control_areas: NtSetSystemInformation(SystemProcessorProfileControlArea) on processor 0 returned STATUS_INVALID_INFO_CLASS; the class arrives in Windows 8 (6.2), this machine runs 6.1"
	if r.Error == nil || !strings.Contains(r.Error.Message, want) {
		t.Errorf("on 6.1: error %v, want %q", r.Error, want)
	}
}
