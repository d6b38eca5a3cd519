package sim

import (
	"fmt"
)

// This file is the event loop: every processor's next event, earliest
// first, until the end of the run.

// nextEvent computes c's next event cycle. A busy processor executes up
// to it (execute), so its clock may run ahead of the machine's: what
// another processor's event changes on it (a HAL reprogramming its
// counters from an interrupt hook) takes effect from its next event, as
// with the segment-stepping engine it replaced.
func (rs *runState) nextEvent(c *cpuRun) uint64 {
	t := min(rs.end, rs.nextTimer(c))
	if c.th == nil {
		return t
	}
	if c.quantumEnd < t {
		t = max(c.quantumEnd, c.clock)
	}
	return rs.execute(c, t)
}

// loop is the global event loop: the earliest processor event first.
func (rs *runState) loop() {
	s := rs.s
	var lastT uint64
	var lastC *cpuRun
	stuck := 0
	for iter := 0; rs.stopErr == nil; iter++ {
		// The context every 16 events: an event can cost milliseconds
		// (an interrupt walking tens of thousands of started profiles),
		// and a run must stop promptly when its budget or Ctrl-C ends it.
		if iter&15 == 15 {
			if err := rs.ctx.Err(); err != nil {
				rs.stopErr = fmt.Errorf("the run was stopped at %d µs of simulated time: %w", s.time100ns(s.now)/10, err)
				break
			}
			if iter&1023 == 1023 {
				rs.progress()
			}
		}
		var c *cpuRun
		for _, x := range s.cpus {
			if x.dirty {
				x.next = rs.nextEvent(x)
				x.dirty = false
			}
			if c == nil || x.next < c.next {
				c = x
			}
		}
		wake := rs.nextWake()
		if wake < c.next && wake < rs.end {
			s.now = wake
			rs.wakeThreads()
			continue
		}
		if c.next >= rs.end {
			break
		}
		if c.next == lastT && c == lastC {
			if stuck++; stuck > 10000 {
				rs.stopErr = fmt.Errorf("proflab bug: the simulator made no progress on processor %d at cycle %d (please report it)", c.idx, c.next)
				break
			}
		} else {
			lastT, lastC, stuck = c.next, c, 0
		}
		s.now = c.next
		rs.step(c)
	}
	for _, c := range s.cpus {
		if rs.stopErr == nil {
			rs.idleUntil(c, rs.end)
		}
	}
	if rs.stopErr == nil {
		s.now = rs.end
	}
}

// step handles everything due on c at s.now: counters that overflowed,
// timers that fired, the end of the quantum.
func (rs *runState) step(c *cpuRun) {
	s := rs.s
	t := s.now
	c.dirty = true
	rs.events++
	rs.idleUntil(c, t)
	if c.th != nil {
		if c.gen == s.hwGen {
			// the enabled counters, as execute saw them
			for j, k := range c.ctrs {
				if k.enabled && k.remaining <= eps {
					rs.overflow(c, c.ctrRefs[j].b, c.ctrRefs[j].i, k)
					if rs.stopErr != nil {
						return
					}
				}
			}
		} else {
			rs.overflowAll(c)
			if rs.stopErr != nil {
				return
			}
		}
	}
	for _, b := range s.banks {
		if c.idx >= len(b.timers) {
			continue
		}
		tm := &b.timers[c.idx]
		if tm.enabled && tm.armed && tm.next <= t {
			at := rs.current(c)
			rs.deliver(c, b, tm.source, rs.interruptedIP(c, at, 0), at, false)
			if rs.stopErr != nil {
				return
			}
			rs.rearm(c, b, tm)
		}
	}
	if c.th != nil && t >= c.quantumEnd {
		rs.quantumEnd(c)
	}
}

// overflowAll handles every counter of c that overflowed, looking at
// every bank (the hardware changed since c's counters were listed).
func (rs *runState) overflowAll(c *cpuRun) {
	for _, b := range rs.s.banks {
		if c.idx >= len(b.counters) {
			continue
		}
		for i := range b.counters[c.idx] {
			k := &b.counters[c.idx][i]
			if k.enabled && k.remaining <= eps {
				rs.overflow(c, b, i, k)
				if rs.stopErr != nil {
					return
				}
			}
		}
	}
}
