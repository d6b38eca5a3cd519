// Package pebs is the logic of proflab's shipped PEBS HAL: precise
// sampling with Intel's processor event-based sampling. The plugin's main
// is cmd/proflab-hal-pebs; the same logic runs in-process with
// `transport = "inproc"`.
//
// Behaviour:
//
//   - Sources (GenuineIntel only, and only where the machine's version
//     has Intel counter sources, x64 from 6.0 and x86 from 6.2, unless
//     `every_version` is set; on AuthenticAMD it supports nothing):
//     the PEBS-capable counter sources of the Emon interface —
//     ProfileTotalIssues, ProfileBranchInstructions, ProfileCacheMisses,
//     ProfileBranchMispredictions, ProfileInstructionRetired,
//     ProfileLLCMisses, ProfileBranchInstructionRetired and
//     ProfileBranchMispredictsRetired — described as Precise, with the
//     counter bounds (default 65536, minimum 4096, maximum 0x7FFFFFFF,
//     clamping). List `pebs` before `pmu` in a machine's `hal` to sample
//     those sources precisely.
//   - Starting a source allocates a counter as the pmu HAL does (refused,
//     with a log line, when all `counters` are busy) and programs it with
//     PEBS on: no skid, the exact IP, the record written to the
//     processor's DS save area
//     (docs/reference/system-information.md#processor_profile_control_area)
//     with the interval as
//     the counter's PEBS reset value; and it programs the DS save area:
//     `record_size` bytes a record, `buffer_records` records, an interrupt
//     when `threshold_records` records are written.
//   - Everything it programs requires a control area: on a processor that
//     has none (NtSetSystemInformation(SystemProcessorProfileControlArea)
//     was not called for it, or the processor fails the kernel's PEBS
//     checks) the lab delivers nothing from it and logs why. Whether a
//     processor has one is the kernel's business, not this HAL's.
package pebs

import (
	"fmt"

	"github.com/proflab/proflab/halplugins/hal"
)

// Name is the HAL's name.
const Name = "pebs"

// Version is the HAL's version.
const Version = "1.1.0"

// Sources are the sources the PEBS HAL supports on GenuineIntel.
func Sources() []hal.Source {
	return []hal.Source{
		hal.ProfileTotalIssues, hal.ProfileBranchInstructions, hal.ProfileCacheMisses,
		hal.ProfileBranchMispredictions, hal.ProfileInstructionRetired, hal.ProfileLLCMisses,
		hal.ProfileBranchInstructionRetired, hal.ProfileBranchMispredictsRetired,
	}
}

// Settings are the PEBS HAL's `[hal.pebs.settings]`.
type Settings struct {
	// Counters is the number of PEBS-capable counters per processor, 1…4
	// (default 4: PebsCounterReset0–3).
	Counters int `json:"counters"`
	// RecordSize is the bytes per PEBS record (default 0xC0 = 192).
	RecordSize uint32 `json:"record_size"`
	// BufferRecords is the DS buffer's capacity in records (default 64).
	BufferRecords uint32 `json:"buffer_records"`
	// ThresholdRecords is how many records raise the interrupt, 1…
	// buffer_records (default 1: one interrupt per sample, like pmu).
	ThresholdRecords uint32 `json:"threshold_records"`
	// Min, Max and Default are every source's interval bounds in events
	// (default 4096, 0x7FFFFFFF, 65536).
	Min     uint32 `json:"min"`
	Max     uint32 `json:"max"`
	Default uint32 `json:"default"`
	// EveryVersion offers the sources whatever the machine's Windows
	// version and architecture (by default, only where the version's HAL
	// has Intel counter sources: x64 from 6.0, x86 from 6.2).
	EveryVersion bool `json:"every_version"`
}

// DefaultSettings returns the documented defaults.
func DefaultSettings() Settings {
	b := hal.CounterBounds()
	return Settings{Counters: 4, RecordSize: 0xC0, BufferRecords: 64, ThresholdRecords: 1, Min: b.Min, Max: b.Max, Default: b.Default}
}

