package scripts_test

import "testing"

// sampling.accuracy compares buckets with the truth of each function's
// code (truth[name].code): an inline function has none, and its caller's
// code holds what it ran, as the buckets see it.
func TestSamplingAccuracyChargesCode(t *testing.T) {
	src := `local lab = require 'proflab'
local S = require 'sampling'
local res = { truth = {
  loop = { base = 0x1000, size = 0x20, cycles = 200, instructions = 200, code = { cycles = 800, instructions = 800 } },
  mix = { base = 0, size = 0, cycles = 600, instructions = 600, code = { cycles = 0, instructions = 0 } },
  main = { base = 0x1020, size = 0x20, cycles = 200, instructions = 200 },
} }
local a = S.accuracy({ 40, 40, 10, 10 }, 0x1000, 4, res)
lab.check(a.functions == 2 and a.rows[1].name == "loop" and a.rows[1].truth == 0.8, "loop's code truth")
lab.check(a.tv == 0, "tv " .. a.tv)
`
	r := runLua(t, src)
	if r.Error != nil {
		t.Fatal(r.Error.Detail())
	}
	if len(r.Checks) != 2 || len(r.Failed()) > 0 {
		t.Errorf("checks %+v", r.Checks)
	}
}
