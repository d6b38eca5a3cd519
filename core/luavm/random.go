package luavm

import (
	"math"
	"math/rand/v2"

	lua "github.com/yuin/gopher-lua"
)

// randomStream is the second PCG word; the first is the seed.
const randomStream = 0x70726f666c616221 // "proflab!"

// installRandom replaces math.random and math.randomseed with a generator
// owned by this state and seeded from the run's seed: the same seed gives
// the same sequence, and runs side by side do not disturb each other.
func (s *State) installRandom() {
	s.pcg = rand.NewPCG(s.cfg.Seed, randomStream)
	s.rng = rand.New(s.pcg)
	m, ok := s.L.GetGlobal("math").(*lua.LTable)
	if !ok {
		return
	}
	m.RawSetString("random", s.fn("math.random", s.mathRandom))
	m.RawSetString("randomseed", s.fn("math.randomseed", s.mathRandomseed))
}

// mathRandom is Lua 5.1's math.random: no argument, a float in [0, 1);
// one argument m, an integer in [1, m]; two, an integer in [m, n].
func (s *State) mathRandom(L *lua.LState) int {
	switch L.GetTop() {
	case 0:
		L.Push(lua.LNumber(s.rng.Float64()))
	case 1:
		m := randomBound(L, 1)
		if m < 1 {
			L.RaiseError("bad argument #1 to 'random' (interval is empty)")
		}
		L.Push(lua.LNumber(1 + s.rng.Int64N(m)))
	case 2:
		lo, hi := randomBound(L, 1), randomBound(L, 2)
		if lo > hi {
			L.RaiseError("bad argument #2 to 'random' (interval is empty)")
		}
		span := uint64(hi - lo) // below 2^54: the bounds are below 2^53 in magnitude
		L.Push(lua.LNumber(lo + int64(s.rng.Uint64N(span+1))))
	default:
		L.RaiseError("wrong number of arguments to 'random' (0, 1 or 2 expected)")
	}
	return 1
}

// randomBound reads a bound of math.random, truncated toward zero as Lua
// 5.1 does, and limited to what a Lua number holds exactly.
func randomBound(L *lua.LState, n int) int64 {
	f := float64(L.CheckNumber(n))
	if math.IsNaN(f) || math.Abs(f) >= exactLimit {
		L.ArgError(n, "bound must be a number below 2^53 in magnitude")
	}
	return int64(f)
}

// mathRandomseed reseeds this state's generator (deterministically: the
// same seed gives the same sequence as a run started with that seed).
func (s *State) mathRandomseed(L *lua.LState) int {
	f := float64(L.CheckNumber(1))
	var seed uint64
	if f == math.Trunc(f) && math.Abs(f) < exactLimit {
		seed = uint64(int64(f))
	} else {
		seed = math.Float64bits(f)
	}
	s.pcg.Seed(seed, randomStream)
	return 0
}
