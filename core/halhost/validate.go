package halhost

import (
	"errors"
	"fmt"

	"github.com/proflab/proflab/halplugins/hal"
)

// checkProgramming reports what is nonsense in p: a processor outside the
// machine, or (when addressed is non-nil) one the call did not address,
// and values the hardware cannot take.
func checkProgramming(p hal.Programming, cpus int, addressed []int) error {
	var errs []error
	in := func(what string, cpu int) {
		if cpu < 0 || cpu >= cpus {
			errs = append(errs, fmt.Errorf("%s programs processor %d of a %d-processor machine", what, cpu, cpus))
			return
		}
		if addressed == nil {
			return
		}
		for _, c := range addressed {
			if c == cpu {
				return
			}
		}
		errs = append(errs, fmt.Errorf("%s programs processor %d, which the call did not address (%v)", what, cpu, addressed))
	}
	for _, t := range p.Timers {
		in("timer programming", t.CPU)
		if !t.Enabled {
			continue
		}
		if t.Mode == hal.TimerPeriodic && t.Period < 1 {
			errs = append(errs, fmt.Errorf("processor %d's periodic timer has period 0", t.CPU))
		}
		for _, v := range t.OneShot {
			if v < 1 {
				errs = append(errs, fmt.Errorf("processor %d's one-shot queue has a period of 0", t.CPU))
				break
			}
		}
	}
	for _, c := range p.Counters {
		in("counter programming", c.CPU)
		if c.Index < 0 || c.Index > 7 {
			errs = append(errs, fmt.Errorf("processor %d: counter index %d, want 0…7", c.CPU, c.Index))
		}
		if !c.Enabled {
			continue
		}
		if c.Reload < 1 || c.Reload > 0x7FFFFFFF {
			errs = append(errs, fmt.Errorf("processor %d counter %d: reload %d, want 1…0x7FFFFFFF", c.CPU, c.Index, c.Reload))
		}
		for _, k := range c.Skid {
			if k.Weight < 1 || k.Instructions > 1000 {
				errs = append(errs, fmt.Errorf("processor %d counter %d: skid entry {%d, %d}, want instructions 0…1000 and weight >= 1", c.CPU, c.Index, k.Instructions, k.Weight))
				break
			}
		}
	}
	for _, d := range p.DS {
		in("DS programming", d.CPU)
		if d.Enabled && (d.RecordSize < 8 || d.BufferRecords < 1 || d.ThresholdRecords < 1 || d.ThresholdRecords > d.BufferRecords) {
			errs = append(errs, fmt.Errorf("processor %d DS area: record size %d, %d records, threshold %d: want size >= 8 and 1 <= threshold <= records",
				d.CPU, d.RecordSize, d.BufferRecords, d.ThresholdRecords))
		}
	}
	return errors.Join(errs...)
}
