package sim

import (
	"fmt"

	"github.com/proflab/proflab/halplugins/hal"
	"github.com/proflab/proflab/kernel/nt"
)

// timerHW is one processor's local APIC timer of one HAL's bank.
type timerHW struct {
	enabled bool
	source  nt.Source
	mode    hal.TimerMode
	period  uint64   // cycles (periodic)
	queue   []uint32 // one-shot periods, 100 ns units, not yet armed
	next    uint64   // cycle of the next fire
	armed   bool     // next is valid
}

// counterHW is one performance counter of one processor.
type counterHW struct {
	enabled    bool
	source     nt.Source
	event      event
	reload     uint64
	remaining  float64 // events until overflow
	skid       []hal.SkidWeight
	skidTotal  uint64
	skidOf     []uint32 // the skid of each draw below skidTotal (skidTable), or nil
	pebs       bool
	requiresCA bool
	warned     bool // "no control area" logged this run
}

// eps is the events left at or below which a counter has overflowed
// (remaining counts fractional expected events).
const eps = 1e-6

// dsHW is one processor's PEBS DS save area programming.
type dsHW struct {
	enabled          bool
	recordSize       uint32
	bufferRecords    uint32
	thresholdRecords uint32
	reset            [4]uint32

	ca      uint64 // control area the buffer was set up in (0: not set up)
	buf     uint64 // PEBS buffer (system address)
	bufSize uint64
	index   uint32 // records in the buffer
	pending []pebsRecord
}

// bank is the hardware one HAL instance programs: a timer, counters and
// a DS save area programming per processor.
type bank struct {
	name     string
	timers   []timerHW
	counters [][8]counterHW
	ds       []dsHW

	run  *runState // the run hook was looked up for
	hook Driver    // the bank's HAL if it hooks interrupts
}

func (b *bank) ensure(n int) {
	for len(b.timers) < n {
		b.timers = append(b.timers, timerHW{})
		b.counters = append(b.counters, [8]counterHW{})
		b.ds = append(b.ds, dsHW{})
	}
}

// Running implements halhost.Hardware: whether a Run is in progress. The
// HALs then wait for every call's answer, whose programming takes effect
// at once.
func (s *Sim) Running() bool { return s.inRun.Load() }

// Apply implements halhost.Hardware: it writes a HAL call's programming
// into the simulated processors. It runs between and during runs (a timer
// refill), never concurrently with Run from another goroutine.
func (s *Sim) Apply(halName string, p hal.Programming) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.hwGen++
	b := s.bank(halName)
	for _, l := range p.Log {
		s.logf("%s: %s", halName, l)
	}
	if p.ResetAll {
		n := len(b.timers)
		b.timers, b.counters, b.ds = nil, nil, nil
		b.ensure(n)
	}
	now := s.syncedNow()
	for _, t := range p.Timers {
		if t.CPU < 0 || t.CPU >= 64 {
			return fmt.Errorf("timer programming for processor %d", t.CPU)
		}
		b.ensure(t.CPU + 1)
		hw := &b.timers[t.CPU]
		if !t.Enabled {
			*hw = timerHW{}
			s.touch(t.CPU)
			continue
		}
		if s.refilling && t.Mode == hal.TimerOneShot && hw.enabled && hw.mode == hal.TimerOneShot {
			// a refill: append
			hw.queue = append(hw.queue, t.OneShot...)
		} else {
			*hw = timerHW{enabled: true, source: t.Source, mode: t.Mode}
			if t.Mode == hal.TimerPeriodic {
				hw.period = max(1, s.cycles100ns(uint64(t.Period)))
				hw.next, hw.armed = now+hw.period, true
			} else {
				hw.queue = append([]uint32(nil), t.OneShot...)
			}
		}
		if hw.mode == hal.TimerOneShot && !hw.armed && len(hw.queue) > 0 {
			hw.next, hw.armed = now+max(1, s.cycles100ns(uint64(hw.queue[0]))), true
			hw.queue = hw.queue[1:]
		}
		s.touch(t.CPU)
	}
	for _, c := range p.Counters {
		if c.CPU < 0 || c.CPU >= 64 || c.Index < 0 || c.Index > 7 {
			return fmt.Errorf("counter programming for processor %d counter %d", c.CPU, c.Index)
		}
		b.ensure(c.CPU + 1)
		hw := &b.counters[c.CPU][c.Index]
		if !c.Enabled {
			*hw = counterHW{}
			s.touch(c.CPU)
			continue
		}
		*hw = counterHW{enabled: true, source: c.Source, event: sourceEvent(c.Source), reload: max(1, uint64(c.Reload)),
			skid: append([]hal.SkidWeight(nil), c.Skid...), pebs: c.PEBS, requiresCA: c.RequiresControlArea || c.PEBS}
		hw.remaining = float64(hw.reload)
		for _, k := range c.Skid {
			hw.skidTotal += uint64(k.Weight)
		}
		hw.skidOf = skidTable(hw.skid, hw.skidTotal)
		s.touch(c.CPU)
	}
	for _, d := range p.DS {
		if d.CPU < 0 || d.CPU >= 64 {
			return fmt.Errorf("DS programming for processor %d", d.CPU)
		}
		b.ensure(d.CPU + 1)
		hw := &b.ds[d.CPU]
		if !d.Enabled {
			*hw = dsHW{}
			continue
		}
		keep := hw.buf != 0 && uint64(d.BufferRecords)*uint64(d.RecordSize) <= hw.bufSize
		buf, size := hw.buf, hw.bufSize
		*hw = dsHW{enabled: true, recordSize: d.RecordSize, bufferRecords: d.BufferRecords,
			thresholdRecords: max(1, d.ThresholdRecords), reset: d.CounterReset}
		if keep {
			hw.buf, hw.bufSize = buf, size
		}
		s.dsDirty = true
	}
	return nil
}

