// Package apic is the logic of proflab's shipped APIC HAL: ProfileTime from
// each processor's local APIC timer, in periodic mode, as ReactOS's APIC
// HAL and the Windows HALs' default profile interface do
// (docs/reference/hal.md). The plugin's main is cmd/proflab-hal-apic; the
// same logic runs in-process with `transport = "inproc"`.
//
// Behaviour: ProfileTime only, described as "Timer", interval in 100 ns
// units, with the bounds of the timer HAL of the machine's Windows version
// (hal.TimerBoundsFor): on every 10.0 version default 10000 (1 ms),
// minimum 1221, maximum 1,000,000, as Windows' own tools report
// (docs/reference/hal.md#what-windows-10-itself-reports); before 10.0
// default 39063, minimum 1221, maximum 10,000,000
// (docs/reference/hal.md#interval-bounds, the maximum the lab's choice). A
// bound set in the settings wins over the
// version's. A set outside the bounds is clamped. Each processor keeps its
// own interval. Starting programs the processor's timer periodic with its
// interval; stopping masks it; a set on a processor where ProfileTime is
// started reprograms the period (restarting the count).
package apic

import (
	"fmt"

	"github.com/proflab/proflab/halplugins/hal"
)

// Name is the HAL's name.
const Name = "apic"

// Version is the HAL's version.
const Version = "1.1.0"

// Settings are the APIC HAL's `[hal.apic.settings]`. A zero field takes
// the value of the timer HAL of the machine's Windows version
// (hal.TimerBoundsFor); a set field wins on every version.
type Settings struct {
	// Min is ProfileTime's minimum interval in 100 ns units (0: the
	// version's, 1221).
	Min uint32 `json:"min"`
	// Max is the maximum interval in 100 ns units (0: the version's,
	// 1,000,000 on 10.0 and 10,000,000 before).
	Max uint32 `json:"max"`
	// Default is the interval before any set, in 100 ns units (0: the
	// version's, 10000 on 10.0 and 39063 before).
	Default uint32 `json:"default"`
}

// DefaultSettings returns the documented defaults: every bound the
// version's.
func DefaultSettings() Settings { return Settings{} }

// Bounds returns the settings as interval bounds on a machine of version,
// each zero field replaced by the version's, or an error naming the
// setting that is wrong.
func (s Settings) Bounds(version string) (hal.Bounds, error) {
	b := hal.TimerBoundsFor(version)
	if s.Min != 0 {
		b.Min = s.Min
	}
	if s.Max != 0 {
		b.Max = s.Max
	}
	if s.Default != 0 {
		b.Default = s.Default
	}
	if b.Min < 1 || b.Min > b.Default || b.Default > b.Max {
		return b, fmt.Errorf("settings want 1 <= min <= default <= max, got min=%d default=%d max=%d (unset ones are Windows %s's)", b.Min, b.Default, b.Max, version)
	}
	return b, nil
}

// APIC is one APIC HAL instance.
type APIC struct {
	hal.Base
	settings Settings
	bounds   hal.Bounds
}

var (
	_ hal.HAL          = (*APIC)(nil)
	_ hal.Configurable = (*APIC)(nil)
	_ hal.Factory      = New
)

// New returns a fresh APIC HAL with the default settings.
func New() hal.HAL {
	a := &APIC{settings: DefaultSettings()}
	a.Base = hal.Base{Name: Name, Version: Version, Sources: a.sources, Program: a.program}
	return a
}

// Settings returns the settings for the SDK to decode into.
func (a *APIC) Settings() any { return &a.settings }

// Configure checks the settings and configures the base.
func (a *APIC) Configure(m hal.Machine) error {
	b, err := a.settings.Bounds(m.Version)
	if err != nil {
		return err
	}
	a.bounds = b
	return a.Base.Configure(m)
}

func (a *APIC) sources(hal.Machine) []hal.SourceSpec {
	return []hal.SourceSpec{{Source: hal.ProfileTime, Units: hal.Units100ns, Bounds: a.bounds}}
}

func (a *APIC) program(e hal.Event) hal.Programming {
	switch e.Kind {
	case hal.EventStart, hal.EventSet:
		return hal.Programming{Timers: []hal.TimerProgram{{
			CPU: e.CPU, Enabled: true, Source: hal.ProfileTime, Mode: hal.TimerPeriodic, Period: e.Interval,
		}}}
	case hal.EventStop:
		return hal.Programming{Timers: []hal.TimerProgram{{CPU: e.CPU, Source: hal.ProfileTime}}}
	}
	return hal.Programming{}
}
