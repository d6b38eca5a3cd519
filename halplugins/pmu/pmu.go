// Package pmu is the logic of proflab's shipped PMU HAL: counter-overflow
// profile sources from each processor's performance counters, as the Emon
// (GenuineIntel) and Amd64 (AuthenticAMD) HAL profile interfaces have them
// (nt-profiling.md §4.4). The plugin's main is cmd/proflab-hal-pmu; the same
// logic runs in-process with `transport = "inproc"`.
//
// Behaviour:
//
//   - Sources: hal.CounterSources(vendor) — on GenuineIntel ProfileTotalIssues,
//     ProfileBranchInstructions, ProfileCacheMisses,
//     ProfileBranchMispredictions, ProfileTotalCycles and the Emon
//     processor-specific sources 0x19–0x1F; on AuthenticAMD the Amd64
//     general sources. Not ProfileTime: that is the apic HAL's, so that
//     `hal = {"apic", "pmu"}` composes.
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
package pmu

import (
	"fmt"
	"slices"
	"strings"

	"github.com/proflab/proflab/halplugins/hal"
)

// Name is the HAL's name.
const Name = "pmu"

// Version is the HAL's version.
const Version = "1.0.0"

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
}

// DefaultSettings returns the documented defaults.
func DefaultSettings() Settings {
	b := hal.CounterBounds()
	return Settings{
		Counters: 4,
		Skid:     []Skid{{1, 60}, {2, 25}, {3, 10}, {4, 5}},
		Min:      b.Min, Max: b.Max, Default: b.Default,
	}
}

// Check validates the settings, naming the wrong one.
func (s Settings) Check() error {
	if s.Counters < 1 || s.Counters > MaxCounters {
		return fmt.Errorf("setting counters = %d, want 1…%d", s.Counters, MaxCounters)
	}
	for i, k := range s.Skid {
		if k.Instructions > 1000 || k.Weight < 1 {
			return fmt.Errorf("setting skid[%d] = {instructions = %d, weight = %d}: want instructions 0…1000 and weight >= 1", i, k.Instructions, k.Weight)
		}
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
	bank     *Bank
}

var (
	_ hal.HAL          = (*PMU)(nil)
	_ hal.Configurable = (*PMU)(nil)
	_ hal.Factory      = New
)

// New returns a fresh PMU HAL with the default settings.
func New() hal.HAL {
	p := &PMU{settings: DefaultSettings()}
	p.Base = hal.Base{Name: Name, Version: Version, Sources: p.sources, Program: p.program}
	return p
}

// Settings returns the settings for the SDK to decode into.
func (p *PMU) Settings() any { return &p.settings }

// Configure checks the settings and sets up the counters.
func (p *PMU) Configure(m hal.Machine) error {
	if err := p.settings.Check(); err != nil {
		return err
	}
	p.bank = NewBank(m.CPUs, p.settings.Counters)
	return p.Base.Configure(m)
}

func (p *PMU) sources(m hal.Machine) []hal.SourceSpec {
	b := hal.Bounds{Min: p.settings.Min, Max: p.settings.Max, Default: p.settings.Default}
	var out []hal.SourceSpec
	for _, s := range hal.CounterSources(m.Vendor) {
		out = append(out, hal.SourceSpec{Source: s, Units: hal.UnitsEvents, Bounds: b})
	}
	return out
}

func (p *PMU) program(e hal.Event) hal.Programming {
	return ProgramCounters(p.bank, p.Machine().Vendor, e, Name, func(c *hal.CounterProgram) {
		c.Skid = p.settings.SkidDistribution()
	})
}

// ProgramCounters turns one event into counter programming on bank, the
// logic pmu and pebs share: start allocates (or refuses, logging why),
// set reprograms an allocated counter, stop frees it, reset clears the
// bank. decorate fills in the HAL's own fields of an enabled counter.
func ProgramCounters(bank *Bank, vendor string, e hal.Event, halName string, decorate func(*hal.CounterProgram)) hal.Programming {
	var out hal.Programming
	switch e.Kind {
	case hal.EventReset:
		bank.Clear()
	case hal.EventStart, hal.EventSet:
		var idx int
		var ok bool
		if e.Kind == hal.EventStart {
			idx, ok = bank.Allocate(e.CPU, e.Source)
			if !ok {
				out.Logf("%s: processor %d: all %d counters are busy (%s); %s not started there, no interrupts will come from it",
					halName, e.CPU, bank.InUse(e.CPU), names(bank.Busy(e.CPU)), e.Source)
				return out
			}
		} else if idx, ok = bank.Find(e.CPU, e.Source); !ok {
			return out // refused earlier: nothing to reprogram
		}
		sel, _ := hal.EventSelect(vendor, e.Source)
		c := hal.CounterProgram{CPU: e.CPU, Index: idx, Enabled: true, Source: e.Source, EventSelect: sel, Reload: e.Interval}
		if decorate != nil {
			decorate(&c)
		}
		out.Counters = append(out.Counters, c)
	case hal.EventStop:
		if idx, ok := bank.Free(e.CPU, e.Source); ok {
			out.Counters = append(out.Counters, hal.CounterProgram{CPU: e.CPU, Index: idx, Source: e.Source})
		}
	}
	return out
}

func names(srcs []hal.Source) string {
	s := make([]string, len(srcs))
	for i, v := range srcs {
		s[i] = v.Name()
	}
	slices.Sort(s)
	return strings.Join(s, ", ")
}
