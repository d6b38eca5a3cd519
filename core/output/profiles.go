package output

import (
	"sort"

	"github.com/proflab/proflab/kernel"
)

// A profile the run closed is gone from the kernel's handle tables (and
// its buffer may be freed right after, as kernrate frees it), yet its
// buckets are part of what the run measured: buckets.csv, the pprof
// profiles and accuracy.csv keep every profile the run made, those its
// scenario or tool closed included. The kernel shows the registry each
// profile as its last handle closes (kernel.Machine.OnProfileClose);
// the registry keeps the record and the counters that were not zero, so
// that memory grows with the hits, not with the buffers.

// closedProfile is a profile deleted during the run: its record as its
// last handle showed it, the number of counters of its buffer, and its
// counters that were not zero.
type closedProfile struct {
	rec  kernel.ProfileRecord
	n    int
	hits []bucketHit // ascending index
}

// bucketHit is a counter that was not zero.
type bucketHit struct {
	index int
	count uint32
}

// keepClosed is the machine's kernel.ProfileCloseHook.
func (e *Machine) keepClosed(rec kernel.ProfileRecord) {
	counts, err := rec.Counters()
	if err != nil {
		return // its buffer is gone: nothing to report, as for an open one
	}
	c := closedProfile{rec: rec, n: len(counts)}
	for i, v := range counts {
		if v != 0 {
			c.hits = append(c.hits, bucketHit{i, v})
		}
	}
	e.closed = append(e.closed, c)
}

// profileEntry is one profile of the run for the outputs: open at its
// end (closed == nil: its counters are read from the machine) or closed
// during it.
type profileEntry struct {
	rec    kernel.ProfileRecord
	closed *closedProfile
}

// counters are the profile's bucket counters.
func (p profileEntry) counters() ([]uint32, error) {
	if p.closed == nil {
		return p.rec.Counters()
	}
	out := make([]uint32, p.closed.n)
	for _, h := range p.closed.hits {
		out[h.index] = h.count
	}
	return out, nil
}

// profiles are every profile of the machine's run, the open ones and the
// closed ones, by owning process id, then handle (the kernel does not
// reuse a process's handle values, so a handle names one profile).
func (e *Machine) profiles() []profileEntry {
	var out []profileEntry
	for _, rec := range e.Kernel.Profiles() {
		out = append(out, profileEntry{rec: rec})
	}
	for i := range e.closed {
		out = append(out, profileEntry{rec: e.closed[i].rec, closed: &e.closed[i]})
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i].rec, out[j].rec
		if a.Owner.ID() != b.Owner.ID() {
			return a.Owner.ID() < b.Owner.ID()
		}
		return a.Handle < b.Handle
	})
	return out
}
