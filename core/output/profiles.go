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
// last handle showed it (its buffer's size with it), and its counters
// that were not zero.
type closedProfile struct {
	rec  kernel.ProfileRecord
	hits []bucketHit // ascending index
}

// bucketHit is a counter that was not zero.
type bucketHit struct {
	index int
	count uint32
}

// keepClosed is the machine's kernel.ProfileCloseHook. It reads the
// buffer's written pages only (kernel.ProfileRecord.EachCounter).
func (e *Machine) keepClosed(rec kernel.ProfileRecord) {
	c := closedProfile{rec: rec}
	err := rec.EachCounter(func(i int, v uint32) error {
		c.hits = append(c.hits, bucketHit{i, v})
		return nil
	})
	if err != nil {
		return // its buffer is gone: nothing to report, as for an open one
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

// eachCounter calls fn with every counter of the profile that is not
// zero, in ascending order (see kernel.ProfileRecord.EachCounter); it
// fails before calling fn when an open profile's buffer is gone.
func (p profileEntry) eachCounter(fn func(i int, count uint32) error) error {
	if p.closed == nil {
		return p.rec.EachCounter(fn)
	}
	for _, h := range p.closed.hits {
		if err := fn(h.index, h.count); err != nil {
			return err
		}
	}
	return nil
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
