package importer

import (
	"github.com/proflab/proflab/core/workload"
)

// The perf events that give per-function rates (names as eventName
// normalises them).
const (
	evCycles       = "cycles"
	evInstructions = "instructions"
	evCacheMisses  = "cache-misses"
	evCacheRefs    = "cache-references"
	evBranches     = "branches"
	evBranchMisses = "branch-misses"
)

// AddEvent adds n to the function's count of event ev (one of the
// event names above): what its samples of that event weigh.
func (f *fn) AddEvent(ev string, n float64) {
	if f.events == nil {
		f.events = map[string]float64{}
	}
	f.events[ev] += n
}

// SetEvents sets the function's event counts (by event name).
func (f *fn) SetEvents(events map[string]float64) { f.events = events }

// SetRates sets every function's rates from its event counts (see
// setRates) and says how many it set and clamped.
func (m *model) SetRates() (set, clamped int) {
	for _, img := range m.images {
		for _, f := range img.funcs {
			s, c := f.setRates()
			set += s
			clamped += c
		}
	}
	return set, clamped
}

// setRates fills f's rates from its event sums and says how many it set
// and clamped.
func (f *fn) setRates() (set, clamped int) {
	ev := f.events
	ratio := func(num, den string, lo, hi float64, dst *float64) {
		if ev[num] <= 0 || ev[den] <= 0 {
			return
		}
		v := ev[num] / ev[den]
		if v < lo || v > hi {
			clamped++
			v = min(hi, max(lo, v))
		}
		*dst = v
		set++
	}
	ratio(evCycles, evInstructions, workload.MinCPI, 1000, &f.cpi)
	ratio(evCacheMisses, evInstructions, 0, 1, &f.cacheMiss)
	ratio(evCacheRefs, evInstructions, 0, 1, &f.cacheRef)
	ratio(evBranches, evInstructions, 0, 1, &f.branch)
	ratio(evBranchMisses, evBranches, 0, 1, &f.mispredict)
	return set, clamped
}

// rates copies f's rates into wf.
func (f *fn) rates(wf *workload.Function) {
	wf.CPI, wf.CacheMissRate, wf.CacheRefRate = f.cpi, f.cacheMiss, f.cacheRef
	wf.BranchRate, wf.MispredictRate = f.branch, f.mispredict
}
