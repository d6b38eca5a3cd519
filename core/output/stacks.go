package output

import (
	"sort"
	"strings"

	"github.com/google/pprof/profile"
	"github.com/proflab/proflab/core/workload"
	"github.com/proflab/proflab/kernel/nt"
)

// A bucket counts addresses, and a logger's sampled event has an IP and
// a thread: neither says which calling context the interrupted leaf ran
// in. The engine does know: it counts the interrupts taken in each of a
// workload's stacks (sim.Result.StackHits). A profile's samples in a
// function that ran in several stacks are therefore split over those
// stacks in proportion to the interrupts of the same source and process
// taken in each, whole samples by largest remainder; the ground truth is
// split by each stack's truth. Where the function's interrupts were all
// taken in one stack, that is exact; a bucket's own mix of stacks is the
// function's.

// stackPart is one calling context of a leaf function, as the profiles
// show it.
type stackPart struct {
	key    string     // the frames' references, for ordering
	frames []frameKey // leaf first
	hits   uint64     // interrupts of the source and process taken in it
	truth  float64    // its truth: cycles for ProfileTime, instructions otherwise
	// callers are the locations of frames[1:], made on first use
	// (stackOf): a leaf's every bucket shares them
	callers []*profile.Location
}

// stackKey selects the parts of one leaf for one source and process.
type stackKey struct {
	src  nt.Source
	pid  uint32 // 0: every process
	leaf string // the leaf's qualified reference
}

// stackParts are the calling contexts of leaf for samples of src in
// process pid (0: every process), in a fixed order; nil when the leaf ran
// in no workload stack.
func (b *profileBuilder) stackParts(src nt.Source, pid uint32, leaf workload.Func) []stackPart {
	if b.parts == nil {
		b.parts = map[stackKey][]stackPart{}
		b.partsDone = map[[2]uint32]bool{}
	}
	if done := [2]uint32{uint32(src), pid}; !b.partsDone[done] {
		b.partsDone[done] = true
		b.collectParts(src, pid)
	}
	return b.parts[stackKey{src, pid, leaf.Ref()}]
}

// collectParts gathers the stack parts of every leaf for src and pid.
func (b *profileBuilder) collectParts(src nt.Source, pid uint32) {
	if b.e.Sim == nil {
		return
	}
	index := map[stackKey]map[string]*stackPart{}
	for _, res := range b.e.Sim.Results() {
		w := res.Workload
		if len(w.Stacks) == 0 || len(res.Stacks) != len(w.Stacks) {
			continue
		}
		hits := make([]uint64, len(w.Stacks))
		for k, n := range res.StackHits {
			if k.Source == src && (pid == 0 || k.Process == pid) && k.Stack < len(hits) {
				hits[k.Stack] += n
			}
		}
		refs := make([]string, len(w.Funcs)) // each function's, made once
		ref := func(f int) string {
			if refs[f] == "" {
				refs[f] = w.Funcs[f].Ref()
			}
			return refs[f]
		}
		var kb strings.Builder
		for si, st := range w.Stacks {
			k := stackKey{src, pid, ref(st.Frames[0])}
			if index[k] == nil {
				index[k] = map[string]*stackPart{}
			}
			kb.Reset()
			for i, f := range st.Frames {
				if i > 0 {
					kb.WriteByte(';')
				}
				kb.WriteString(ref(f))
			}
			key := kb.String()
			p := index[k][key]
			if p == nil {
				frames := make([]frameKey, len(st.Frames))
				for i, f := range st.Frames {
					frames[i] = frameKey{w.Funcs[f].Addr, w.Funcs[f].Name}
				}
				p = &stackPart{key: key, frames: frames}
				index[k][key] = p
			}
			p.hits += hits[si]
			if src == nt.ProfileTime {
				p.truth += float64(res.Stacks[si].Cycles)
			} else {
				p.truth += float64(res.Stacks[si].Instructions)
			}
		}
	}
	for k, m := range index {
		parts := make([]stackPart, 0, len(m))
		for _, p := range m {
			parts = append(parts, *p)
		}
		sort.Slice(parts, func(i, j int) bool { return parts[i].key < parts[j].key })
		b.parts[k] = parts
	}
}

// apportion splits n over weights in proportion, in whole units, by
// largest remainder (ties to the earlier); weights that add up to 0
// leave n undivided on the first.
func apportion(n int64, weights []float64) []int64 {
	out := make([]int64, len(weights))
	var tot float64
	for _, w := range weights {
		tot += w
	}
	if len(out) == 0 {
		return out
	}
	if tot <= 0 {
		out[0] = n
		return out
	}
	type rem struct {
		i int
		r float64
	}
	rems := make([]rem, len(weights))
	var given int64
	for i, w := range weights {
		exact := float64(n) * w / tot
		out[i] = int64(exact)
		given += out[i]
		rems[i] = rem{i, exact - float64(out[i])}
	}
	sort.SliceStable(rems, func(a, b int) bool { return rems[a].r > rems[b].r })
	for j := 0; given < n && j < len(rems); j++ {
		out[rems[j].i]++
		given++
	}
	return out
}

// split divides count samples and truth at one address of leaf over its
// calling contexts: one (locations, count, truth) triple per context
// with a sample or some truth. ok is false when leaf ran in no stack.
func (b *profileBuilder) split(src nt.Source, pid uint32, addr uint64, leaf workload.Func, count int64, truth int64) (out []splitSample, ok bool) {
	parts := b.stackParts(src, pid, leaf)
	if len(parts) == 0 {
		return nil, false
	}
	hw := make([]float64, len(parts))
	tw := make([]float64, len(parts))
	var hits float64
	for i, p := range parts {
		hw[i], tw[i] = float64(p.hits), p.truth
		hits += hw[i]
	}
	if hits == 0 {
		hw = tw
	}
	counts, truths := apportion(count, hw), apportion(truth, tw)
	for i := range parts {
		if counts[i] == 0 && truths[i] == 0 {
			continue
		}
		out = append(out, splitSample{loc: b.stackOf(addr, &parts[i]), count: counts[i], truth: truths[i]})
	}
	return out, true
}

// splitSample is one calling context's share of a sample.
type splitSample struct {
	loc          []*profile.Location
	count, truth int64
}

// stackOf is the locations of a sample at addr in the calling context
// of p (its frames, leaf first).
func (b *profileBuilder) stackOf(addr uint64, p *stackPart) []*profile.Location {
	if p.callers == nil {
		p.callers = make([]*profile.Location, 0, len(p.frames)-1)
		for _, k := range p.frames[1:] {
			loc := b.frameRefs[k]
			if loc == nil {
				loc = b.location(k.addr, b.mapByName[b.g.mappingName(k.name)], k.name)
				b.frameRefs[k] = loc
			}
			p.callers = append(p.callers, loc)
		}
	}
	out := make([]*profile.Location, 0, 1+len(p.callers))
	out = append(out, b.stackAt(addr, p.frames[0].name)[0])
	return append(out, p.callers...)
}

// frameKey is a stack frame's function: where it starts and its name
// (the runs of a machine may resolve different workloads, so not their
// indexes).
type frameKey struct {
	addr uint64
	name string
}
