package etlprof

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/proflab/proflab/core/workload/importer/profmodel"
)

// profileTime is the timer's KPROFILE_SOURCE: SampledProfile events, at an
// interval in 100 ns units.
const profileTime = 0

// sourceEvents are the KPROFILE_SOURCE values (a numbering Windows never
// changed) whose counts are events the workload's rates use, with the
// event's name (profmodel's, as perf names it) and the source's name as
// the SampledProfileInterval events spell it (without "Profile").
var sourceEvents = map[uint16]struct{ name, event string }{
	0x02: {"TotalIssues", profmodel.EventInstructions},
	0x06: {"BranchInstructions", profmodel.EventBranches},
	0x0A: {"CacheMisses", profmodel.EventCacheMisses},
	0x0B: {"BranchMispredictions", profmodel.EventBranchMisses},
	0x13: {"TotalCycles", profmodel.EventCycles},
	0x19: {"UnhaltedCoreCycles", profmodel.EventCycles},
	0x1A: {"InstructionRetired", profmodel.EventInstructions},
	0x1C: {"LLCReference", profmodel.EventCacheReferences},
	0x1D: {"LLCMisses", profmodel.EventCacheMisses},
	0x1E: {"BranchInstructionRetired", profmodel.EventBranches},
	0x1F: {"BranchMispredictsRetired", profmodel.EventBranchMisses},
}

// sourceName names a profile source: the trace's own name for it (from
// its interval events), else the known name, else its number.
func (tr *trace) sourceName(src uint16) string {
	if n := tr.srcNames[src]; n != "" {
		return n
	}
	if src == profileTime {
		return "Timer"
	}
	if e, ok := sourceEvents[src]; ok {
		return e.name
	}
	return fmt.Sprintf("source %d", src)
}

// eventOf is the workload event a source's samples count ("" for none).
func (tr *trace) eventOf(src uint16) string {
	if e, ok := sourceEvents[src]; ok {
		return e.event
	}
	name := strings.TrimPrefix(tr.srcNames[src], "Profile")
	for _, e := range sourceEvents {
		if strings.EqualFold(e.name, name) {
			return e.event
		}
	}
	return ""
}

// noteUnmapped says, a note per source in the sources' order, how many
// counter samples of a PMC source that is none of the workload's events
// (unmapped: their number by source) were left out, and why: a
// workload keeps a function's events only as its rates (CPI, cache-miss,
// cache-reference, branch and mispredict rates), ratios of the events
// sourceEvents maps to, so the counts of another source have nowhere to
// go; the timer's or the weighing counter's samples are never these.
func (tr *trace) noteUnmapped(m *profmodel.Model, unmapped map[uint16]int64) {
	for _, src := range slices.Sorted(maps.Keys(unmapped)) {
		label := fmt.Sprintf("%s (KPROFILE_SOURCE %d)", tr.sourceName(src), src)
		if tr.srcNames[src] == "" {
			label = fmt.Sprintf("KPROFILE_SOURCE %d, which the trace does not name,", src)
		}
		m.Note("%d counter samples of the PMC source %s were left out: it is none of the events a workload's rates are made of (%s), and a workload keeps a function's events only as those rates",
			unmapped[src], label, strings.Join(workloadEvents(), ", "))
	}
}

// workloadEvents are the events sourceEvents maps sources to, once each,
// sorted.
func workloadEvents() []string {
	seen := map[string]bool{}
	for _, e := range sourceEvents {
		seen[e.event] = true
	}
	return slices.Sorted(maps.Keys(seen))
}
