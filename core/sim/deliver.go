package sim

import (
	"sort"

	"github.com/proflab/proflab/halplugins/hal"
	"github.com/proflab/proflab/kernel"
	"github.com/proflab/proflab/kernel/nt"
)

// This file is delivery and accounting: the IP an interrupt reports, a
// counter's overflow, the profile interrupt handed to the kernel and the
// HALs' interrupt hooks, and the processor times the kernel keeps.

// slot draws the instruction slot c executes now in function fn of kind
// kind (a thread's loop function: its position in the loop).
func (rs *runState) slot(c *cpuRun, kind segKind, fn int) uint64 {
	f := &rs.fns[fn]
	rng := rs.rng
	if kind == kindIdle {
		return rng.Uint64N(f.n)
	}
	if f.loop > 0 {
		if kind == kindThread {
			return (c.seg.loopStart + c.seg.done) % f.loop
		}
		return rng.Uint64N(f.loop)
	}
	u := rng.Float64()
	// the first component whose cumulative weight passes u (or reaches
	// 1): a binary search, as an imported function may have thousands
	i := sort.Search(len(f.comps), func(i int) bool { k := f.comps[i]; return u < k.cum || k.cum >= 1 })
	k := f.comps[min(i, len(f.comps)-1)]
	return k.lo + rng.Uint64N(k.hi-k.lo)
}

// interruptedIP is the IP of the instruction in progress on c (executing
// at, from current), plus skid instructions.
func (rs *runState) interruptedIP(c *cpuRun, at where, skid uint64) uint64 {
	f := &rs.fns[at.fn]
	sl := rs.slot(c, at.kind, at.fn)
	if skid > 0 {
		if f.loop > 0 && at.kind == kindThread {
			sl = (sl + skid) % f.loop
		} else {
			sl += skid // lands past the end: in whatever code follows
		}
	}
	return f.addr + sl*f.ib
}

// overflow handles counter i of bank b overflowing on c.
func (rs *runState) overflow(c *cpuRun, b *bank, i int, k *counterHW) {
	s := rs.s
	k.remaining += float64(k.reload)
	if k.requiresCA && s.m.ControlArea(c.idx) == 0 {
		if !k.warned {
			k.warned = true
			s.logf("%s: processor %d has no PROCESSOR_PROFILE_CONTROL_AREA: %s overflows deliver nothing there", b.name, c.idx, k.source)
		}
		return
	}
	if !k.pebs {
		var skid uint64
		if k.skidTotal > 0 {
			skid = k.skidAt(rs.rng.Uint64N(k.skidTotal))
		}
		at := rs.current(c)
		rs.deliver(c, b, k.source, rs.interruptedIP(c, at, skid), at, false)
		return
	}
	rs.pebsOverflow(c, b, i, k)
}

// deliver raises a profile interrupt from src on c at ip, taken while c
// executed at (for a PEBS record: when the record was written).
func (rs *runState) deliver(c *cpuRun, b *bank, src nt.Source, ip uint64, at where, pebs bool) {
	s := rs.s
	if now := s.time100ns(s.now); now > s.m.Now() {
		s.m.Advance(now - s.m.Now())
	}
	in := kernel.Interrupt{CPU: c.idx, Source: src, IP: ip, Mode: kernel.UserMode,
		ExecutingISR: at.kind == kindISR, ExecutingDPC: at.kind == kindDPC}
	if rs.fns[at.fn].kmode || at.kind != kindThread {
		in.Mode = kernel.KernelMode
	}
	ctx := 0
	if c.th != nil {
		in.Thread = c.th.kt
		ctx = c.th.ctx
		in.Callers = rs.callers(at)
	}
	if err := s.m.ProfileInterrupt(in); err != nil {
		rs.stopErr = err
		return
	}
	rs.res.count(c.idx, src)
	if at.stack >= 0 {
		rs.hitStack(src, ctx, at.stack)
	}
	if h := rs.hookHAL(b); h != nil {
		var flags uint32
		if in.Mode == kernel.UserMode {
			flags |= hal.InterruptUser
		}
		if in.ExecutingISR {
			flags |= hal.InterruptISR
		}
		if in.ExecutingDPC {
			flags |= hal.InterruptDPC
		}
		if pebs {
			flags |= hal.InterruptPEBS
		}
		rs.hooks[b.name] = append(rs.hooks[b.name], hal.Interrupt{Time: s.m.Now(), IP: ip, CPU: uint16(c.idx), Source: src, Flags: flags})
		if len(rs.hooks[b.name]) >= hal.InterruptBatchMax {
			batch := rs.hooks[b.name]
			rs.hooks[b.name] = nil
			if err := h.Interrupts(batch); err != nil {
				rs.stopErr = err
			}
		}
	}
}

// hookHAL is b's HAL when it has the InterruptHook ability.
func (rs *runState) hookHAL(b *bank) Driver {
	if b.run != rs {
		b.run, b.hook = rs, nil
		if h := rs.halByNm[b.name]; h != nil && h.Abilities().InterruptHook {
			b.hook = h
		}
	}
	return b.hook
}

func (rs *runState) flushHooks() error {
	var names []string
	for n := range rs.hooks {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if b := rs.hooks[n]; len(b) > 0 {
			if err := rs.halByNm[n].Interrupts(b); err != nil {
				return err
			}
		}
	}
	return nil
}

// account adds the run's processor times to the kernel's counters.
func (rs *runState) account() {
	s := rs.s
	for _, c := range rs.cpus {
		tm := func(i int) uint64 { return s.time100ns(c.times[i]) }
		s.m.AccountTime(c.idx, kernel.CPUTimes{User: tm(0), Kernel: tm(1), Interrupt: tm(2), DPC: tm(3), Idle: tm(4)})
	}
}
