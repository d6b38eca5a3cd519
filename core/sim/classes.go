package sim

// This file is segment classes: a thread's segment types grouped by how
// they advance a processor, given the counters enabled on it.

// counterRef is where an enabled counter is: its bank and index.
type counterRef struct {
	b *bank
	i int
}

// segClass is a class of segment types that advance a processor alike.
type segClass struct {
	members []int      // indexes into the thread's types
	cum     []float64  // their cumulative probabilities within the class
	pick    aliasTable // draws a member by probability
	p       float64    // probability of the class
	n       uint64     // instructions per segment
	cpi     float64
	cycles  uint64     // cycles of a whole segment
	rate    []float64  // events per instruction, per enabled counter
	ev      []float64  // events per whole segment, per enabled counter
	loopFn  int        // the loop function of a loop's class, else -1
	split   *leafSplit // members in calling contexts: how their segments are drawn
}

func (cl *segClass) cycleAt(start, d uint64) uint64 {
	if cl.cpi == 1 {
		return start + d
	}
	return start + uint64(float64(d)*cl.cpi)
}

// instrAt is the number of instructions of a segment started at start
// complete at cycle t.
func (cl *segClass) instrAt(start, t uint64) uint64 {
	if t < start {
		return 0
	}
	var d uint64
	if cl.cpi == 1 {
		d = t - start
	} else {
		// the last instruction whose completion cycle is at or before t
		d = uint64(float64(t-start+1) / cl.cpi)
		for d > 0 && cl.cycleAt(start, d) > t {
			d--
		}
		for d < cl.n && cl.cycleAt(start, d+1) <= t {
			d++
		}
	}
	return min(d, cl.n)
}

// classSet is a thread's segment types grouped into classes for the
// counters enabled on a processor. It does not change once made, so
// processors running threads of the same mix with the same counters
// share it (an imported workload's threads run the same tens of
// thousands of stacks).
type classSet struct {
	classes   []segClass
	classPick aliasTable // draws a class by probability
	classP    []float64
	typeClass []int  // each type's class
	cmax      uint64 // cycles of the longest segment
	// each class's cycles per segment, and whether a class is a loop
	// (drawSegments)
	classCycles []uint64
	loopClasses bool
	emax        []float64 // per counter, the most events of a segment
}

// runClassSet is a class set as one run uses it: with the run's
// segments of each class in calling contexts whose stacks are not drawn
// yet, per leaf (settleStacks).
type runClassSet struct {
	*classSet
	pending [][]uint64 // per class with a leaf split, per leaf
}

// classSetKey identifies a class set: the types (a thread's slice, shared
// by the threads of the same mix) and the events of the enabled counters,
// in order.
type classSetKey struct {
	types  *segType
	n      int
	events string
}

// buildClasses groups c's thread's segment types by how they advance c
// with the counters enabled now. The segment in progress keeps running
// (its type is drawn first if it was not).
func (rs *runState) buildClasses(c *cpuRun) {
	if c.built { // the hardware changed under a running thread
		rs.flushDeferred(c)
		if c.seg.active {
			rs.reveal(c)
		}
	}
	if c.classesOf != c.th || c.gen != rs.s.hwGen {
		// (a thread back on the processor it left, with the hardware as
		// it was, finds its classes as it left them)
		c.gen = rs.s.hwGen
		rs.enabledCounters(c)
		c.runClassSet = rs.classSetOf(c.th.types, c.ctrs)
		c.classesOf = c.th
	}
	c.deferred = append(c.deferred[:0], make([]uint64, len(c.classes))...)
	if len(c.drawn) < len(c.th.types) {
		drawnPool.put(c.drawn) // all zero: flushDrawn ran before (retire, flushDeferred)
		c.drawn = drawnPool.get(len(c.th.types))
	}
	if c.seg.active && c.seg.typ >= 0 {
		c.seg.class = c.typeClass[c.seg.typ]
	}
	c.built = true
}

