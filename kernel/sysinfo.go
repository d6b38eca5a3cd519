package kernel

import (
	"encoding/binary"

	"github.com/proflab/proflab/kernel/nt"
)

// maxTimeIncrement is the clock's maximum time increment (15.625 ms):
// after 3.10 the reported processor times are whole ticks of it.
const maxTimeIncrement = 156250

// NtQuerySystemInformation answers the classes the profiling lab models:
// SystemProcessorPerformanceInformation (0x08), its Ex form (0x8D, 6.2+)
// and SystemPerformanceTraceInformation (0x1F, 6.0+) with
// EventTraceTimeProfileInformation. Any other class gives
// STATUS_INVALID_INFO_CLASS.
func (t *Thread) NtQuerySystemInformation(class uint32, buf uint64, length uint32, retLen uint64) (Status, error) {
	m := t.proc.m
	if err := m.checkRunning(); err != nil {
		return 0, err
	}
	buf &= m.lay.ptrMask
	retLen &= m.lay.ptrMask
	if t.mode == UserMode {
		if st := t.view().probeForWrite(buf, uint64(length), 4); st != StatusSuccess {
			return st, nil
		}
		if retLen != 0 {
			if st := t.view().probeVariable(retLen, 4); st != StatusSuccess {
				return st, nil
			}
		}
	}
	switch {
	case class == nt.SystemProcessorPerformanceInformation:
		return t.processorPerformance(buf, length, retLen, 0x30)
	case class == nt.SystemProcessorPerformanceInformationEx && m.ver.hasPerfInfoEx():
		return t.processorPerformance(buf, length, retLen, 0x48)
	case class == nt.SystemPerformanceTraceInformation && m.ver.hasPerfTraceClass():
		return t.queryPerformanceTrace(buf, length, retLen)
	}
	return StatusInvalidInfoClass, nil
}

// store writes data at addr in the caller's view: a user-mode fault is
// the exception code, a kernel-mode one a bug check.
func (t *Thread) store(addr uint64, data []byte) (Status, error) {
	if err := t.view().write(addr, data); err != nil {
		if t.mode == KernelMode {
			return 0, t.proc.m.pageFault(addr, true)
		}
		return StatusAccessViolation, nil
	}
	return StatusSuccess, nil
}

func (t *Thread) storeU32(addr uint64, v uint32) (Status, error) {
	var b [4]byte
	binary.LittleEndian.PutUint32(b[:], v)
	return t.store(addr, b[:])
}

func (t *Thread) storeRetLen(retLen uint64, v uint32) (Status, error) {
	if retLen == 0 {
		return StatusSuccess, nil
	}
	return t.storeU32(retLen, v)
}

func (t *Thread) load(addr uint64, buf []byte) (Status, error) {
	if err := t.view().read(addr, buf); err != nil {
		if t.mode == KernelMode {
			return 0, t.proc.m.pageFault(addr, false)
		}
		return StatusAccessViolation, nil
	}
	return StatusSuccess, nil
}

func (m *Machine) ticks(v uint64) uint64 {
	if m.ver.Before("3.50") {
		return v
	}
	return v / maxTimeIncrement * maxTimeIncrement
}

// processorPerformance is classes 0x08 and 0x8D
// (docs/reference/system-information.md#systemprocessorperformanceinformation-0x08):
// one element per active processor of the current group; the buffer must
// be a whole number (≥ 1) of elements.
func (t *Thread) processorPerformance(buf uint64, length uint32, retLen uint64, elem uint32) (Status, error) {
	m := t.proc.m
	n := uint32(len(m.cpus))
	if length == 0 || length%elem != 0 {
		if st, err := t.storeRetLen(retLen, n*elem); st != StatusSuccess || err != nil {
			return st, err
		}
		return StatusInfoLengthMismatch, nil
	}
	k := min(length/elem, n)
	out := make([]byte, k*elem)
	for i := uint32(0); i < k; i++ {
		p := m.cpus[i]
		e := out[i*elem:]
		tm := p.times
		idle := m.ticks(tm.Idle)
		binary.LittleEndian.PutUint64(e[0x00:], idle)
		binary.LittleEndian.PutUint64(e[0x08:], m.ticks(tm.Idle+tm.Kernel+tm.DPC+tm.Interrupt))
		binary.LittleEndian.PutUint64(e[0x10:], m.ticks(tm.User))
		binary.LittleEndian.PutUint64(e[0x18:], m.ticks(tm.DPC))
		binary.LittleEndian.PutUint64(e[0x20:], m.ticks(tm.Interrupt))
		binary.LittleEndian.PutUint32(e[0x28:], p.interruptCount)
		if elem == 0x48 {
			binary.LittleEndian.PutUint64(e[0x30:], idle) // AvailableTime: the processor's idle time
		}
	}
	if st, err := t.store(buf, out); st != StatusSuccess || err != nil {
		return st, err
	}
	if st, err := t.storeRetLen(retLen, k*elem); st != StatusSuccess || err != nil {
		return st, err
	}
	return StatusSuccess, nil
}

