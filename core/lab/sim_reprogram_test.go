package lab_test

import (
	"encoding/json"
	"math"
	"os"
	"testing"

	"github.com/proflab/proflab/core/sim"
	"github.com/proflab/proflab/core/workload"
	"github.com/proflab/proflab/halplugins/hal"
	"github.com/proflab/proflab/kernel"
	"github.com/proflab/proflab/kernel/nt"
)

// reprogrammer is a HAL driver that programs one-shot timers it refills
// as they run dry, and reprograms an instruction counter on every
// processor at each refill and each interrupt-hook batch: the hardware
// changes while the processors run, mid-segment.
type reprogrammer struct {
	hw interface {
		Apply(string, hal.Programming) error
	}
	cpus     int
	toggles  int
	reload   uint32
	batches  int
	refilled int
}

func (r *reprogrammer) Name() string { return "reprog" }
func (r *reprogrammer) Abilities() hal.Abilities {
	return hal.Abilities{TimerRefiller: true, InterruptHook: true}
}
func (r *reprogrammer) ControlArea([]int, bool) error { return nil }
func (r *reprogrammer) Settle() error                 { return nil }

func (r *reprogrammer) periods() []uint32 {
	q := make([]uint32, 16)
	for i := range q {
		q[i] = 1221 + uint32(i%3) // 100 ns units: about 8 kHz, unevenly
	}
	return q
}

func (r *reprogrammer) counters() hal.Programming {
	r.toggles++
	r.reload = 100_003
	if r.toggles%2 == 0 {
		r.reload = 150_001
	}
	var p hal.Programming
	for c := range r.cpus {
		p.Counters = append(p.Counters, hal.CounterProgram{CPU: c, Index: 0, Enabled: true, Source: hal.Source(nt.ProfileTotalIssues), Reload: r.reload})
		p.Counters = append(p.Counters, hal.CounterProgram{CPU: c, Index: 1, Enabled: r.toggles%3 != 0, Source: hal.Source(nt.ProfileCacheMisses), Reload: 997})
	}
	return p
}

func (r *reprogrammer) start() error {
	p := r.counters()
	for c := range r.cpus {
		p.Timers = append(p.Timers, hal.TimerProgram{CPU: c, Enabled: true, Source: hal.Source(nt.ProfileTime), Mode: hal.TimerOneShot, OneShot: r.periods()})
	}
	return r.hw.Apply(r.Name(), p)
}

func (r *reprogrammer) RefillTimer(cpus []int) error {
	r.refilled++
	p := r.counters()
	for _, c := range cpus {
		p.Timers = append(p.Timers, hal.TimerProgram{CPU: c, Enabled: true, Source: hal.Source(nt.ProfileTime), Mode: hal.TimerOneShot, OneShot: r.periods()})
	}
	return r.hw.Apply(r.Name(), p)
}

func (r *reprogrammer) Interrupts(batch []hal.Interrupt) error {
	r.batches++
	return r.hw.Apply(r.Name(), r.counters())
}

type reprogOutcome struct {
	byCPU             []map[string]uint64
	cycles, instr     uint64
	toggles, refilled int
}

func runReprogrammed(t *testing.T) reprogOutcome {
	t.Helper()
	const cpus = 2
	ver, _ := kernel.ParseVersion(kernel.DefaultVersion)
	m, err := kernel.NewMachine(kernel.Config{Version: ver, Arch: kernel.X64, CPUs: cpus, FreqMHz: 3000, HALs: kernel.StandardTestHALs(nt.VendorIntel)})
	if err != nil {
		t.Fatal(err)
	}
	p := m.NewProcess("app", kernel.Token{Integrity: kernel.IntegrityMedium})
	w := workload.OneProcess("", p, []workload.Function{
		{Name: "alpha", Base: 0x10000, Size: 0x400, Weight: 5, CPI: 2},
		{Name: "beta", Base: 0x10400, Size: 0x400, Weight: 3},
		{Name: "gamma", Base: 0x10800, Size: 0x400, Weight: 2, CPI: 0.5, CacheMissRate: 0.05},
	})
	w.Processes[0].Threads = []workload.Thread{{CPU: 0}, {CPU: 1}}
	w.Kernel.InterruptShare = 0.05
	r := &reprogrammer{cpus: cpus}
	var out reprogOutcome
	s := sim.New(sim.Options{Seed: 3})
	r.hw = s
	if err := s.Attach(m, []sim.Driver{r}); err != nil {
		t.Fatal(err)
	}
	if err := r.start(); err != nil {
		t.Fatal(err)
	}
	res, err := s.Run(200_000, w)
	if err != nil {
		t.Fatal(err)
	}
	out.byCPU = res.InterruptsByCPU
	for _, f := range res.Functions {
		out.cycles += f.Cycles
		out.instr += f.Instructions
	}
	out.toggles, out.refilled = r.toggles, r.refilled
	return out
}

