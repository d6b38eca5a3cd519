package sim

import (
	"math"
)

// This file is execution: what a busy processor runs between two events.
//
// A thread's segments are independent draws from its segment types
// (segTypes). Types that advance the processor alike — the same
// instructions per segment, the same CPI, the same events per instruction
// for every counter enabled on the processor — form a class, and only a
// segment's class decides when the next event happens. Between two
// events the engine therefore draws how many of the whole segments that
// fit fell in each class (one multinomial draw: with a single class, no
// draw at all), and leaves which function of its class each segment ran
// to one multinomial draw per class when the thread leaves the processor
// (deferred). Only the segment in progress at an event has its class and
// then its function drawn, as the old engine drew every segment. The
// counts have the same distribution as drawing each segment; the work is
// proportional to the events and classes, not to the segments.
//
// A thread's loop functions are each a class of their own, so that the
// thread's position in the loop (periodic-loop aliasing) stays exact.

// cpuRun is one processor's execution state during a run.
type cpuRun struct {
	idx        int
	clock      uint64 // cycles executed up to
	th         *thread
	quantumEnd uint64

	next  uint64
	dirty bool

	// While a thread runs: the counters enabled on the processor (at
	// hardware generation gen), the thread's classes, the whole segments
	// of each class whose functions are not drawn yet, and the segment
	// in progress.
	built     bool // classes are c.th's
	gen       uint64
	ctrs      []*counterHW
	ctrRefs   []counterRef
	classes   []segClass
	classCum  []float64
	classP    []float64
	typeClass []int
	cmax      uint64    // cycles of the longest segment
	emax      []float64 // per counter, the most events of a segment
	deferred  []uint64
	seg       segment

	times [5]uint64 // cycles: user, kernel, interrupt, DPC, idle
}

// counterRef is where an enabled counter is: its bank and index.
type counterRef struct {
	b *bank
	i int
}

// segClass is a class of segment types that advance a processor alike.
type segClass struct {
	members []int     // indexes into the thread's types
	cum     []float64 // their cumulative probabilities within the class
	p       float64   // probability of the class
	n       uint64    // instructions per segment
	cpi     float64
	cycles  uint64    // cycles of a whole segment
	rate    []float64 // events per instruction, per enabled counter
	ev      []float64 // events per whole segment, per enabled counter
}

