// Package importtest makes real-looking profiles for the importers' tests
// and for the tests of what runs imported workloads: a Go CPU profile of
// busy functions (runtime/pprof), a synthetic gzipped profile.proto of any
// size, a legacy gperftools CPU profile, perf script text, folded stacks
// and V8 .cpuprofile JSON. Everything is deterministic in its seed except
// GoCPUProfile, which measures a real program.
//
// It also holds what the importers' tests share, in every package that
// has formats (importer/native, jsonprof, calltree) and in the entry
// point's: [CheckInvariants], which every imported workload must pass,
// and the sums and comparisons of weights, images and notes the tests
// make (check.go).
package importtest

import (
	"bytes"
	"fmt"
	"math/rand/v2"

	"github.com/google/pprof/profile"
)

// SyntheticMain, SyntheticLib and SyntheticKernel are the mappings of
// [Synthetic]'s profiles: a main binary, a library and the Linux kernel.
const (
	SyntheticMain   = 0x400000
	SyntheticLib    = 0x7F0000000000
	SyntheticKernel = 0xFFFFFFFF81000000
)

// Synthetic is a gzipped profile.proto of funcs functions (named
// "pkg.fN", a tenth of them in libc.so.6 as "lib_N" and a twentieth in
// the kernel as "k_N", and funcs/16 helpers "pkg.inlN" that only run
// inlined) sampled in stacks distinct call paths, with Go's
// sample types (samples/count, cpu/nanoseconds) at a 10 ms period. Each
// function owns 256 bytes, and its locations lie in its first 192; one
// main-binary leaf location in eight holds an inlined helper (two lines),
// drawn uniformly. Weights
// follow a heavy-tailed law so that a few functions dominate, as in real
// programs. The same arguments give the same bytes.
func Synthetic(funcs, stacks int, seed uint64) []byte {
	p := SyntheticProfile(funcs, stacks, seed)
	var b bytes.Buffer
	if err := p.Write(&b); err != nil {
		panic(err) // writing a valid profile to memory does not fail
	}
	return b.Bytes()
}

// SyntheticProfile is [Synthetic]'s profile, not yet encoded.
func SyntheticProfile(funcs, stacks int, seed uint64) *profile.Profile {
	rng := rand.New(rand.NewPCG(seed, 0x5eed))
	const period = 10_000_000
	p := &profile.Profile{
		SampleType:    []*profile.ValueType{{Type: "samples", Unit: "count"}, {Type: "cpu", Unit: "nanoseconds"}},
		PeriodType:    &profile.ValueType{Type: "cpu", Unit: "nanoseconds"},
		Period:        period,
		DurationNanos: 10e9,
	}
	maps := []*profile.Mapping{
		{ID: 1, Start: SyntheticMain, Limit: SyntheticMain + 0x1000000, File: "/usr/local/bin/synth", HasFunctions: true},
		{ID: 2, Start: SyntheticLib, Limit: SyntheticLib + 0x1000000, File: "/usr/lib/x86_64-linux-gnu/libc.so.6", HasFunctions: true},
		{ID: 3, Start: SyntheticKernel, Limit: SyntheticKernel + 0x1000000, File: "[kernel.kallsyms]", HasFunctions: true},
	}
	p.Mapping = maps
	type fnInfo struct {
		f    *profile.Function
		m    *profile.Mapping
		base uint64
	}
	fs := make([]fnInfo, funcs)
	counts := [3]uint64{}
	for i := range fs {
		mi, name := 0, fmt.Sprintf("pkg.f%d", i)
		switch {
		case i%20 == 19:
			mi, name = 2, fmt.Sprintf("k_%d", i)
		case i%10 == 9:
			mi, name = 1, fmt.Sprintf("lib_%d", i)
		}
		f := &profile.Function{ID: uint64(i + 1), Name: name, SystemName: name, Filename: "synth.go"}
		p.Function = append(p.Function, f)
		fs[i] = fnInfo{f: f, m: maps[mi], base: maps[mi].Start + 0x1000 + counts[mi]*0x100}
		counts[mi]++
	}
	// Helpers that only ever run inlined into main-binary functions: a
	// small function inlined in many callers has addresses all over the
	// binary.
	var inl []*profile.Function
	for i := range max(1, funcs/16) {
		f := &profile.Function{ID: uint64(len(p.Function) + 1), Name: fmt.Sprintf("pkg.inl%d", i), SystemName: fmt.Sprintf("pkg.inl%d", i), Filename: "synth.go"}
		p.Function = append(p.Function, f)
		inl = append(inl, f)
	}
	locs := map[uint64]*profile.Location{}
	loc := func(fi, callee int, off uint64) *profile.Location {
		addr := fs[fi].base + off
		if l := locs[addr]; l != nil {
			return l
		}
		l := &profile.Location{ID: uint64(len(p.Location) + 1), Mapping: fs[fi].m, Address: addr, Line: []profile.Line{{Function: fs[fi].f, Line: int64(off)}}}
		if callee >= 0 {
			l.Line = []profile.Line{{Function: inl[callee], Line: 1}, {Function: fs[fi].f, Line: int64(off)}}
		}
		locs[addr] = l
		p.Location = append(p.Location, l)
		return l
	}
	for range stacks {
		depth := 1 + rng.IntN(24)
		var sl []*profile.Location
		for d := range depth {
			fi := heavy(rng, funcs)
			off := uint64(rng.IntN(48)) * 4
			callee := -1
			if d == 0 && rng.IntN(8) == 0 {
				// An inlined helper, at an address of its own (odd, apart
				// from the function's).
				if fs[fi].m == maps[0] {
					callee = rng.IntN(len(inl))
					off |= 1
				}
			}
			sl = append(sl, loc(fi, callee, off))
		}
		n := int64(1 + rng.IntN(20))
		p.Sample = append(p.Sample, &profile.Sample{Location: sl, Value: []int64{n, n * period}})
	}
	return p
}

// heavy draws a function index in [0, n), small indexes far likelier.
func heavy(rng *rand.Rand, n int) int {
	x := rng.Float64()
	return min(n-1, int(float64(n)*x*x*x))
}
