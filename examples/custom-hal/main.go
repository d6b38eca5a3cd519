// Command fixed-skid is a custom proflab HAL: retired-instruction and
// branch-mispredict counters whose reported IP always lands exactly `skid`
// instructions after the overflowing one (a simple model of an old PMU).
package main

import (
	"fmt"

	"github.com/proflab/proflab/halplugins/hal"
	"github.com/proflab/proflab/halplugins/halrpc"
)

type fixedSkid struct {
	hal.Base
	s struct {
		Skid uint32 `json:"skid"` // instructions after the overflowing one, 0…1000 (default 3)
	}
}

func newHAL() hal.HAL {
	f := &fixedSkid{}
	f.s.Skid = 3
	f.Base = hal.Base{Name: "fixed-skid", Version: "1.0.0", Sources: f.sources, Program: f.program,
		Counters: func(hal.Machine) uint32 { return 2 }} // HalQueryProfileNumberOfCounters: one counter per source
	return f
}

func (f *fixedSkid) Settings() any { return &f.s }

func (f *fixedSkid) Configure(m hal.Machine) error {
	if f.s.Skid > 1000 {
		return fmt.Errorf("setting skid = %d, want 0…1000", f.s.Skid)
	}
	return f.Base.Configure(m)
}

// sources are the counters, in counter-index order.
func (f *fixedSkid) sources(hal.Machine) (out []hal.SourceSpec) {
	for _, s := range []hal.Source{hal.ProfileTotalIssues, hal.ProfileBranchMispredictions} {
		out = append(out, hal.SourceSpec{Source: s, Units: hal.UnitsEvents, Bounds: hal.CounterBounds()})
	}
	return out
}

func (f *fixedSkid) program(e hal.Event) (p hal.Programming) {
	if e.Kind == hal.EventReset {
		return p // Base answers ResetAll
	}
	index := map[hal.Source]int{hal.ProfileTotalIssues: 0, hal.ProfileBranchMispredictions: 1}[e.Source]
	sel, _ := hal.EventSelect(f.Machine().Vendor, e.Source)
	p.Counters = []hal.CounterProgram{{CPU: e.CPU, Index: index, Enabled: e.Kind != hal.EventStop, Source: e.Source,
		EventSelect: sel, Reload: e.Interval, Skid: []hal.SkidWeight{{Instructions: f.s.Skid, Weight: 1}}}}
	return p
}

func main() { halrpc.Serve(newHAL) }
