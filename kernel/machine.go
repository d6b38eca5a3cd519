package kernel

import (
	"errors"
	"fmt"

	"github.com/proflab/proflab/kernel/nt"
)

// Status is an NTSTATUS (an alias of nt.Status, for brevity inside the
// kernel).
type Status = nt.Status

// Statuses used by the services.
const (
	StatusSuccess               = nt.StatusSuccess
	StatusDatatypeMisalignment  = nt.StatusDatatypeMisalignment
	StatusBufferOverflow        = nt.StatusBufferOverflow
	StatusNotImplemented        = nt.StatusNotImplemented
	StatusInvalidInfoClass      = nt.StatusInvalidInfoClass
	StatusInfoLengthMismatch    = nt.StatusInfoLengthMismatch
	StatusAccessViolation       = nt.StatusAccessViolation
	StatusInvalidHandle         = nt.StatusInvalidHandle
	StatusInvalidParameter      = nt.StatusInvalidParameter
	StatusAccessDenied          = nt.StatusAccessDenied
	StatusBufferTooSmall        = nt.StatusBufferTooSmall
	StatusObjectTypeMismatch    = nt.StatusObjectTypeMismatch
	StatusPrivilegeNotHeld      = nt.StatusPrivilegeNotHeld
	StatusInsufficientResources = nt.StatusInsufficientResources
	StatusMemoryNotAllocated    = nt.StatusMemoryNotAllocated
	StatusProfilingNotStarted   = nt.StatusProfilingNotStarted
	StatusProfilingNotStopped   = nt.StatusProfilingNotStopped
	StatusNotSupported          = nt.StatusNotSupported
	StatusProfilingAtLimit      = nt.StatusProfilingAtLimit
	StatusInvalidParameter7     = nt.StatusInvalidParameter7
	StatusAddressAlreadyExists  = nt.StatusAddressAlreadyExists
)

// Mode is a caller's PreviousMode.
type Mode int

// Processor modes.
const (
	UserMode Mode = iota
	KernelMode
)

func (m Mode) String() string {
	if m == KernelMode {
		return "kernel"
	}
	return "user"
}

// Config describes the simulated computer.
type Config struct {
	Version Version
	Arch    Arch
	CPUs    int    // 1 … Arch.MaxCPUs()
	Vendor  string // nt.VendorIntel or nt.VendorAMD
	// PEBS is whether the processors pass the kernel's PEBS checks
	// (IA32_MISC_ENABLE bit 7 set and bit 12 clear, and DTES64 on x86).
	// An AMD processor never passes.
	PEBS bool
	// FreqMHz is the processors' clock, for the lab's timing.
	FreqMHz int
	// CacheErrataInterval, when non-zero, is the ProfileTime interval the
	// kernel needs for cache-errata support: sets of a larger interval
	// are clamped to it.
	CacheErrataInterval uint32
	// HALs are composed in order: each source belongs to the first HAL
	// that lists it.
	HALs []HALDispatch
}

// Machine is one simulated computer running one modelled Windows version.
// It is not safe for concurrent use; separate Machines share nothing.
type Machine struct {
	cfg  Config
	ver  Version
	arch Arch
	lay  layout
	// irq is what the version says of the profile interrupt's path,
	// decided once: the interrupt is the lab's hottest path.
	irq interruptPath

	cpus []*processor

	sysPT  pageTable
	kalloc *addressSpace
	maps   systemMappings
	pool   pool

	mapFailures int

	nextCID   uint32
	system    *Process
	processes []*Process

	globalList profileList
	started    int // started ProfileObjects, for the 6.1+ limit
	lockedByte uint64

	// source ownership and per-processor interrupt references
	owner   map[nt.Source]int // source → index in cfg.HALs
	descs   []SourceDescriptor
	running map[srcCPU]int
	halLog  []HALCall
	halHook HALHook
	inHook  bool

	closeHook ProfileCloseHook // the lab's observer of deleted profiles

	fixupInterval uint32 // ProfileAlignmentFixup's remembered value
	timeInterval  uint32 // the kernel's current ProfileTime interval

	logger   *TraceSession
	sessions int

	now uint64 // simulated time, 100 ns units

	halted   error
	bugcheck *BugCheck
}

type srcCPU struct {
	src nt.Source
	cpu int
}

