package kernel

import (
	"fmt"
	"sort"

	"github.com/proflab/proflab/kernel/nt"
)

// Integrity is a token's mandatory integrity level.
type Integrity uint32

// Integrity levels (their SID sub-authorities).
const (
	IntegrityUntrusted Integrity = 0x0000
	IntegrityLow       Integrity = 0x1000
	IntegrityMedium    Integrity = 0x2000
	IntegrityHigh      Integrity = 0x3000
	IntegritySystem    Integrity = 0x4000
)

// ParseIntegrity reads "low", "medium", "high" or "system".
func ParseIntegrity(s string) (Integrity, error) {
	switch s {
	case "untrusted":
		return IntegrityUntrusted, nil
	case "low":
		return IntegrityLow, nil
	case "medium", "":
		return IntegrityMedium, nil
	case "high":
		return IntegrityHigh, nil
	case "system":
		return IntegritySystem, nil
	}
	return 0, fmt.Errorf("unknown integrity %q: use \"low\", \"medium\", \"high\" or \"system\"", s)
}

// Token is a process's access token: the privileges it holds enabled and
// its integrity level.
type Token struct {
	Privileges map[int]bool // LUID → held and enabled
	Integrity  Integrity
}

// HasPrivilege reports whether the token holds the privilege enabled.
func (t Token) HasPrivilege(luid int) bool { return t.Privileges[luid] }

// restricted is "essentially low integrity"
// (docs/reference/profile-objects.md#the-order-of-checks, step 11).
func (t Token) restricted() bool { return t.Integrity < IntegrityMedium }

// PrivilegeByName maps "SeSystemProfilePrivilege" and
// "SeProfileSingleProcessPrivilege" to their LUIDs.
func PrivilegeByName(name string) (int, bool) {
	switch name {
	case "SeSystemProfilePrivilege":
		return nt.SeSystemProfilePrivilege, true
	case "SeProfileSingleProcessPrivilege":
		return nt.SeProfileSingleProcessPrivilege, true
	}
	return 0, false
}

// objectType is the Object Manager type of a handle's object.
type objectType int

const (
	typeProcess objectType = iota + 1
	typeThread
	typeProfile
)

type object interface{ objectType() objectType }

type handleEntry struct {
	obj    object
	access uint32
}

// Process is a simulated process: an address space, a token, a handle
// table, threads and the per-process profile list (KPROCESS.ProfileListHead).
type Process struct {
	m       *Machine
	id      uint32
	name    string
	token   Token
	mem     *addressSpace // nil for the System process
	handles map[uint64]handleEntry
	nextH   uint64
	threads []*Thread
	list    profileList
}

func (*Process) objectType() objectType { return typeProcess }

// Thread is a simulated thread. Service calls made through it run on the
// processor it is on, in its mode.
type Thread struct {
	proc     *Process
	id       uint32
	cpu      int
	affinity uint64
	mode     Mode
}

func (*Thread) objectType() objectType { return typeThread }

func (m *Machine) newProcess(name string, tok Token, system bool) *Process {
	p := &Process{m: m, name: name, token: tok, handles: map[uint64]handleEntry{}, nextH: 4}
	if system {
		p.id = 4
	} else {
		p.id = m.allocCID()
		p.mem = newAddressSpace(0x10000, m.lay.userProbe)
	}
	mode := UserMode
	if system {
		mode = KernelMode
	}
	p.threads = []*Thread{{proc: p, id: m.allocCID(), affinity: m.activeMask(), mode: mode}}
	m.processes = append(m.processes, p)
	return p
}

// NewProcess creates a user process with one thread on processor 0.
func (m *Machine) NewProcess(name string, tok Token) *Process {
	if tok.Privileges == nil {
		tok.Privileges = map[int]bool{}
	}
	return m.newProcess(name, tok, false)
}

