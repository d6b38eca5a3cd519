package lab_test

import (
	"math"
	"testing"

	"github.com/proflab/proflab/core/lab/labtest"
	"github.com/proflab/proflab/core/workload"
	"github.com/proflab/proflab/kernel/nt"
)

// inlinedWork is a workload whose loop inlines mix (an inline-only
// function) in 3 of 8 shares, runs on its own in 1, and main in 4.
func inlinedWork(l *labtest.Lab) *workload.Spec {
	return &workload.Spec{
		Images: []workload.Image{{Name: "app", Base: 0x10000, Functions: []workload.Function{
			{Name: "loop", Offset: 0, Size: 0x400, CPI: 2, CacheMissRate: 0.01},
			{Name: "main", Offset: 0x400, Size: 0x400},
			{Name: "mix", Inline: true},
		}}},
		Processes: []workload.Process{{Name: l.P.Name(), Proc: l.P, Stacks: []workload.Stack{
			{Frames: []string{"mix", "loop", "main"}, Weight: 3},
			{Frames: []string{"loop", "main"}, Weight: 1},
			{Frames: []string{"main"}, Weight: 4},
		}}},
	}
}

// An inlined leaf runs its physical function's code: its own truth is
// its stacks' (pprof's flat), its caller's code holds it (what buckets
// and a profile's truth per function see), and nothing runs at an
// address of its own.
func TestInlinedTruth(t *testing.T) {
	l := labtest.Inproc(t, 1, 3)
	h := l.Profile(t, 0x10000, 0x800, 4, nt.ProfileTime)
	l.SetInterval(t, nt.ProfileTime, 1221)
	res, err := l.Sim.Run(1_000_000, inlinedWork(l))
	if err != nil {
		t.Fatal(err)
	}
	mix, _ := res.Truth("mix")
	loop, _ := res.Truth("loop")
	mainT, _ := res.Truth("main")
	st := res.Stacks()
	if len(st) != 3 || st[0].Instructions == 0 || st[1].Instructions == 0 {
		t.Fatalf("stacks %+v", st)
	}
	if mix.Instructions != st[0].Instructions || mix.Cycles != st[0].Cycles {
		t.Errorf("mix's own truth %d instructions %d cycles, its stack's %d %d", mix.Instructions, mix.Cycles, st[0].Instructions, st[0].Cycles)
	}
	if mix.Code.Instructions != 0 || mix.Code.Cycles != 0 || mix.Code.Events["cache_misses"] != 0 {
		t.Errorf("mix's code ran %+v: it has none", mix.Code)
	}
	if loop.Instructions != st[1].Instructions || loop.Code.Instructions != st[0].Instructions+st[1].Instructions ||
		loop.Code.Cycles != st[0].Cycles+st[1].Cycles {
		t.Errorf("loop: own %d, code %d; stacks %d and %d", loop.Instructions, loop.Code.Instructions, st[0].Instructions, st[1].Instructions)
	}
	// mix ran loop's code: loop's CPI and rates
	for _, c := range []struct {
		name      string
		got, want float64
	}{
		{"mix cycles", mix.Events["cycles"], 2 * float64(mix.Instructions)},
		{"mix cache misses", mix.Events["cache_misses"], 0.01 * float64(mix.Instructions)},
		{"loop cache misses", loop.Events["cache_misses"], 0.01 * float64(loop.Instructions)},
		{"loop's code's cache misses", loop.Code.Events["cache_misses"], 0.01 * float64(loop.Code.Instructions)},
	} {
		if math.Abs(c.got-c.want) > 1e-6*c.want+1e-9 {
			t.Errorf("%s %v, want %v", c.name, c.got, c.want)
		}
	}
	if mainT.Code.Instructions != mainT.Instructions {
		t.Errorf("main: own %d, code %d: nothing is inlined into it", mainT.Instructions, mainT.Code.Instructions)
	}
	var own, code uint64
	for _, f := range res.Functions {
		own += f.Instructions
		code += f.Code.Instructions
	}
	if own != code {
		t.Errorf("%d instructions own, %d in code: inlining moves execution, it makes none", own, code)
	}
	// the profile's truth per function is the code's: loop and main
	var names []string
	for _, f := range res.Profiles[0].Functions {
		names = append(names, f.Name)
		if f.Name == "loop" && math.Abs(f.Events-float64(loop.Code.Cycles)) > 1e-6*f.Events {
			t.Errorf("loop's truth in the profile %v, its code's cycles %d", f.Events, loop.Code.Cycles)
		}
	}
	if len(names) != 2 || names[0] != "loop" || names[1] != "main" {
		t.Errorf("the profile's truth charges %v, want loop and main", names)
	}
	var n uint32
	for _, c := range l.Counters(t, h) {
		n += c
	}
	if n == 0 {
		t.Error("no sample in loop and main")
	}
}
