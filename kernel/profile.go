package kernel

import (
	"math/bits"

	"github.com/proflab/proflab/kernel/nt"
)

// eprofile is the executive profile object (EPROFILE,
// docs/reference/profile-objects.md#eprofile-the-executive-profile-object).
type eprofile struct {
	addr       uint64   // its pool allocation
	process    *Process // profiled process, nil for global
	base, size uint64
	buffer     uint64 // the caller's buffer
	bufferSize uint32
	bucketSize uint32 // log2 of the bucket size
	kp         *kprofile
	mapped     uint64 // system address of the buffer; 0 while stopped (the "started" test)
	segment    uint64
	source     nt.Source
	affinity   uint64
	handles    int
	owner      *Process // the process whose address space holds the buffer
}

func (*eprofile) objectType() objectType { return typeProfile }

// kprofile is the kernel profile object (KPROFILE,
// docs/reference/start-stop.md#kprofile-the-kernel-profile-object): a
// ProfileObject or, from 6.2, a ProfileCallbackObject.
type kprofile struct {
	typ         uint16
	prev, next  *kprofile
	process     *Process
	rangeBase   uint64
	rangeLimit  uint64 // non-inclusive end
	bucketShift uint32
	buffer      uint64 // system-mapped address of the counters
	segment     uint64
	affinity    uint64
	source      int16 // narrowed to 16 bits from 3.51
	started     bool
	callback    func(m *Machine, in *Interrupt)

	addr    uint64   // pool allocation
	mapBase uint64   // page-aligned start of the system mapping
	pages   []*frame // the locked pages (the MDL)
	owner   *eprofile
}

// profileList is an intrusive doubly linked list of KPROFILEs, like a
// LIST_ENTRY head: O(1) insert and remove, walked in insertion order.
type profileList struct {
	head, tail *kprofile
	n          int
}

func (l *profileList) pushBack(k *kprofile) {
	k.prev, k.next = l.tail, nil
	if l.tail != nil {
		l.tail.next = k
	} else {
		l.head = k
	}
	l.tail = k
	l.n++
}

func (l *profileList) remove(k *kprofile) {
	if k.prev != nil {
		k.prev.next = k.next
	} else {
		l.head = k.next
	}
	if k.next != nil {
		k.next.prev = k.prev
	} else {
		l.tail = k.prev
	}
	k.prev, k.next = nil, nil
	l.n--
}

// objectSizes are the sizes of EPROFILE and KPROFILE (see eprofile and
// kprofile) from the version where they took effect, newest first, used
// for the pool allocations that fault injection can fail.
var objectSizes = []struct {
	from               int       // version key
	eprofile, kprofile [2]uint64 // x86, x64
}{
	{k6_2, [2]uint64{0x38, 0xF0}, [2]uint64{0x34, 0xF8}},
	{k6_1, [2]uint64{0x38, 0x70}, [2]uint64{0x34, 0x78}},
	{k3_51, [2]uint64{0x30, 0x50}, [2]uint64{0x2C, 0x58}},
	{0, [2]uint64{0x28, 0x28}, [2]uint64{0x28, 0x28}},
}

func (m *Machine) objectSize(kernelObject bool) uint64 {
	for _, s := range objectSizes {
		if m.ver.key() >= s.from {
			if kernelObject {
				return s.kprofile[m.arch]
			}
			return s.eprofile[m.arch]
		}
	}
	return 0
}

func (m *Machine) eprofileSize() uint64 { return m.objectSize(false) }
func (m *Machine) kprofileSize() uint64 { return m.objectSize(true) }

// CreateArgs are the arguments of NtCreateProfile and NtCreateProfileEx,
// in declaration order. NtCreateProfile uses Affinity; NtCreateProfileEx
// uses GroupCount and AffinityArray.
type CreateArgs struct {
	ProfileHandle uint64 // HANDLE* receiving the handle
	Process       uint64 // HANDLE, 0 for global profiling
	ProfileBase   uint64
	ProfileSize   uint64
	BucketSize    uint32 // log2 of the bucket size
	Buffer        uint64 // ULONG* counters
	BufferSize    uint32
	ProfileSource uint32
	Affinity      uint64 // KAFFINITY (NtCreateProfile, 3.51+)
	GroupCount    uint16
	AffinityArray uint64 // GROUP_AFFINITY*
}

// NtCreateProfile creates a profile object
// (docs/reference/profile-objects.md). On 3.10 and 3.50 the source and
// affinity are ignored (the declaration lacks them).
func (t *Thread) NtCreateProfile(a CreateArgs) (Status, error) {
	return t.createProfile(a, false)
}

