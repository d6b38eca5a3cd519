// Package apic is the logic of proflab's shipped APIC HAL: ProfileTime from
// each processor's local APIC timer, in periodic mode, as ReactOS's APIC
// HAL and the Windows HALs' default profile interface do (nt-profiling.md
// §4.3–§4.5). The plugin's main is cmd/proflab-hal-apic; the same logic
// runs in-process with `transport = "inproc"`.
//
// Behaviour: ProfileTime only, interval in 100 ns units, default 39063,
// minimum 1221, maximum 10,000,000 (hal.TimerBounds). A set outside the
// bounds is clamped. Each processor keeps its own interval. Starting
// programs the processor's timer periodic with its interval; stopping masks
// it; a set on a processor where ProfileTime is started reprograms the
// period (restarting the count).
package apic

import (
	"fmt"

	"github.com/proflab/proflab/halplugins/hal"
)

// Name is the HAL's name.
const Name = "apic"

// Version is the HAL's version.
const Version = "1.0.0"

// Settings are the APIC HAL's `[hal.apic.settings]`. Zero fields are
// invalid; the defaults are nt-profiling.md §4.5's.
type Settings struct {
	// Min is ProfileTime's minimum interval in 100 ns units (default 1221).
	Min uint32 `json:"min"`
	// Max is the maximum interval in 100 ns units (default 10,000,000).
	Max uint32 `json:"max"`
	// Default is the interval before any set, in 100 ns units (default
	// 39063).
	Default uint32 `json:"default"`
}

// DefaultSettings returns the documented defaults.
func DefaultSettings() Settings {
	b := hal.TimerBounds()
	return Settings{Min: b.Min, Max: b.Max, Default: b.Default}
}

// Bounds returns the settings as interval bounds, or an error naming the
// setting that is wrong.
func (s Settings) Bounds() (hal.Bounds, error) {
	b := hal.Bounds{Min: s.Min, Max: s.Max, Default: s.Default}
	if b.Min < 1 || b.Min > b.Default || b.Default > b.Max {
		return b, fmt.Errorf("settings want 1 <= min <= default <= max, got min=%d default=%d max=%d", b.Min, b.Default, b.Max)
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
	b, err := a.settings.Bounds()
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
