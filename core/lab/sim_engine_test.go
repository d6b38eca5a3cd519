package lab_test

// The simulator's statistics against a reference: what the
// segment-stepping engine it replaced produced on the same machines,
// workloads and seeds, recorded once into testdata/engine (that engine
// is gone), and what is deterministic stated outright.
//
// What is deterministic must be equal: the timer's counts, the
// scheduler's decisions (per-process profiles see the same interrupts), a
// periodic loop's position under the timer (aliasing), PEBS's exact IPs.
// What is random is compared with a tolerance derived from its sampling
// error, never from the output — the statistical test is a two-sample z
// test between this engine's run and the recorded one:
//
//   - A sample's function is a draw with the probability p of the time
//     share (samples fall in different segments: the timer and counter
//     periods here are many segments long), so a share over n samples has
//     variance p(1-p)/n, and the difference of two runs' shares 2p(1-p)/n.
//   - A function's executed instructions over a run of fixed length is a
//     renewal-reward sum over independent segments. With μ the mean
//     cycles of a segment and T the run's cycles, its count of segments
//     of type j has variance (T/μ)·Var(X_j − p_j·C/μ), X_j the indicator
//     of type j and C the segment's cycles (the renewal-reward central
//     limit theorem); segVar computes it from the workload.
//
// Every comparison allows z = 5 standard deviations: a correct engine
// fails one comparison with probability below 6e-7, and the seeds are
// fixed, so the tests are deterministic; an engine that drifts by a few
// standard errors of these sizes fails (scaling the ISR share by 0.8, an
// off-by-one skid or a per-process profile counting every process does).

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/proflab/proflab/core/config"
	"github.com/proflab/proflab/core/halhost"
	"github.com/proflab/proflab/core/lab/labtest"
	"github.com/proflab/proflab/core/sim"
	"github.com/proflab/proflab/core/workload"
	"github.com/proflab/proflab/halplugins/hal"
	"github.com/proflab/proflab/kernel"
	"github.com/proflab/proflab/kernel/nt"
)

const z = 5

// outcome is what a run did, in either engine's terms.
type outcome struct {
	byCPU  []map[string]uint64
	instr  map[string]float64
	cycles map[string]float64
	events map[string]map[string]float64
}

// engineLab is a machine on the in-process HALs driven by one engine.
type engineLab struct {
	*labtest.Lab
	run func(durationUS uint64, w *workload.Spec) (outcome, error)
}

func newEngineLab(tb testing.TB, cpus int, seed uint64, names ...string) *engineLab {
	tb.Helper()
	if len(names) == 0 {
		names = []string{"apic", "pmu"}
	}
	host := halhost.New(labtest.HALs(config.TransportInproc), halhost.Options{})
	tb.Cleanup(host.Close)
	ns := sim.New(sim.Options{Seed: seed})
	ver, _ := kernel.ParseVersion(kernel.DefaultVersion)
	mh, err := host.OpenMachine(names, hal.Machine{CPUs: cpus, FreqMHz: 3000, Vendor: nt.VendorIntel, Arch: "x64", Version: kernel.DefaultVersion, Seed: seed}, ns)
	if err != nil {
		tb.Fatal(err)
	}
	var khals []kernel.HALDispatch
	var shals []sim.Driver
	for _, h := range mh {
		khals = append(khals, h)
		shals = append(shals, h)
	}
	m, err := kernel.NewMachine(kernel.Config{Version: ver, Arch: kernel.X64, CPUs: cpus, Vendor: nt.VendorIntel, PEBS: true, FreqMHz: 3000, HALs: khals})
	if err != nil {
		tb.Fatal(err)
	}
	l := &engineLab{Lab: &labtest.Lab{M: m, Sim: ns, HALs: mh}}
	if err := ns.Attach(m, shals); err != nil {
		tb.Fatal(err)
	}
	l.run = func(d uint64, w *workload.Spec) (outcome, error) {
		res, err := ns.Run(d, w)
		if err != nil {
			return outcome{}, err
		}
		o := newOutcome(res.InterruptsByCPU)
		for _, f := range res.Functions {
			o.add(f.Name, f.Instructions, f.Cycles, f.Events)
		}
		return o, nil
	}
	l.P = m.NewProcess("app", kernel.Token{Privileges: map[int]bool{nt.SeSystemProfilePrivilege: true, nt.SeProfileSingleProcessPrivilege: true}, Integrity: kernel.IntegrityHigh})
	return l
}

