// Command fixed-skid is a custom proflab HAL: retired-instruction and
// branch-mispredict counters whose reported IP always lands exactly `skid`
// instructions after the overflowing one (a simple model of an old PMU).
package main

import (
	"fmt"

	"github.com/proflab/proflab/halplugins/hal"
	"github.com/proflab/proflab/halplugins/halrpc"
)

// settings are the HAL's [hal.NAME.settings]; the SDK calls Validate
// before the HAL is configured.
type settings struct {
	Skid uint32 `json:"skid"` // instructions after the overflowing one, 0…1000 (default 3)
}

func (s *settings) Validate() error {
	if s.Skid > 1000 {
		return fmt.Errorf("setting skid = %d, want 0…1000", s.Skid)
	}
	return nil
}

type fixedSkid struct {
	hal.Base // the counters, one per source, and their bookkeeping
	s        settings
}

func newHAL() hal.HAL {
	f := &fixedSkid{s: settings{Skid: 3}}
	sources := []hal.Source{hal.ProfileTotalIssues, hal.ProfileBranchMispredictions}
	f.Base = hal.CounterBase("fixed-skid", "1.0.0", sources, func(c *hal.CounterProgram) {
		c.Skid = []hal.SkidWeight{{Instructions: f.s.Skid, Weight: 1}}
	})
	return f
}

func (f *fixedSkid) Settings() any { return &f.s }

func main() { halrpc.Serve(newHAL) }
