package profmodel

import (
	"github.com/proflab/proflab/core/workload"
)

// The events whose counts give a function's rates (AddEvent's names:
// perf's, as it normalises them; the other formats map their events to
// these).
const (
	EventCycles          = "cycles"
	EventInstructions    = "instructions"
	EventCacheMisses     = "cache-misses"
	EventCacheReferences = "cache-references"
	EventBranches        = "branches"
	EventBranchMisses    = "branch-misses"
)

// AddEvent adds n to the function's count of event ev (EventCycles…):
// what its samples of that event weigh (their periods, or their number
// when every event is sampled at one rate).
func (f *Func) AddEvent(ev string, n float64) {
	if f.events == nil {
		f.events = map[string]float64{}
	}
	f.events[ev] += n
}

// SetEvents sets the function's event counts (by event name, as
// AddEvent's), replacing those it had.
func (f *Func) SetEvents(events map[string]float64) { f.events = events }

// SetRates sets every function's rates from its event counts (see
// Func.SetRates) and says how many it set and clamped.
func (m *Model) SetRates() (set, clamped int) {
	for _, img := range m.images {
		for _, f := range img.funcs {
			s, c := f.SetRates()
			set += s
			clamped += c
		}
	}
	return set, clamped
}

// SetRates sets the function's rates from its event counts, where both
// events of a ratio were counted: CPI = cycles/instructions,
// cache_miss_rate = cache-misses/instructions, cache_ref_rate =
// cache-references/instructions, branch_rate = branches/instructions,
// mispredict_rate = branch-misses/branches. A value outside the
// workload's range is clamped to it. It says how many rates it set and
// how many of those it clamped.
func (f *Func) SetRates() (set, clamped int) {
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
	ratio(EventCycles, EventInstructions, workload.MinCPI, 1000, &f.cpi)
	ratio(EventCacheMisses, EventInstructions, 0, 1, &f.cacheMiss)
	ratio(EventCacheReferences, EventInstructions, 0, 1, &f.cacheRef)
	ratio(EventBranches, EventInstructions, 0, 1, &f.branch)
	ratio(EventBranchMisses, EventBranches, 0, 1, &f.mispredict)
	return set, clamped
}

// rates copies f's rates into wf.
func (f *Func) rates(wf *workload.Function) {
	wf.CPI, wf.CacheMissRate, wf.CacheRefRate = f.cpi, f.cacheMiss, f.cacheRef
	wf.BranchRate, wf.MispredictRate = f.branch, f.mispredict
}
