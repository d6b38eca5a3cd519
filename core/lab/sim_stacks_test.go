package lab_test

import (
	"math"
	"reflect"
	"testing"

	"github.com/proflab/proflab/core/lab/labtest"
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
	if len(res.Stacks) != 3 {
		t.Fatalf("%d stack truths, want 3", len(res.Stacks))
	}
	if want := []string{"work", "a", "main"}; !reflect.DeepEqual(res.Stacks[0].Frames, want) {
		t.Errorf("stack 1 frames %v, want %v", res.Stacks[0].Frames, want)
	}
	work, _ := res.Truth("work")
	mainT, _ := res.Truth("main")
	a, _ := res.Truth("a")
	if got := res.Stacks[0].Instructions + res.Stacks[1].Instructions; got != work.Instructions {
		t.Errorf("work's flat truth %d, its stacks' %d", work.Instructions, got)
	}
	if res.Stacks[2].Instructions != mainT.Instructions || a.Instructions != 0 {
		t.Errorf("main %d (stack %d), a %d: only leaves execute", mainT.Instructions, res.Stacks[2].Instructions, a.Instructions)
	}
	tot := float64(work.Instructions + mainT.Instructions)
	for i, want := range []float64{3.0 / 8, 1.0 / 8, 0.5} {
		if got := float64(res.Stacks[i].Instructions) / tot; math.Abs(got-want) > 0.01 {
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
	if len(res.Stacks) != 0 || len(res.StackHits) != 0 {
		t.Errorf("stacks %v hits %v", res.Stacks, res.StackHits)
	}
}
