package luart

import (
	"errors"
	"fmt"
	"math"

	lua "github.com/yuin/gopher-lua"

	"github.com/proflab/proflab/core/luavm"
	"github.com/proflab/proflab/core/sampling"
)

// labSamplingTest is lab.sampling_test(counts, truth): core/sampling's
// calibrated test of a profile's samples per function (counts, an array)
// against the truth they were drawn from (truth, an array in the same
// order, in any unit: it is normalised), as accuracy.csv judges profiles.
// It returns { tv, expected, p, method, draws, exceedances, p_text,
// beyond }: the total-variation distance, its mean under sampling error
// alone, its p-value ("exact", "bound" or "monte carlo", with the draws
// made and how many reached the distance), p in words with what is known
// of it (sampling.Test.PText: a Monte Carlo p with its resolution, never
// its floor as a value), and whether p < 0.001. Counts without samples
// have no verdict: an error.
func (rt *Runtime) labSamplingTest(L *lua.LState) int {
	a := luavm.NewArgs(L, "lab.sampling_test")
	a.MaxArgs(2, "counts, truth")
	ct, tt := a.Table(1, "counts"), a.Table(2, "truth")
	n := ct.Len()
	if tt.Len() != n {
		a.Fail("counts has %d elements and truth %d: give one of each per function, in the same order", n, tt.Len())
	}
	counts, truth := make([]uint64, n), make([]float64, n)
	for i := range n {
		c, err := countAt(ct, i+1)
		if err != nil {
			a.Errorf(1, "counts", "element [%d]: %v", i+1, err)
		}
		counts[i] = c
		switch v := tt.RawGetInt(i + 1).(type) {
		case lua.LNumber:
			truth[i] = float64(v)
		default:
			u, ok := luavm.AsU64(v)
			if !ok {
				a.Errorf(2, "truth", "element [%d]: expected a number, got %s", i+1, luavm.TypeName(v))
			}
			truth[i] = float64(u)
		}
	}
	t, err := sampling.GoodnessOfFit(counts, truth)
	switch {
	case errors.Is(err, sampling.ErrNoSamples):
		a.Fail("no samples: a profile that counted nothing has no verdict")
	case err != nil:
		a.Fail("%v", err)
	}
	out := L.CreateTable(0, 8)
	out.RawSetString("tv", lua.LNumber(t.TV))
	out.RawSetString("expected", lua.LNumber(t.Expected))
	out.RawSetString("p", lua.LNumber(t.P))
	out.RawSetString("method", lua.LString(t.Method))
	out.RawSetString("draws", lua.LNumber(t.Draws))
	out.RawSetString("exceedances", lua.LNumber(t.Exceedances))
	out.RawSetString("p_text", lua.LString(t.PText()))
	out.RawSetString("beyond", lua.LBool(t.Beyond()))
	L.Push(out)
	return 1
}

// countAt reads element i of t as a count: a whole number from 0, or a
// u64.
func countAt(t *lua.LTable, i int) (uint64, error) {
	switch v := t.RawGetInt(i).(type) {
	case lua.LNumber:
		f := float64(v)
		if f < 0 || f != math.Trunc(f) || f >= 1<<53 {
			return 0, fmt.Errorf("%v is not a count (a whole number from 0)", f)
		}
		return uint64(f), nil
	default:
		u, ok := luavm.AsU64(v)
		if !ok {
			return 0, fmt.Errorf("expected a number, got %s", luavm.TypeName(v))
		}
		return u, nil
	}
}