// classSetOf is the class set of types with counters ctrs enabled: the
// one the run's prepared workload keeps, else made the first time it is
// asked for (and kept).
func (rs *runState) classSetOf(types []segType, ctrs []*counterHW) *runClassSet {
	ev := make([]byte, len(ctrs))
	for i, k := range ctrs {
		ev[i] = byte(k.event)
	}
	key := classSetKey{n: len(types), events: string(ev)}
	if len(types) > 0 {
		key.types = &types[0]
	}
	if rcs, ok := rs.classSets[key]; ok {
		return rcs
	}
	cs := rs.prep.classSet(key)
	if cs == nil {
		cs = &classSet{}
		rs.groupTypes(cs, types, ctrs)
		rs.classOdds(cs, types, len(ctrs))
		cs = rs.prep.keep(key, cs)
	}
	rcs := &runClassSet{classSet: cs, pending: make([][]uint64, len(cs.classes))}
	for gi := range cs.classes {
		if sp := cs.classes[gi].split; sp != nil {
			rcs.pending[gi] = make([]uint64, len(sp.leaves))
		}
	}
	rs.classSetList = append(rs.classSetList, rcs)
	if rs.classSets == nil {
		rs.classSets = map[classSetKey]*runClassSet{}
	}
	rs.classSets[key] = rcs
	return rcs
}

// enabledCounters lists c's enabled counters, every bank's, in order.
func (rs *runState) enabledCounters(c *cpuRun) {
	c.ctrs, c.ctrRefs = c.ctrs[:0], c.ctrRefs[:0]
	for _, b := range rs.s.banks {
		if c.idx >= len(b.counters) {
			continue
		}
		for i := range b.counters[c.idx] {
			if k := &b.counters[c.idx][i]; k.enabled {
				c.ctrs = append(c.ctrs, k)
				c.ctrRefs = append(c.ctrRefs, counterRef{b, i})
			}
		}
	}
}

// groupTypes puts each of types in a class of cs of the types that
// advance a processor's clock and counters ctrs alike (a loop is a class
// of its own).
func (rs *runState) groupTypes(cs *classSet, types []segType, ctrs []*counterHW) {
	b := &rs.classBuild
	if b.index == nil {
		b.index = map[classKey]int{}
	}
	clear(b.index)
	// the class of each function's segments (many stacks share a leaf)
	if len(b.fnClass) != len(rs.fns) {
		b.fnClass = make([]int32, len(rs.fns))
	}
	for i := range b.fnClass {
		b.fnClass[i] = -1
	}
	cs.typeClass = make([]int, 0, len(types))
	for j, ty := range types {
		f := &rs.fns[ty.fn]
		loop := f.loop > 0 && ty.kind == kindThread
		g := -1
		if !loop {
			g = int(b.fnClass[ty.fn])
		}
		if g < 0 {
			g = rs.findClass(cs, types, ctrs, f, loop)
			if !loop {
				b.fnClass[ty.fn] = int32(g)
			}
		}
		cl := &cs.classes[g]
		if loop {
			cl.loopFn = ty.fn
		}
		cl.members = append(cl.members, j)
		cl.p += ty.p
		cl.cum = append(cl.cum, cl.p)
		cs.typeClass = append(cs.typeClass, g)
	}
}

// classBuild is the scratch of making class sets: the classes by key,
// each function's class (-1: none yet) and leaf (newLeafSplit).
type classBuild struct {
	index   map[classKey]int
	fnClass []int32
	leafOf  []int32 // newLeafSplit's
}

// findClass is the class of cs for f's segments, made when there is none
// yet (a loop always gets one of its own).
func (rs *runState) findClass(cs *classSet, types []segType, ctrs []*counterHW, f *fnInfo, loop bool) int {
	n := segmentInstructions(rs.segLen, f)
	if loop {
		return newClass(cs, ctrs, n, f)
	}
	key, keyed := classKeyOf(ctrs, n, f)
	if !keyed {
		if g := rs.sameClass(cs, types, ctrs, n, f); g >= 0 {
			return g
		}
		return newClass(cs, ctrs, n, f)
	}
	if g, ok := rs.classBuild.index[key]; ok {
		return g
	}
	g := newClass(cs, ctrs, n, f)
	rs.classBuild.index[key] = g
	return g
}

