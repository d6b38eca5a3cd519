package scripts_test

import "testing"

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