// NtCreateProfileEx creates a profile object with a group affinity
// (docs/reference/profile-objects.md, 6.1+). It is an error to call it on
// an earlier version.
func (t *Thread) NtCreateProfileEx(a CreateArgs) (Status, error) {
	if !t.proc.m.ver.hasCreateEx() {
		return 0, &UnknownServiceError{Service: "NtCreateProfileEx", Version: t.proc.m.ver}
	}
	return t.createProfile(a, true)
}

func (t *Thread) groupAffinitySize() uint64 {
	if t.proc.m.arch == X64 {
		return 0x10
	}
	return 0x0C
}

// log2 returns the index of the most significant set bit, -1 for 0
// (RtlFindMostSignificantBit).
func log2(x uint64) int { return bits.Len64(x) - 1 }

// bufferTooSmall is step 4 of create
// (docs/reference/profile-objects.md#the-buffer-size-check): the defective
// test up to 1607, the intended rule from 1703.
func (m *Machine) bufferTooSmall(size uint64, bucket, bufSize uint32) bool {
	if !m.ver.fixedBufferCheck() {
		return size>>(bucket-2) > uint64(bufSize)
	}
	buckets := size >> bucket
	if size&(uint64(1)<<bucket-1) != 0 {
		buckets++
	}
	return buckets > uint64(bufSize/4)
}

func (t *Thread) createProfile(a CreateArgs, ex bool) (Status, error) {
	m := t.proc.m
	if err := m.checkRunning(); err != nil {
		return 0, err
	}
	mask := m.lay.ptrMask
	base, size := a.ProfileBase&mask, a.ProfileSize&mask
	bucket := a.BucketSize
	src := nt.Source(a.ProfileSource)
	if !m.ver.hasSource() {
		src = nt.ProfileTime
	}
	var segment uint64

	// 1. BufferSize 0 (and, from 4.0 SP4, a segment-looking request whose
	// buffer cannot hold one counter) is a bad BufferSize.
	segmentLooking := m.arch == X86 && bucket == 0 && base < 0x10000
	if m.ver.hasSP4Validation() && (a.BufferSize == 0 || (segmentLooking && a.BufferSize < 4)) {
		return StatusInvalidParameter7, nil
	}
	// 2. x86 segment path: the smallest power-of-two bucket that covers
	// ProfileSize with BufferSize/4 counters, in pointer-width arithmetic.
	if segmentLooking {
		n := uint64(a.BufferSize / 4)
		if n == 0 { // before 4.0 SP4: the divide faults in kernel mode
			return 0, m.bugCheck(nt.KMODE_EXCEPTION_NOT_HANDLED, uint64(nt.StatusIntegerDivideByZero), m.lay.faultIP, 0, 0)
		}
		segment, base = base, 0
		b := log2((size/n-1)&mask) + 1
		if b < 2 {
			b = 2
		}
		bucket = uint32(b)
	}
	// 3. bucket range: 4 bytes to 2 GB.
	if bucket < 2 || bucket > 0x1F {
		return StatusInvalidParameter, nil
	}
	// 4. the buffer must hold the counters.
	if m.bufferTooSmall(size, bucket, a.BufferSize) {
		return StatusBufferTooSmall, nil
	}
	// 5. the region must not wrap.
	if (base+size)&mask < base {
		return StatusBufferOverflow, nil
	}
	// 6. 6.2+: the HAL must support the source.
	if m.ver.hasHALSourceCheck() {
		info, err := m.halQuery([]int{t.cpu}, src)
		if err != nil {
			return 0, err
		}
		if !info[0].Supported {
			return StatusNotSupported, nil
		}
	}
	v := t.view()
	// 7. user-mode probes: the handle variable, the buffer, the affinity array.
	if t.mode == UserMode {
		if st := v.probeVariable(a.ProfileHandle, m.arch.PointerSize()); st != StatusSuccess {
			return st, nil
		}
		if st := v.probeForWrite(a.Buffer, uint64(a.BufferSize), 4); st != StatusSuccess {
			return st, nil
		}
		if ex && a.GroupCount != 0 {
			if st := v.probeForRead(a.AffinityArray, uint64(a.GroupCount)*t.groupAffinitySize(), 4); st != StatusSuccess {
				return st, nil
			}
		}
	}
	// 8. processors.
	affinity := a.Affinity & mask
	if m.ver.hasCreateEx() {
		var st Status
		var err error
		affinity, st, err = t.captureAffinity(a, ex)
		if err != nil || st != StatusSuccess {
			return st, err
		}
	}
	// 9, 10. the process, or the rules for global profiling.
	var proc *Process
	if a.Process&mask != 0 {
		obj, st := t.reference(a.Process, typeProcess, nt.PROCESS_QUERY_INFORMATION)
		if st != StatusSuccess {
			return st, nil
		}
		proc = obj.(*Process)
	} else {
		if segment != 0 {
			return StatusInvalidParameter, nil
		}
		if t.mode == UserMode && base < m.lay.userProbe && !t.proc.token.HasPrivilege(nt.SeSystemProfilePrivilege) {
			return StatusPrivilegeNotHeld, nil
		}
	}
	// 11. 6.3+: a restricted caller may not reach into kernel space.
	if m.ver.restrictedCheck() && t.mode == UserMode && t.proc.token.restricted() && base+size > m.lay.userProbe {
		return StatusAccessDenied, nil
	}
	// 12. the executive object.
	addr, ok := m.poolAlloc(m.eprofileSize())
	if !ok {
		return StatusInsufficientResources, nil
	}
	ep := &eprofile{addr: addr, process: proc, base: base, size: size, buffer: a.Buffer & mask,
		bufferSize: a.BufferSize, bucketSize: bucket, segment: segment, source: src, affinity: affinity,
		handles: 1, owner: t.proc}
	// 13, 14. the handle, granted PROFILE_CONTROL, stored for the caller.
	h := t.proc.insertHandle(ep, nt.PROFILE_CONTROL)
	if err := v.writePtr(a.ProfileHandle&mask, h); err != nil {
		if t.mode == KernelMode {
			return 0, m.pageFault(a.ProfileHandle&mask, true)
		}
		return StatusAccessViolation, nil
	}
	return StatusSuccess, nil
}