// NewKernelCaller creates a system thread on cpu: a kernel-mode caller
// whose allocations are in system space.
func (m *Machine) NewKernelCaller(cpu int) (*Thread, error) {
	if cpu < 0 || cpu >= len(m.cpus) {
		return nil, fmt.Errorf("cpu %d does not exist (the machine has %d)", cpu, len(m.cpus))
	}
	t := &Thread{proc: m.system, id: m.allocCID(), cpu: cpu, affinity: m.activeMask(), mode: KernelMode}
	m.system.threads = append(m.system.threads, t)
	return t, nil
}

// ID returns the process id.
func (p *Process) ID() uint32 { return p.id }

// Name returns the process's name.
func (p *Process) Name() string { return p.name }

// Token returns the process's token.
func (p *Process) Token() Token { return p.token }

// MainThread returns the process's first thread.
func (p *Process) MainThread() *Thread { return p.threads[0] }

// Machine returns the machine the process runs on.
func (p *Process) Machine() *Machine { return p.m }

// CreateThread adds a thread with the given affinity (0: all processors),
// placed on the lowest processor it allows.
func (p *Process) CreateThread(affinity uint64) (*Thread, error) {
	if affinity == 0 {
		affinity = p.m.activeMask()
	}
	if affinity&p.m.activeMask() == 0 {
		return nil, fmt.Errorf("affinity 0x%X selects no processor of the %d", affinity, len(p.m.cpus))
	}
	mode := UserMode
	if p == p.m.system {
		mode = KernelMode
	}
	t := &Thread{proc: p, id: p.m.allocCID(), affinity: affinity & p.m.activeMask(), mode: mode}
	t.cpu = cpusOf(t.affinity)[0]
	p.threads = append(p.threads, t)
	return t, nil
}

// Threads returns the process's threads.
func (p *Process) Threads() []*Thread { return p.threads }

// ID returns the thread id (a multiple of 4).
func (t *Thread) ID() uint32 { return t.id }

// Process returns the thread's process.
func (t *Thread) Process() *Process { return t.proc }

// CPU returns the processor the thread is on.
func (t *Thread) CPU() int { return t.cpu }

// Mode returns the thread's PreviousMode for service calls.
func (t *Thread) Mode() Mode { return t.mode }

// Affinity returns the thread's affinity mask.
func (t *Thread) Affinity() uint64 { return t.affinity }

// RunOn moves the thread to cpu, which its affinity must allow.
func (t *Thread) RunOn(cpu int) error {
	if cpu < 0 || cpu >= len(t.proc.m.cpus) {
		return fmt.Errorf("cpu %d does not exist (the machine has %d)", cpu, len(t.proc.m.cpus))
	}
	if t.affinity&(1<<cpu) == 0 {
		return fmt.Errorf("the thread's affinity 0x%X does not allow cpu %d", t.affinity, cpu)
	}
	t.cpu = cpu
	return nil
}

// view is the memory as the thread sees it.
func (t *Thread) view() memView {
	return memView{m: t.proc.m, user: t.proc.mem, mode: t.mode}
}

// space is where Alloc puts the thread's memory.
func (p *Process) space() *addressSpace {
	if p.mem == nil {
		return p.m.kalloc
	}
	return p.mem
}

// Alloc maps size bytes (whole pages, like VirtualAlloc) with prot and an
// unmapped guard page after them; the System process allocates in system
// space.
func (p *Process) Alloc(size uint64, prot Prot) (uint64, error) {
	if err := p.m.checkRunning(); err != nil {
		return 0, err
	}
	return p.space().alloc(size, prot)
}

// AllocAt maps size bytes at a page-aligned address on free pages.
func (p *Process) AllocAt(addr, size uint64, prot Prot) (uint64, error) {
	if err := p.m.checkRunning(); err != nil {
		return 0, err
	}
	if p.mem != nil && addr >= p.m.lay.userProbe {
		return 0, fmt.Errorf("address 0x%X is not in user space (below 0x%X)", addr, p.m.lay.userProbe)
	}
	return addr, p.space().allocAt(addr, size, prot)
}

// Protect changes the protection of mapped pages.
func (p *Process) Protect(addr, size uint64, prot Prot) error {
	if err := p.m.checkRunning(); err != nil {
		return err
	}
	return p.space().protect(addr, size, prot)
}