// classKey is what makes segments advance a processor alike: their
// instructions, CPI and events per instruction of each enabled counter
// (up to maxKeyedCounters of them).
type classKey struct {
	n   uint64
	cpi float64
	nr  int
	r   [maxKeyedCounters]float64
}

// maxKeyedCounters is how many enabled counters a class key holds; with
// more, classes are found by a search (sameClass).
const maxKeyedCounters = 8

// classKeyOf is the class key of segments of n instructions of f with
// counters ctrs; keyed is false when there are too many counters for a
// key.
func classKeyOf(ctrs []*counterHW, n uint64, f *fnInfo) (k classKey, keyed bool) {
	if len(ctrs) > maxKeyedCounters {
		return k, false
	}
	k.n, k.cpi, k.nr = n, f.cpi, len(ctrs)
	for i, ctr := range ctrs {
		k.r[i] = f.rate[ctr.event]
	}
	return k, true
}

// sameClass is the class of cs whose segments of n instructions advance
// like f's, or -1 (a search: groupTypes finds classes by key where it
// can).
func (rs *runState) sameClass(cs *classSet, types []segType, ctrs []*counterHW, n uint64, f *fnInfo) int {
search:
	for gi := range cs.classes {
		cl := &cs.classes[gi]
		if cl.n != n || cl.cpi != f.cpi || types[cl.members[0]].isLoop(rs) {
			continue
		}
		for i, k := range ctrs {
			if cl.rate[i] != f.rate[k.event] {
				continue search
			}
		}
		return gi
	}
	return -1
}

// newClass adds to cs a class for segments of n instructions of f's, and
// returns it.
func newClass(cs *classSet, ctrs []*counterHW, n uint64, f *fnInfo) int {
	cl := segClass{n: n, cpi: f.cpi, cycles: uint64(float64(n) * f.cpi), loopFn: -1}
	if f.cpi == 1 {
		cl.cycles = n
	}
	for _, k := range ctrs {
		cl.rate = append(cl.rate, f.rate[k.event])
		cl.ev = append(cl.ev, float64(n)*f.rate[k.event])
	}
	cs.classes = append(cs.classes, cl)
	return len(cs.classes) - 1
}

// classOdds computes each class's probability and its members' draw (and
// for members in calling contexts, their leaves' split), and the largest
// cycles and events (of nctr counters) of a class's segment.
func (rs *runState) classOdds(cs *classSet, types []segType, nctr int) {
	cs.classP = make([]float64, 0, len(cs.classes))
	cs.classCycles = make([]uint64, 0, len(cs.classes))
	cs.emax = make([]float64, nctr)
	var cum float64
	for gi := range cs.classes {
		cl := &cs.classes[gi]
		cum += cl.p
		cs.classP = append(cs.classP, cl.p)
		cs.classCycles = append(cs.classCycles, cl.cycles)
		cs.loopClasses = cs.loopClasses || cl.loopFn >= 0
		w := rs.probs[:0]
		prev := 0.0
		for _, cu := range cl.cum {
			w = append(w, cu-prev)
			prev = cu
		}
		rs.probs = w
		cl.pick.build(w)
		cl.split = rs.newLeafSplit(cl, types, w)
		cs.cmax = max(cs.cmax, cl.cycles)
		for i := range cl.ev {
			cs.emax[i] = max(cs.emax[i], cl.ev[i])
		}
	}
	for gi := range cs.classP {
		cs.classP[gi] /= cum
	}
	cs.classPick.build(cs.classP)
}

func (ty segType) isLoop(rs *runState) bool { return ty.kind == kindThread && rs.fns[ty.fn].loop > 0 }