// Validate checks the settings, naming the wrong one (hal.SettingsValidator:
// the SDK calls it before Configure).
func (s Settings) Validate() error {
	switch {
	case s.Counters < 1 || s.Counters > 4:
		return fmt.Errorf("setting counters = %d, want 1…4", s.Counters)
	case s.RecordSize < 8 || s.RecordSize%8 != 0:
		return fmt.Errorf("setting record_size = %d, want a multiple of 8, at least 8", s.RecordSize)
	case s.BufferRecords < 1:
		return fmt.Errorf("setting buffer_records = %d, want at least 1", s.BufferRecords)
	case s.ThresholdRecords < 1 || s.ThresholdRecords > s.BufferRecords:
		return fmt.Errorf("setting threshold_records = %d, want 1…buffer_records (%d)", s.ThresholdRecords, s.BufferRecords)
	case s.Min < 1 || s.Min > s.Default || s.Default > s.Max || s.Max > 0x7FFFFFFF:
		return fmt.Errorf("settings want 1 <= min <= default <= max <= 0x7FFFFFFF, got min=%d default=%d max=%d", s.Min, s.Default, s.Max)
	}
	return nil
}

// PEBS is one PEBS HAL instance.
type PEBS struct {
	hal.Base
	settings Settings
	bank     *hal.CounterBank
}

var (
	_ hal.HAL          = (*PEBS)(nil)
	_ hal.Configurable = (*PEBS)(nil)
	_ hal.Factory      = New
)

// New returns a fresh PEBS HAL with the default settings.
func New() hal.HAL {
	p := &PEBS{settings: DefaultSettings()}
	p.Base = hal.Base{Name: Name, Version: Version, Sources: p.sources, Program: p.program, Counters: p.counters}
	return p
}

// Settings returns the settings for the SDK to decode into.
func (p *PEBS) Settings() any { return &p.settings }

// counters answers HalQueryProfileNumberOfCounters: the PEBS-capable
// counters per processor, or 0 where the HAL offers no source.
func (p *PEBS) counters(hal.Machine) uint32 {
	if len(p.Describe().Sources) == 0 {
		return 0
	}
	return uint32(p.settings.Counters)
}

// Configure checks the settings and sets up the counters.
func (p *PEBS) Configure(m hal.Machine) error {
	p.bank = hal.NewCounterBank(m.CPUs, p.settings.Counters)
	return p.Base.Configure(m)
}

func (p *PEBS) sources(m hal.Machine) []hal.SourceSpec {
	if m.Vendor != hal.VendorIntel || hal.CounterSourcesFor(m) == nil && !p.settings.EveryVersion {
		return nil
	}
	b := hal.Bounds{Min: p.settings.Min, Max: p.settings.Max, Default: p.settings.Default}
	var out []hal.SourceSpec
	for _, s := range Sources() {
		out = append(out, hal.SourceSpec{Source: s, Units: hal.UnitsEvents, Bounds: b, Precise: true})
	}
	return out
}

func (p *PEBS) program(e hal.Event) hal.Programming {
	out := hal.ProgramCounters(p.bank, hal.VendorIntel, e, Name, func(c *hal.CounterProgram) {
		c.PEBS, c.RequiresControlArea = true, true
	})
	if e.Kind == hal.EventReset || len(out.Counters) == 0 {
		return out
	}
	return out.Merge(hal.Programming{DS: []hal.DSProgram{p.ds(e.CPU)}})
}

// ds is the DS save-area programming of cpu for its counters now in use.
func (p *PEBS) ds(cpu int) hal.DSProgram {
	busy := p.bank.Busy(cpu)
	if len(busy) == 0 {
		return hal.DSProgram{CPU: cpu}
	}
	d := hal.DSProgram{CPU: cpu, Enabled: true, RecordSize: p.settings.RecordSize,
		BufferRecords: p.settings.BufferRecords, ThresholdRecords: p.settings.ThresholdRecords}
	for _, src := range busy {
		if i, ok := p.bank.Find(cpu, src); ok && i < len(d.CounterReset) {
			d.CounterReset[i] = p.Interval(cpu, src)
		}
	}
	return d
}

var _ hal.SettingsValidator = Settings{}
