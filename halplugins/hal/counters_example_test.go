package hal_test

import (
	"fmt"

	"github.com/proflab/proflab/halplugins/hal"
)

// A counter HAL in a few lines: CounterBase gives the sources (one
// counter each), HalQueryProfileNumberOfCounters and the programming of
// the counters; the HAL adds its own fields to each counter.
func ExampleCounterBase() {
	newHAL := func() hal.HAL {
		b := hal.CounterBase("mine", "1.0.0", []hal.Source{hal.ProfileTotalIssues, hal.ProfileCacheMisses}, func(c *hal.CounterProgram) {
			c.Skid = []hal.SkidWeight{{Instructions: 2, Weight: 1}}
		})
		return &b
	}
	in := hal.Local(newHAL)
	if err := in.Configure(hal.Machine{CPUs: 2, FreqMHz: 3000, Vendor: hal.VendorIntel, Arch: "x64", Version: "10.0.19041"}, nil); err != nil {
		fmt.Println(err)
		return
	}
	p, _ := in.StartInterrupt([]int{0, 1}, hal.ProfileCacheMisses)
	for _, c := range p.Counters {
		fmt.Printf("cpu %d counter %d: %s, select 0x%X, every %d events, skid %d\n", c.CPU, c.Index, c.Source, c.EventSelect, c.Reload, c.Skid[0].Instructions)
	}
	n, _ := in.NumberOfCounters()
	fmt.Println(n, "counters per processor")
	// Output:
	// cpu 0 counter 0: ProfileCacheMisses, select 0x3412E, every 65536 events, skid 2
	// cpu 1 counter 0: ProfileCacheMisses, select 0x3412E, every 65536 events, skid 2
	// 2 counters per processor
}

// Settings that validate themselves: the SDK calls Validate after it
// decodes the configured settings, before the HAL is configured.
func ExampleSettingsValidator() {
	err := hal.Local(newSkidHAL).Configure(hal.Machine{CPUs: 1, FreqMHz: 3000, Vendor: hal.VendorIntel, Arch: "x64", Version: "6.1"}, []byte(`{"skid": 5000}`))
	fmt.Println(err)
	// Output:
	// configure: setting skid = 5000, want 0…1000
}

type skidSettings struct {
	Skid uint32 `json:"skid"`
}

func (s *skidSettings) Validate() error {
	if s.Skid > 1000 {
		return fmt.Errorf("setting skid = %d, want 0…1000", s.Skid)
	}
	return nil
}

type skidHAL struct {
	hal.Base
	s skidSettings
}

func (h *skidHAL) Settings() any { return &h.s }

func newSkidHAL() hal.HAL {
	h := &skidHAL{}
	h.Base = hal.CounterBase("skid", "1.0.0", []hal.Source{hal.ProfileTotalIssues}, nil)
	return h
}
