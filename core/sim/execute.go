package sim

import (
	"math"

	"github.com/proflab/proflab/core/workload"
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
// A class whose members run in calling contexts settles in two stages,
// per leaf and then per stack (stacks.go); a thread of many classes draws
// its segments one by one (drawSegments).

// cpuRun is one processor's execution state during a run.
type cpuRun struct {
	idx        int
	clock      uint64 // cycles executed up to
	th         *thread
	quantumEnd uint64

	next  uint64
	dirty bool

	// While a thread runs: the counters enabled on the processor (at
	// hardware generation gen), the classes of the thread's segment
	// types for them (shared with every processor running the same mix
	// with the same counters), the whole segments of each class whose
	// functions are not drawn yet, and the segment in progress.
	built     bool    // classes are c.th's
	classesOf *thread // whose the classes are (at generation gen)
	gen       uint64
	ctrs      []*counterHW
	ctrRefs   []counterRef
	*runClassSet
	deferred []uint64
	seg      segment
	// whole segments of drawn functions not committed yet, per type of
	// the thread (countDrawn, flushDrawn), and the types counted
	drawn      []uint64
	drawnTypes []int

	times [5]uint64 // cycles: user, kernel, interrupt, DPC, idle
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

// execute runs c's thread from c's clock up to cycle t, or less: up to a
// counter's overflow, when one comes first. It returns the cycle reached,
// where c's next event is.
func (rs *runState) execute(c *cpuRun, t uint64) uint64 {
	if c.gen != rs.s.hwGen {
		rs.buildClasses(c)
	}
	// c's classes and counters stay as they are until execute returns
	cs, ctrs := c.classSet, c.ctrs
	classes := cs.classes
	for {
		if c.seg.active {
			cl := &classes[c.seg.class]
			if c.seg.done >= cl.n {
				rs.closeSegment(c)
				continue
			}
			end := cl.cycleAt(c.seg.start, cl.n)
			stop := min(t, end)
			for i, k := range ctrs {
				r := cl.rate[i]
				if r <= 0 || beyond(k.remaining, r, cl.n-c.seg.done) {
					continue
				}
				var need uint64
				if k.remaining > eps {
					need = wholeAtLeast1(k.remaining/r - eps)
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
			d := cl.n // the segment's end: its last instruction completes there
			if stop != end {
				d = cl.instrAt(c.seg.start, stop)
			}
			overflow := false
			if fd := float64(d - c.seg.done); fd > 0 {
				for i, k := range ctrs {
					k.remaining -= float64(fd * cl.rate[i])
					overflow = overflow || k.remaining <= eps
				}
			} else {
				for _, k := range ctrs {
					overflow = overflow || k.remaining <= eps
				}
			}
			c.seg.done, c.clock = d, stop
			if overflow || stop >= t {
				return stop
			}
			if d < cl.n {
				continue
			}
			// whole: on to the next (closeSegment's commonest case in
			// line: it is every event's of a simulated second)
			if countsAsDrawn(c, cl) {
				countDrawn(c, c.seg.typ)
				c.seg.active = false
			} else {
				rs.closeSegment(c)
			}
		}
		if c.clock >= t {
			return c.clock
		}
		if len(classes) > manyClasses {
			rs.drawSegments(c, t)
			continue
		}
		// whole segments that surely end before t and overflow nothing
		// (none, without a division, where less than a segment's cycles
		// or events are left: after a skip, and at most events)
		var n uint64
		if span := t - c.clock - 1; span >= cs.cmax {
			n = span / cs.cmax
		}
		for i, k := range ctrs {
			if n == 0 {
				break
			}
			e := cs.emax[i]
			if e <= 0 {
				continue
			}
			d := k.remaining - eps
			if k.remaining <= eps || d <= e {
				// d ≤ e: d/e rounds to at most 1, wholeAtLeast1 says 1
				n = 0
				break
			}
			if !surelyAbove(d, e, n+1) {
				// (where d/e is surely n+1 or more, the counter bounds
				// no fewer than n: no division)
				n = min(n, wholeAtLeast1(d/e)-1)
			}
		}
		switch {
		case n > 0 && len(classes) == 1:
			rs.skipClass(c, &classes[0], 0, n) // skip's, with nothing to draw
		case n > 0:
			rs.skip(c, n)
		case len(classes) == 1:
			rs.startClass(c, 0) // startSegment's, with nothing to draw
		default:
			rs.startSegment(c)
		}
	}
}

// wholeAtLeast1 is ⌈x⌉, at least 1 and at most 2^62 (a rate so small
// that the division overflows means: not in this run).
func wholeAtLeast1(x float64) uint64 {
	x = math.Ceil(x)
	switch {
	case x >= 1<<62:
		return 1 << 62
	case x > 1:
		return uint64(int64(x))
	}
	return 1
}

// beyond reports, without a division, that a counter with remaining
// events left at r events per instruction surely does not overflow in the
// next left instructions: that the division the engine makes otherwise,
// wholeAtLeast1(remaining/r - eps), would surely exceed left. When it
// cannot tell, it says false and the division is made.
func beyond(remaining, r float64, left uint64) bool {
	return remaining > eps && surelyAbove(remaining, r, left+1)
}

// surelyAbove reports that d/e, as float64 division computes it, is at
// least n (a whole number below 2^53): d exceeds n·e rounded and raised
// by 10^-12, more than the rounding of the product can take away, so d
// exceeds n·e exactly, d/e ≥ n exactly and its rounding too. It is
// false where that is not sure, never wrong when true.
func surelyAbove(d, e float64, n uint64) bool {
	return n < 1<<53 && d > float64(n)*e*(1+1e-12)
}

// manyClasses is how many classes a thread may have before its segments'
// classes are drawn one by one (drawSegments) rather than as one count
// per class for many segments (skip): an imported workload's functions,
// each with its own CPI and rates, make thousands of classes, and between
// two interrupts only tens of segments run. (Both draws have the same
// distribution; workloads of fewer classes keep the per-class draw, and
// so their exact numbers.)
const manyClasses = 64

// drawSegments runs c's thread's segments one by one, each of a class
// drawn by probability, while the segment ends before t and overflows no
// counter; the first that does not is started and left in progress.
func (rs *runState) drawSegments(c *cpuRun, t uint64) {
	if len(c.ctrs) == 0 && !c.loopClasses {
		rs.startClass(c, rs.drawPlain(c, t))
		return
	}
	for {
		g := c.classPick.draw(rs.rng.Float64())
		if cl := &c.classes[g]; c.clock+cl.cycles < t && !rs.overflowsIn(c, cl) {
			rs.skipClass(c, cl, g, 1)
			continue
		}
		rs.startClass(c, g)
		return
	}
}

// drawPlain is drawSegments where a segment is its cycles alone (no
// counter, no loop): the draws run on local copies of the class draw,
// the cycles and the deferred counts, which stay in cache, and it returns
// the class of the segment that does not end before t.
func (rs *runState) drawPlain(c *cpuRun, t uint64) int {
	slots, cycles, deferred := c.classPick.slots, c.classCycles, c.deferred
	n := float64(len(slots))
	rng := rs.rng
	clock := c.clock
	for {
		// aliasTable.draw, inlined
		x := rng.Float64() * n
		g := min(int(x), len(slots)-1)
		if s := &slots[g]; float64(x)-float64(g) >= s.prob {
			g = s.alias
		}
		cy := cycles[g]
		if clock+cy >= t {
			c.clock = clock
			return g
		}
		deferred[g]++
		clock += cy
	}
}

// overflowsIn reports whether a whole segment of cl would bring one of
// c's counters to its overflow.
func (rs *runState) overflowsIn(c *cpuRun, cl *segClass) bool {
	for i, k := range c.ctrs {
		if k.remaining <= eps || (cl.ev[i] > 0 && k.remaining-cl.ev[i] <= eps) {
			return true
		}
	}
	return false
}

// skip runs n whole segments on c: how many fell in each class is drawn,
// which functions ran is left for later.
func (rs *runState) skip(c *cpuRun, n uint64) {
	counts := rs.counts[:0]
	if len(c.classes) == 1 {
		counts = append(counts, n)
	} else {
		counts = append(counts, make([]uint64, len(c.classes))...)
		multinomial(rs.rng, n, c.classP, counts)
	}
	rs.counts = counts
	for g, k := range counts {
		if k > 0 {
			rs.skipClass(c, &c.classes[g], g, k)
		}
	}
}

// skipClass runs k whole segments of class g (cl) on c.
func (rs *runState) skipClass(c *cpuRun, cl *segClass, g int, k uint64) {
	c.deferred[g] += k
	c.clock += k * cl.cycles
	fk := float64(k)
	for i, ctr := range c.ctrs {
		ctr.remaining -= float64(fk * cl.ev[i])
	}
	if fn := cl.loopFn; fn >= 0 {
		loop := rs.fns[fn].loop
		c.th.loopPos[fn] = (c.th.loopPos[fn] + (k%loop)*(cl.n%loop)) % loop
	}
}

// startSegment draws the class of c's next segment and starts it.
func (rs *runState) startSegment(c *cpuRun) {
	g := 0
	if len(c.classes) > 1 {
		g = c.classPick.draw(rs.rng.Float64())
	}
	rs.startClass(c, g)
}

// startClass starts a segment of class g on c.
func (rs *runState) startClass(c *cpuRun, g int) {
	cl := &c.classes[g]
	c.seg = segment{active: true, class: g, typ: -1, start: c.clock}
	if len(cl.members) == 1 {
		c.seg.typ = cl.members[0]
		if ty := c.th.types[c.seg.typ]; ty.isLoop(rs) {
			c.seg.loopStart = c.th.loopPos[ty.fn]
		}
	}
}

// reveal draws the function of c's segment in progress within its class
// (when it is not drawn yet).
func (rs *runState) reveal(c *cpuRun) {
	if c.seg.typ >= 0 {
		return
	}
	cl := &c.classes[c.seg.class]
	c.seg.typ = cl.members[cl.pick.draw(rs.rng.Float64())]
}

// where is what a processor executes at an instant: the kind of code,
// the function and its calling context.
type where struct {
	kind  segKind
	fn    int
	stack int // workload.Resolved.Stacks index, or workload.NoStack
}

// current is what c executes now: the segment in progress (drawn now if
// need be) or the idle loop.
func (rs *runState) current(c *cpuRun) where {
	if c.th == nil {
		return where{kind: kindIdle, fn: rs.w.Idle, stack: workload.NoStack}
	}
	if !c.seg.active {
		rs.startSegment(c)
	}
	if c.seg.typ < 0 {
		// reveal's draw, in line: at every interrupt of a simulated second
		cl := &c.classes[c.seg.class]
		c.seg.typ = cl.members[cl.pick.draw(rs.rng.Float64())]
	}
	ty := c.th.types[c.seg.typ]
	return where{kind: ty.kind, fn: ty.fn, stack: ty.stack}
}

// closeSegment ends c's segment in progress, whole or cut short, and
// adds it to the truth (a whole segment of an undrawn function: to its
// class's deferred count).
func (rs *runState) closeSegment(c *cpuRun) {
	if !c.seg.active {
		return
	}
	cl := &c.classes[c.seg.class]
	switch {
	case c.seg.typ < 0 && c.seg.done >= cl.n:
		c.deferred[c.seg.class]++
	case countsAsDrawn(c, cl):
		countDrawn(c, c.seg.typ)
	default:
		rs.flushDrawn(c) // before any other commit of c's
		if c.seg.typ < 0 {
			rs.reveal(c)
		}
		ty := c.th.types[c.seg.typ]
		rs.commit(c, ty, c.seg.done, c.clock-c.seg.start)
		if ty.isLoop(rs) {
			c.th.loopPos[ty.fn] = (c.seg.loopStart + c.seg.done) % rs.fns[ty.fn].loop
		}
	}
	c.seg.active = false
}

// countsAsDrawn reports whether c's segment in progress, of class cl, is
// counted for flushDrawn when it closes: a whole segment of a drawn
// function (the one an interrupt took) that is no loop's (a loop's
// position moves at once; its class is its own, loopFn).
func countsAsDrawn(c *cpuRun, cl *segClass) bool {
	return c.seg.typ >= 0 && cl.loopFn < 0 && c.seg.done >= cl.n && c.clock-c.seg.start == cl.cycles
}

// countDrawn counts a whole segment of c's thread's type typ for
// flushDrawn (c.drawn has a count for each of the thread's types:
// buildClasses).
func countDrawn(c *cpuRun, typ int) {
	if c.drawn[typ] == 0 {
		c.drawnTypes = append(c.drawnTypes, typ)
	}
	c.drawn[typ]++
}

// flushDrawn commits the whole segments of drawn functions countDrawn
// counted on c since the last flush: a type's k segments as k commits of
// one (commitN). Every commit to c's truth comes after it (closeSegment
// of a cut segment, flushDeferred), so each function's truth receives
// its commits in the order they would have come one by one at each
// segment's end: the counts are sums of whole numbers, and the events,
// sums of floats, get the same additions in the same order (whole
// segments of one function all add the same: its segment's instructions
// are the function's, whatever its type).
func (rs *runState) flushDrawn(c *cpuRun) {
	for _, typ := range c.drawnTypes {
		k := c.drawn[typ]
		c.drawn[typ] = 0
		cl := &c.classes[c.typeClass[typ]]
		rs.commitN(c, c.th.types[typ], cl.n, cl.cycles, k)
	}
	c.drawnTypes = c.drawnTypes[:0]
}

// flushDeferred draws which functions c's deferred whole segments ran
// (after committing those of drawn functions, flushDrawn).
func (rs *runState) flushDeferred(c *cpuRun) {
	rs.flushDrawn(c)
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
		if cl.split != nil {
			rs.flushLeaves(c, g, n)
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
		if len(cl.members) > manyClasses && n < 8*uint64(len(cl.members)) {
			// a class of many members (an imported workload's stacks):
			// a draw per segment costs less than a binomial per member
			for range n {
				counts[cl.pick.draw(rs.rng.Float64())]++
			}
		} else {
			multinomial(rs.rng, n, p, counts)
		}
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
	rs.commitN(c, ty, instr, cycles, 1)
}

// commitN is k commits of instr instructions over cycles cycles of ty:
// the whole numbers added once, k times as much, and the events added k
// times, one commit's at a time, as k commits would add them.
func (rs *runState) commitN(c *cpuRun, ty segType, instr, cycles, k uint64) {
	f := &rs.fns[ty.fn]
	tl := &rs.tallies[c.idx][c.th.ctx*rs.nf+ty.fn]
	tl.instr += k * instr
	tl.cycles += k * cycles
	if ty.stack >= 0 {
		st := &rs.stackTallies[ty.stack]
		st.instr += k * instr
		st.cycles += k * cycles
	}
	if k == 1 {
		addEvents(&tl.ev, float64(instr), &f.rate)
	} else {
		addEventsN(&tl.ev, float64(instr), &f.rate, k)
	}
	switch {
	case ty.kind == kindISR:
		c.times[2] += k * cycles
	case ty.kind == kindDPC:
		c.times[3] += k * cycles
	case f.kmode:
		c.times[1] += k * cycles
	default:
		c.times[0] += k * cycles
	}
}

// addEvents adds n instructions' events at rate (per instruction) to ev,
// written out event by event: it is done at every segment a simulated
// second closes, and the loop cost more than the arithmetic.
func addEvents(ev *[nEvents]float64, n float64, rate *[nEvents]float64) {
	// (a compile error here when the events change: add or remove a line)
	const _, _ = uint(nEvents - 6), uint(6 - nEvents)
	ev[0] += float64(n * rate[0])
	ev[1] += float64(n * rate[1])
	ev[2] += float64(n * rate[2])
	ev[3] += float64(n * rate[3])
	ev[4] += float64(n * rate[4])
	ev[5] += float64(n * rate[5])
}

// addEventsN is addEvents k times: the sums kept in registers over the
// k additions (the same additions, in the same order, as k calls).
func addEventsN(ev *[nEvents]float64, n float64, rate *[nEvents]float64, k uint64) {
	const _, _ = uint(nEvents - 6), uint(6 - nEvents) // as addEvents
	e0, e1, e2, e3, e4, e5 := ev[0], ev[1], ev[2], ev[3], ev[4], ev[5]
	r0, r1, r2, r3, r4, r5 := rate[0], rate[1], rate[2], rate[3], rate[4], rate[5]
	for range k {
		e0 += float64(n * r0)
		e1 += float64(n * r1)
		e2 += float64(n * r2)
		e3 += float64(n * r3)
		e4 += float64(n * r4)
		e5 += float64(n * r5)
	}
	ev[0], ev[1], ev[2], ev[3], ev[4], ev[5] = e0, e1, e2, e3, e4, e5
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
