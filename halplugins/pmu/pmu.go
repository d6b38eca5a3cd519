// Package pmu is the logic of proflab's shipped PMU HAL: counter-overflow
// profile sources from each processor's performance counters, as the Emon
// (GenuineIntel) and Amd64 (AuthenticAMD) HAL profile interfaces have them
// (docs/reference/hal.md#the-hals-profile-interfaces). The plugin's main
// is cmd/proflab-hal-pmu; the same logic runs in-process with
// `transport = "inproc"`.
//
// Behaviour:
//
//   - Sources: hal.CounterSourcesFor(machine) — on GenuineIntel
//     ProfileTotalIssues, ProfileBranchInstructions, ProfileCacheMisses,
//     ProfileBranchMispredictions, ProfileTotalCycles and the Emon
//     processor-specific sources 0x19–0x1F; on AuthenticAMD the Amd64
//     general sources and the Amd64 processor-specific sources 0x19–0xBF
//     with their own description strings ("FPDispatchedFPUOps", …,
//     docs/reference/hal.md#what-windows-10-itself-reports).
//     Not ProfileTime: that is the apic HAL's, so that
//     `hal = {"apic", "pmu"}` composes.
//   - The HAL of the machine's version
//     (docs/reference/hal.md#the-shipped-hals): no counter sources on a
//     32-bit machine before 6.2, none on
//     GenuineIntel x64 before 6.0; AuthenticAMD x64 from 5.2 (the x64 HAL
//     of 2003 SP1). The setting `every_version` offers the vendor's
//     sources on every version and architecture instead.
//   - HalQueryProfileNumberOfCounters (from 1903): `counters`, or 0 where
//     the HAL has no counter sources.
//   - Intervals in events, default 65536, minimum 4096, maximum 0x7FFFFFFF
//     (hal.CounterBounds); a set outside the bounds is clamped, per
//     processor.
//   - Counters: `counters` per processor (default 4, as the Amd64 HAL has
//     and as Intel cores commonly report). Starting a source takes the
//     lowest free counter of each addressed processor and programs it with
//     the vendor's event select, the interval as reload and the skid
//     distribution. When every counter of a processor is busy, the start is
//     refused on that processor only: nothing is programmed there, a log
//     line says why, and no interrupts come from that source there (as the
//     real HALs, HalStartProfileInterrupt returns nothing to complain with).
//     A later start retries. Stopping frees the counter.
//   - Skid: `skid`, a distribution of how many instructions after the
//     overflowing one the reported IP lands, programmed into every counter.
//   - Interface choice (docs/reference/hal.md#the-hals-profile-interfaces;
//     items 95–97 of docs/reference/conformance.md), from settings that stand
//     for what the HAL reads with CPUID on the boot processor:
//     `hypervisor_hides_counters` (a Microsoft-compatible hypervisor with
//     PerformanceMonitorsAvailable clear) demotes both Emon and Amd64 to the
//     Default interface, which has no counter sources. On GenuineIntel,
//     `cpuid_0a_ebx` and `cpuid_0a_ebx_length` are leaf 0x0A's EBX and the
//     count of its meaningful bits (EAX[31:24], default 7): with no
//     meaningful bit, or EBX bit 0 set, the interface is Default; a source
//     whose EBX bit is set or not meaningful is unsupported. With
//     `counter_allocation_fails`, Emon's per-processor counter memory
//     cannot be allocated and every source is unsupported, while Amd64
//     bug-checks HAL_MEMORY_ALLOCATION (0xAC): the HAL refuses to
//     configure, so the machine cannot be built.
package pmu

import (
	"fmt"

	"github.com/proflab/proflab/halplugins/hal"
)

// Name is the HAL's name.
const Name = "pmu"

// Version is the HAL's version.
const Version = "1.1.0"

// MaxCounters is the most counters per processor a setting may ask for
// (IA32_PERFEVTSEL0–7).
const MaxCounters = 8

// Skid is one entry of the skid distribution setting.
type Skid struct {
	// Instructions after the overflowing one, 0…1000.
	Instructions uint32 `json:"instructions"`
	// Weight is relative, >= 1.
	Weight uint32 `json:"weight"`
}

// Settings are the PMU HAL's `[hal.pmu.settings]`.
type Settings struct {
	// Counters is the number of counters per processor, 1…8 (default 4).
	Counters int `json:"counters"`
	// Skid is the skid distribution (default 1 instruction 60%, 2: 25%,
	// 3: 10%, 4: 5%). An empty list means no skid.
	Skid []Skid `json:"skid"`
	// Min, Max and Default are every source's interval bounds in events
	// (default 4096, 0x7FFFFFFF, 65536).
	Min     uint32 `json:"min"`
	Max     uint32 `json:"max"`
	Default uint32 `json:"default"`

	// HypervisorHidesCounters is a Microsoft-compatible hypervisor whose
	// CPUID 0x40000003 EDX bit 2 (PerformanceMonitorsAvailable) is clear.
	HypervisorHidesCounters bool `json:"hypervisor_hides_counters"`
	// CPUID0AEBX is CPUID leaf 0x0A's EBX: a set bit marks an
	// architectural event as unavailable (GenuineIntel).
	CPUID0AEBX uint32 `json:"cpuid_0a_ebx"`
	// CPUID0AEBXLength is leaf 0x0A's EAX[31:24], the number of
	// meaningful EBX bits, 0…32 (default 7).
	CPUID0AEBXLength int `json:"cpuid_0a_ebx_length"`
	// CounterAllocationFails makes the HAL's per-processor counter memory
	// allocation fail.
	CounterAllocationFails bool `json:"counter_allocation_fails"`
	// EveryVersion offers the vendor's counter sources whatever the
	// machine's Windows version and architecture (by default they follow
	// the version: none on x86 before 6.2, none on Intel x64 before 6.0).
	EveryVersion bool `json:"every_version"`
}