// reference reads the recorded reference run name (testdata/engine) into v.
func reference(tb testing.TB, name string, v any) {
	tb.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "engine", name+".json"))
	if err == nil {
		err = json.Unmarshal(b, v)
	}
	if err != nil {
		tb.Fatalf("the recorded reference run %s: %v", name, err)
	}
}

// recorded is a recorded run's outcome: interrupts per processor and
// source, instructions per function.
type recorded struct {
	ByCPU []map[string]uint64 `json:"byCPU"`
	Instr map[string]float64  `json:"instr"`
}

func (r recorded) outcome() outcome {
	o := newOutcome(r.ByCPU)
	o.instr = r.Instr
	return o
}

func newOutcome(byCPU []map[string]uint64) outcome {
	return outcome{byCPU: byCPU, instr: map[string]float64{}, cycles: map[string]float64{}, events: map[string]map[string]float64{}}
}

func (o *outcome) add(name string, instr, cycles uint64, ev map[string]float64) {
	o.instr[name] += float64(instr)
	o.cycles[name] += float64(cycles)
	o.events[name] = ev
}

// controlAreas gives every processor a PEBS control area.
func controlAreas(tb testing.TB, m *kernel.Machine) {
	tb.Helper()
	for cpu := range m.CPUCount() {
		k, err := m.NewKernelCaller(cpu)
		if err != nil {
			tb.Fatal(err)
		}
		buf, err := k.Process().Alloc(0x10, kernel.ProtReadWrite)
		if err != nil {
			tb.Fatal(err)
		}
		var req [0x10]byte
		req[8] = 1
		if err := k.Process().Write(buf, req[:]); err != nil {
			tb.Fatal(err)
		}
		if st, err := k.NtSetSystemInformation(nt.SystemProcessorProfileControlArea, buf, 0x10); err != nil || (st != kernel.StatusSuccess && st != kernel.StatusAddressAlreadyExists) {
			tb.Fatalf("control area on processor %d: %v %v", cpu, st, err)
		}
	}
}

// segVar is the variance per cycle of run time of the count of segments
// of each function (renewal-reward CLT), and the mean cycles per segment,
// for a thread running the given functions (CPI, weight) with segments
// of segLen instructions and no ISR/DPC share.
func segVar(segLen float64, cpi, weight []float64) (perCycle []float64, mu float64) {
	var tot float64
	for _, w := range weight {
		tot += w
	}
	cyc := make([]float64, len(cpi))
	for i := range cpi {
		cyc[i] = math.Floor(segLen * cpi[i])
		mu += weight[i] / tot * cyc[i]
	}
	for j := range cpi {
		pj := weight[j] / tot
		var v float64
		for i := range cpi {
			x := -pj * cyc[i] / mu
			if i == j {
				x++
			}
			v += weight[i] / tot * x * x
		}
		perCycle = append(perCycle, v/mu)
	}
	return perCycle, mu
}

// shareTol is z standard deviations of the difference of two independent
// shares of probability p over n draws each.
func shareTol(p, n float64) float64 { return z * math.Sqrt(2*p*(1-p)/n) }

func bucketShares(c []uint32, k int) ([]float64, float64) {
	var tot float64
	for _, v := range c[:k] {
		tot += float64(v)
	}
	out := make([]float64, k)
	for i := range out {
		out[i] = float64(c[i]) / tot
	}
	return out, tot
}