// Free unmaps the allocation that starts at addr. Pages a started
// profile has locked stay in its system mapping.
func (p *Process) Free(addr uint64) error {
	if err := p.m.checkRunning(); err != nil {
		return err
	}
	return p.space().release(addr)
}

// Read copies memory as the process's main thread sees it. Reads work on
// a stopped machine.
func (p *Process) Read(addr uint64, buf []byte) error {
	return p.MainThread().view().read(addr, buf)
}

// Write stores memory as the process's main thread sees it.
func (p *Process) Write(addr uint64, data []byte) error {
	if err := p.m.checkRunning(); err != nil {
		return err
	}
	return p.MainThread().view().write(addr, data)
}

// OpenProcess inserts a handle to target with the given access into p's
// table and returns it.
func (p *Process) OpenProcess(target *Process, access uint32) uint64 {
	return p.insertHandle(target, access)
}

// DuplicateHandle is the lab's stand-in for NtDuplicateObject with an
// explicit DesiredAccess: it inserts into target's table a new handle to
// the object p's handle h names, granting exactly access (any mask: the
// lab does no access check against the object's security, so a scenario
// can make a handle that lacks what a service needs, item 47 of
// docs/reference/conformance.md). The
// object lives until its last handle is closed. NtCurrentProcess
// duplicates to a handle to p. A handle p does not have is
// STATUS_INVALID_HANDLE.
func (p *Process) DuplicateHandle(h uint64, target *Process, access uint32) (uint64, Status) {
	h &= p.m.lay.ptrMask
	if h == p.m.currentProcessHandle() {
		return target.insertHandle(p, access), StatusSuccess
	}
	e, ok := p.handles[h&^3]
	if !ok || h == 0 {
		return 0, StatusInvalidHandle
	}
	if ep, isProfile := e.obj.(*eprofile); isProfile {
		ep.handles++
	}
	return target.insertHandle(e.obj, access), StatusSuccess
}

func (p *Process) insertHandle(obj object, access uint32) uint64 {
	h := p.nextH
	p.nextH += 4
	p.handles[h] = handleEntry{obj: obj, access: access}
	return h
}

// HandleAccess returns the granted access of a handle, for inspection.
func (p *Process) HandleAccess(h uint64) (uint32, bool) {
	e, ok := p.handles[h&^3]
	return e.access, ok
}

// currentProcessHandle is NtCurrentProcess() at pointer width.
func (m *Machine) currentProcessHandle() uint64 { return m.lay.ptrMask }

// reference is ObReferenceObjectByHandle: the handle must exist, name an
// object of the wanted type, and (for a user-mode caller) grant access.
// Checked in that order (the reference's choice).
func (t *Thread) reference(h uint64, want objectType, access uint32) (object, Status) {
	p := t.proc
	h &= p.m.lay.ptrMask
	if h == p.m.currentProcessHandle() {
		if want != typeProcess {
			return nil, StatusObjectTypeMismatch
		}
		return p, StatusSuccess
	}
	e, ok := p.handles[h&^3]
	if !ok || h == 0 {
		return nil, StatusInvalidHandle
	}
	if e.obj.objectType() != want {
		return nil, StatusObjectTypeMismatch
	}
	if t.mode == UserMode && e.access&access != access {
		return nil, StatusAccessDenied
	}
	return e.obj, StatusSuccess
}

// Processes returns every process, the System process first.
func (m *Machine) Processes() []*Process {
	out := append([]*Process(nil), m.processes...)
	sort.SliceStable(out, func(i, j int) bool { return out[i].id < out[j].id })
	return out
}

// Read copies memory as the thread sees it (a kernel-mode thread sees
// system space). Reads work on a stopped machine.
func (t *Thread) Read(addr uint64, buf []byte) error { return t.view().read(addr, buf) }

// Write stores memory as the thread sees it.
func (t *Thread) Write(addr uint64, data []byte) error {
	if err := t.proc.m.checkRunning(); err != nil {
		return err
	}
	return t.view().write(addr, data)
}
