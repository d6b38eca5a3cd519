package kernel

import "fmt"

// Arch is the modelled processor architecture.
type Arch int

// The modelled architectures.
const (
	X86 Arch = iota
	X64
)

// ParseArch reads "x86" or "x64".
func ParseArch(s string) (Arch, error) {
	switch s {
	case "x86":
		return X86, nil
	case "x64":
		return X64, nil
	}
	return 0, fmt.Errorf("unknown arch %q: use \"x86\" or \"x64\"", s)
}

func (a Arch) String() string {
	if a == X64 {
		return "x64"
	}
	return "x86"
}

// PointerSize is the size of a pointer, handle, SIZE_T or KAFFINITY.
func (a Arch) PointerSize() int {
	if a == X64 {
		return 8
	}
	return 4
}

// MaxCPUs is the most processors one group holds.
func (a Arch) MaxCPUs() int {
	if a == X64 {
		return 64
	}
	return 32
}

// layout is the address-space layout of an architecture. The values are
// proflab's choices where Windows varies (see the package documentation).
type layout struct {
	userProbe  uint64 // MmUserProbeAddress: the first address a user probe rejects
	systemBase uint64 // the start of system space
	ptrMask    uint64 // all ones at pointer width
	faultIP    uint64 // the instruction address reported by bug checks
	poolBase   uint64 // non-paged pool
	poolLimit  uint64
	kallocBase uint64 // allocations made by kernel-mode callers (k:alloc)
	kallocEnd  uint64
	mapBase    uint64 // system PTE space for locked-buffer mappings
	mapLimit   uint64
}

func (a Arch) layout() layout {
	if a == X64 {
		return layout{
			userProbe:  0x7FFFFFFF0000,
			systemBase: 0xFFFF800000000000,
			ptrMask:    ^uint64(0),
			faultIP:    0xFFFFF80000102A4C,
			poolBase:   0xFFFFA00000000000,
			poolLimit:  0xFFFFA80000000000,
			kallocBase: 0xFFFFB00000000000,
			kallocEnd:  0xFFFFB80000000000,
			mapBase:    0xFFFFC00000000000,
			mapLimit:   0xFFFFD00000000000,
		}
	}
	return layout{
		userProbe:  0x7FFF0000,
		systemBase: 0x80000000,
		ptrMask:    0xFFFFFFFF,
		faultIP:    0x80402A4C,
		poolBase:   0x84000000,
		poolLimit:  0x90000000,
		kallocBase: 0x90000000,
		kallocEnd:  0xC0000000,
		mapBase:    0xC1000000,
		mapLimit:   0xF0000000,
	}
}

// MmUserProbeAddress is the architecture's user/kernel boundary for probes.
func (a Arch) MmUserProbeAddress() uint64 { return a.layout().userProbe }

// SystemBase is where system space starts.
func (a Arch) SystemBase() uint64 { return a.layout().systemBase }

// ProfileIRQL is the IRQL at which the HAL calls the profile interrupt.
func (a Arch) ProfileIRQL() uint64 {
	if a == X64 {
		return 0x0F
	}
	return 0x1F
}