// TestEngineTimer: ProfileTime at 1221 on 4 busy processors, the
// default workload. Timer counts are exact; truth and sample shares are
// within their sampling error.
func TestEngineTimer(t *testing.T) {
	const dur = 500_000
	type got struct {
		o       outcome
		buckets []uint32
	}
	run := func() got {
		l := newEngineLab(t, 4, 11)
		h := l.Profile(t, 0x10000, 0xC00, 10, nt.ProfileTime)
		l.SetInterval(t, nt.ProfileTime, 1221)
		o, err := l.run(dur, fourThreads(l.P))
		if err != nil {
			t.Fatal(err)
		}
		return got{o, l.Counters(t, h)}
	}
	var rec struct {
		recorded
		Buckets []uint32 `json:"buckets"`
	}
	reference(t, "timer", &rec)
	ref, neu := got{rec.outcome(), rec.Buckets}, run()
	for cpu := range ref.o.byCPU {
		if a, b := ref.o.byCPU[cpu]["ProfileTime"], neu.o.byCPU[cpu]["ProfileTime"]; a != b {
			t.Errorf("processor %d: %d timer interrupts, the recorded reference %d", cpu, b, a)
		}
	}
	perCycle, _ := segVar(10000, []float64{1, 1, 1}, []float64{5, 3, 2})
	cycles := float64(dur) * 3000 * 4
	var totRef, totNew float64
	for _, n := range []string{"alpha", "beta", "gamma"} {
		totRef += ref.o.instr[n]
		totNew += neu.o.instr[n]
	}
	for i, n := range []string{"alpha", "beta", "gamma"} {
		// instructions = 10000 × segments; the shares' sd from the count's
		sd := math.Sqrt(2*perCycle[i]*cycles) * 10000 / totRef
		a, b := ref.o.instr[n]/totRef, neu.o.instr[n]/totNew
		if math.Abs(a-b) > z*sd {
			t.Errorf("%s: instruction share %.5f, the recorded reference %.5f (tolerance %.5f)", n, b, a, z*sd)
		}
	}
	sa, na := bucketShares(ref.buckets, 3)
	sb, _ := bucketShares(neu.buckets, 3)
	for i, p := range []float64{0.5, 0.3, 0.2} {
		if tol := shareTol(p, na); math.Abs(sa[i]-sb[i]) > tol {
			t.Errorf("bucket %d: sample share %.4f, the recorded reference %.4f (tolerance %.4f)", i, sb[i], sa[i], tol)
		}
	}
}

// TestEngineCounters: functions of different CPIs, a cache-miss
// counter only one of them feeds (classes of unequal segments) and an
// instruction counter, on 2 processors.
func TestEngineCounters(t *testing.T) {
	const dur = 400_000
	cpi := []float64{2, 1, 0.5}
	type got struct {
		o             outcome
		misses, issue []uint32
	}
	run := func() got {
		l := newEngineLab(t, 2, 5)
		hm := l.Profile(t, 0x10000, 0xC00, 10, nt.ProfileCacheMisses)
		hi := l.Profile(t, 0x10000, 0xC00, 10, nt.ProfileTotalIssues)
		l.SetInterval(t, nt.ProfileCacheMisses, 2003)
		l.SetInterval(t, nt.ProfileTotalIssues, 150_001)
		w := labtest.ThreeFuncs(l.P)
		w.Processes[0].Threads = []workload.Thread{{CPU: 0}, {CPU: 1}}
		for i := range w.Processes[0].Functions {
			w.Processes[0].Functions[i].CPI = cpi[i]
		}
		o, err := l.run(dur, w)
		if err != nil {
			t.Fatal(err)
		}
		return got{o, l.Counters(t, hm), l.Counters(t, hi)}
	}
	var rec struct {
		recorded
		Misses []uint32 `json:"misses"`
		Issue  []uint32 `json:"issue"`
	}
	reference(t, "counters", &rec)
	ref, neu := got{rec.outcome(), rec.Misses, rec.Issue}, run()
	perCycle, _ := segVar(10000, cpi, []float64{5, 3, 2})
	cycles := float64(dur) * 3000 * 2
	for i, n := range []string{"alpha", "beta", "gamma"} {
		sd := math.Sqrt(2*perCycle[i]*cycles) * 10000
		if d := math.Abs(ref.o.instr[n] - neu.o.instr[n]); d > z*sd {
			t.Errorf("%s: %.0f instructions, the recorded reference %.0f (tolerance %.0f)", n, neu.o.instr[n], ref.o.instr[n], z*sd)
		}
	}
	// cache-miss overflows: gamma's instructions × 0.05 / 2003, ± one per
	// processor left in the counter
	sdG := math.Sqrt(2*perCycle[2]*cycles) * 10000 * 0.05 / 2003
	var a, b float64
	for cpu := range 2 {
		a += float64(ref.o.byCPU[cpu]["ProfileCacheMisses"])
		b += float64(neu.o.byCPU[cpu]["ProfileCacheMisses"])
	}
	if math.Abs(a-b) > z*sdG+2 {
		t.Errorf("%v cache-miss overflows, the recorded reference %v (tolerance %.1f)", b, a, z*sdG+2)
	}
	// instruction overflows: every instruction counts
	var ti float64
	for i := range cpi {
		ti += math.Sqrt(2*perCycle[i]*cycles) * 10000 // each function's sd, summed: an upper bound
	}
	a, b = float64(ref.o.byCPU[0]["ProfileTotalIssues"]+ref.o.byCPU[1]["ProfileTotalIssues"]),
		float64(neu.o.byCPU[0]["ProfileTotalIssues"]+neu.o.byCPU[1]["ProfileTotalIssues"])
	if tol := z*ti/150_001 + 2; math.Abs(a-b) > tol {
		t.Errorf("%v instruction overflows, the recorded reference %v (tolerance %.1f)", b, a, tol)
	}
	// every cache-miss sample is in gamma's bucket or skids past it
	if ref.misses[0]+ref.misses[1] != 0 || neu.misses[0]+neu.misses[1] != 0 {
		t.Errorf("cache-miss samples outside gamma: %v, reference %v", neu.misses[:3], ref.misses[:3])
	}
	// instruction samples follow instruction shares
	sa, na := bucketShares(ref.issue, 3)
	sb, _ := bucketShares(neu.issue, 3)
	for i := range 3 {
		p := ref.o.instr[[]string{"alpha", "beta", "gamma"}[i]] / (ref.o.instr["alpha"] + ref.o.instr["beta"] + ref.o.instr["gamma"])
		if tol := shareTol(p, na); math.Abs(sa[i]-sb[i]) > tol {
			t.Errorf("instruction samples, bucket %d: share %.4f, the recorded reference %.4f (tolerance %.4f)", i, sb[i], sa[i], tol)
		}
	}
}

