package sim

import "sync"

// This file is the reuse of a run's large scratch arrays: what a run
// counts per function or per stack is turned into its result by finish
// and then needed no more, so the next run (of any Sim in the process) takes
// the arrays over instead of allocating and the collector collecting
// megabytes per run of an imported workload.

// slicePool keeps slices of T for reuse: get is a slice of n zero
// values, put hands one back once nothing reads it.
type slicePool[T any] struct{ p sync.Pool }

// get is a slice of n zero values, one put back if it is large enough.
func (sp *slicePool[T]) get(n int) []T {
	if p, ok := sp.p.Get().(*[]T); ok && cap(*p) >= n {
		s := (*p)[:n]
		clear(s)
		return s
	}
	return make([]T, n)
}

// put hands s back: nothing may read or write it after.
func (sp *slicePool[T]) put(s []T) {
	if cap(s) > 0 {
		sp.p.Put(&s)
	}
}

var (
	tallyPool slicePool[tally]  // runs' per-processor truth (runState.tallies)
	hitsPool  slicePool[uint64] // runs' interrupts per stack (runState.stackHits)
	drawnPool slicePool[uint64] // runs' per-processor counts of drawn segments (cpuRun.drawn)
)

// release hands the run's scratch arrays back to their pools: called
// once finish has made the result from them.
func (rs *runState) release() {
	tallyPool.put(rs.tallyArena)
	rs.tallyArena, rs.tallies = nil, nil
	for k, h := range rs.stackHits {
		hitsPool.put(h)
		delete(rs.stackHits, k)
	}
	rs.lastHits = nil
	for _, c := range rs.cpus {
		drawnPool.put(c.drawn) // all zero: every processor's thread was retired
		c.drawn = nil
	}
}
