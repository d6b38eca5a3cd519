package lab_test

import (
	"runtime"
	"testing"

	"github.com/proflab/proflab/core/config"
	"github.com/proflab/proflab/core/halhost"
	"github.com/proflab/proflab/core/lab/labtest"
)

// BenchmarkSecondRatio is issue 37 §3's comparison in one measurement:
// each iteration runs one simulated second (BenchmarkSecond/inproc) and
// then as many of BenchmarkInterrupts' isolated runs (isolated and
// isolated-counter) as deliver about as many interrupts, on one locked
// OS thread whose processor time is read around each part. A machine
// whose load drifts over the minutes of separate benchmarks weighs on
// the three parts alike here, so their ratios are steadier than those of
// BenchmarkSecond and BenchmarkInterrupts run one after the other (the
// garbage collector's background work, on other threads, is left out of
// all three).
//
// It reports each part's processor ns per interrupt and the rate at
// which the second delivers its interrupts as a fraction of each
// isolated rate (x-isolated, x-isolated-counter: the isolated ns per
// interrupt over the second's).
func BenchmarkSecondRatio(b *testing.B) {
	if _, ok := threadCPUTime(); !ok {
		b.Skip("no per-thread processor time on this system")
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	host := halhost.New(labtest.HALs(config.TransportInproc), halhost.Options{})
	b.Cleanup(host.Close)
	parts := []struct {
		name string
		run  func() uint64
		ns   int64
		n    uint64
	}{
		{name: "second", run: func() uint64 { n, _ := oneSecond(b, host, true); return n }},
		{name: "isolated", run: interruptsRun(b, 1e9, false)},
		{name: "isolated-counter", run: interruptsRun(b, 1e9, true)},
	}
	for b.Loop() {
		for i := range parts {
			p := &parts[i]
			// the isolated runs are 100 ms each: ten of them match the
			// second's interrupts
			reps := 10
			if i == 0 {
				reps = 1
			}
			t0, _ := threadCPUTime()
			for range reps {
				p.n += p.run()
			}
			t1, _ := threadCPUTime()
			p.ns += t1 - t0
		}
	}
	per := make([]float64, len(parts))
	for i, p := range parts {
		per[i] = float64(p.ns) / float64(max(p.n, 1))
		b.ReportMetric(per[i], p.name+"-cpu-ns/interrupt")
	}
	b.ReportMetric(per[1]/per[0], "x-isolated")
	b.ReportMetric(per[2]/per[0], "x-isolated-counter")
}