// processor is the KPRCB-like state of one processor.
type processor struct {
	index          int
	interruptCount uint32
	times          CPUTimes
	controlArea    uint64 // PROCESSOR_PROFILE_CONTROL_AREA, 0 when none
	miscEnable     uint64 // IA32_MISC_ENABLE
	cpuid1ECX      uint32
	vendor         string
}

// CPUTimes are a processor's accumulated times in 100 ns units.
type CPUTimes struct {
	Idle, Kernel, User, DPC, Interrupt uint64
}

// NewMachine builds a machine from cfg, reading each HAL's source list.
func NewMachine(cfg Config) (*Machine, error) {
	if cfg.Version.name == "" {
		cfg.Version = MustVersion(DefaultVersion)
	}
	if cfg.Arch == X64 && cfg.Version.Before("5.2") {
		return nil, fmt.Errorf("version %s had no x64 build: use arch x86", cfg.Version)
	}
	if cfg.CPUs < 1 || cfg.CPUs > cfg.Arch.MaxCPUs() {
		return nil, fmt.Errorf("cpus must be 1 to %d on %s, not %d", cfg.Arch.MaxCPUs(), cfg.Arch, cfg.CPUs)
	}
	if cfg.Vendor == "" {
		cfg.Vendor = nt.VendorIntel
	}
	if cfg.Vendor != nt.VendorIntel && cfg.Vendor != nt.VendorAMD {
		return nil, fmt.Errorf("cpu_vendor must be %q or %q, not %q", nt.VendorIntel, nt.VendorAMD, cfg.Vendor)
	}
	lay := cfg.Arch.layout()
	m := &Machine{
		cfg: cfg, ver: cfg.Version, arch: cfg.Arch, lay: lay,
		sysPT:   pageTable{},
		kalloc:  newAddressSpace(lay.kallocBase, lay.kallocEnd),
		maps:    systemMappings{cursor: lay.mapBase, limit: lay.mapLimit, free: map[uint64][]uint64{}},
		pool:    pool{cursor: lay.poolBase, limit: lay.poolLimit, outstanding: map[uint64]uint64{}},
		nextCID: 8,
		owner:   map[nt.Source]int{},
		running: map[srcCPU]int{},
	}
	m.kalloc.pt = m.sysPT // kernel allocations live in the shared system page table
	m.irq = interruptPath{source: m.ver.hasSource(), inclusiveEnd: m.ver.inclusiveEndBug(), callbacks: m.ver.hasCallbackObjects()}
	for i := 0; i < cfg.CPUs; i++ {
		p := &processor{index: i, vendor: cfg.Vendor}
		if cfg.PEBS && cfg.Vendor == nt.VendorIntel {
			p.miscEnable = nt.MiscEnablePerfMonAvailable
			p.cpuid1ECX = nt.CPUID1ECX_DTES64
		} else {
			p.miscEnable = nt.MiscEnablePerfMonAvailable | nt.MiscEnablePEBSUnavailable
		}
		m.cpus = append(m.cpus, p)
	}
	for i, h := range cfg.HALs {
		if h == nil {
			return nil, fmt.Errorf("HAL %d is nil", i)
		}
		for _, d := range h.Sources() {
			if _, taken := m.owner[d.Source]; taken {
				continue
			}
			m.owner[d.Source] = i
			m.descs = append(m.descs, d)
		}
	}
	sortDescs(m.descs)
	if i, ok := m.owner[nt.ProfileTime]; ok {
		for _, d := range cfg.HALs[i].Sources() {
			if d.Source == nt.ProfileTime {
				m.timeInterval = d.Bounds.Default
			}
		}
	}
	m.system = m.newProcess("System", Token{Integrity: IntegritySystem}, true)
	return m, nil
}

// Version returns the modelled Windows version.
func (m *Machine) Version() Version { return m.ver }

// Arch returns the modelled architecture.
func (m *Machine) Arch() Arch { return m.arch }

// CPUCount returns the number of processors (all active, one group).
func (m *Machine) CPUCount() int { return len(m.cpus) }

// Config returns the configuration the machine was built from.
func (m *Machine) Config() Config { return m.cfg }

// System returns the System process, whose threads are kernel-mode callers.
func (m *Machine) System() *Process { return m.system }

// Now returns the simulated time in 100 ns units since creation.
func (m *Machine) Now() uint64 { return m.now }

// Advance moves simulated time forward by d (100 ns units).
func (m *Machine) Advance(d uint64) { m.now += d }

