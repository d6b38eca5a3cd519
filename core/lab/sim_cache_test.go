package lab_test

import (
	"context"
	"fmt"
	"reflect"
	"sync"
	"testing"

	"github.com/proflab/proflab/core/lab/labtest"
	"github.com/proflab/proflab/core/sim"
	"github.com/proflab/proflab/core/workload"
	"github.com/proflab/proflab/kernel"
	"github.com/proflab/proflab/kernel/nt"
)

// cachedLoad is a workload shaped like an imported profile, as a
// workload file holds it (no process handle): 300 functions and 3,000
// stacks run by four threads; cpi1 leaves out the functions' CPIs and
// rates (one class of thousands of stacked members, as a pprof import
// has), otherwise every function is a class of its own.
func cachedLoad(cpi1 bool) *workload.Spec {
	w := labtest.Large(nil, 300, 3000, 7)
	if cpi1 {
		for i := range w.Images {
			for j := range w.Images[i].Functions {
				f := &w.Images[i].Functions[j]
				f.CPI, f.CacheMissRate = 0, 0
			}
		}
	}
	return w
}

// cachedLab is a 4-processor machine (seed 3) profiling the timer at its
// fastest rate over the workload's image and, with counter, the
// instructions retired too.
func cachedLab(t *testing.T, counter bool) *labtest.Lab {
	t.Helper()
	l := labtest.Inproc(t, 4, 3, "apic", "pmu", "pebs")
	l.Profile(t, 0x400000, 0x100000, 4, nt.ProfileTime)
	l.SetInterval(t, nt.ProfileTime, 1221)
	if counter {
		l.Profile(t, 0x400000, 0x100000, 4, nt.ProfileTotalIssues)
		l.SetInterval(t, nt.ProfileTotalIssues, 1_000_000)
	}
	return l
}

// runCached runs w for 200 ms on a fresh cachedLab, through c under key
// (nil, "": uncached).
func runCached(t *testing.T, c *sim.Cache, key string, w *workload.Spec, counter bool) *sim.Result {
	t.Helper()
	l := cachedLab(t, counter)
	res, err := l.Sim.RunCached(context.Background(), c, key, 200_000, w)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// A run whose workload comes from the cache gives the same result, bit
// for bit, as one that prepares it: the first run (cold), the runs after
// it (warm), with counters enabled or not (class sets of two lists of
// events kept side by side), in any order.
func TestCachedRunsAreTheSame(t *testing.T) {
	for _, cpi1 := range []bool{false, true} {
		t.Run(fmt.Sprintf("cpi1=%v", cpi1), func(t *testing.T) {
			t.Parallel()
			w := cachedLoad(cpi1)
			ref := map[bool]*sim.Result{}
			for _, counter := range []bool{false, true} {
				ref[counter] = runCached(t, nil, "", w, counter)
			}
			c := sim.NewCache(1 << 30)
			for i, counter := range []bool{false, false, true, false, true, true} {
				got := runCached(t, c, "w", w, counter)
				got.Stacks() // made on first call: compared with the rest
				ref[counter].Stacks()
				if !reflect.DeepEqual(got, ref[counter]) {
					t.Errorf("run %d (counter %v) through the cache differs from the uncached run: %s", i+1, counter, firstDifference(got, ref[counter]))
				}
			}
			if c.Len() != 1 {
				t.Errorf("the cache keeps %d workloads, want 1", c.Len())
			}
		})
	}
}

// firstDifference names the first field of a result that differs (""
// when none does), its stacks (Result.Stacks) made on both.
func firstDifference(a, b *sim.Result) string {
	if !reflect.DeepEqual(a.Stacks(), b.Stacks()) {
		return "Stacks"
	}
	va, vb := reflect.ValueOf(a).Elem(), reflect.ValueOf(b).Elem()
	for i := range va.NumField() {
		f := va.Type().Field(i)
		if f.IsExported() && !reflect.DeepEqual(va.Field(i).Interface(), vb.Field(i).Interface()) {
			return f.Name
		}
	}
	if !reflect.DeepEqual(a, b) {
		return "an unexported field"
	}
	return ""
}

// Runs on concurrent workers share one prepared workload (run with
// -race: make race): each gives the result a run of its own gives.
func TestCacheSharedByConcurrentRuns(t *testing.T) {
	w := cachedLoad(false)
	want := runCached(t, nil, "", w, true)
	c := sim.NewCache(1 << 30)
	const workers, runs = 4, 2
	labs := make([]*labtest.Lab, workers*runs)
	for i := range labs {
		labs[i] = cachedLab(t, true)
	}
	results := make([]*sim.Result, len(labs))
	var wg sync.WaitGroup
	for k := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range runs {
				i := k*runs + j
				res, err := labs[i].Sim.RunCached(context.Background(), c, "w", 200_000, w)
				if err != nil {
					t.Error(err)
					return
				}
				results[i] = res
			}
		}()
	}
	wg.Wait()
	for i, res := range results {
		if res != nil && firstDifference(res, want) != "" {
			t.Errorf("concurrent run %d differs from a run of its own: %s", i+1, firstDifference(res, want))
		}
	}
}

