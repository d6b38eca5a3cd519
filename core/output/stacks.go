package output

import (
	"math/bits"
	"sort"
	"strconv"
	"strings"

	"github.com/google/pprof/profile"
	"github.com/proflab/proflab/core/workload"
	"github.com/proflab/proflab/kernel/nt"
)

// A bucket counts addresses, and a logger's sampled event has an IP and
// a thread: neither says which calling context the interrupted leaf ran
// in. The engine does know: it counts the interrupts taken in each of a
// workload's stacks (sim.Result.StackHits). A profile's samples at the
// addresses of a function that ran in several stacks are therefore split
// over those stacks in proportion to the interrupts of the same source
// and process taken in each; the ground truth is split by each stack's
// truth. The function is the stack's physical frame: a stack whose leaf
// is inlined ran its caller's code, so its samples are at the caller's
// addresses, and its sample's location holds the inlined frames as
// lines before the physical one (innermost first, as pprof has them).
//
// Whole samples are split in two steps. First each stack's share of
// all the function's samples in the profile, by largest remainder:
// within one sample of its exact share, however the samples spread over
// addresses (splitting each bucket by itself would starve a stack of
// small share, whose part of each bucket rounds to 0). Then each
// bucket's samples over the stacks, in proportion to what each has left
// to get. The engine draws an address from the physical function's
// distribution whatever its stack, so a bucket's mix of stacks is its
// function's: only the rounding depends on the order.

// stackPart is one calling context of a physical function, as the
// profiles show it.
type stackPart struct {
	key     string     // the frames' references, for ordering
	frames  []frameKey // leaf first
	inlined []bool     // per frame, inlined into the next (nil: none)
	phys    int        // the physical frame: frames[phys] is the function
	hits    uint64     // interrupts of the source and process taken in it
	truth   float64    // its truth: cycles for ProfileTime, instructions otherwise
	// callers are the locations of frames[phys+1:], made on first use
	// (stackOf): a function's every bucket shares them
	callers []*profile.Location
}

// stackKey selects the parts of one physical function for one source
// and process.
type stackKey struct {
	src  nt.Source
	pid  uint32 // 0: every process
	leaf string // the physical function's qualified reference
}

// stackParts are the calling contexts of the physical function leaf for
// samples of src in process pid (0: every process), in a fixed order;
// nil when leaf ran in no workload stack.
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