// captureAffinity is step 8 of create
// (docs/reference/profile-objects.md#the-processors, 6.1+): the group
// affinity, validated.
func (t *Thread) captureAffinity(a CreateArgs, ex bool) (uint64, Status, error) {
	m := t.proc.m
	active := m.activeMask()
	if !ex {
		aff := a.Affinity & m.lay.ptrMask
		if aff == m.lay.ptrMask { // -1: the active processors of the current group
			return active, StatusSuccess, nil
		}
		if aff == 0 || aff&^active != 0 {
			return 0, StatusInvalidParameter, nil
		}
		return aff, StatusSuccess, nil
	}
	if a.GroupCount == 0 {
		return active, StatusSuccess, nil
	}
	var aff uint64
	size := t.groupAffinitySize()
	ps := uint64(m.arch.PointerSize())
	v := t.view()
	for i := uint64(0); i < uint64(a.GroupCount); i++ {
		buf := make([]byte, size)
		at := (a.AffinityArray + i*size) & m.lay.ptrMask
		if err := v.read(at, buf); err != nil {
			if t.mode == KernelMode {
				return 0, 0, m.pageFault(at, false)
			}
			return 0, StatusAccessViolation, nil
		}
		var gmask uint64
		for j := uint64(0); j < ps; j++ {
			gmask |= uint64(buf[j]) << (8 * j)
		}
		group := uint16(buf[ps]) | uint16(buf[ps+1])<<8
		reserved := false
		for _, b := range buf[ps+2 : ps+8] {
			reserved = reserved || b != 0
		}
		if group != 0 || gmask == 0 || gmask&^active != 0 || reserved {
			return 0, StatusInvalidParameter, nil
		}
		aff |= gmask
	}
	return aff, StatusSuccess, nil
}

// referenceProfile is start's and stop's first step: the handle must be
// to a profile object and grant PROFILE_CONTROL.
func (t *Thread) referenceProfile(handle uint64) (*eprofile, Status) {
	obj, st := t.reference(handle, typeProfile, nt.PROFILE_CONTROL)
	if st != StatusSuccess {
		return nil, st
	}
	return obj.(*eprofile), StatusSuccess
}

// startLimit is the system-wide limit on started profiles (6.1+).
func (m *Machine) startLimit() int { return 8192 * len(m.cpus) }

