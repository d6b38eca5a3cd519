package scenario

import (
	"sync/atomic"
	"testing"

	"github.com/proflab/proflab/core/halhost"
	"github.com/proflab/proflab/core/lab"
	"github.com/proflab/proflab/kernel"
	"github.com/proflab/proflab/kernel/nt"
)

// countingHALs is the in-process test HALs, counting source queries.
type countingHALs struct {
	lab.TestHALs
	queries atomic.Int64
}

type countingHAL struct {
	kernel.HALDispatch
	n *atomic.Int64
}

func (h countingHAL) QuerySource(cpus []int, src nt.Source) ([]kernel.SourceInfo, error) {
	h.n.Add(1)
	return h.HALDispatch.QuerySource(cpus, src)
}

func (c *countingHALs) Open(names []string, m lab.Spec, hw halhost.Hardware) ([]kernel.HALDispatch, func(), error) {
	hals, release, err := c.TestHALs.Open(names, m, hw)
	for i, h := range hals {
		hals[i] = countingHAL{h, &c.queries}
	}
	return hals, release, err
}

// A run whose output folder will not be written (a sweep's, without
// --run-outputs) does not ask the HALs for every source's interval at its
// end: through plugins that was a round trip per source per run.
func TestNoOutputFolderSkipsTheIntervalQueries(t *testing.T) {
	const src = `local lab = require "proflab"
		local m = lab.machine{ cpus = 1 }
		local p = m:process{}
		lab.check(p:NtQueryIntervalProfile(lab.ProfileTime, p:alloc(4)) == 0, "query")`
	queries := map[bool]int64{}
	for _, skip := range []bool{false, true} {
		hals := &countingHALs{}
		res := run(t, src, func(o *Options) { o.HALs, o.NoOutputFolder = hals, skip })
		if res.Error != nil || res.Status != StatusPassed {
			t.Fatalf("NoOutputFolder %v: %s %v", skip, res.Status, res.Error)
		}
		queries[skip] = hals.queries.Load()
	}
	if queries[true] != 1 {
		t.Errorf("with no output folder the HALs were queried %d times, want only the scenario's 1", queries[true])
	}
	if queries[false] <= queries[true] {
		t.Errorf("with an output folder %d queries, want the end-of-run interval queries too (more than %d)", queries[false], queries[true])
	}
}
