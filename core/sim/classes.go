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
	cycles  uint64    // cycles of a whole segment
	rate    []float64 // events per instruction, per enabled counter
	ev      []float64 // events per whole segment, per enabled counter
	loopFn  int       // the loop function of a loop's class, else -1
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
		rs.groupTypes(c)
		rs.classOdds(c)
		c.classesOf = c.th
	}
	c.deferred = append(c.deferred[:0], make([]uint64, len(c.classes))...)
	if c.seg.active && c.seg.typ >= 0 {
		c.seg.class = c.typeClass[c.seg.typ]
	}
	c.built = true
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

// groupTypes puts each segment type of c's thread in a class of the types
// that advance c's clock and counters alike (a loop is a class of its
// own), reusing the slices of the classes it had.
func (rs *runState) groupTypes(c *cpuRun) {
	th := c.th
	for gi := range c.classes[:cap(c.classes)] {
		cl := &c.classes[:cap(c.classes)][gi]
		cl.members, cl.cum, cl.rate, cl.ev = cl.members[:0], cl.cum[:0], cl.rate[:0], cl.ev[:0]
	}
	c.classes = c.classes[:0]
	c.typeClass = c.typeClass[:0]
	if c.classIndex == nil {
		c.classIndex = map[classKey]int{}
	}
	clear(c.classIndex)
	// the class of each function's segments (many stacks share a leaf)
	if len(c.fnClass) != len(rs.fns) {
		c.fnClass = make([]int32, len(rs.fns))
	}
	for i := range c.fnClass {
		c.fnClass[i] = -1
	}
	for j, ty := range th.types {
		f := &rs.fns[ty.fn]
		loop := f.loop > 0 && ty.kind == kindThread
		g := -1
		if !loop {
			g = int(c.fnClass[ty.fn])
		}
		if g < 0 {
			g = rs.findClass(c, f, loop)
			if !loop {
				c.fnClass[ty.fn] = int32(g)
			}
		}
		cl := &c.classes[g]
		if loop {
			cl.loopFn = ty.fn
		}
		cl.members = append(cl.members, j)
		cl.p += ty.p
		cl.cum = append(cl.cum, cl.p)
		c.typeClass = append(c.typeClass, g)
	}
}

// findClass is the class of c for f's segments, made when there is none
// yet (a loop always gets one of its own).
func (rs *runState) findClass(c *cpuRun, f *fnInfo, loop bool) int {
	n := segmentInstructions(rs.segLen, f)
	if loop {
		return rs.newClass(c, n, f)
	}
	key, keyed := rs.classKeyOf(c, n, f)
	if !keyed {
		if g := rs.sameClass(c, n, f); g >= 0 {
			return g
		}
		return rs.newClass(c, n, f)
	}
	if g, ok := c.classIndex[key]; ok {
		return g
	}
	g := rs.newClass(c, n, f)
	c.classIndex[key] = g
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

// classKeyOf is the class key of segments of n instructions of f on c;
// keyed is false when c has too many counters enabled for a key.
func (rs *runState) classKeyOf(c *cpuRun, n uint64, f *fnInfo) (k classKey, keyed bool) {
	if len(c.ctrs) > maxKeyedCounters {
		return k, false
	}
	k.n, k.cpi, k.nr = n, f.cpi, len(c.ctrs)
	for i, ctr := range c.ctrs {
		k.r[i] = f.rate[ctr.event]
	}
	return k, true
}

// sameClass is the class of c whose segments of n instructions advance
// like f's, or -1 (a search: groupTypes finds classes by key where it
// can).
func (rs *runState) sameClass(c *cpuRun, n uint64, f *fnInfo) int {
search:
	for gi := range c.classes {
		cl := &c.classes[gi]
		if cl.n != n || cl.cpi != f.cpi || c.th.types[cl.members[0]].isLoop(rs) {
			continue
		}
		for i, k := range c.ctrs {
			if cl.rate[i] != f.rate[k.event] {
				continue search
			}
		}
		return gi
	}
	return -1
}

// newClass adds a class for segments of n instructions of f's, and
// returns it.
func (rs *runState) newClass(c *cpuRun, n uint64, f *fnInfo) int {
	if len(c.classes) < cap(c.classes) {
		c.classes = c.classes[:len(c.classes)+1] // reuse the slices of an earlier class
	} else {
		c.classes = append(c.classes, segClass{})
	}
	g := len(c.classes) - 1
	cl := &c.classes[g]
	cl.n, cl.cpi, cl.p, cl.cycles, cl.loopFn = n, f.cpi, 0, uint64(float64(n)*f.cpi), -1
	if f.cpi == 1 {
		cl.cycles = n
	}
	for _, k := range c.ctrs {
		cl.rate = append(cl.rate, f.rate[k.event])
		cl.ev = append(cl.ev, float64(n)*f.rate[k.event])
	}
	return g
}

// classOdds computes each class's probability and its members' draw,
// and the largest cycles and events of a class's segment.
func (rs *runState) classOdds(c *cpuRun) {
	c.classP = c.classP[:0]
	c.classCycles = c.classCycles[:0]
	c.loopClasses = false
	c.cmax = 0
	c.emax = append(c.emax[:0], make([]float64, len(c.ctrs))...)
	var cum float64
	for gi := range c.classes {
		cl := &c.classes[gi]
		cum += cl.p
		c.classP = append(c.classP, cl.p)
		c.classCycles = append(c.classCycles, cl.cycles)
		c.loopClasses = c.loopClasses || cl.loopFn >= 0
		w := rs.probs[:0]
		prev := 0.0
		for _, cu := range cl.cum {
			w = append(w, cu-prev)
			prev = cu
		}
		rs.probs = w
		cl.pick.build(w)
		c.cmax = max(c.cmax, cl.cycles)
		for i := range cl.ev {
			c.emax[i] = max(c.emax[i], cl.ev[i])
		}
	}
	for gi := range c.classP {
		c.classP[gi] /= cum
	}
	c.classPick.build(c.classP)
}

func (ty segType) isLoop(rs *runState) bool { return ty.kind == kindThread && rs.fns[ty.fn].loop > 0 }
