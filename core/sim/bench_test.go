package sim_test

import (
	"os"
	"sync"
	"testing"
	"time"

	"github.com/proflab/proflab/core/config"
	"github.com/proflab/proflab/core/halhost"
	"github.com/proflab/proflab/core/sim/simtest"
	"github.com/proflab/proflab/core/workload"
	"github.com/proflab/proflab/halplugins/halrpc/halrpctest"
	"github.com/proflab/proflab/kernel"
	"github.com/proflab/proflab/kernel/nt"
)

var (
	pluginOnce sync.Once
	pluginDir  string
	pluginErr  error
)

// plugins links the shipped plugins once into a temporary folder: the
// test executable under their names (halrpctest), which TestMain serves.
func plugins(tb testing.TB) *halhost.Host {
	tb.Helper()
	pluginOnce.Do(func() {
		pluginDir, pluginErr = os.MkdirTemp("", "sim-plugins-")
		if pluginErr != nil {
			return
		}
		_, pluginErr = halrpctest.Install(pluginDir, "proflab-hal-apic", "proflab-hal-pmu", "proflab-hal-pebs")
	})
	if pluginErr != nil {
		tb.Fatalf("installing the plugins: %v", pluginErr)
	}
	h := halhost.New(simtest.HALs(config.TransportPlugin), halhost.Options{Search: &halhost.Search{PluginPath: pluginDir}})
	tb.Cleanup(h.Close)
	return h
}

func TestTimerThroughPlugins(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("starts plugin processes")
	}
	l := simtest.New(t, plugins(t), 4, 1)
	l.Profile(t, 0x10000, 0xC00, 10, nt.ProfileTime)
	l.SetInterval(t, nt.ProfileTime, 10000)
	res, err := l.Sim.Run(1_000_000, simtest.ThreeFuncs(l.P))
	if err != nil {
		t.Fatal(err)
	}
	if n := res.InterruptsByCPU[0]["ProfileTime"]; n < 990 || n > 1010 {
		t.Errorf("%d interrupts through the plugins, want 1000 ± 10", n)
	}
}

// fourThreads keeps every processor of a 4-processor machine busy.
func fourThreads(p *kernel.Process) *workload.Spec {
	s := simtest.ThreeFuncs(p)
	s.Processes[0].Threads = []workload.Thread{{CPU: 0}, {CPU: 1}, {CPU: 2}, {CPU: 3}}
	return s
}

// BenchmarkInstructions measures simulated instructions per second of
// wall time on one processor with no interrupts (segments and truth only).
func BenchmarkInstructions(b *testing.B) {
	l := simtest.Inproc(b, 1, 1)
	w := simtest.ThreeFuncs(l.P)
	var instr uint64
	start := time.Now()
	for b.Loop() {
		res, err := l.Sim.Run(100_000, w)
		if err != nil {
			b.Fatal(err)
		}
		for _, f := range res.Functions {
			instr += f.Instructions
		}
	}
	b.ReportMetric(float64(instr)/time.Since(start).Seconds(), "instr/s")
}

// BenchmarkInterrupts measures profile interrupts delivered per second of
// wall time: ProfileTime at the fastest rate on 4 busy processors, plus a
// cache-miss counter, each hitting a started profile.
// "isolated" makes segments long (10^9 instructions) so that the
// per-interrupt cost stands alone.
func BenchmarkInterrupts(b *testing.B) {
	for _, seg := range []uint64{0, 1e9} {
		name := "workload"
		if seg > 0 {
			name = "isolated"
		}
		b.Run(name, func(b *testing.B) { benchInterrupts(b, seg) })
	}
}

func benchInterrupts(b *testing.B, seg uint64) {
	l := simtest.Inproc(b, 4, 1)
	l.Profile(b, 0x10000, 0xC00, 4, nt.ProfileTime)
	l.SetInterval(b, nt.ProfileTime, 1221)
	w := fourThreads(l.P)
	w.SegmentInstructions = seg
	var n uint64
	start := time.Now()
	for b.Loop() {
		res, err := l.Sim.Run(100_000, w)
		if err != nil {
			b.Fatal(err)
		}
		for _, v := range res.Interrupts {
			n += v
		}
	}
	b.ReportMetric(float64(n)/time.Since(start).Seconds(), "interrupts/s")
}

// BenchmarkSecond is the whole run of one simulated second on 4
// processors at the fastest timer rate (interval 1221): opening the HALs,
// making the machine, creating and starting a profile, setting the
// interval, running, closing — with the HALs in-process and as plugins.
func BenchmarkSecond(b *testing.B) {
	var inprocPerRun float64
	for _, tr := range []string{config.TransportInproc, config.TransportPlugin} {
		b.Run(tr, func(b *testing.B) {
			var host *halhost.Host
			if tr == config.TransportPlugin {
				host = plugins(b)
			} else {
				host = halhost.New(simtest.HALs(tr), halhost.Options{})
				b.Cleanup(host.Close)
			}
			var calls int64
			for b.Loop() {
				l := simtest.New(b, host, 4, 1, "apic", "pmu", "pebs")
				l.Profile(b, 0x10000, 0xC00, 4, nt.ProfileTime)
				l.SetInterval(b, nt.ProfileTime, 1221)
				if _, err := l.Sim.Run(1_000_000, fourThreads(l.P)); err != nil {
					b.Fatal(err)
				}
				for _, h := range l.HALs {
					h.Close() // counted: the run's last round trip per HAL
				}
				calls += l.Calls()
			}
			perRun := float64(b.Elapsed().Nanoseconds()) / float64(b.N)
			b.ReportMetric(float64(calls)/float64(b.N), "halcalls/run")
			if tr == config.TransportInproc {
				inprocPerRun = perRun
			} else if inprocPerRun > 0 {
				b.ReportMetric(perRun/inprocPerRun, "x-inproc")
			}
		})
	}
}