// collectParts gathers the stack parts of every physical function for
// src and pid.
func (b *profileBuilder) collectParts(src nt.Source, pid uint32) {
	if b.e.Sim == nil {
		return
	}
	index := map[stackKey]map[string]*stackPart{}
	for _, res := range b.e.Sim.Results() {
		w := res.Workload
		if len(w.Stacks) == 0 || res.NumStacks() != len(w.Stacks) {
			continue
		}
		truths := res.Stacks()
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
		for si := range w.Stacks {
			st := &w.Stacks[si]
			phys := st.Physical()
			k := stackKey{src, pid, ref(st.Frames[phys])}
			if index[k] == nil {
				index[k] = map[string]*stackPart{}
			}
			kb.Reset()
			for i, f := range st.Frames {
				if i > 0 {
					kb.WriteByte(';')
				}
				kb.WriteString(ref(f))
				if st.IsInlined(i) {
					kb.WriteString(" (inlined)")
				}
			}
			key := kb.String()
			p := index[k][key]
			if p == nil {
				frames := make([]frameKey, len(st.Frames))
				for i, f := range st.Frames {
					frames[i] = frameKey{w.Funcs[f].Addr, ref(f)}
				}
				p = &stackPart{key: key, frames: frames, inlined: st.Inlined, phys: phys}
				index[k][key] = p
			}
			p.hits += hits[si]
			if src == nt.ProfileTime {
				p.truth += float64(truths[si].Cycles)
			} else {
				p.truth += float64(truths[si].Instructions)
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

// shareOut gives n of the units left (left[i] for part i, n at most
// their sum) in proportion to left, by largest remainder in exact
// integer arithmetic (ties to the earlier), and takes them from left: no
// part gets more than it has left, so the last of a function's buckets
// takes exactly what remains.
func shareOut(n int64, left []int64) []int64 {
	out := make([]int64, len(left))
	var tot uint64
	for _, l := range left {
		tot += uint64(l)
	}
	if n <= 0 || tot == 0 {
		return out
	}
	n = min(n, int64(tot)) // (plan makes n at most tot)
	type rem struct {
		i int
		r uint64
	}
	rems := make([]rem, 0, len(left))
	var given int64
	for i, l := range left {
		hi, lo := bits.Mul64(uint64(n), uint64(l))
		q, r := bits.Div64(hi, lo, tot) // n ≤ tot: the quotient fits
		out[i] = int64(q)
		given += out[i]
		rems = append(rems, rem{i, r})
	}
	sort.SliceStable(rems, func(a, b int) bool { return rems[a].r > rems[b].r })
	for j := 0; given < n && j < len(rems); j++ {
		out[rems[j].i]++
		given++
	}
	for i := range out {
		left[i] -= out[i]
	}
	return out
}

// splitPlan is what each part of one physical function has left to get
// of the function's samples and truth in one profile.
type splitPlan struct {
	count, truth int64   // the function's, over every row (plan)
	countLeft    []int64 // per part (split)
	truthLeft    []int64
}

// plan counts, before split runs, the samples and truth of a row at an
// address of leaf: split then gives each stack its share of the totals.
func (b *profileBuilder) plan(src nt.Source, pid uint32, leaf workload.Func, count, truth int64) {
	if len(b.stackParts(src, pid, leaf)) == 0 {
		return
	}
	k := stackKey{src, pid, leaf.Ref()}
	pl := b.plans[k]
	if pl == nil {
		if b.plans == nil {
			b.plans = map[stackKey]*splitPlan{}
		}
		pl = &splitPlan{}
		b.plans[k] = pl
	}
	pl.count += count
	pl.truth += truth
}

// split divides count samples and truth at one address of the physical
// function leaf over its calling contexts (every row of the profile
// having gone through plan first): one (locations, count, truth) triple
// per context with a sample or some truth. ok is false when leaf ran in
// no stack.
func (b *profileBuilder) split(src nt.Source, pid uint32, addr uint64, leaf workload.Func, count int64, truth int64) (out []splitSample, ok bool) {
	parts := b.stackParts(src, pid, leaf)
	if len(parts) == 0 {
		return nil, false
	}
	pl := b.plans[stackKey{src, pid, leaf.Ref()}]
	if pl == nil {
		pl = &splitPlan{count: count, truth: truth} // not planned: this row is all
		b.plans[stackKey{src, pid, leaf.Ref()}] = pl
	}
	if pl.countLeft == nil {
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
		pl.countLeft, pl.truthLeft = apportion(pl.count, hw), apportion(pl.truth, tw)
	}
	counts, truths := shareOut(count, pl.countLeft), shareOut(truth, pl.truthLeft)
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
// of p: the location at addr, holding the frames up to the physical one
// (inlined frames as lines before it), then one location per caller,
// each with the frames inlined into it.
func (b *profileBuilder) stackOf(addr uint64, p *stackPart) []*profile.Location {
	if p.callers == nil {
		p.callers = make([]*profile.Location, 0, len(p.frames)-1-p.phys)
		for i := p.phys + 1; i < len(p.frames); {
			j := i
			for j < len(p.frames)-1 && p.isInlined(j) {
				j++
			}
			k := p.frames[j]
			if j == i {
				loc := b.frameRefs[k]
				if loc == nil {
					loc = b.location(k.addr, b.mappingAt(k.addr, k.ref), k.ref)
					b.frameRefs[k] = loc
				}
				p.callers = append(p.callers, loc)
			} else {
				p.callers = append(p.callers, b.inlinedAt(k.addr, p.frames[i:j+1]))
			}
			i = j + 1
		}
	}
	out := make([]*profile.Location, 0, 1+len(p.callers))
	if p.phys == 0 {
		out = append(out, b.stackAt(addr, p.frames[0].ref)[0])
	} else {
		out = append(out, b.inlinedAt(addr, p.frames[:p.phys+1]))
	}
	return append(out, p.callers...)
}

// isInlined reports whether frame i of the part is inlined into the next.
func (p *stackPart) isInlined(i int) bool { return i < len(p.inlined) && p.inlined[i] }

// inlinedAt is the location at addr of frames, innermost first, the
// last of them physical and the others inlined into it: one location
// with a line per frame, made once.
func (b *profileBuilder) inlinedAt(addr uint64, frames []frameKey) *profile.Location {
	var kb strings.Builder
	kb.WriteString(strconv.FormatUint(addr, 16))
	for _, f := range frames {
		kb.WriteByte(';')
		kb.WriteString(f.ref)
	}
	key := kb.String()
	if loc := b.inlined[key]; loc != nil {
		return loc
	}
	phys := frames[len(frames)-1].ref
	loc := &profile.Location{ID: uint64(len(b.p.Location) + 1), Mapping: b.mappingAt(addr, phys), Address: addr}
	for _, f := range frames {
		loc.Line = append(loc.Line, profile.Line{Function: b.function(f.ref)})
	}
	b.p.Location = append(b.p.Location, loc)
	if b.inlined == nil {
		b.inlined = map[string]*profile.Location{}
	}
	b.inlined[key] = loc
	return loc
}

// frameKey is a stack frame's function: where it starts and its
// reference, image and name (the runs of a machine may resolve
// different workloads, so not their indexes).
type frameKey struct {
	addr uint64
	ref  string
}
