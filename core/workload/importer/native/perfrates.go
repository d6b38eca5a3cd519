package native

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
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
		f, _ := pb.fn(s.pid, es[physicalEntry(es)].perfFrame, false)
		if f == nil {
			noFunc++
			continue
		}
		f.AddEvent(s.event, s.period)
	}
	if noPeriod > 0 {
		pb.m.Note("%d samples print no period, so no per-function rates were derived from them (perf script -F +period prints it)", noPeriod)
	}
	if noFunc > 0 {
		pb.m.Note("%d samples of other events than %s fell in functions no %s sample saw; they give no rate", noFunc, wev, wev)
	}
	set, clamped := pb.m.SetRates()
	if clamped > 0 {
		pb.m.Note("%d per-function rates were outside the model's ranges (few samples of an event) and were clamped", clamped)
	}
	if set == 0 {
		pb.m.Note("the events %s give no per-function rate (rates need instructions with cycles, cache-misses, cache-references or branches, or branch-misses with branches, in the same function)", eventList(events))
	}
}

// eventList names the events for a message.
func eventList(events map[string]bool) string {
	var out []string
	for e := range events {
		out = append(out, strconv.Quote(e))
	}
	slices.Sort(out)
	return fmt.Sprint(strings.Join(out, ", "))
}
