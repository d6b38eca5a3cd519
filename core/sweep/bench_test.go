package sweep_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"testing"
	"time"

	lua "github.com/yuin/gopher-lua"

	"github.com/proflab/proflab/core/luavm"
	"github.com/proflab/proflab/core/sweep"
)

// benchSweep writes a sweep of the one-second scenario through the
// shipped plugins (found through PROFLAB_PLUGIN_PATH, as make test sets
// it) and returns its plan.
func benchSweep(b *testing.B, dir, body string) *sweep.Plan {
	b.Helper()
	if _, err := exec.LookPath("proflab-hal-apic"); err != nil && os.Getenv("PROFLAB_PLUGIN_PATH") == "" {
		b.Skip("the plugins are not built: make build, then PROFLAB_PLUGIN_PATH=$PWD/bin go test -bench Sweep ./core/sweep")
	}
	scen, _ := filepath.Abs(filepath.Join("testdata", "onesecond.lua"))
	path := filepath.Join(dir, "bench.toml")
	if err := os.WriteFile(path, []byte("scenario = "+quote(scen)+"\n"+body), 0o644); err != nil {
		b.Fatal(err)
	}
	return plan(b, path)
}

// BenchmarkSweep1000 is the figure: a 1000-run sweep of one
// simulated second on 4 processors at the default rates, on 2 workers
// with plugin processes. One op is the whole sweep.
func BenchmarkSweep1000(b *testing.B) {
	dir := b.TempDir()
	p := benchSweep(b, dir, "repeats = 1000\n")
	b.ResetTimer()
	for i := range b.N {
		out := filepath.Join(dir, fmt.Sprint("out", i))
		sum, err := sweep.Execute(context.Background(), p, sweep.Options{Out: out, Jobs: 2})
		if err != nil || sum.OK != 1000 {
			b.Fatalf("%v: %v", sum, err)
		}
	}
}

// BenchmarkSweepRun measures one run (one op) of a sweep on one worker:
// "one-second" is the whole run, "overhead" the same run with no
// simulated time — machine and Lua state creation, HAL plugin round
// trips, the result line — so the engine's share is the difference;
// "overhead-inproc" is the overhead with the HALs in proflab's process,
// so the plugin round trips' share is the difference with "overhead".
func BenchmarkSweepRun(b *testing.B) {
	inproc, _ := filepath.Abs(filepath.Join("testdata", "inproc.toml"))
	for _, c := range []struct{ name, set string }{
		{"one-second", ""},
		{"overhead", "[set]\nduration_us = 0\n"},
		{"overhead-inproc", "config_file = " + quote(inproc) + "\n[set]\nduration_us = 0\n"},
	} {
		b.Run(c.name, func(b *testing.B) {
			dir := b.TempDir()
			p := benchSweep(b, dir, fmt.Sprintf("repeats = %d\n%s", b.N, c.set))
			b.ResetTimer()
			sum, err := sweep.Execute(context.Background(), p, sweep.Options{Out: filepath.Join(dir, "out"), Jobs: 1})
			b.StopTimer()
			if err != nil || sum.OK != b.N {
				b.Fatalf("%v: %v", sum, err)
			}
		})
	}
}

// BenchmarkSweepOverhead measures a trivial run (one lab.record, no
// machine) of a sweep on one worker, one op a run, next to the floor it
// is judged against: a fresh gopher-lua state with the libraries a
// scenario gets (base, table, string, math, coroutine) running a two-line
// script. The trivial run is meant to stay within 1.5× of the floor
// (issue 37). "sandbox" is the sandboxed state alone (luavm.New) running
// the floor's script: the sandbox's share of the trivial run.
func BenchmarkSweepOverhead(b *testing.B) {
	b.Run("trivial", func(b *testing.B) {
		dir := b.TempDir()
		p := trivialSweep(b, dir, b.N)
		b.ReportAllocs()
		b.ResetTimer()
		sum, err := sweep.Execute(context.Background(), p, sweep.Options{Out: filepath.Join(dir, "out"), Jobs: 1})
		b.StopTimer()
		if err != nil || sum.OK != b.N {
			b.Fatalf("%v: %v", sum, err)
		}
	})
	b.Run("sandbox", func(b *testing.B) {
		b.ReportAllocs()
		for range b.N {
			vm := luavm.New(luavm.Config{Seed: 1})
			if err := vm.Exec("floor.lua", []byte(floorScenario)); err != nil {
				b.Fatal(err.Detail())
			}
			vm.Close()
		}
	})
	b.Run("interpreter-floor", func(b *testing.B) {
		b.ReportAllocs()
		for range b.N {
			L := lua.NewState(lua.Options{SkipOpenLibs: true})
			for _, open := range []lua.LGFunction{lua.OpenBase, lua.OpenTable, lua.OpenString, lua.OpenMath, lua.OpenCoroutine} {
				L.Push(L.NewFunction(open))
				L.Call(0, 0)
			}
			if err := L.DoString(floorScenario); err != nil {
				b.Fatal(err)
			}
			L.Close()
		}
	})
}

// BenchmarkSweepMemory reports the peak Go heap (peak-heap-MB) of a
// trivial sweep of 6,000 and of 60,000 runs on 2 workers, one op a whole
// sweep: what a sweep keeps per run shows as the difference.
func BenchmarkSweepMemory(b *testing.B) {
	for _, runs := range []int{6000, 60000} {
		b.Run(fmt.Sprint(runs), func(b *testing.B) {
			dir := b.TempDir()
			p := trivialSweep(b, dir, runs)
			var peak uint64
			for i := range b.N {
				runtime.GC()
				stop := sampleHeap(&peak)
				sum, err := sweep.Execute(context.Background(), p, sweep.Options{Out: filepath.Join(dir, fmt.Sprint("out", i)), Jobs: 2})
				stop()
				if err != nil || sum.OK != runs {
					b.Fatalf("%v: %v", sum, err)
				}
			}
			b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MB")
		})
	}
}

// sampleHeap records the largest live heap seen every millisecond into
// peak until the returned function is called.
func sampleHeap(peak *uint64) (stop func()) {
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	done, finished := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(finished)
		t := time.NewTicker(time.Millisecond)
		defer t.Stop()
		for {
			metrics.Read(sample)
			*peak = max(*peak, sample[0].Value.Uint64())
			select {
			case <-done:
				return
			case <-t.C:
			}
		}
	}()
	return func() { close(done); <-finished }
}

// trivialSweep writes a sweep of runs trivial runs in dir.
func trivialSweep(b *testing.B, dir string, runs int) *sweep.Plan {
	b.Helper()
	scen := filepath.Join(dir, "trivial.lua")
	if err := os.WriteFile(scen, []byte(trivialScenario), 0o644); err != nil {
		b.Fatal(err)
	}
	path := filepath.Join(dir, "trivial.toml")
	inproc, _ := filepath.Abs(filepath.Join("testdata", "inproc.toml"))
	if err := os.WriteFile(path, []byte(fmt.Sprintf("scenario = %s\nconfig_file = %s\nrepeats = %d\n", quote(scen), quote(inproc), runs)), 0o644); err != nil {
		b.Fatal(err)
	}
	return plan(b, path)
}

// trivialScenario is the trivial run; floorScenario the same two lines
// without the proflab module.
const (
	trivialScenario = "local lab = require \"proflab\"\nlab.record{ x = 1 }\n"
	floorScenario   = "local t = {}\nt.x = 1\n"
)