func (s *Sim) bank(name string) *bank {
	for _, b := range s.banks {
		if b.name == name {
			return b
		}
	}
	b := &bank{name: name}
	b.ensure(s.ncpu)
	s.banks = append(s.banks, b)
	return b
}

// touch marks a processor's next event for recomputation.
func (s *Sim) touch(cpu int) {
	if cpu < len(s.cpus) && s.cpus[cpu] != nil {
		s.cpus[cpu].dirty = true
	}
}

// event is a countable hardware event.
type event uint8

const (
	evInstructions event = iota
	evCycles
	evBranches
	evMispredicts
	evCacheMisses
	evCacheRefs
	nEvents
)

var eventNames = [nEvents]string{"instructions", "cycles", "branches", "branch_mispredicts", "cache_misses", "cache_references"}

// String names the event as the results do.
func (e event) String() string { return eventNames[e] }

// sourceEvent maps a counter source to the event it counts.
func sourceEvent(src nt.Source) event {
	switch src {
	case nt.ProfileTotalCycles, nt.ProfileUnhaltedCoreCycles, nt.ProfileUnhaltedReferenceCycles,
		nt.ProfilePipelineDry, nt.ProfilePipelineFrozen, nt.ProfileTotalNonissues, nt.ProfileMemoryBarrierCycles:
		return evCycles
	case nt.ProfileBranchInstructions, nt.ProfileBranchInstructionRetired:
		return evBranches
	case nt.ProfileBranchMispredictions, nt.ProfileBranchMispredictsRetired:
		return evMispredicts
	case nt.ProfileCacheMisses, nt.ProfileLLCMisses, nt.ProfileDcacheMisses, nt.ProfileIcacheMisses:
		return evCacheMisses
	case nt.ProfileLLCReference, nt.ProfileDcacheAccesses:
		return evCacheRefs
	}
	return evInstructions
}

// skidAt is the skid of the draw u (below skidTotal): the instructions
// of the first entry whose running weight passes u.
func (k *counterHW) skidAt(u uint64) uint64 {
	if u < uint64(len(k.skidOf)) {
		return uint64(k.skidOf[u])
	}
	for _, w := range k.skid {
		if u < uint64(w.Weight) {
			return uint64(w.Instructions)
		}
		u -= uint64(w.Weight)
	}
	return 0
}

// maxSkidTable is the largest total skid weight skidTable makes a table
// for (4 KiB of it per counter).
const maxSkidTable = 1024

// skidTable is the skid the distribution gives each draw u below total,
// the weights' cumulative order (the first entry whose running weight
// passes u): the skid of a counter's overflow is then one lookup in
// place of a walk over the entries, whose branches guess wrong as often
// as the draw is random. Nil where the total is 0 or above maxSkidTable.
func skidTable(skid []hal.SkidWeight, total uint64) []uint32 {
	if total == 0 || total > maxSkidTable {
		return nil
	}
	t := make([]uint32, 0, total)
	for _, w := range skid {
		for range w.Weight {
			t = append(t, w.Instructions)
		}
	}
	return t
}