// TestEngineSkidAndPEBS: a counter with skid blames the code after a
// hot loop's end; PEBS reports the exact IP and writes its records.
func TestEngineSkidAndPEBS(t *testing.T) {
	fns := func(p *kernel.Process) *workload.Spec {
		return workload.OneProcess("", p, []workload.Function{
			{Name: "hot", Base: 0x10000, Size: 0x40, Weight: 1},
			{Name: "cold", Base: 0x10040, Size: 0x40, Weight: 0},
		})
	}
	measure := func(names ...string) (hot, cold float64) {
		l := newEngineLab(t, 1, 3, names...)
		controlAreas(t, l.M)
		h := l.Profile(t, 0x10000, 0x80, 6, nt.ProfileTotalIssues)
		l.SetInterval(t, nt.ProfileTotalIssues, 10007)
		if _, err := l.run(200_000, fns(l.P)); err != nil {
			t.Fatal(err)
		}
		c := l.Counters(t, h)
		return float64(c[0]), float64(c[1])
	}
	var rec struct{ Hot, Cold, PEBSHot, PEBSCold float64 }
	reference(t, "skid", &rec)
	rh, rc := rec.Hot, rec.Cold
	nh, nc := measure("apic", "pmu")
	// the share of samples that skid past the end: a binomial proportion
	pa, pb := rc/(rh+rc), nc/(nh+nc)
	if tol := shareTol(pa, rh+rc); math.Abs(pa-pb) > tol || nc == 0 {
		t.Errorf("skid: %.4f of samples past the end, the recorded reference %.4f (tolerance %.4f)", pb, pa, tol)
	}
	rh, rc = rec.PEBSHot, rec.PEBSCold
	nh, nc = measure("apic", "pebs", "pmu")
	if rc != 0 || nc != 0 || nh != rh {
		t.Errorf("PEBS: hot %v cold %v, the recorded reference hot %v cold %v (exact IPs, whole records)", nh, nc, rh, rc)
	}
}

