package etlprof

import (
	"fmt"
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