// queryPerformanceTrace is SystemPerformanceTraceInformation for query:
// EventTraceTimeProfileInformation and EventTraceGroupMaskInformation.
func (t *Thread) queryPerformanceTrace(buf uint64, length uint32, retLen uint64) (Status, error) {
	if length < 4 {
		return StatusInvalidParameter, nil
	}
	var cls [4]byte
	if st, err := t.load(buf, cls[:]); st != StatusSuccess || err != nil {
		return st, err
	}
	switch binary.LittleEndian.Uint32(cls[:]) {
	case nt.EventTraceTimeProfileInformation:
		if length != 8 {
			return StatusInfoLengthMismatch, nil
		}
		if st, err := t.storeU32(buf+4, t.proc.m.timeInterval); st != StatusSuccess || err != nil {
			return st, err
		}
		return t.storeRetLen(retLen, 8)
	case nt.EventTraceGroupMaskInformation:
		b := make([]byte, length)
		if st, err := t.load(buf, b); st != StatusSuccess || err != nil {
			return st, err
		}
		masks, st := t.proc.m.queryGroupMask(b)
		if st != StatusSuccess {
			return st, nil
		}
		out := make([]byte, 32)
		for i, v := range masks {
			binary.LittleEndian.PutUint32(out[4*i:], v)
		}
		if st, err := t.store(buf+etwHeader, out); st != StatusSuccess || err != nil {
			return st, err
		}
		return t.storeRetLen(retLen, groupMaskSize)
	}
	return StatusNotImplemented, nil
}

// NtSetSystemInformation handles SystemProcessorProfileControlArea (0x81,
// 6.2+) and SystemPerformanceTraceInformation (0x1F, 6.0+) with
// EventTraceTimeProfileInformation. Any other class gives
// STATUS_INVALID_INFO_CLASS.
func (t *Thread) NtSetSystemInformation(class uint32, buf uint64, length uint32) (Status, error) {
	m := t.proc.m
	if err := m.checkRunning(); err != nil {
		return 0, err
	}
	buf &= m.lay.ptrMask
	if t.mode == UserMode {
		if st := t.view().probeForRead(buf, uint64(length), 4); st != StatusSuccess {
			return st, nil
		}
	}
	switch {
	case class == nt.SystemProcessorProfileControlArea && m.ver.hasControlArea():
		return t.profileControlArea(buf, length)
	case class == nt.SystemPerformanceTraceInformation && m.ver.hasPerfTraceClass():
		return t.setPerformanceTrace(buf, length)
	}
	return StatusInvalidInfoClass, nil
}

