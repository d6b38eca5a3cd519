package lab_test

import (
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/proflab/proflab/core/lab/labtest"
	"github.com/proflab/proflab/core/sim"
	"github.com/proflab/proflab/core/workload"
	"github.com/proflab/proflab/kernel/nt"
)

// shares sums bucket counts per function (buckets of 0x400 bytes each
// hold one function).
func shares(c []uint32) []float64 {
	var tot float64
	for _, v := range c {
		tot += float64(v)
	}
	out := make([]float64, len(c))
	for i, v := range c {
		out[i] = float64(v) / tot
	}
	return out
}

func TestTimerOneSecondAtOneMillisecond(t *testing.T) {
	l := labtest.Inproc(t, 4, 1)
	h := l.Profile(t, 0x10000, 0xC00, 10, nt.ProfileTime)
	l.SetInterval(t, nt.ProfileTime, 10000)
	res, err := l.Sim.Run(1_000_000, labtest.ThreeFuncs(l.P))
	if err != nil {
		t.Fatal(err)
	}
	if n := res.InterruptsByCPU[0]["ProfileTime"]; n < 990 || n > 1010 {
		t.Errorf("processor 0 (running the workload): %d ProfileTime interrupts, want 1000 ± 10", n)
	}
	if got := l.M.InterruptCount(0); got < 990 || got > 1010 {
		t.Errorf("InterruptCount(0) = %d", got)
	}
	c := l.Counters(t, h)
	got := shares(c[:3])
	if len(res.Profiles) != 1 {
		t.Fatalf("%d profile truths", len(res.Profiles))
	}
	var truth []float64
	var tot float64
	first3 := make([]float64, 3) // the truth lists the buckets that ran
	for _, b := range res.Profiles[0].Buckets {
		if b.Index < 3 {
			first3[b.Index] = b.Events
			tot += b.Events
		}
	}
	for _, e := range first3 {
		truth = append(truth, e/tot)
	}
	for i := range got {
		if math.Abs(got[i]-truth[i]) > 0.04 {
			t.Errorf("bucket %d: share %.3f, truth %.3f", i, got[i], truth[i])
		}
	}
	for i, w := range []float64{0.5, 0.3, 0.2} {
		if math.Abs(truth[i]-w) > 0.02 {
			t.Errorf("truth share %d = %.3f, want about %.1f", i, truth[i], w)
		}
	}
	a, _ := res.Truth("alpha")
	if a.Instructions == 0 || a.Instructions != a.Cycles {
		t.Errorf("alpha truth %+v: CPI 1 means cycles = instructions", a)
	}
	if l.M.Now() != 10_000_000 {
		t.Errorf("machine time %d after 1 s", l.M.Now())
	}
}

func TestSeedDeterminism(t *testing.T) {
	t.Parallel()
	run := func(seed uint64) ([]uint32, *sim.Result) {
		l := labtest.Inproc(t, 2, seed)
		h := l.Profile(t, 0x10000, 0xC00, 4, nt.ProfileTime)
		l.SetInterval(t, nt.ProfileTime, 1221)
		res, err := l.Sim.Run(200_000, labtest.ThreeFuncs(l.P))
		if err != nil {
			t.Fatal(err)
		}
		return l.Counters(t, h), res
	}
	a, ra := run(7)
	b, rb := run(7)
	c, _ := run(8)
	if !reflect.DeepEqual(a, b) || !reflect.DeepEqual(ra.Functions, rb.Functions) {
		t.Error("same seed, different buckets or truth")
	}
	if reflect.DeepEqual(a, c) {
		t.Error("different seeds, identical buckets")
	}
}

func TestCounterSamplingFollowsEvents(t *testing.T) {
	l := labtest.Inproc(t, 1, 3)
	h := l.Profile(t, 0x10000, 0xC00, 10, nt.ProfileCacheMisses)
	l.SetInterval(t, nt.ProfileCacheMisses, 4096)
	res, err := l.Sim.Run(200_000, labtest.ThreeFuncs(l.P))
	if err != nil {
		t.Fatal(err)
	}
	c := l.Counters(t, h)
	// only gamma misses the cache; skid of up to 4 instructions past its
	// end falls outside the profile
	if c[0] != 0 || c[1] != 0 || c[2] == 0 {
		t.Errorf("cache-miss buckets %v, want all in gamma", c[:3])
	}
	g, _ := res.Truth("gamma")
	want := g.Events["cache_misses"] / 4096
	if n := float64(res.Interrupts["ProfileCacheMisses"]); math.Abs(n-want) > 2 {
		t.Errorf("%v interrupts, want about %.1f", n, want)
	}
}

