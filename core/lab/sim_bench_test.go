package lab_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/proflab/proflab/core/config"
	"github.com/proflab/proflab/core/halhost"
	"github.com/proflab/proflab/core/input"
	"github.com/proflab/proflab/core/lab/labtest"
	"github.com/proflab/proflab/core/sim"
	"github.com/proflab/proflab/core/sweep"
	"github.com/proflab/proflab/core/workload"
	"github.com/proflab/proflab/core/workload/importer"
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
	h := halhost.New(labtest.HALs(config.TransportPlugin), halhost.Options{Search: &halhost.Search{PluginPath: pluginDir}})
	tb.Cleanup(h.Close)
	return h
}

func TestTimerThroughPlugins(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("starts plugin processes")
	}
	l := labtest.New(t, plugins(t), 4, 1)
	l.Profile(t, 0x10000, 0xC00, 10, nt.ProfileTime)
	l.SetInterval(t, nt.ProfileTime, 10000)
	res, err := l.Sim.Run(1_000_000, labtest.ThreeFuncs(l.P))
	if err != nil {
		t.Fatal(err)
	}
	if n := res.InterruptsByCPU[0]["ProfileTime"]; n < 990 || n > 1010 {
		t.Errorf("%d interrupts through the plugins, want 1000 ± 10", n)
	}
}

// fourThreads keeps every processor of a 4-processor machine busy.
func fourThreads(p *kernel.Process) *workload.Spec {
	s := labtest.ThreeFuncs(p)
	s.Processes[0].Threads = []workload.Thread{{CPU: 0}, {CPU: 1}, {CPU: 2}, {CPU: 3}}
	return s
}

