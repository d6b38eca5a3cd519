package lab_test

import (
	"fmt"
	"math"
	"reflect"
	"sync"
	"testing"

	"github.com/proflab/proflab/core/lab/labtest"
	"github.com/proflab/proflab/core/sampling"
	"github.com/proflab/proflab/core/sim"
	"github.com/proflab/proflab/core/workload"
	"github.com/proflab/proflab/kernel/nt"
)

// stacked is a workload where one leaf, "work", is reached through two
// stacks (3:1), and "main" runs on its own stack.
func stacked(l *labtest.Lab) *workload.Spec {
	return &workload.Spec{
		Images: []workload.Image{{Name: "app", Base: 0x10000, Functions: []workload.Function{
			{Name: "main", Offset: 0, Size: 0x400},
			{Name: "a", Offset: 0x400, Size: 0x400},
			{Name: "b", Offset: 0x800, Size: 0x400},
			{Name: "work", Offset: 0xC00, Size: 0x400},
		}}},
		Processes: []workload.Process{{Name: l.P.Name(), Proc: l.P, Stacks: []workload.Stack{
			{Frames: []string{"work", "a", "main"}, Weight: 3},
			{Frames: []string{"work", "b", "main"}, Weight: 1},
			{Frames: []string{"main"}, Weight: 4},
		}}},
	}
}

// The engine runs a stack's leaf, keeps the truth per stack (the flat
// truth of a leaf is the sum of its stacks'), and counts each stack's
// interrupts in proportion to its share.
func TestStacksTruthAndHits(t *testing.T) {
	l := labtest.Inproc(t, 1, 3)
	h := l.Profile(t, 0x10000, 0x1000, 10, nt.ProfileTime)
	l.SetInterval(t, nt.ProfileTime, 1221)
	res, err := l.Sim.Run(2_000_000, stacked(l))
	if err != nil {
		t.Fatal(err)
	}
	if res.NumStacks() != 3 {
		t.Fatalf("NumStacks %d, want 3 (made when asked for)", res.NumStacks())
	}
	// made once, on the first call, by whichever goroutine asks first
	firsts := make([][]sim.StackTruth, 4)
	var wg sync.WaitGroup
	for i := range firsts {
		wg.Go(func() { firsts[i] = res.Stacks() })
	}
	wg.Wait()
	if len(res.Stacks()) != 3 {
		t.Fatalf("%d stack truths, want 3", len(res.Stacks()))
	}
	for i, st := range firsts {
		if &st[0] != &res.Stacks()[0] {
			t.Errorf("call %d made the stacks' truth again", i)
		}
	}
	if want := []string{"work", "a", "main"}; !reflect.DeepEqual(res.Stacks()[0].Frames, want) {
		t.Errorf("stack 1 frames %v, want %v", res.Stacks()[0].Frames, want)
	}
	work, _ := res.Truth("work")
	mainT, _ := res.Truth("main")
	a, _ := res.Truth("a")
	if got := res.Stacks()[0].Instructions + res.Stacks()[1].Instructions; got != work.Instructions {
		t.Errorf("work's flat truth %d, its stacks' %d", work.Instructions, got)
	}
	if res.Stacks()[2].Instructions != mainT.Instructions || a.Instructions != 0 {
		t.Errorf("main %d (stack %d), a %d: only leaves execute", mainT.Instructions, res.Stacks()[2].Instructions, a.Instructions)
	}
	tot := float64(work.Instructions + mainT.Instructions)
	for i, want := range []float64{3.0 / 8, 1.0 / 8, 0.5} {
		if got := float64(res.Stacks()[i].Instructions) / tot; math.Abs(got-want) > 0.01 {
			t.Errorf("stack %d truth share %.4f, want %.3f", i+1, got, want)
		}
	}
	var hits [3]float64
	var n float64
	for k, v := range res.StackHits {
		if k.Source != nt.ProfileTime || k.Process != l.P.ID() {
			t.Errorf("hit key %+v", k)
		}
		hits[k.Stack] += float64(v)
		n += float64(v)
	}
	if c := l.Counters(t, h); float64(c[0]+c[1]+c[2]+c[3]) != n {
		t.Errorf("the buckets counted %v, the stacks %v hits", c[:4], n)
	}
	for i, want := range []float64{3.0 / 8, 1.0 / 8, 0.5} {
		// five standard deviations of a binomial share
		if got, sd := hits[i]/n, math.Sqrt(want*(1-want)/n); math.Abs(got-want) > 5*sd {
			t.Errorf("stack %d: %.4f of the hits, want %.3f ± %.4f", i+1, got, want, 5*sd)
		}
	}
}

// A workload without stacks keeps no stack truth and no stack hits.
func TestNoStacksNoStackTruth(t *testing.T) {
	l := labtest.Inproc(t, 1, 3)
	l.Profile(t, 0x10000, 0xC00, 10, nt.ProfileTime)
	res, err := l.Sim.Run(100_000, labtest.ThreeFuncs(l.P))
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Stacks()) != 0 || res.NumStacks() != 0 || len(res.StackHits) != 0 {
		t.Errorf("stacks %v hits %v", res.Stacks(), res.StackHits)
	}
}

