package luavm

import (
	"context"
	"fmt"
	"runtime"
	"runtime/metrics"
	"sync"
	"time"
)

// The memory watchdog.
//
// Go has one heap per process and no way to charge an allocation to a Lua
// state, so the watchdog judges the process: it samples the heap every
// watchInterval and, when the heap holds more than the budgets of the runs
// in progress added up (plus watchSlack for the process itself), it
// collects garbage once to be sure and then ends every run in progress
// with ErrMemoryBudget. One run alone (proflab run) is judged exactly by
// its budget. Runs side by side (proflab test -j, sweeps) share a pool:
// a run may use more than its own budget while the others use less, and
// when the pool overflows every run in progress stops, the one that grew
// it and the others alike (each message says so). Memory the run holds
// outside the Go heap (none today) is not seen.

// watchInterval is how often the heap is sampled.
const watchInterval = 10 * time.Millisecond

// watchSlack is the heap the process needs besides the runs' budgets.
const watchSlack = 64 << 20

// MemoryBudgetError is the cause of a run's context when the watchdog
// ended it.
type MemoryBudgetError struct {
	Limit int64 // the run's budget
	Heap  int64 // the process's heap when it was ended
	Runs  int   // runs in progress then
}

func (e *MemoryBudgetError) Error() string {
	msg := fmt.Sprintf("scenario exceeded its memory budget of %s (--memory)", FormatBytes(e.Limit))
	if e.Runs > 1 {
		msg += fmt.Sprintf(" (the process's heap reached %s for %d runs side by side, which share one pool of their budgets)", FormatBytes(e.Heap), e.Runs)
	}
	return msg
}

// watchdog is the process's one heap sampler.
type watchdog struct {
	mu      sync.Mutex
	runs    map[*watchedRun]struct{}
	running bool
}

// watchedRun is one run under the watchdog.
type watchedRun struct {
	limit  int64
	cancel context.CancelCauseFunc
}

var heapWatch = &watchdog{runs: map[*watchedRun]struct{}{}}

// WatchMemory puts work done outside a Lua state for a run (writing its
// outputs, a workload import) under the memory watchdog, with a budget
// of limit bytes (<= 0: none), in the pool of the runs in progress: when
// the heap outgrows the pool, cancel is called with a
// *MemoryBudgetError, as a run's context is. The work looks at its
// context and stops. The returned function takes it out again.
func WatchMemory(limit int64, cancel context.CancelCauseFunc) (stop func()) {
	return heapWatch.watch(limit, cancel)
}

// watch puts a run under the watchdog until the returned function is
// called. limit <= 0 leaves it unwatched.
func (w *watchdog) watch(limit int64, cancel context.CancelCauseFunc) (stop func()) {
	if limit <= 0 {
		return func() {}
	}
	r := &watchedRun{limit: limit, cancel: cancel}
	w.mu.Lock()
	w.runs[r] = struct{}{}
	if !w.running {
		w.running = true
		go w.loop()
	}
	w.mu.Unlock()
	return func() {
		w.mu.Lock()
		delete(w.runs, r)
		w.mu.Unlock()
	}
}

// loop samples the heap while runs are watched.
func (w *watchdog) loop() {
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	t := time.NewTicker(watchInterval)
	defer t.Stop()
	for range t.C {
		w.mu.Lock()
		if len(w.runs) == 0 {
			w.running = false
			w.mu.Unlock()
			return
		}
		pool := int64(watchSlack)
		for r := range w.runs {
			pool += r.limit
		}
		w.mu.Unlock()
		metrics.Read(sample)
		if int64(sample[0].Value.Uint64()) <= pool {
			continue
		}
		// Garbage counts until it is swept: collect once to judge the
		// live heap.
		runtime.GC()
		metrics.Read(sample)
		heap := int64(sample[0].Value.Uint64())
		if heap <= pool {
			continue
		}
		w.mu.Lock()
		for r := range w.runs {
			r.cancel(&MemoryBudgetError{Limit: r.limit, Heap: heap, Runs: len(w.runs)})
			delete(w.runs, r)
		}
		w.mu.Unlock()
	}
}