// TestEngineAliasing: a loop of 1000 one-cycle instructions under a
// 1 ms timer is sampled at one IP; of 997, it drifts: both engines give
// the same buckets, sample for sample.
func TestEngineAliasing(t *testing.T) {
	for _, n := range []uint64{1000, 997, 1024} {
		run := func() []uint32 {
			l := newEngineLab(t, 1, 1, "apic")
			h := l.Profile(t, 0x50000, n*4, 4, nt.ProfileTime)
			l.SetInterval(t, nt.ProfileTime, 10000)
			w := workload.OneProcess("", l.P, []workload.Function{{Name: "loop", Base: 0x50000, Size: n * 4, Weight: 1, LoopInstructions: n}})
			if _, err := l.run(300_000, w); err != nil {
				t.Fatal(err)
			}
			return l.Counters(t, h)
		}
		var a []uint32
		reference(t, fmt.Sprint("aliasing-", n), &a)
		if b := run(); fmt.Sprint(a) != fmt.Sprint(b) {
			t.Errorf("loop of %d: buckets %v, the recorded reference %v", n, b, a)
		}
	}
}

// TestEngineProcessProfile: two processes share processor 0; a
// profile of one counts only while it runs. The scheduler is
// deterministic: both engines count the same.
func TestEngineProcessProfile(t *testing.T) {
	run := func() (uint64, uint64) {
		l := newEngineLab(t, 1, 2)
		q := l.M.NewProcess("other", kernel.Token{Integrity: kernel.IntegrityMedium})
		h := l.Profile(t, 0x10000, 0xC00, 10, nt.ProfileTime) // every process
		l.SetInterval(t, nt.ProfileTime, 2441)
		w := labtest.ThreeFuncs(l.P)
		w.Processes[0].Threads = []workload.Thread{{CPU: 0, Busy: 0.5}}
		w.Processes = append(w.Processes, workload.Process{Name: "other", Proc: q, Functions: []workload.Function{{Name: "spin", Base: 0x20000, Size: 0x100, Weight: 1}}})
		if _, err := l.run(300_000, w); err != nil {
			t.Fatal(err)
		}
		var app uint64
		for _, v := range l.Counters(t, h) {
			app += uint64(v)
		}
		return app, uint64(l.M.InterruptCount(0))
	}
	var rec struct{ App, Interrupts uint64 }
	reference(t, "process", &rec)
	ra, rt := rec.App, rec.Interrupts
	na, nt := run()
	if ra != na || rt != nt || na == 0 || na >= nt {
		t.Errorf("app's samples %d of %d interrupts, the recorded reference %d of %d", na, nt, ra, rt)
	}
}

// TestEngineISRDPC: a share of the processor's segments in ISRs and
// DPCs; the sampled-profile events' ExecutingIsr/ExecutingDpc flags
// follow it.
func TestEngineISRDPC(t *testing.T) {
	run := func() (isr, dpc, n float64) {
		l := newEngineLab(t, 4, 9)
		s, err := l.M.StartKernelLogger(true)
		if err != nil {
			t.Fatal(err)
		}
		l.SetInterval(t, nt.ProfileTime, 1221)
		w := fourThreads(l.P)
		w.Kernel.InterruptShare, w.Kernel.DPCShare = 0.1, 0.05
		if _, err := l.run(1_000_000, w); err != nil {
			t.Fatal(err)
		}
		for _, e := range s.Events() {
			if e.Hook != nt.PERFINFO_LOG_TYPE_SAMPLED_PROFILE {
				continue
			}
			n++
			if e.ExecutingIsr {
				isr++
			}
			if e.ExecutingDpc {
				dpc++
			}
		}
		return isr / n, dpc / n, n
	}
	var rec struct{ ISR, DPC, N float64 }
	reference(t, "isrdpc", &rec)
	ri, rd, n := rec.ISR, rec.DPC, rec.N
	ni, nd, _ := run()
	if tol := shareTol(0.1, n); math.Abs(ri-ni) > tol || ni == 0 {
		t.Errorf("ISR share of samples %.4f, the recorded reference %.4f (tolerance %.4f)", ni, ri, tol)
	}
	if tol := shareTol(0.05, n); math.Abs(rd-nd) > tol || nd == 0 {
		t.Errorf("DPC share of samples %.4f, the recorded reference %.4f (tolerance %.4f)", nd, rd, tol)
	}
}