// A run's process handles (Process.Proc, the processes a run made on its
// machine) are the run's: the cache keeps the workload without them, and
// the next run, on another machine, runs in the process its own workload
// names.
func TestCacheKeepsNoRunsProcesses(t *testing.T) {
	c := sim.NewCache(1 << 30)
	bind := func(p *kernel.Process) *workload.Spec {
		w := *cachedLoad(false)
		w.Processes = append([]workload.Process(nil), w.Processes...)
		w.Processes[0].Proc = p
		return &w
	}
	first := cachedLab(t, false)
	if _, err := first.Sim.RunCached(context.Background(), c, "w", 100_000, bind(first.P)); err != nil {
		t.Fatal(err)
	}
	r, err := c.Resolve("w", cachedLoad(false), sim.Target(kernel.X64))
	if err != nil {
		t.Fatal(err)
	}
	if p := r.Spec.Processes[0].Proc; p != nil {
		t.Fatalf("the cache keeps the first run's process %v", p)
	}
	// a second machine, where the workload names a second process of the
	// same name: the run must take it, not the first machine's process
	// nor the first of that name
	second := cachedLab(t, false)
	other := second.M.NewProcess(second.P.Name(), kernel.Token{Integrity: kernel.IntegrityMedium})
	res, err := second.Sim.RunCached(context.Background(), c, "w", 100_000, bind(other))
	if err != nil {
		t.Fatal(err)
	}
	if len(res.StackHits) == 0 {
		t.Fatal("no interrupt hit a stack")
	}
	for k := range res.StackHits {
		if k.Process != other.ID() {
			t.Fatalf("a hit in process %d, want the run's process %d", k.Process, other.ID())
		}
	}
	// a handle whose name is not the workload's is prepared for its run
	// alone (the resolution names its functions after it)
	renamed := bind(second.P)
	renamed.Processes[0].Name = "elsewhere"
	if _, err := second.Sim.RunCached(context.Background(), c, "renamed", 100_000, renamed); err != nil {
		t.Fatal(err)
	}
	if c.Len() != 1 {
		t.Errorf("the cache keeps %d workloads, want 1 (a renamed handle is not kept)", c.Len())
	}
}

// The cache keeps at most 8 workloads and its bound of memory, a new key
// (a workload file's new content) is never answered with another's
// workload, and a long run of runs over one workload, under changing
// counters, does not grow it.
func TestCacheBounds(t *testing.T) {
	small := func(i int) *workload.Spec {
		w := labtest.ThreeFuncs(nil)
		w.Processes[0].Functions[0].Name = fmt.Sprintf("alpha%d", i)
		return w
	}
	c := sim.NewCache(1 << 30)
	for i := range 10 {
		res := runCached(t, c, fmt.Sprint(i), small(i), false)
		if _, ok := res.Truth(fmt.Sprintf("alpha%d", i)); !ok {
			t.Fatalf("run %d under a new key ran another workload: %+v", i, res.Functions[0].Name)
		}
	}
	if c.Len() != 8 {
		t.Errorf("the cache keeps %d workloads, want 8", c.Len())
	}

	w := cachedLoad(true)
	want := runCached(t, nil, "", w, false)
	tiny := sim.NewCache(1)
	if got := runCached(t, tiny, "w", w, false); !reflect.DeepEqual(got, want) {
		t.Errorf("a workload bigger than the cache runs differently: %s", firstDifference(got, want))
	}
	if tiny.Len() != 0 || tiny.Bytes() != 0 {
		t.Errorf("a cache of 1 byte keeps %d workloads of %d bytes", tiny.Len(), tiny.Bytes())
	}

	c = sim.NewCache(1 << 30)
	var after int64
	for i := range 12 {
		runCached(t, c, "w", w, i%2 == 1)
		if i == 1 {
			after = c.Bytes()
		}
	}
	if c.Len() != 1 || c.Bytes() != after || after <= 0 {
		t.Errorf("after 12 runs the cache keeps %d workloads of %d bytes; after 2 it kept %d bytes", c.Len(), c.Bytes(), after)
	}
}
