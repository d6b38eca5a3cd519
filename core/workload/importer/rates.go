package importer

import (
	"fmt"
	"strconv"
	"strings"

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

// rates sums, per function whose code ran (the leaf, or the function it
// is inlined into), the periods of every event's samples
// (an estimate of the events counted in the function) and sets the
// functions' rates where the events allow: CPI = cycles/instructions,
// cache_miss_rate = cache-misses/instructions, cache_ref_rate =
// cache-references/instructions, branch_rate = branches/instructions,
// mispredict_rate = branch-misses/branches. Values outside the model's
// ranges are clamped, and the notes count them.
func (pb *perfBuilder) rates(samples []perfSample, wev string) {
	events := map[string]bool{}
	for _, s := range samples {
		events[s.event] = true
	}
	if len(events) < 2 {
		return
	}
	var noPeriod, noFunc int64
	for i := range samples {
		s := &samples[i]
		if len(s.frames) == 0 {
			continue
		}
		if !s.hasPeriod {
			noPeriod++
			continue
		}
		es, _ := pb.entries(s.frames)
		f := pb.fn(s.pid, es[physicalEntry(es)].perfFrame, false)
		if f == nil {
			noFunc++
			continue
		}
		if f.events == nil {
			f.events = map[string]float64{}
		}
		f.events[s.event] += s.period
	}
	if noPeriod > 0 {
		pb.m.note("%d samples print no period, so no per-function rates were derived from them (perf script -F +period prints it)", noPeriod)
	}
	if noFunc > 0 {
		pb.m.note("%d samples of other events than %s fell in functions no %s sample saw; they give no rate", noFunc, wev, wev)
	}
	var set, clamped int
	for _, img := range pb.m.images {
		for _, f := range img.funcs {
			s, c := f.setRates()
			set += s
			clamped += c
		}
	}
	if clamped > 0 {
		pb.m.note("%d per-function rates were outside the model's ranges (few samples of an event) and were clamped", clamped)
	}
	if set == 0 {
		pb.m.note("the events %s give no per-function rate (rates need instructions with cycles, cache-misses, cache-references or branches, or branch-misses with branches, in the same function)", eventList(events))
	}
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

// eventList names the events for a message.
func eventList(events map[string]bool) string {
	var out []string
	for e := range events {
		out = append(out, strconv.Quote(e))
	}
	return fmt.Sprint(strings.Join(sortStrings(out), ", "))
}
