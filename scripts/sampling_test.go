package scripts_test

import (
	"strings"
	"testing"
)

// sampling.accuracy charges buckets to functions (the one holding the
// bucket's start, else the first starting inside it), compares the shares
// with m:run's truth in the range only, and computes the distance and the
// noise bound by hand-checkable arithmetic; event_of names a source's
// truth. u64 bases above 2^53 work.
func TestSamplingAccuracy(t *testing.T) {
	src := `local lab = require 'proflab'
local S = require 'sampling'
-- three functions in the range 0x1000 + 4 buckets of 16 bytes, one outside
local res = { truth = {
  a = { base = 0x1000, size = 0x10, cycles = 600, instructions = 600 },
  b = { base = 0x1014, size = 0x2C, cycles = 400, instructions = 100, events = { cache_misses = 7 } },
  out = { base = 0x2000, size = 0x10, cycles = 1e9, instructions = 1e9 },
} }
-- bucket 2 (0x1010) holds b's start at 0x1014: b's; buckets 3, 4 are b's
local a = S.accuracy({ 50, 20, 20, 10 }, 0x1000, 4, res)
lab.check(a.samples == 100 and a.functions == 2, "samples and functions: " .. a.samples .. " " .. a.functions)
lab.check(a.rows[1].name == "a" and a.rows[1].sampled == 0.5 and a.rows[1].truth == 0.6, "a's row")
lab.check(math.abs(a.tv - 0.1) < 1e-12, "tv " .. a.tv)
local bound = math.sqrt(0.6 * 0.4 / 100) + math.sqrt(math.log(1000) / 200)
lab.check(math.abs(a.bound - bound) < 1e-12 and a.within, "bound " .. a.bound)
local i = S.accuracy({ 50, 20, 20, 10 }, 0x1000, 4, res, "instructions")
lab.check(math.abs(i.tv - (6 / 7 - 0.5)) < 1e-12 and not i.within, "by instructions: tv " .. i.tv)
local m = S.accuracy({ 50, 20, 20, 10 }, 0x1000, 4, res, "cache_misses")
lab.check(m.rows[1].name == "b" and m.rows[1].truth == 1, "by an event")
local none = S.accuracy({ 0, 0, 0, 0 }, 0x1000, 4, res)
lab.check(none.samples == 0 and not none.within, "no samples")
local k = S.accuracy({ 3 }, lab.u64("0xFFFFF80000001000"), 4,
  { truth = { kf = { base = lab.u64("0xFFFFF80000001000"), size = 0x10, cycles = 5, instructions = 5 } } })
lab.check(k.samples == 3 and k.tv == 0, "kernel addresses")
lab.check(S.event_of(lab.ProfileTime) == "cycles" and S.event_of(lab.ProfileTotalIssues) == "instructions"
  and S.event_of(lab.ProfileCacheMisses) == "cache_misses", "event_of")
`
	r := runLua(t, src)
	if r.Error != nil {
		t.Fatal(r.Error.Detail())
	}
	if len(r.Checks) != 9 || len(r.Failed()) > 0 {
		t.Errorf("checks %+v", r.Checks)
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
