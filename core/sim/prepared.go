package sim

import (
	"sync"
	"unsafe"

	"github.com/proflab/proflab/core/workload"
)

// This file is a workload prepared for runs: what a run derives from the
// workload before any simulated time, which depends on the workload and
// the machine's architecture alone.

// prepared is a workload made ready for runs on machines of one target:
// its resolution, its functions as the engine executes them, each
// thread's segment types, and the class sets the runs made of those
// types. Nothing in it changes once made (class sets are added, never
// changed) and it holds no run's state (the run's counts are in
// runState and runClassSet), so the runs of a Cache share it on any
// goroutine.
type prepared struct {
	r      *workload.Resolved
	fns    []fnInfo
	types  [][]segType // per resolved thread: threads of the same mix share one slice
	frames [][]string  // each stack's frames' references (StackTruth.Frames)
	refs   []string    // each function's qualified reference (FunctionEvents.Ref)

	// where the prepared workload is kept (nil: made for one run, whose
	// class sets stay its own)
	cache *Cache
	entry *entry

	mu   sync.Mutex
	sets map[classSetKey]*classSet // the class sets made, kept
}

// newPrepared resolves w for target and prepares it.
func newPrepared(w *workload.Spec, target workload.Target) (*prepared, error) {
	r, err := w.Resolve(target)
	if err != nil {
		return nil, err
	}
	p := &prepared{r: r, fns: prepare(r), types: make([][]segType, len(r.Threads)), frames: stackFrames(r), refs: make([]string, len(r.Funcs))}
	for i := range r.Funcs {
		p.refs[i] = r.Funcs[i].Ref()
	}
	// threads of the same mix (a process's stacks) share their types,
	// and so their classes (classSetOf)
	type mixKey struct {
		first *workload.Weighted
		n     int
	}
	typesOf := map[mixKey][]segType{}
	for i, t := range r.Threads {
		if len(t.Mix) == 0 {
			p.types[i] = segTypes(r, t.Mix)
			continue
		}
		k := mixKey{&t.Mix[0], len(t.Mix)}
		types, ok := typesOf[k]
		if !ok {
			types = segTypes(r, t.Mix)
			typesOf[k] = types
		}
		p.types[i] = types
	}
	return p, nil
}

// stackFrames is each of r's stacks' frames as qualified references
// (made once per function, the stacks' frames in one array).
func stackFrames(r *workload.Resolved) [][]string {
	refs := make([]string, len(r.Funcs))
	nFrames := 0
	for _, st := range r.Stacks {
		nFrames += len(st.Frames)
	}
	all := make([]string, nFrames)
	out := make([][]string, len(r.Stacks))
	for si, st := range r.Stacks {
		frames := all[:len(st.Frames):len(st.Frames)]
		all = all[len(st.Frames):]
		for i, f := range st.Frames {
			if refs[f] == "" {
				refs[f] = r.Ref(f)
			}
			frames[i] = refs[f]
		}
		out[si] = frames
	}
	return out
}

// maxClassSets is the most class sets a kept prepared workload keeps:
// one per mix of its threads and list of enabled counters' events, a
// handful in practice. Beyond it (a sweep over many counter lists), a
// class set is made for its run alone.
const maxClassSets = 64

// classSet is the kept class set of key, or nil.
func (p *prepared) classSet(key classSetKey) *classSet {
	if p.cache == nil {
		return nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.sets[key]
}

// keep keeps cs, made by a run, as the class set of key, and returns
// the class set the runs share: cs, or the one another run kept first
// (they are equal: a class set is a function of its key and the
// prepared workload).
func (p *prepared) keep(key classSetKey, cs *classSet) *classSet {
	if p.cache == nil {
		return cs
	}
	p.mu.Lock()
	if kept, ok := p.sets[key]; ok {
		p.mu.Unlock()
		return kept
	}
	if len(p.sets) >= maxClassSets {
		p.mu.Unlock()
		return cs
	}
	if p.sets == nil {
		p.sets = map[classSetKey]*classSet{}
	}
	p.sets[key] = cs
	p.mu.Unlock()
	p.cache.grow(p.entry, cs.bytes())
	return cs
}

// Sizes of the elements a prepared workload's memory is estimated from.
const (
	sizeFunc     = int64(unsafe.Sizeof(workload.Func{}))
	sizeHotspot  = int64(unsafe.Sizeof(workload.Hotspot{}))
	sizeStack    = int64(unsafe.Sizeof(workload.ResolvedStack{}))
	sizeThread   = int64(unsafe.Sizeof(workload.ResolvedThread{}))
	sizeWeighted = int64(unsafe.Sizeof(workload.Weighted{}))
	sizeFnInfo   = int64(unsafe.Sizeof(fnInfo{}))
	sizeComp     = int64(unsafe.Sizeof(comp{}))
	sizeSegType  = int64(unsafe.Sizeof(segType{}))
	sizeSegClass = int64(unsafe.Sizeof(segClass{}))
	sizeLeaf     = int64(unsafe.Sizeof(leafGroup{}))
	sizeSlot     = int64(unsafe.Sizeof(aliasSlot{}))
	// a function's entries in the resolution's maps of names
	sizeName = 64
)

// bytes estimates the memory of the prepared workload (without its class
// sets): the resolution's functions, stacks and mixes, the functions as
// the engine executes them, and the segment types.
func (p *prepared) bytes() int64 {
	r := p.r
	n := int64(len(r.Funcs))*(sizeFunc+sizeName+8+16) + int64(len(r.Stacks))*sizeStack
	for _, f := range r.Funcs {
		n += int64(len(f.Hotspots)) * sizeHotspot
	}
	for _, st := range r.Stacks {
		// the frames' indexes and references
		n += int64(len(st.Frames))*(8+16) + int64(len(st.Inlined)) + 24
	}
	for _, t := range r.Threads {
		n += sizeThread + int64(len(t.Mix))*sizeWeighted
	}
	n += int64(len(r.ISR)+len(r.DPC)) * sizeWeighted
	n += int64(len(p.fns)) * sizeFnInfo
	for _, f := range p.fns {
		n += int64(len(f.comps)) * sizeComp
	}
	seen := map[*segType]bool{}
	for _, ts := range p.types {
		if len(ts) > 0 && !seen[&ts[0]] {
			seen[&ts[0]] = true
			n += int64(len(ts)) * sizeSegType
		}
	}
	return n
}

// bytes estimates a class set's memory: its classes with their members'
// draws and leaves, and each type's class.
func (cs *classSet) bytes() int64 {
	n := int64(len(cs.classes))*(sizeSegClass+8+8+sizeSlot) + int64(len(cs.typeClass))*8 + int64(len(cs.emax))*8
	for i := range cs.classes {
		cl := &cs.classes[i]
		n += int64(len(cl.members))*(8+8+sizeSlot) + int64(len(cl.rate)+len(cl.ev))*8
		if sp := cl.split; sp != nil {
			n += int64(len(sp.leaves))*(sizeLeaf+8+sizeSlot) + int64(len(cl.members))*(8+8+sizeSlot)
		}
	}
	return n
}
