package output_test

import (
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/pprof/profile"

	"github.com/proflab/proflab/core/lab/labtest"
	"github.com/proflab/proflab/core/output"
	"github.com/proflab/proflab/core/workload"
	"github.com/proflab/proflab/kernel"
	"github.com/proflab/proflab/kernel/nt"
)

// inlineWorkload runs loop's code in three stacks: with mix inlined
// (an inline-only function, 6 shares), with scale inlined (2), and loop
// itself (1); main runs 1 share of its own, and scale 1 as a function.
func inlineWorkload(p *kernel.Process) *workload.Spec {
	return &workload.Spec{
		Images: []workload.Image{{Name: "app.exe", Base: 0x10000, Functions: []workload.Function{
			{Name: "main", Offset: 0x000, Size: 0x400},
			{Name: "loop", Offset: 0x400, Size: 0x400},
			{Name: "scale", Offset: 0x800, Size: 0x400},
			{Name: "mix", Inline: true},
		}}},
		Processes: []workload.Process{{Name: "app", Proc: p, Stacks: []workload.Stack{
			{Frames: []string{"mix", "loop", "main"}, Weight: 6},
			{Frames: []string{"scale", "loop", "main"}, Inlined: []int{1}, Weight: 2},
			{Frames: []string{"loop", "main"}, Weight: 1},
			{Frames: []string{"scale", "main"}, Weight: 1},
			{Frames: []string{"main"}, Weight: 1},
		}}},
	}
}

// flat is pprof's flat profile of p (sample type 0): each sample to the
// first line of its first location, the innermost function, as `go tool
// pprof -top` charges it.
func flat(p *profile.Profile) (map[string]float64, float64) {
	out := map[string]float64{}
	var n float64
	for _, s := range p.Sample {
		out[s.Location[0].Line[0].Function.Name] += float64(s.Value[0])
		n += float64(s.Value[0])
	}
	return out, n
}

// A bucket profile of inlined code: its samples are at the physical
// function's addresses, and their location holds the inlined frames as
// lines before it, so pprof's flat names the inlined functions in their
// stacks' shares; no location is at an address of an inline function.
func TestPprofKeepsInlinedFrames(t *testing.T) {
	path := profileOf(t, nt.ProfileTime, 1221, inlineWorkload, 5)
	p := readProfile(t, path)
	fl, n := flat(p)
	if n < 500 {
		t.Fatalf("%v samples", n)
	}
	for _, c := range []struct {
		name string
		want float64
	}{{"mix", 6.0 / 11}, {"scale", 3.0 / 11}, {"loop", 1.0 / 11}, {"main", 1.0 / 11}} {
		got := fl[c.name] / n
		if sd := math.Sqrt(c.want * (1 - c.want) / n); math.Abs(got-c.want) > 5*sd {
			t.Errorf("%s: flat %.4f, want %.4f ± %.4f", c.name, got, c.want, 5*sd)
		}
	}
	for _, loc := range p.Location {
		fns := make([]string, len(loc.Line))
		for i, ln := range loc.Line {
			fns[i] = ln.Function.Name
		}
		phys := fns[len(fns)-1]
		switch strings.Join(fns, ";") {
		case "mix;loop", "scale;loop", "loop", "main", "scale":
		default:
			t.Errorf("location 0x%X holds %v", loc.Address, fns)
		}
		lo := map[string]uint64{"main": 0x10000, "loop": 0x10400, "scale": 0x10800}[phys]
		if loc.Address < lo || loc.Address >= lo+0x400 {
			t.Errorf("location %v at 0x%X, outside %s [0x%X, +0x400)", fns, loc.Address, phys, lo)
		}
	}
	if m := p.Mapping[0]; m.Start != 0x10000 {
		t.Errorf("mapping %s starts at 0x%X: an inline function has no address to widen it", m.File, m.Start)
	}
	top := pprofTool(t, "-top", "-nodecount=10", path)
	for _, want := range []string{"mix (inline)", "scale (partial-inline)", " loop\n", " main\n"} {
		if !strings.Contains(top, want) {
			t.Errorf("go tool pprof -top does not say %q:\n%s", want, top)
		}
	}
}

// A stack of small share among many buckets of its function gets its
// share of the samples: they are split over the function's samples in
// the whole profile, not bucket by bucket (where its part of each
// bucket rounds to 0).
func TestPprofSplitDoesNotStarveASmallStack(t *testing.T) {
	l := labtest.Inproc(t, 1, 7)
	reg := &output.Registry{}
	reg.AddMachine(l.M, l.Sim)
	l.Profile(t, 0x10000, 0x800, 2, nt.ProfileTime)
	l.SetInterval(t, nt.ProfileTime, 1221)
	w := &workload.Spec{
		Images: []workload.Image{{Name: "app.exe", Base: 0x10000, Functions: []workload.Function{
			{Name: "main", Offset: 0x000, Size: 0x400},
			{Name: "work", Offset: 0x400, Size: 0x400},
			{Name: "rare", Offset: 0x800, Size: 0x40},
		}}},
		Processes: []workload.Process{{Name: "app", Proc: l.P, Stacks: []workload.Stack{
			{Frames: []string{"work", "main"}, Weight: 995},
			{Frames: []string{"work", "rare", "main"}, Weight: 5},
		}}},
	}
	if _, err := l.Sim.Run(2_000_000, w); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	sum, err := output.Write(dir, reg)
	if err != nil {
		t.Fatal(err)
	}
	var p *profile.Profile
	for _, f := range sum.Files {
		if strings.HasPrefix(f, "profile-") {
			p = readProfile(t, filepath.Join(dir, f))
		}
	}
	var rare, n float64
	for _, s := range p.Sample {
		n += float64(s.Value[0])
		if len(s.Location) == 3 {
			rare += float64(s.Value[0])
		}
	}
	// about 64 samples in each of 256 buckets: 0.3 of them rare's
	if got, sd := rare/n, math.Sqrt(0.005*0.995/n); n < 10000 || math.Abs(got-0.005) > 5*sd {
		t.Errorf("%v of %v samples in work <- rare <- main: %.4f, want 0.005 ± %.4f", rare, n, got, 5*sd)
	}
}