// AccountTime adds to a processor's accumulated times.
func (m *Machine) AccountTime(cpu int, t CPUTimes) {
	p := m.cpus[cpu]
	p.times.Idle += t.Idle
	p.times.Kernel += t.Kernel
	p.times.User += t.User
	p.times.DPC += t.DPC
	p.times.Interrupt += t.Interrupt
}

// InterruptCount returns a processor's KPRCB InterruptCount.
func (m *Machine) InterruptCount(cpu int) uint32 { return m.cpus[cpu].interruptCount }

// activeMask is the active processors of the (only) group.
func (m *Machine) activeMask() uint64 {
	if len(m.cpus) == 64 {
		return ^uint64(0)
	}
	return (uint64(1) << len(m.cpus)) - 1
}

func (m *Machine) allCPUs() []int {
	out := make([]int, len(m.cpus))
	for i := range out {
		out[i] = i
	}
	return out
}

func cpusOf(mask uint64) []int {
	var out []int
	for i := 0; i < 64; i++ {
		if mask&(1<<i) != 0 {
			out = append(out, i)
		}
	}
	return out
}

// InjectPoolFailures makes the next n pool allocations of the kernel fail.
func (m *Machine) InjectPoolFailures(n int) { m.pool.failures = n }

// InjectMapFailures makes the next n mappings of locked buffers into
// system space fail.
func (m *Machine) InjectMapFailures(n int) { m.mapFailures = n }

// LockedBytes returns the bytes of user buffers locked by started profiles.
func (m *Machine) LockedBytes() uint64 { return m.lockedByte }

// StartedProfiles returns the number of started profile objects.
func (m *Machine) StartedProfiles() int { return m.started }

// BugCheck is a stop of the machine: the code and its four parameters.
type BugCheck struct {
	Code   uint32
	Params [4]uint64
}

// Name returns the bug check's symbolic name.
func (b *BugCheck) Name() string { return nt.BugCheckName(b.Code) }

func (b *BugCheck) Error() string {
	return fmt.Sprintf("bug check 0x%02X %s (0x%X, 0x%X, 0x%X, 0x%X)", b.Code, b.Name(), b.Params[0], b.Params[1], b.Params[2], b.Params[3])
}

// BugCheck returns the machine's bug check, or nil.
func (m *Machine) BugCheck() *BugCheck { return m.bugcheck }

// HALError is a failure of a HAL itself (not an NTSTATUS): the machine
// stops with it.
type HALError struct {
	HAL  string
	Call string
	Err  error
}

func (e *HALError) Error() string {
	return fmt.Sprintf("HAL %q failed during %s: %v", e.HAL, e.Call, e.Err)
}

func (e *HALError) Unwrap() error { return e.Err }

// ErrHalted wraps every refusal of a machine that has stopped.
var ErrHalted = errors.New("the machine has stopped")

// haltedError is returned by calls on a stopped machine.
type haltedError struct{ cause error }

func (e *haltedError) Error() string {
	return fmt.Sprintf("the machine has stopped (%v): it refuses further work", e.cause)
}
func (e *haltedError) Unwrap() []error { return []error{ErrHalted, e.cause} }

// Err returns why the machine stopped (a *BugCheck or *HALError), or nil.
func (m *Machine) Err() error { return m.halted }

func (m *Machine) checkRunning() error {
	if m.halted != nil {
		return &haltedError{cause: m.halted}
	}
	return nil
}

// bugCheck stops the machine.
func (m *Machine) bugCheck(code uint32, p1, p2, p3, p4 uint64) *BugCheck {
	b := &BugCheck{Code: code, Params: [4]uint64{p1, p2, p3, p4}}
	if m.halted == nil {
		m.bugcheck = b
		m.halted = b
	}
	return b
}

// pageFault is the bug check 0x50 a kernel-mode caller's bad pointer
// causes.
func (m *Machine) pageFault(addr uint64, write bool) *BugCheck {
	var w uint64
	if write {
		w = 1
	}
	return m.bugCheck(nt.PAGE_FAULT_IN_NONPAGED_AREA, addr, w, m.lay.faultIP, 0)
}

func (m *Machine) sysView() memView { return memView{m: m, mode: KernelMode} }

// allocCID allocates a process or thread id (multiples of 4).
func (m *Machine) allocCID() uint32 {
	id := m.nextCID
	m.nextCID += 4
	return id
}