// segment is the segment in progress on a processor.
type segment struct {
	active    bool
	class     int
	typ       int // index into the thread's types; -1 while not drawn
	start     uint64
	done      uint64 // instructions complete
	loopStart uint64
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

const eps = 1e-6

// buildClasses groups c's thread's segment types by how they advance c
// with the counters enabled now. The segment in progress keeps running
// (its type is drawn first if it was not).
func (rs *runState) buildClasses(c *cpuRun) {
	th := c.th
	if c.built { // the hardware changed under a running thread
		rs.flushDeferred(c)
		if c.seg.active {
			rs.reveal(c)
		}
	}
	s := rs.s
	c.gen = s.hwGen
	c.ctrs, c.ctrRefs = c.ctrs[:0], c.ctrRefs[:0]
	for _, b := range s.banks {
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
	for gi := range c.classes[:cap(c.classes)] {
		cl := &c.classes[:cap(c.classes)][gi]
		cl.members, cl.cum, cl.rate, cl.ev = cl.members[:0], cl.cum[:0], cl.rate[:0], cl.ev[:0]
	}
	c.classes = c.classes[:0]
	c.typeClass = c.typeClass[:0]
	for j, ty := range th.types {
		f := &rs.fns[ty.fn]
		n := segmentInstructions(rs.segLen, f)
		loop := f.loop > 0 && ty.kind == kindThread
		g := -1
		if !loop {
		search:
			for gi := range c.classes {
				cl := &c.classes[gi]
				if cl.n != n || cl.cpi != f.cpi || th.types[cl.members[0]].isLoop(rs) {
					continue
				}
				for i, k := range c.ctrs {
					if cl.rate[i] != f.rate[k.event] {
						continue search
					}
				}
				g = gi
				break
			}
		}
		if g < 0 {
			if len(c.classes) < cap(c.classes) {
				c.classes = c.classes[:len(c.classes)+1] // reuse the slices of an earlier class
			} else {
				c.classes = append(c.classes, segClass{})
			}
			g = len(c.classes) - 1
			cl := &c.classes[g]
			cl.n, cl.cpi, cl.p, cl.cycles = n, f.cpi, 0, uint64(float64(n)*f.cpi)
			if f.cpi == 1 {
				cl.cycles = n
			}
			for _, k := range c.ctrs {
				cl.rate = append(cl.rate, f.rate[k.event])
				cl.ev = append(cl.ev, float64(n)*f.rate[k.event])
			}
		}
		cl := &c.classes[g]
		cl.members = append(cl.members, j)
		cl.p += ty.p
		cl.cum = append(cl.cum, cl.p)
		c.typeClass = append(c.typeClass, g)
	}
	c.classCum, c.classP = c.classCum[:0], c.classP[:0]
	c.cmax = 0
	c.emax = append(c.emax[:0], make([]float64, len(c.ctrs))...)
	var cum float64
	for gi := range c.classes {
		cl := &c.classes[gi]
		cum += cl.p
		c.classCum = append(c.classCum, cum)
		c.classP = append(c.classP, cl.p)
		c.cmax = max(c.cmax, cl.cycles)
		for i := range cl.ev {
			c.emax[i] = max(c.emax[i], cl.ev[i])
		}
	}
	for gi := range c.classP {
		c.classP[gi] /= cum
	}
	c.deferred = append(c.deferred[:0], make([]uint64, len(c.classes))...)
	if c.seg.active && c.seg.typ >= 0 {
		c.seg.class = c.typeClass[c.seg.typ]
	}
	c.built = true
}

func (ty segType) isLoop(rs *runState) bool { return ty.kind == kindThread && rs.fns[ty.fn].loop > 0 }

// execute runs c's thread from c's clock up to cycle t, or less: up to a
// counter's overflow, when one comes first. It returns the cycle reached,
// where c's next event is.
func (rs *runState) execute(c *cpuRun, t uint64) uint64 {
	if c.gen != rs.s.hwGen {
		rs.buildClasses(c)
	}
	for {
		if c.seg.active {
			cl := &c.classes[c.seg.class]
			if c.seg.done >= cl.n {
				rs.closeSegment(c)
				continue
			}
			stop := min(t, cl.cycleAt(c.seg.start, cl.n))
			for i, k := range c.ctrs {
				r := cl.rate[i]
				if r <= 0 {
					continue
				}
				var need uint64
				if k.remaining > eps {
					need = max(1, uint64(math.Ceil(k.remaining/r-eps)))
				}
				if c.seg.done+need <= cl.n {
					if e := cl.cycleAt(c.seg.start, c.seg.done+need); e < stop {
						stop = max(e, c.clock)
					}
				}
			}
			if stop < c.clock {
				return c.clock
			}
			d := cl.instrAt(c.seg.start, stop)
			overflow := false
			if delta := d - c.seg.done; delta > 0 {
				fd := float64(delta)
				for i, k := range c.ctrs {
					k.remaining -= fd * cl.rate[i]
				}
			}
			for _, k := range c.ctrs {
				if k.remaining <= eps {
					overflow = true
				}
			}
			c.seg.done, c.clock = d, stop
			if overflow || stop >= t {
				return stop
			}
			continue
		}
		if c.clock >= t {
			return c.clock
		}
		// whole segments that surely end before t and overflow nothing
		n := (t - c.clock - 1) / c.cmax
		for i, k := range c.ctrs {
			if n == 0 {
				break
			}
			if c.emax[i] <= 0 {
				continue
			}
			if k.remaining <= eps {
				n = 0
				break
			}
			if m := math.Ceil((k.remaining-eps)/c.emax[i]) - 1; m < float64(n) {
				n = uint64(max(m, 0))
			}
		}
		if n > 0 {
			rs.skip(c, n)
			continue
		}
		rs.startSegment(c)
	}
}

// skip runs n whole segments on c: how many fell in each class is drawn,
// which functions ran is left for later.
func (rs *runState) skip(c *cpuRun, n uint64) {
	counts := rs.counts[:0]
	if len(c.classes) == 1 {
		counts = append(counts, n)
	} else {
		counts = append(counts, make([]uint64, len(c.classes))...)
		multinomial(rs.s.rng, n, c.classP, counts)
	}
	rs.counts = counts
	for g, k := range counts {
		if k == 0 {
			continue
		}
		cl := &c.classes[g]
		c.deferred[g] += k
		c.clock += k * cl.cycles
		fk := float64(k)
		for i, ctr := range c.ctrs {
			ctr.remaining -= fk * cl.ev[i]
		}
		if ty := c.th.types[cl.members[0]]; ty.isLoop(rs) {
			loop := rs.fns[ty.fn].loop
			c.th.loopPos[ty.fn] = (c.th.loopPos[ty.fn] + (k%loop)*(cl.n%loop)) % loop
		}
	}
}

// startSegment draws the class of c's next segment and starts it.
func (rs *runState) startSegment(c *cpuRun) {
	g := 0
	if len(c.classes) > 1 {
		g = pick(c.classCum, rs.s.rng.Float64())
	}
	cl := &c.classes[g]
	c.seg = segment{active: true, class: g, typ: -1, start: c.clock}
	if len(cl.members) == 1 {
		c.seg.typ = cl.members[0]
		if ty := c.th.types[c.seg.typ]; ty.isLoop(rs) {
			c.seg.loopStart = c.th.loopPos[ty.fn]
		}
	}
}

// reveal draws the function of c's segment in progress within its class.
func (rs *runState) reveal(c *cpuRun) {
	if c.seg.typ >= 0 {
		return
	}
	cl := &c.classes[c.seg.class]
	c.seg.typ = cl.members[pick(cl.cum, rs.s.rng.Float64())]
}

// current is what c executes now: the segment in progress (drawn now if
// need be) or the idle loop.
func (rs *runState) current(c *cpuRun) (segKind, int) {
	if c.th == nil {
		return kindIdle, rs.w.Idle
	}
	if !c.seg.active {
		rs.startSegment(c)
	}
	rs.reveal(c)
	ty := c.th.types[c.seg.typ]
	return ty.kind, ty.fn
}

// closeSegment ends c's segment in progress, whole or cut short, and
// adds it to the truth (a whole segment of an undrawn function: to its
// class's deferred count).
func (rs *runState) closeSegment(c *cpuRun) {
	if !c.seg.active {
		return
	}
	cl := &c.classes[c.seg.class]
	if c.seg.typ < 0 && c.seg.done >= cl.n {
		c.deferred[c.seg.class]++
	} else {
		rs.reveal(c)
		ty := c.th.types[c.seg.typ]
		rs.commit(c, ty, c.seg.done, c.clock-c.seg.start)
		if ty.isLoop(rs) {
			c.th.loopPos[ty.fn] = (c.seg.loopStart + c.seg.done) % rs.fns[ty.fn].loop
		}
	}
	c.seg.active = false
}

// flushDeferred draws which functions c's deferred whole segments ran.
func (rs *runState) flushDeferred(c *cpuRun) {
	for g, n := range c.deferred {
		if n == 0 {
			continue
		}
		c.deferred[g] = 0
		cl := &c.classes[g]
		if len(cl.members) == 1 {
			rs.commit(c, c.th.types[cl.members[0]], n*cl.n, n*cl.cycles)
			continue
		}
		p := rs.probs[:0]
		prev := 0.0
		for _, cu := range cl.cum {
			p = append(p, (cu-prev)/cl.p)
			prev = cu
		}
		rs.probs = p
		counts := append(rs.counts[:0], make([]uint64, len(cl.members))...)
		rs.counts = counts
		multinomial(rs.s.rng, n, p, counts)
		for i, k := range counts {
			if k > 0 {
				rs.commit(c, c.th.types[cl.members[i]], k*cl.n, k*cl.cycles)
			}
		}
	}
}

// retire settles c's thread's execution so far into the truth: the
// segment in progress is cut at c's clock.
func (rs *runState) retire(c *cpuRun) {
	if c.th == nil {
		return
	}
	rs.closeSegment(c)
	rs.flushDeferred(c)
	c.built = false
}

// commit adds instr instructions over cycles cycles of ty to c's truth.
func (rs *runState) commit(c *cpuRun, ty segType, instr, cycles uint64) {
	f := &rs.fns[ty.fn]
	tl := &rs.tallies[c.idx][c.th.ctx*rs.nf+ty.fn]
	tl.instr += instr
	tl.cycles += cycles
	fd := float64(instr)
	for e := range nEvents {
		tl.ev[e] += fd * f.rate[e]
	}
	switch {
	case ty.kind == kindISR:
		c.times[2] += cycles
	case ty.kind == kindDPC:
		c.times[3] += cycles
	case f.kmode:
		c.times[1] += cycles
	default:
		c.times[0] += cycles
	}
}

// idleUntil advances an idle processor to cycle t.
func (rs *runState) idleUntil(c *cpuRun, t uint64) {
	if t <= c.clock || c.th != nil {
		return
	}
	elapsed := t - c.clock
	rs.tallies[c.idx][rs.w.Idle].cycles += elapsed
	c.times[4] += elapsed
	c.clock = t
}