// BenchmarkInstructions measures simulated instructions per second of
// wall time on one processor with no interrupts (segments and truth only).
func BenchmarkInstructions(b *testing.B) {
	l := labtest.Inproc(b, 1, 1)
	w := labtest.ThreeFuncs(l.P)
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
// wall time: ProfileTime at the fastest rate on 4 busy processors, each
// hitting a started profile. "isolated" makes segments long (10^9
// instructions) so that the per-interrupt cost stands alone;
// "isolated-counter" adds BenchmarkSecond's instruction counter (about
// 8192 overflows a second on each processor), so that both kinds of
// interrupt BenchmarkSecond delivers are measured alone.
func BenchmarkInterrupts(b *testing.B) {
	for _, c := range []struct {
		name    string
		seg     uint64
		counter bool
	}{{"workload", 0, false}, {"isolated", 1e9, false}, {"isolated-counter", 1e9, true}} {
		b.Run(c.name, func(b *testing.B) { benchInterrupts(b, c.seg, c.counter) })
	}
}

func benchInterrupts(b *testing.B, seg uint64, counter bool) {
	run := interruptsRun(b, seg, counter)
	var n uint64
	start := time.Now()
	cpu0, cpuKnown := cpuTime()
	for b.Loop() {
		n += run()
	}
	b.ReportMetric(float64(n)/time.Since(start).Seconds(), "interrupts/s")
	reportCPUPerInterrupt(b, cpu0, cpuKnown, n)
}

// interruptsRun makes BenchmarkInterrupts' machine (segments of seg
// instructions, 0 for the default; with counter, the instruction counter
// too) and returns one iteration of it: a run of 100 ms simulated, and the
// interrupts it delivered.
func interruptsRun(b *testing.B, seg uint64, counter bool) func() uint64 {
	l := labtest.Inproc(b, 4, 1)
	l.Profile(b, 0x10000, 0xC00, 4, nt.ProfileTime)
	l.SetInterval(b, nt.ProfileTime, 1221)
	if counter {
		l.Profile(b, 0x10000, 0xC00, 4, nt.ProfileTotalIssues)
		l.SetInterval(b, nt.ProfileTotalIssues, 3_000_000_000/8192)
	}
	w := fourThreads(l.P)
	w.SegmentInstructions = seg
	return func() uint64 {
		res, err := l.Sim.Run(100_000, w)
		if err != nil {
			b.Fatal(err)
		}
		var n uint64
		for _, v := range res.Interrupts {
			n += v
		}
		return n
	}
}

// reportCPUPerInterrupt reports the processor time the process used
// since cpu0 per interrupt delivered (cpu-ns/interrupt): on a shared
// machine wall time also counts the other processes', so
// BenchmarkSecond and BenchmarkInterrupts are compared in this.
func reportCPUPerInterrupt(b *testing.B, cpu0 int64, known bool, interrupts uint64) {
	if cpu1, ok := cpuTime(); ok && known && interrupts > 0 {
		b.ReportMetric(float64(cpu1-cpu0)/float64(interrupts), "cpu-ns/interrupt")
	}
}

// BenchmarkSecond is the whole run of one simulated second on 4
// processors: opening the HALs, making the machine, creating and
// starting the profiles, setting the intervals, running, closing — with
// the HALs in-process and as plugins (kept warm from run to run, as a
// sweep worker keeps them). Two loads: "inproc" and "plugin" have the
// timer at its fastest rate (interval 1221, 8192 Hz) plus an instruction
// counter overflowing about 8192 times a second on each processor;
// "inproc-default" and "plugin-default" have the timer alone at the
// kernel's default interval.
func BenchmarkSecond(b *testing.B) {
	inprocPerRun := map[bool]float64{}
	for _, load := range []struct {
		suffix string
		fast   bool
	}{{"", true}, {"-default", false}} {
		for _, tr := range []string{config.TransportInproc, config.TransportPlugin} {
			b.Run(tr+load.suffix, func(b *testing.B) {
				var host *halhost.Host
				if tr == config.TransportPlugin {
					host = plugins(b)
				} else {
					host = halhost.New(labtest.HALs(tr), halhost.Options{})
					b.Cleanup(host.Close)
				}
				var calls int64
				var interrupts uint64
				trips := host.RoundTrips()
				cpu0, cpuKnown := cpuTime()
				for b.Loop() {
					n, c := oneSecond(b, host, load.fast)
					interrupts += n
					calls += c
				}
				perRun := float64(b.Elapsed().Nanoseconds()) / float64(b.N)
				b.ReportMetric(float64(calls)/float64(b.N), "halcalls/run")
				if tr == config.TransportPlugin {
					b.ReportMetric(float64(host.RoundTrips()-trips)/float64(b.N), "roundtrips/run")
				}
				b.ReportMetric(float64(interrupts)/float64(b.N), "interrupts/run")
				b.ReportMetric(float64(interrupts)/b.Elapsed().Seconds(), "interrupts/s") // against BenchmarkInterrupts
				reportCPUPerInterrupt(b, cpu0, cpuKnown, interrupts)
				if tr == config.TransportInproc {
					inprocPerRun[load.fast] = perRun
				} else if ip := inprocPerRun[load.fast]; ip > 0 {
					b.ReportMetric(perRun/ip, "x-inproc")
					b.ReportMetric((perRun-ip)/1e6, "ms-over-inproc")
				}
			})
		}
	}
}

// oneSecond is one iteration of BenchmarkSecond: a machine of 4
// processors on host's HALs, its profiles started (with fast, the timer at
// 8192 Hz and the instruction counter too), one simulated second run and
// the machine closed. It returns the interrupts delivered and the HAL
// calls made.
func oneSecond(b *testing.B, host *halhost.Host, fast bool) (interrupts uint64, calls int64) {
	l := labtest.New(b, host, 4, 1, "apic", "pmu", "pebs")
	l.Profile(b, 0x10000, 0xC00, 4, nt.ProfileTime)
	if fast {
		l.SetInterval(b, nt.ProfileTime, 1221)
		l.Profile(b, 0x10000, 0xC00, 4, nt.ProfileTotalIssues)
		l.SetInterval(b, nt.ProfileTotalIssues, 3_000_000_000/8192)
	}
	res, err := l.Sim.Run(1_000_000, fourThreads(l.P))
	if err != nil {
		b.Fatal(err)
	}
	for _, n := range res.Interrupts {
		interrupts += n
	}
	halhost.CloseMachine(l.HALs) // counted: the run's last call per HAL
	return interrupts, l.Calls()
}

// BenchmarkSecondLarge is one (and ten) simulated seconds on 4 busy
// processors with the timer at its fastest rate (8192 Hz) and a profile
// in 16-byte buckets over the whole image, for the 3-function workload
// ("small"; "small-wide" under the large one's 4 MiB profile) and for a
// workload shaped like an imported real profile: 5,000 functions with
// hotspots, their own CPIs and cache-miss rates, and 30,000 stacks
// ("large", see labtest.Large; "large-cpi1" without CPIs or rates, as a
// pprof import has them). The large runs report their cost as a multiple
// of the small one's (x-small).
func BenchmarkSecondLarge(b *testing.B) {
	for _, secs := range []uint64{1, 10} {
		b.Run(fmt.Sprintf("%ds", secs), func(b *testing.B) { benchLarge(b, secs) })
	}
}

// benchLarge runs secs simulated seconds of the small and the large
// workload (BenchmarkSecondLarge).
func benchLarge(b *testing.B, secs uint64) {
	var small float64
	for _, load := range []string{"small", "small-wide", "large", "large-cpi1"} {
		b.Run(load, func(b *testing.B) {
			host := halhost.New(labtest.HALs(config.TransportInproc), halhost.Options{})
			b.Cleanup(host.Close)
			var interrupts uint64
			large := labtest.Large(nil, 5000, 30000, 1) // as a workload file holds it
			if load == "large-cpi1" {
				// as a pprof import has it: no CPI or rates of its own
				for i := range large.Images {
					for j := range large.Images[i].Functions {
						f := &large.Images[i].Functions[j]
						f.CPI, f.CacheMissRate = 0, 0
					}
				}
			}
			for b.Loop() {
				l := labtest.New(b, host, 4, 1, "apic", "pmu", "pebs")
				w := fourThreads(l.P)
				base, size := uint64(0x10000), uint64(0xC00)
				if load == "small-wide" {
					base, size = 0x400000, 0x400000 // the large load's profile
				}
				if strings.HasPrefix(load, "large") {
					w = large
					w.Processes[0].Name, w.Processes[0].Proc = l.P.Name(), l.P
					base, size = 0x400000, 0x400000
				}
				l.Profile(b, base, size, 4, nt.ProfileTime)
				l.SetInterval(b, nt.ProfileTime, 1221)
				res, err := l.Sim.Run(secs*1_000_000, w)
				if err != nil {
					b.Fatal(err)
				}
				for _, n := range res.Interrupts {
					interrupts += n
				}
				halhost.CloseMachine(l.HALs)
			}
			perRun := float64(b.Elapsed().Nanoseconds()) / float64(b.N)
			b.ReportMetric(float64(interrupts)/float64(b.N), "interrupts/run")
			if load == "small" {
				small = perRun
			} else if small > 0 && load != "small-wide" {
				b.ReportMetric(perRun/small, "x-small")
			}
		})
	}
}

// BenchmarkResolveLarge is the resolution alone of the large workload of
// BenchmarkSecondLarge (5,000 functions, 30,000 stacks): the part of a
// run that is proportional to the workload's size before any simulated
// time.
func BenchmarkResolveLarge(b *testing.B) {
	w := labtest.Large(nil, 5000, 30000, 1)
	for b.Loop() {
		if _, err := w.Resolve(sim.Target(kernel.X64)); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRunLoop is a loop of 20 runs over one workload file, as a
// scenario looping over m:run or a sweep's worker makes them: each run a
// fresh 4-processor machine with the timer at its fastest rate and a
// profile in 16-byte buckets, the file read through one importer.Cache
// (parsed once per loop, as in a fresh process). "large" is
// BenchmarkSecondLarge's large workload (5,000 functions, 30,000
// stacks) written as a workload file, "small" the 3-function one. "0s"
// runs no simulated time: its cost is the fixed cost of a run; "1s" runs
// one simulated second. "uncached" prepares the workload at every run
// (Sim.RunContext), "cached" keeps it in one sim.Cache per loop
// (Sim.RunCached, as m:run does). ms/run is the loop's wall time per
// run, ms/later-run that of the 19 runs after the first, cpu-ms/run and
// cpu-ms/later-run the processor time the process used (the garbage
// collector's included; wall time on a shared machine also counts other
// processes').
func BenchmarkRunLoop(b *testing.B) {
	const runs = 20
	dir := b.TempDir()
	files := map[string]string{}
	for name, spec := range map[string]*workload.Spec{"small": labtest.ThreeFuncs(nil), "large": labtest.Large(nil, 5000, 30000, 1)} {
		spec.CreateProcesses = true // as an imported workload says
		text, err := workload.Encode(spec)
		if err != nil {
			b.Fatal(err)
		}
		files[name] = filepath.Join(dir, name+".toml")
		if err := os.WriteFile(files[name], text, 0o644); err != nil {
			b.Fatal(err)
		}
	}
	for _, load := range []string{"small", "large"} {
		for _, secs := range []uint64{0, 1} {
			for _, mode := range []string{"uncached", "cached"} {
				b.Run(fmt.Sprintf("%s/%ds/%s", load, secs, mode), func(b *testing.B) {
					benchRunLoop(b, files[load], load == "large", secs, mode == "cached", runs)
				})
			}
		}
	}
}

// benchRunLoop is BenchmarkRunLoop's loop of runs over file.
func benchRunLoop(b *testing.B, file string, large bool, secs uint64, cached bool, runs int) {
	host := halhost.New(labtest.HALs(config.TransportInproc), halhost.Options{})
	b.Cleanup(host.Close)
	base, size := uint64(0x10000), uint64(0xC00)
	if large {
		base, size = 0x400000, 0x400000
	}
	var later time.Duration
	var laterCPU int64
	cpu0, cpuKnown := cpuTime()
	for b.Loop() {
		files := importer.NewCache(256 << 20) // a process's: the loop's first run parses the file
		var prepared *sim.Cache
		if cached {
			prepared = sim.NewCache(256 << 20)
		}
		for i := range runs {
			start, startCPU := time.Now(), int64(0)
			if i > 0 {
				startCPU, _ = cpuTime()
			}
			l := labtest.New(b, host, 4, 1, "apic", "pmu", "pebs")
			l.Profile(b, base, size, 4, nt.ProfileTime)
			l.SetInterval(b, nt.ProfileTime, 1221)
			ld, err := files.Load(file, "x64")
			if err != nil {
				b.Fatal(err)
			}
			if _, err := l.Sim.RunCached(context.Background(), prepared, ld.Key, secs*1_000_000, ld.Spec); err != nil {
				b.Fatal(err)
			}
			l.Close()
			if i > 0 {
				later += time.Since(start)
				endCPU, _ := cpuTime()
				laterCPU += endCPU - startCPU
			}
		}
	}
	n := float64(b.N * runs)
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/n/1e6, "ms/run")
	b.ReportMetric(float64(later.Nanoseconds())/float64(b.N*(runs-1))/1e6, "ms/later-run")
	if cpu1, ok := cpuTime(); ok && cpuKnown {
		b.ReportMetric(float64(cpu1-cpu0)/n/1e6, "cpu-ms/run")
		b.ReportMetric(float64(laterCPU)/float64(b.N*(runs-1))/1e6, "cpu-ms/later-run")
	}
}

// manyProcesses is an imported-style workload (create_processes) of n
// processes with one thread each, all running one function.
func manyProcesses(n int) *workload.Spec {
	s := &workload.Spec{Name: "many", CreateProcesses: true, Images: []workload.Image{{
		Name: "app.exe", Base: 0x400000,
		Functions: []workload.Function{{Name: "f", Offset: 0x1000, Size: 0x100, Weight: 1}},
	}}}
	for i := range n {
		s.Processes = append(s.Processes, workload.Process{Name: fmt.Sprintf("p%d", i), Threads: []workload.Thread{{}}})
	}
	return s
}

// BenchmarkManyProcesses is a 1 ms run of a workload of 1,000 and 10,000
// processes that the run creates on a fresh machine: a workload of n
// processes took n² (each looked for its name among all the machine's
// processes, copied and sorted).
func BenchmarkManyProcesses(b *testing.B) {
	for _, n := range []int{1000, 10000, 100000} {
		w := manyProcesses(n)
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			for b.Loop() {
				b.StopTimer()
				l := labtest.Inproc(b, 2, 1)
				b.StartTimer()
				if _, err := l.Sim.Run(1000, w); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkSweepLarge is issue 37's sweep over a large imported profile,
// one op a run of a sweep on one worker with the HALs in proflab's
// process: the scenario (sweepLargeScenario) profiles the workload's
// image and runs 1 ms of simulated time over a workload file, "small"
// the 3-function workload, "large" one shaped like an imported real
// profile (1,900 functions, 30,000 stacks: labtest.Large, about 9 MB of
// TOML), written input.RecentChange before the runs. A sweep of one run
// first fills the process's caches, so what is measured is the marginal
// run (the workload already parsed once, as in any sweep after its first
// run); x-small is the large run's cost as a multiple of the small
// one's, measured in the same benchmark run, and cpu-x-small that of the
// processor time the process used (the garbage collector's included;
// wall time on a shared machine also counts other processes'). The
// scenario reads neither m:run's truth nor its stacks, as a sweep's
// scenario often does not.
func BenchmarkSweepLarge(b *testing.B) {
	dir := b.TempDir()
	scen := filepath.Join(dir, "large.lua")
	cfg := filepath.Join(dir, "inproc.toml")
	writes := map[string]string{scen: sweepLargeScenario, cfg: "[hal.apic]\ntransport = \"inproc\"\n[hal.pmu]\ntransport = \"inproc\"\n[hal.pebs]\ntransport = \"inproc\"\n"}
	for name, spec := range map[string]*workload.Spec{"small": labtest.ThreeFuncs(nil), "large": labtest.Large(nil, 1900, 30000, 1)} {
		spec.CreateProcesses = true // as an imported workload says
		text, err := workload.Encode(spec)
		if err != nil {
			b.Fatal(err)
		}
		writes[filepath.Join(dir, name+".toml")] = string(text)
	}
	for path, text := range writes {
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	// a workload file changed less than input.RecentChange ago is read
	// again at every run (its timestamps cannot yet tell a later write)
	time.Sleep(input.RecentChange)
	var small, smallCPU float64
	for _, load := range []struct{ name, base, size string }{{"small", "0x10000", "0xC00"}, {"large", "0x400000", "0x400000"}} {
		b.Run(load.name, func(b *testing.B) {
			sweepOf := func(runs int) *sweep.Plan {
				path := filepath.Join(dir, load.name+"-sweep.toml")
				text := fmt.Sprintf("scenario = %q\nconfig_file = %q\nrepeats = %d\n[set]\nworkload = %q\nbase = %s\nsize = %s\n",
					scen, cfg, runs, load.name+".toml", load.base, load.size)
				if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
					b.Fatal(err)
				}
				f, err := sweep.ReadFile(path)
				if err != nil {
					b.Fatal(err)
				}
				p, err := sweep.Expand(f, nil)
				if err != nil {
					b.Fatal(err)
				}
				return p
			}
			outs := b.TempDir() // b.Run calls this function once per b.N tried
			exec := func(p *sweep.Plan, out string, runs int) {
				sum, err := sweep.Execute(context.Background(), p, sweep.Options{Out: filepath.Join(outs, out), Jobs: 1})
				if err != nil || sum.OK != runs {
					b.Fatalf("%v: %v", sum, err)
				}
			}
			exec(sweepOf(1), load.name+"-warm", 1) // the caches filled, as by a sweep's first run
			p := sweepOf(b.N)
			b.ResetTimer()
			cpu0, cpuKnown := cpuTime()
			exec(p, fmt.Sprintf("%s-%d", load.name, b.N), b.N)
			cpu1, _ := cpuTime()
			b.StopTimer()
			perRun := float64(b.Elapsed().Nanoseconds()) / float64(b.N)
			cpuPerRun := float64(cpu1-cpu0) / float64(b.N)
			b.ReportMetric(perRun/1e6, "ms/run")
			if cpuKnown {
				b.ReportMetric(cpuPerRun/1e6, "cpu-ms/run")
			}
			if load.name == "small" {
				small, smallCPU = perRun, cpuPerRun
			} else if small > 0 {
				b.ReportMetric(perRun/small, "x-small")
				if cpuKnown && smallCPU > 0 {
					b.ReportMetric(cpuPerRun/smallCPU, "cpu-x-small")
				}
			}
		})
	}
}

// sweepLargeScenario is BenchmarkSweepLarge's run: a 4-processor machine,
// a ProfileTime profile over lab.params.base and size at the fastest
// interval, 1 ms over the workload file lab.params.workload, its
// interrupts recorded.
const sweepLargeScenario = `local lab, P = require "proflab", require "profile"
local m = lab.machine{}
local p = m:process{ privileges = { "SeSystemProfilePrivilege" } }
local pr = P.create_and_start(p, { process = false, base = lab.params.base, size = lab.params.size, bucket = 16 })
p:NtSetIntervalProfile(1221, lab.ProfileTime)
local res = m:run{ duration_us = 1000, workload = lab.params.workload }
lab.record{ interrupts = res.interrupts.ProfileTime or 0, samples = P.total(pr) }
`
