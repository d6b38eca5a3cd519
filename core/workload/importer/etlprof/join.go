package etlprof

import (
	"cmp"
	"slices"

	"github.com/proflab/proflab/core/etl"
)

// joined counts what joining stacks to samples found.
type joined struct {
	first     []uint64 // scratch: a stack's frames
	stacks    int      // stack events joined to a sample
	orphans   int      // stack events of no sample (other events' stacks)
	undefined int      // key references whose key no KeyCreate/KeyDelete/KeyRundown defines
	twice     int      // a second part of the same kind for one sample
}

// sampleKey finds a sample by its time and thread, as a stack event names
// it (EventTimeStamp, StackThread).
type sampleKey struct {
	t   int64
	tid uint32
}

// join gives every sample its stack: the plain Stack events and the key
// references (keys 37 kernel, 38 user) with its time and thread, a key's
// frames from its definition: the first KeyDelete or KeyRundown of the
// key at or after the reference (Windows logs a key's frames when it
// leaves the cache, and at the end for the keys still in it), else the
// last KeyCreate at or before it.
func (tr *trace) join() joined {
	var j joined
	at := make(map[sampleKey]int, len(tr.samples))
	for i, s := range tr.samples {
		k := sampleKey{s.t, s.tid}
		if _, ok := at[k]; !ok {
			at[k] = i
		}
	}
	for _, defs := range tr.keyDefs {
		slices.SortStableFunc(defs, func(a, b keyDef) int { return cmp.Compare(a.t, b.t) })
	}
	for _, ref := range tr.stacks {
		i, ok := at[sampleKey{ref.eventTime, ref.tid}]
		if !ok {
			j.orphans++
			continue
		}
		s := &tr.samples[i]
		frames := ref.frames
		kernel := ref.hook == etl.HookStackKeyKernel
		if ref.frames == 0 {
			if frames = tr.keyFrames(ref); frames == 0 {
				j.undefined++
				continue
			}
		} else {
			j.first = tr.framesOf(j.first[:0], frames)
			kernel = len(j.first) > 0 && tr.isKernel(j.first[0])
		}
		slot := &s.user
		if kernel {
			slot = &s.kernel
		}
		if *slot != 0 {
			j.twice++
			continue
		}
		*slot = frames
		j.stacks++
	}
	return j
}

// keyFrames is the interned frames of a key reference's key (0: never
// defined).
func (tr *trace) keyFrames(ref stackRef) uint32 {
	defs := tr.keyDefs[ref.key]
	var created uint32
	for _, d := range defs {
		if d.create {
			if d.t <= ref.t {
				created = d.frames
			}
			continue
		}
		if d.t >= ref.t {
			return d.frames
		}
	}
	return created
}

// isKernel says whether addr is in system space: the upper half of the
// address space of the trace's pointer size.
func (tr *trace) isKernel(addr uint64) bool {
	if tr.ptr == 4 {
		return addr >= 0x80000000
	}
	return addr >= 0xFFFF800000000000
}

// stackOf is a sample's frames, innermost first: the kernel part then the
// user part, the IP first (prepended when the stack does not start
// there); just the IP without a stack.
func (tr *trace) stackOf(s *sample, buf []uint64) []uint64 {
	out := append(buf[:0], s.ip)
	for _, id := range []uint32{s.kernel, s.user} {
		if id != 0 {
			out = tr.framesOf(out, id)
		}
	}
	if len(out) > 1 && out[1] == s.ip {
		out = append(out[:1], out[2:]...) // the stack's first frame is the IP, already first
	}
	return out
}

// at is the value in force at time t of a time line (its events in file
// order): the last at or before t, else the first after it.
func at[T any](line []timed[T], t int64) (T, bool) {
	var zero T
	if len(line) == 0 {
		return zero, false
	}
	best, found := -1, false
	for i, e := range line {
		if e.t <= t && (!found || e.t >= line[best].t) {
			best, found = i, true
		}
	}
	if !found {
		best = 0
		for i, e := range line {
			if e.t < line[best].t {
				best = i
			}
		}
	}
	return line[best].v, true
}