// NtStartProfile starts a profile (docs/reference/start-stop.md#ntstartprofile).
func (t *Thread) NtStartProfile(handle uint64) (Status, error) {
	m := t.proc.m
	if err := m.checkRunning(); err != nil {
		return 0, err
	}
	ep, st := t.referenceProfile(handle)
	if st != StatusSuccess {
		return st, nil
	}
	if ep.mapped != 0 {
		return StatusProfilingNotStopped, nil
	}
	if m.ver.hasStartLimit() && m.started >= m.startLimit() {
		return StatusProfilingAtLimit, nil
	}
	kaddr, ok := m.poolAlloc(m.kprofileSize())
	if !ok {
		return StatusInsufficientResources, nil
	}
	frames, ok := t.lockPages(ep.buffer, uint64(ep.bufferSize))
	if !ok {
		m.poolFree(kaddr)
		return StatusAccessViolation, nil
	}
	if m.mapFailures > 0 {
		m.mapFailures--
		m.poolFree(kaddr)
		return StatusInsufficientResources, nil
	}
	sys, ok := m.mapSystem(frames)
	if !ok {
		m.poolFree(kaddr)
		return StatusInsufficientResources, nil
	}
	// nothing can fail from here on
	ep.mapped = sys + ep.buffer%PageSize
	kp := &kprofile{
		typ: m.ver.profileObjectType(), process: ep.process, rangeBase: ep.base, rangeLimit: ep.base + ep.size,
		bucketShift: ep.bucketSize - 2, buffer: ep.mapped, segment: ep.segment,
		affinity: m.startAffinity(ep.affinity), source: int16(ep.source), started: true,
		addr: kaddr, mapBase: sys, pages: frames, owner: ep,
	}
	ep.kp = kp
	if ep.process != nil {
		ep.process.list.pushBack(kp)
	} else {
		m.globalList.pushBack(kp)
	}
	m.started++
	m.lockedByte += uint64(ep.bufferSize)
	if err := m.acquireSource(ep.source, kp.affinity); err != nil {
		return 0, err
	}
	return StatusSuccess, nil
}

// startAffinity is the set of processors a start acts on.
func (m *Machine) startAffinity(stored uint64) uint64 {
	active := m.activeMask()
	switch {
	case !m.ver.hasSource(): // no affinity: every processor
		return active
	case m.ver.hasCreateEx(): // validated at create
		return stored
	case m.ver.hasSP4Validation(): // 4.0 SP4 to 6.0: no active processor means all
		if stored&active == 0 {
			return active
		}
		return stored & active
	default: // 3.51: only 0 is special; a mask hitting no active processor never counts
		if stored == 0 {
			return active
		}
		return stored & active
	}
}

// lockPages is MmProbeAndLockPages for write access over the whole
// buffer, in the thread's address space and mode.
func (t *Thread) lockPages(addr, length uint64) ([]*frame, bool) {
	m := t.proc.m
	if length == 0 {
		return nil, true
	}
	end := addr + length
	if end < addr || (t.mode == UserMode && end > m.lay.userProbe) {
		return nil, false
	}
	v := t.view()
	var frames []*frame
	for a := addr &^ (PageSize - 1); a < end; a += PageSize {
		e, ok := v.lookup(a)
		if !ok || !e.prot.writable() {
			return nil, false
		}
		frames = append(frames, e.f)
	}
	return frames, true
}

// NtStopProfile stops a started profile (docs/reference/start-stop.md#ntstopprofile).
func (t *Thread) NtStopProfile(handle uint64) (Status, error) {
	m := t.proc.m
	if err := m.checkRunning(); err != nil {
		return 0, err
	}
	ep, st := t.referenceProfile(handle)
	if st != StatusSuccess {
		return st, nil
	}
	if ep.mapped == 0 {
		return StatusProfilingNotStarted, nil
	}
	return StatusSuccess, m.stopProfile(ep)
}

// stopProfile undoes what start did; it cannot fail except through a
// HAL failure.
func (m *Machine) stopProfile(ep *eprofile) error {
	kp := ep.kp
	if kp.process != nil {
		kp.process.list.remove(kp)
	} else {
		m.globalList.remove(kp)
	}
	kp.started = false
	m.poolFree(kp.addr)
	m.unmapSystem(kp.mapBase, uint64(len(kp.pages)))
	m.lockedByte -= uint64(ep.bufferSize)
	m.started--
	ep.kp, ep.mapped = nil, 0
	return m.releaseSource(ep.source, kp.affinity)
}

// NtClose closes a handle; closing the last handle of a started profile
// stops it.
func (t *Thread) NtClose(handle uint64) (Status, error) {
	m := t.proc.m
	if err := m.checkRunning(); err != nil {
		return 0, err
	}
	h := handle & m.lay.ptrMask &^ 3
	e, ok := t.proc.handles[h]
	if !ok || h == 0 {
		return StatusInvalidHandle, nil
	}
	if ep, isProfile := e.obj.(*eprofile); isProfile && ep.handles == 1 && m.closeHook != nil {
		info, _ := t.proc.profileInfo(h, nil)
		m.closeHook(ProfileRecord{Owner: t.proc, Handle: h, Info: info})
	}
	delete(t.proc.handles, h)
	if ep, isProfile := e.obj.(*eprofile); isProfile {
		ep.handles--
		if ep.handles == 0 {
			if ep.mapped != 0 {
				if err := m.stopProfile(ep); err != nil {
					return 0, err
				}
			}
			m.poolFree(ep.addr)
		}
	}
	return StatusSuccess, nil
}
