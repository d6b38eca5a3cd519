package kernel

import (
	"encoding/binary"
	"fmt"

	"github.com/proflab/proflab/kernel/nt"
)

// Interrupt is one profile interrupt as the HAL delivers it: the processor,
// the source, and the trap frame of the interrupted code.
type Interrupt struct {
	CPU    int
	Source nt.Source
	// IP is the trap frame's instruction pointer.
	IP   uint64
	Mode Mode // the interrupted code's mode
	// ExecutingISR and ExecutingDPC say whether the interrupted code was
	// itself an interrupt service routine or a DPC.
	ExecutingISR, ExecutingDPC bool
	// Thread is the thread running on the processor, nil for the idle
	// context (thread id 0). Its process's profile list is walked.
	Thread *Thread
	// Callers are the interrupted context's return addresses, innermost
	// first: what a walk of its stack finds after the IP (the kernel
	// logger's stack walk, stackwalk.go). The simulated hardware's
	// stack; nil when it has none.
	Callers []uint64
}

// interruptPath is what a version's interrupt path does, decided when the
// machine is made.
type interruptPath struct {
	source       bool // 3.51+: profiles have a source and an affinity
	inclusiveEnd bool // 6.2 to before 1809: the range end is inclusive
	callbacks    bool // 6.2+: callback objects on the global list
}

// ProfileInterrupt delivers a profile interrupt: the HAL's call of
// KeProfileInterruptWithSource (KeProfileInterrupt on 3.10 and 3.50, which
// have no source; the Source is then ignored). It returns a *BugCheck if
// the interrupt bug-checked the machine.
func (m *Machine) ProfileInterrupt(in Interrupt) error {
	if err := m.checkRunning(); err != nil {
		return err
	}
	if in.CPU < 0 || in.CPU >= len(m.cpus) {
		return fmt.Errorf("cpu %d does not exist (the machine has %d)", in.CPU, len(m.cpus))
	}
	// 1. InterruptCount: the 32-bit kernel counts here; on x64 the HAL's
	// interrupt path counts before calling the kernel. Either way it rises
	// by one.
	m.cpus[in.CPU].interruptCount++
	if !m.irq.source {
		in.Source = nt.ProfileTime
	}
	in.IP &= m.lay.ptrMask
	// 2. the current process's list, then the global list.
	if in.Thread != nil && in.Thread.proc.list.head != nil {
		if bc := m.walk(&in.Thread.proc.list, in); bc != nil {
			return bc
		}
	}
	if bc := m.walk(&m.globalList, in); bc != nil {
		return bc
	}
	// Before 6.2 there are no callback objects: the sampled-profile event
	// is traced directly for ProfileTime interrupts.
	if !m.irq.callbacks && in.Source == nt.ProfileTime && m.profileTracing() {
		m.traceSampledProfile(&in)
	}
	return nil
}

// walk applies one list to an interrupt.
func (m *Machine) walk(l *profileList, in Interrupt) *BugCheck {
	hasSource := m.irq.source
	inclusive := m.irq.inclusiveEnd
	bit := uint64(1) << in.CPU
	for k := l.head; k != nil; {
		next := k.next // a callback may not unlink, but be safe
		if k.callback != nil {
			// 5. callback objects: a source match is the only condition.
			if int32(k.source) == int32(in.Source) {
				c := in // only callbacks see (and may keep) a copy
				k.callback(m, &c)
			}
			k = next
			continue
		}
		// 3. (a) source, (b) affinity, (c) region.
		if hasSource && (int32(k.source) != int32(in.Source) || k.affinity&bit == 0) {
			k = next
			continue
		}
		ip := in.IP
		if ip < k.rangeBase || ip > k.rangeLimit || (ip == k.rangeLimit && !inclusive) {
			k = next
			continue
		}
		// 4. the counter's address: the byte offset of the bucket's ULONG.
		addr := (k.buffer + (((ip - k.rangeBase) >> k.bucketShift) &^ 3)) & m.lay.ptrMask
		if bc := m.increment(k, addr); bc != nil {
			return bc
		}
		k = next
	}
	return nil
}

// increment adds one to the ULONG at the system address addr, at profile
// IRQL: a fault there is bug check 0x0A.
func (m *Machine) increment(k *kprofile, addr uint64) *BugCheck {
	if rel := addr - k.mapBase; addr >= k.mapBase && rel < uint64(len(k.pages))*PageSize {
		b := k.pages[rel>>pageShift].bytes()
		off := rel % PageSize
		binary.LittleEndian.PutUint32(b[off:], binary.LittleEndian.Uint32(b[off:])+1)
		return nil
	}
	e, ok := m.sysPT[addr>>pageShift]
	if !ok || !e.prot.writable() || addr%PageSize > PageSize-4 {
		return m.bugCheck(nt.IRQL_NOT_LESS_OR_EQUAL, addr, m.arch.ProfileIRQL(), 1, m.lay.faultIP)
	}
	b := e.f.bytes()
	off := addr % PageSize
	binary.LittleEndian.PutUint32(b[off:], binary.LittleEndian.Uint32(b[off:])+1)
	return nil
}

// AddCallbackObject puts a ProfileCallbackObject (6.2+) for src on the
// global list: fn runs for every interrupt of that source, with no range
// or affinity test. It does not start the source's interrupt. The
// returned function removes the object.
func (m *Machine) AddCallbackObject(src nt.Source, fn func(in Interrupt)) (remove func(), err error) {
	if !m.ver.hasCallbackObjects() {
		return nil, fmt.Errorf("profile callback objects exist from 6.2; this machine models %s", m.ver)
	}
	k := &kprofile{typ: nt.ProfileCallbackObject, source: int16(src), started: true,
		callback: func(_ *Machine, in *Interrupt) { fn(*in) }}
	m.globalList.pushBack(k)
	return func() {
		if k.started {
			m.globalList.remove(k)
			k.started = false
		}
	}, nil
}