// A thread of many classes (100 functions, each its own CPI: more than
// the engine's per-class draw handles) draws its segments one by one:
// the truth keeps the weights as instruction shares, and a timer's and a
// counter's samples follow the time and the instructions within
// sampling error.
func TestManyClassesDrawnOneByOne(t *testing.T) {
	l := labtest.Inproc(t, 1, 9)
	var fns []workload.Function
	for i := range 100 {
		fns = append(fns, workload.Function{Name: fmt.Sprintf("f%03d", i), Base: workload.Address(0x10000 + 0x100*i), Size: 0x100,
			Weight: float64(1 + i%7), CPI: 0.5 + 0.03*float64(i)})
	}
	hTime := l.Profile(t, 0x10000, 0x6400, 8, nt.ProfileTime)
	hIssues := l.Profile(t, 0x10000, 0x6400, 8, nt.ProfileTotalIssues)
	l.SetInterval(t, nt.ProfileTime, 1221)
	l.SetInterval(t, nt.ProfileTotalIssues, 100003)
	res, err := l.Sim.Run(3_000_000, workload.OneProcess("", l.P, fns))
	if err != nil {
		t.Fatal(err)
	}
	var wsum, isum, csum float64
	for i, f := range fns {
		ft := res.Functions[i]
		wsum += f.Weight
		isum += float64(ft.Instructions)
		csum += float64(ft.Cycles)
	}
	for _, c := range []struct {
		name string
		h    uint64
		by   func(i int) float64 // the truth the source samples
		tot  float64
	}{
		{"ProfileTime", hTime, func(i int) float64 { return float64(res.Functions[i].Cycles) }, csum},
		{"ProfileTotalIssues", hIssues, func(i int) float64 { return float64(res.Functions[i].Instructions) }, isum},
	} {
		counts := l.Counters(t, c.h)
		var n float64
		for _, v := range counts {
			n += float64(v)
		}
		var s []uint64
		var w []float64
		for i := range fns {
			s, w = append(s, uint64(counts[i])), append(w, c.by(i)/c.tot)
		}
		if test, err := sampling.GoodnessOfFit(s, w); err != nil || n < 5000 || test.Beyond() {
			t.Errorf("%s: %v samples, total variation %.4f (%.4f expected), %s %v", c.name, n, test.TV, test.Expected, sampling.FormatP(test.P, test.Method), err)
		}
	}
	for i, f := range fns {
		want := f.Weight / wsum
		if got := float64(res.Functions[i].Instructions) / isum; math.Abs(got-want) > 0.1*want+0.002 {
			t.Errorf("%s: %.4f of the instructions, weight share %.4f", f.Name, got, want)
		}
	}
}

// An imported-size workload (500 functions, 3,000 stacks on 4 threads
// and processors) settles its segments per leaf on each processor and per
// stack at the end: every function's flat truth is exactly the sum of its
// stacks', and the stacks' shares of the instructions follow their
// weights within sampling error. Both with per-function CPIs (a class per
// function, a few stacks each) and with CPI 1 (one class of every stack).
func TestManyStacksSettleExactly(t *testing.T) {
	for _, cpi1 := range []bool{false, true} {
		t.Run(fmt.Sprintf("cpi1=%v", cpi1), func(t *testing.T) {
			l := labtest.Inproc(t, 4, 11)
			w := labtest.Large(l.P, 500, 3000, 5)
			if cpi1 {
				for i := range w.Images {
					for j := range w.Images[i].Functions {
						w.Images[i].Functions[j].CPI = 0
					}
				}
			}
			res, err := l.Sim.Run(2_000_000, w)
			if err != nil {
				t.Fatal(err)
			}
			leafInstr, leafCycles := map[string]uint64{}, map[string]uint64{}
			var tot float64
			for _, st := range res.Stacks() {
				leafInstr[st.Frames[0]] += st.Instructions
				leafCycles[st.Frames[0]] += st.Cycles
				tot += float64(st.Instructions)
			}
			for _, f := range res.Functions {
				if f.Image == "" || f.Image == workload.DefaultKernelImage {
					continue
				}
				if leafInstr[f.Name] != f.Instructions || leafCycles[f.Name] != f.Cycles {
					t.Errorf("%s: flat truth %d instructions, %d cycles; its stacks' %d, %d",
						f.Name, f.Instructions, f.Cycles, leafInstr[f.Name], leafCycles[f.Name])
				}
			}
			var wsum float64
			for _, st := range w.Processes[0].Stacks {
				wsum += st.Weight
			}
			// the stacks are distinct, in the workload's order; a
			// segment is SegmentInstructions long, so the segments are
			// the sample
			segs := tot / workload.DefaultSegmentInstructions
			var got []uint64
			var want []float64
			for i, st := range w.Processes[0].Stacks {
				got, want = append(got, uint64(float64(res.Stacks()[i].Instructions)/workload.DefaultSegmentInstructions+0.5)), append(want, st.Weight/wsum)
			}
			if test, err := sampling.GoodnessOfFit(got, want); err != nil || test.Beyond() {
				t.Errorf("stack shares of %.0f segments: total variation %.4f (%.4f expected), %s %v", segs, test.TV, test.Expected, sampling.FormatP(test.P, test.Method), err)
			}
		})
	}
}