func TestPEBSNeedsControlArea(t *testing.T) {
	l := labtest.Inproc(t, 1, 3, "apic", "pebs", "pmu")
	l.Profile(t, 0x10000, 0xC00, 10, nt.ProfileTotalIssues)
	res, err := l.Sim.Run(10_000, labtest.ThreeFuncs(l.P))
	if err != nil {
		t.Fatal(err)
	}
	if res.Interrupts["ProfileTotalIssues"] != 0 {
		t.Errorf("PEBS delivered %d interrupts without a control area", res.Interrupts["ProfileTotalIssues"])
	}
	if !strings.Contains(strings.Join(res.Log, "\n"), "no PROCESSOR_PROFILE_CONTROL_AREA") {
		t.Errorf("log does not say why: %q", res.Log)
	}
}

func TestMultipleRunsContinueTime(t *testing.T) {
	l := labtest.Inproc(t, 1, 1)
	l.Profile(t, 0x10000, 0xC00, 10, nt.ProfileTime)
	l.SetInterval(t, nt.ProfileTime, 10000)
	var total uint64
	for i := range 3 {
		res, err := l.Sim.Run(100_000, labtest.ThreeFuncs(l.P))
		if err != nil {
			t.Fatal(err)
		}
		if res.Start != uint64(i)*1_000_000 {
			t.Errorf("run %d: start %d", i, res.Start)
		}
		total += res.Interrupts["ProfileTime"]
	}
	// a run covers [start, end): the fire at exactly 300 ms belongs to the next
	if total != 299 {
		t.Errorf("%d interrupts in 300 ms at 1 ms", total)
	}
}

func TestBadWorkloadNamesField(t *testing.T) {
	l := labtest.Inproc(t, 1, 1)
	_, err := l.Sim.Run(10, workload.OneProcess("", l.P, []workload.Function{{Name: "f", Base: 0x10000, Size: 0, Weight: 1}}))
	if err == nil || !strings.Contains(err.Error(), "process[1].function[1].size: must be > 0") {
		t.Errorf("error %v", err)
	}
}

// TestFractionalCPI covers CPIs that put several instructions in a cycle
// and one instruction over several cycles, with counters on each.
func TestFractionalCPI(t *testing.T) {
	t.Parallel()
	for _, cpi := range []float64{0.5, 0.3, 1.7, 4} {
		l := labtest.Inproc(t, 1, 1)
		l.Profile(t, 0x10000, 0xC00, 10, nt.ProfileTotalIssues)
		l.SetInterval(t, nt.ProfileTotalIssues, 4099)
		w := labtest.ThreeFuncs(l.P)
		for i := range w.Processes[0].Functions {
			w.Processes[0].Functions[i].CPI = cpi
		}
		res, err := l.Sim.Run(10_000, w)
		if err != nil {
			t.Fatal(err)
		}
		var instr uint64
		for _, f := range res.Functions {
			instr += f.Instructions
		}
		if n := res.Interrupts["ProfileTotalIssues"]; n != instr/4099 {
			t.Errorf("CPI %v: %d overflows for %d instructions", cpi, n, instr)
		}
		if want := uint64(30_000_000 / cpi); instr < want-want/1000 || instr > want+want/1000 {
			t.Errorf("CPI %v: %d instructions in 30M cycles", cpi, instr)
		}
	}
}

// A wide profile over little code (64 MiB in 16-byte buckets over three
// 1 KiB functions) keeps the truth of the buckets that ran only: in
// address order, each at its index's address, adding up to the
// functions' truth; a run keeps kilobytes of truth, not the 128 MiB a
// bucket each would take (a scenario looping over m:run ran out of
// memory).
func TestProfileTruthKeepsTheBucketsThatRan(t *testing.T) {
	l := labtest.Inproc(t, 1, 3)
	const base, size, shift = 0x10000, 64 << 20, 4
	l.Profile(t, base, size, shift, nt.ProfileTime)
	l.SetInterval(t, nt.ProfileTime, 1221)
	res, err := l.Sim.Run(100_000, labtest.ThreeFuncs(l.P))
	if err != nil {
		t.Fatal(err)
	}
	pt := res.Profiles[0]
	if pt.NBuckets != size>>shift {
		t.Errorf("NBuckets %d, want %d", pt.NBuckets, size>>shift)
	}
	if n := len(pt.Buckets); n == 0 || n > 3*0x400>>shift {
		t.Fatalf("%d buckets of truth; the functions span %d", n, 3*0x400>>shift)
	}
	var cycles float64
	for i, b := range pt.Buckets {
		if i > 0 && b.Index <= pt.Buckets[i-1].Index {
			t.Errorf("bucket %d (index %d) after index %d: not in address order", i, b.Index, pt.Buckets[i-1].Index)
		}
		if b.Addr != base+uint64(b.Index)<<shift || b.Addr < 0x10000 || b.Addr >= 0x10C00 {
			t.Errorf("bucket index %d at 0x%X: outside the functions or not at its index", b.Index, b.Addr)
		}
		cycles += b.Cycles
	}
	var want float64
	for _, f := range res.Functions {
		if f.Addr >= 0x10000 && f.Addr < 0x10C00 {
			want += float64(f.Cycles)
		}
	}
	if math.Abs(cycles-want) > 1e-6*want {
		t.Errorf("the buckets' truth adds up to %v cycles, the functions ran %v", cycles, want)
	}
}