// TestReprogrammedMidRun: one-shot timers refilled as they run dry and
// counters reprogrammed at every refill and hook batch, on processors
// running functions of three CPIs. The timers fire as the reference
// engine fired them (recorded in testdata), exactly; every cycle of the run is in the truth
// once; the counters' overflows differ from the reference's by at most
// one per reprogramming on each processor (a reprogrammed counter
// starts from the next event of its processor here, from its last one
// there), plus, for the cache misses only gamma makes, z standard
// deviations of the difference of two engines' gamma segment counts
// (segVar; 0.05 of the segments are the ISR's).
func TestEngineReprogrammedMidRun(t *testing.T) {
	// the segment-stepping engine this one replaced, on the same
	// machine, workload and seed, recorded once
	var ref reprogOutcome
	b, err := os.ReadFile("testdata/engine/reprogram.json")
	if err == nil {
		err = json.Unmarshal(b, &struct {
			ByCPU   *[]map[string]uint64 `json:"byCPU"`
			Toggles *int                 `json:"toggles"`
		}{&ref.byCPU, &ref.toggles})
	}
	if err != nil {
		t.Fatalf("the recorded reference: %v", err)
	}
	neu := runReprogrammed(t)
	t.Logf("reference %v, new %v; %d refills, %d reprogrammings", ref.byCPU, neu.byCPU, neu.refilled, neu.toggles)
	if neu.refilled < 50 || neu.toggles < 50 {
		t.Fatalf("%d refills, %d reprogrammings: the test does not reprogram mid-run", neu.refilled, neu.toggles)
	}
	for c := range ref.byCPU {
		if a, b := ref.byCPU[c]["ProfileTime"], neu.byCPU[c]["ProfileTime"]; a != b || b < 1600 {
			t.Errorf("processor %d: %d one-shot timer interrupts, the reference %d", c, b, a)
		}
		perCycle, _ := segVar(10000, []float64{2, 1, 0.5, 1}, []float64{0.475, 0.285, 0.19, 0.05})
		sdMisses := math.Sqrt(2*perCycle[2]*200_000*3000) * 10000 * 0.05 / 997
		// every segment is 10,000 instructions: the count of segments in
		// T cycles has variance T·Var(C)/μ³ (renewal CLT), C a segment's cycles
		cyc, w := []float64{20000, 10000, 5000, 10000}, []float64{0.475, 0.285, 0.19, 0.05}
		var mu, m2 float64
		for i := range cyc {
			mu += w[i] * cyc[i]
			m2 += w[i] * cyc[i] * cyc[i]
		}
		sdInstr := math.Sqrt(2*200_000*3000*(m2-mu*mu)/(mu*mu*mu)) * 10000 / 100_003
		for _, src := range []string{"ProfileTotalIssues", "ProfileCacheMisses"} {
			a, b := float64(ref.byCPU[c][src]), float64(neu.byCPU[c][src])
			tol := float64(max(ref.toggles, neu.toggles) + 2)
			if src == "ProfileCacheMisses" {
				tol += z * sdMisses
			} else {
				tol += z * sdInstr
			}
			if math.Abs(a-b) > tol || b == 0 {
				t.Errorf("processor %d: %v %s overflows, the reference %v (tolerance %.0f)", c, b, src, a, tol)
			}
		}
	}
	if want := uint64(2 * 200_000 * 3000); neu.cycles != want {
		t.Errorf("%d cycles in the truth, want %d (2 processors × 200 ms × 3000 MHz)", neu.cycles, want)
	}
}
