package sim

import "github.com/proflab/proflab/halplugins/hal"

// This file is the timer hardware during a run: when a processor's local
// APIC timers fire next, and how they rearm.

// nextTimer is the cycle of c's earliest armed timer (at least c's clock),
// or the largest cycle when none is armed.
func (rs *runState) nextTimer(c *cpuRun) uint64 {
	t := ^uint64(0)
	for _, b := range rs.s.banks {
		if c.idx < len(b.timers) {
			if tm := &b.timers[c.idx]; tm.enabled && tm.armed && tm.next < t {
				t = max(tm.next, c.clock)
			}
		}
	}
	return t
}

// rearm sets a timer that fired to its next period: periodic timers by
// their period, one-shot timers from their queue, refilled by a
// TimerRefiller HAL when it runs dry.
func (rs *runState) rearm(c *cpuRun, b *bank, tm *timerHW) {
	s := rs.s
	if tm.mode == hal.TimerPeriodic {
		tm.next += tm.period
		return
	}
	if len(tm.queue) == 0 {
		if h := rs.halByNm[b.name]; h != nil && h.Abilities().TimerRefiller {
			var dry []int
			for i := range b.timers {
				x := &b.timers[i]
				if x.enabled && x.mode == hal.TimerOneShot && len(x.queue) == 0 {
					dry = append(dry, i)
				}
			}
			s.refilling = true
			err := h.RefillTimer(dry)
			s.refilling = false
			if err != nil {
				rs.stopErr = err
				return
			}
		}
	}
	if len(tm.queue) == 0 {
		tm.armed = false
		s.logf("%s: processor %d: the one-shot timer queue ran dry; the timer stops", b.name, c.idx)
		return
	}
	tm.next += max(1, s.cycles100ns(uint64(tm.queue[0])))
	tm.queue = tm.queue[1:]
}