func (t *Thread) setPerformanceTrace(buf uint64, length uint32) (Status, error) {
	m := t.proc.m
	if length < 4 {
		return StatusInvalidParameter, nil
	}
	b := make([]byte, length)
	if st, err := t.load(buf, b); st != StatusSuccess || err != nil {
		return st, err
	}
	class := binary.LittleEndian.Uint32(b)
	if class >= nt.EventTracePebsTracingInformation && class <= nt.EventTraceProfileCounterListInformation && !m.ver.hasTraceProfileClasses() {
		return StatusNotImplemented, nil
	}
	switch class {
	case nt.EventTraceTimeProfileInformation:
		if length != 8 {
			return StatusInfoLengthMismatch, nil
		}
		if !t.privileged() {
			return StatusPrivilegeNotHeld, nil
		}
		return m.setInterval(t.cpu, binary.LittleEndian.Uint32(b[4:]), nt.ProfileTime)
	case nt.EventTraceGroupMaskInformation:
		if !m.ver.hasTraceProfileClasses() { // set only from 6.2
			return StatusNotImplemented, nil
		}
		return t.setGroupMask(b)
	case nt.EventTracePebsTracingInformation:
		return t.setPEBSTracing(b), nil
	case nt.EventTraceProfileConfigInformation:
		return m.setProfileConfig(b), nil
	case nt.EventTraceProfileEventListInformation:
		return m.setProfileEventList(b), nil
	case nt.EventTraceProfileCounterListInformation:
		return m.setCounterList(b)
	}
	return StatusNotImplemented, nil
}

// controlAreaSize is PROCESSOR_PROFILE_CONTROL_AREA's size
// (docs/reference/system-information.md#processor_profile_control_area).
const controlAreaSize = 0x60

// profileControlArea is SystemProcessorProfileControlArea
// (docs/reference/system-information.md#systemprocessorprofilecontrolarea-0x81):
// kernel mode only, acting on the current processor.
func (t *Thread) profileControlArea(buf uint64, length uint32) (Status, error) {
	m := t.proc.m
	if t.mode == UserMode {
		return StatusAccessDenied, nil
	}
	ps := uint64(m.arch.PointerSize())
	if uint64(length) != 2*ps {
		return StatusInfoLengthMismatch, nil
	}
	var alloc [1]byte
	if st, err := t.load(buf+ps, alloc[:]); st != StatusSuccess || err != nil {
		return st, err
	}
	out := func(v uint64, st Status) (Status, error) {
		b := make([]byte, ps)
		for i := range b {
			b[i] = byte(v >> (8 * i))
		}
		if s, err := t.store(buf, b); s != StatusSuccess || err != nil {
			return s, err
		}
		return st, nil
	}
	p := m.cpus[t.cpu]
	if alloc[0] == 0 {
		if p.controlArea == 0 {
			return out(0, nt.StatusMemoryNotAllocated)
		}
		m.poolFree(p.controlArea)
		p.controlArea = 0
		return out(0, StatusSuccess)
	}
	area, ok := m.poolAlloc(controlAreaSize)
	if !ok {
		return out(0, StatusInsufficientResources)
	}
	if !m.pebsSupported(p) {
		m.poolFree(area)
		return out(0, StatusNotSupported)
	}
	if p.controlArea != 0 {
		m.poolFree(area)
		return out(p.controlArea, StatusAddressAlreadyExists)
	}
	p.controlArea = area
	return out(area, StatusSuccess)
}

// pebsSupported is the kernel's own PEBS check of a processor
// (docs/reference/system-information.md#systemprocessorprofilecontrolarea-0x81).
func (m *Machine) pebsSupported(p *processor) bool {
	if p.vendor != nt.VendorIntel {
		return false
	}
	if p.miscEnable&nt.MiscEnablePerfMonAvailable == 0 || p.miscEnable&nt.MiscEnablePEBSUnavailable != 0 {
		return false
	}
	return m.arch == X64 || p.cpuid1ECX&nt.CPUID1ECX_DTES64 != 0
}

// PEBSSupported reports whether cpu passes the kernel's PEBS check.
func (m *Machine) PEBSSupported(cpu int) bool { return m.pebsSupported(m.cpus[cpu]) }

// ControlArea returns the address of cpu's PROCESSOR_PROFILE_CONTROL_AREA
// in system space, or 0 when it has none.
func (m *Machine) ControlArea(cpu int) uint64 { return m.cpus[cpu].controlArea }

// ReadSystem reads system memory (for the lab: DS save areas, pool).
func (m *Machine) ReadSystem(addr uint64, buf []byte) error { return m.sysView().read(addr, buf) }

// WriteSystem writes system memory (for the lab's simulated hardware,
// such as PEBS writing into a DS save area).
func (m *Machine) WriteSystem(addr uint64, data []byte) error { return m.sysView().write(addr, data) }