// emonEBXBit is the leaf 0x0A EBX bit of each Emon source
// (docs/reference/hal.md#emon).
var emonEBXBit = map[hal.Source]int{
	hal.ProfileTotalCycles: 0, hal.ProfileTotalIssues: 1, hal.ProfileCacheMisses: 4,
	hal.ProfileBranchInstructions: 5, hal.ProfileBranchMispredictions: 6,
	0x19: 0, 0x1A: 1, 0x1B: 2, 0x1C: 3, 0x1D: 4, 0x1E: 5, 0x1F: 6,
}

// DefaultSettings returns the documented defaults.
func DefaultSettings() Settings {
	b := hal.CounterBounds()
	return Settings{
		Counters: 4,
		Skid:     []Skid{{1, 60}, {2, 25}, {3, 10}, {4, 5}},
		Min:      b.Min, Max: b.Max, Default: b.Default,
		CPUID0AEBXLength: 7,
	}
}

// Validate checks the settings, naming the wrong one (hal.SettingsValidator:
// the SDK calls it before Configure).
func (s Settings) Validate() error {
	if s.Counters < 1 || s.Counters > MaxCounters {
		return fmt.Errorf("setting counters = %d, want 1…%d", s.Counters, MaxCounters)
	}
	for i, k := range s.Skid {
		if k.Instructions > 1000 || k.Weight < 1 {
			return fmt.Errorf("setting skid[%d] = {instructions = %d, weight = %d}: want instructions 0…1000 and weight >= 1", i, k.Instructions, k.Weight)
		}
	}
	if s.CPUID0AEBXLength < 0 || s.CPUID0AEBXLength > 32 {
		return fmt.Errorf("setting cpuid_0a_ebx_length = %d, want 0…32", s.CPUID0AEBXLength)
	}
	if s.Min < 1 || s.Min > s.Default || s.Default > s.Max || s.Max > 0x7FFFFFFF {
		return fmt.Errorf("settings want 1 <= min <= default <= max <= 0x7FFFFFFF, got min=%d default=%d max=%d", s.Min, s.Default, s.Max)
	}
	return nil
}

// SkidDistribution returns the skid setting as hardware programming.
func (s Settings) SkidDistribution() []hal.SkidWeight {
	out := make([]hal.SkidWeight, len(s.Skid))
	for i, k := range s.Skid {
		out[i] = hal.SkidWeight{Instructions: k.Instructions, Weight: k.Weight}
	}
	return out
}

// PMU is one PMU HAL instance.
type PMU struct {
	hal.Base
	settings Settings
	bank     *hal.CounterBank
}

var (
	_ hal.HAL          = (*PMU)(nil)
	_ hal.Configurable = (*PMU)(nil)
	_ hal.Factory      = New
)

// New returns a fresh PMU HAL with the default settings.
func New() hal.HAL {
	p := &PMU{settings: DefaultSettings()}
	p.Base = hal.Base{Name: Name, Version: Version, Sources: p.sources, Program: p.program, Counters: p.counters}
	return p
}

// counters answers HalQueryProfileNumberOfCounters: the counters per
// processor, or 0 where the interface offers no counter source.
func (p *PMU) counters(hal.Machine) uint32 {
	if len(p.Describe().Sources) == 0 {
		return 0
	}
	return uint32(p.settings.Counters)
}

// Settings returns the settings for the SDK to decode into.
func (p *PMU) Settings() any { return &p.settings }

// Configure checks the settings and sets up the counters.
func (p *PMU) Configure(m hal.Machine) error {
	if p.settings.CounterAllocationFails && m.Vendor == hal.VendorAMD && !p.settings.HypervisorHidesCounters {
		return fmt.Errorf("the Amd64 interface could not allocate its counter memory: bug check HAL_MEMORY_ALLOCATION (0xAC) (setting counter_allocation_fails)")
	}
	p.bank = hal.NewCounterBank(m.CPUs, p.settings.Counters)
	return p.Base.Configure(m)
}

func (p *PMU) sources(m hal.Machine) []hal.SourceSpec {
	st := p.settings
	if st.HypervisorHidesCounters {
		return nil // the Default interface: ProfileTime only, which is apic's
	}
	emon := m.Vendor == hal.VendorIntel
	if emon && (st.CPUID0AEBXLength == 0 || st.CPUID0AEBX&1 != 0 || st.CounterAllocationFails) {
		return nil // Default interface, or Emon with every source unsupported
	}
	b := hal.Bounds{Min: st.Min, Max: st.Max, Default: st.Default}
	srcs := hal.CounterSourcesFor(m)
	if st.EveryVersion {
		srcs = hal.CounterSources(m.Vendor)
	}
	var out []hal.SourceSpec
	for _, s := range srcs {
		if bit, ok := emonEBXBit[s]; emon && ok && (bit >= st.CPUID0AEBXLength || st.CPUID0AEBX&(1<<bit) != 0) {
			continue // the event is not available
		}
		out = append(out, hal.SourceSpec{Source: s, Units: hal.UnitsEvents, Bounds: b})
	}
	return out
}

func (p *PMU) program(e hal.Event) hal.Programming {
	return hal.ProgramCounters(p.bank, p.Machine().Vendor, e, Name, func(c *hal.CounterProgram) {
		c.Skid = p.settings.SkidDistribution()
	})
}

var _ hal.SettingsValidator = Settings{}
