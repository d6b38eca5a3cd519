package apic_test

import (
	"testing"

	"github.com/proflab/proflab/halplugins/apic"
	"github.com/proflab/proflab/halplugins/hal"
)

func TestTimerProgramming(t *testing.T) {
	in := hal.Local(apic.New)
	if err := in.Configure(hal.Machine{CPUs: 4, FreqMHz: 3000, Vendor: hal.VendorAMD, Arch: "x86", Version: "6.1"}, nil); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		do   func() (hal.Programming, error)
		want []hal.TimerProgram
	}{
		{"start 0,2 at the default", func() (hal.Programming, error) { return in.StartInterrupt([]int{0, 2}, hal.ProfileTime) },
			[]hal.TimerProgram{{CPU: 0, Enabled: true, Source: hal.ProfileTime, Period: 39063}, {CPU: 2, Enabled: true, Source: hal.ProfileTime, Period: 39063}}},
		{"set below the minimum reprograms started processors, clamped", func() (hal.Programming, error) {
			_, p, err := in.SetInterval([]int{0, 1, 2, 3}, hal.ProfileTime, 5)
			return p, err
		}, []hal.TimerProgram{{CPU: 0, Enabled: true, Source: hal.ProfileTime, Period: 1221}, {CPU: 2, Enabled: true, Source: hal.ProfileTime, Period: 1221}}},
		{"stop 2", func() (hal.Programming, error) { return in.StopInterrupt([]int{2}, hal.ProfileTime) },
			[]hal.TimerProgram{{CPU: 2, Source: hal.ProfileTime}}},
		{"set above the maximum on 0", func() (hal.Programming, error) {
			_, p, err := in.SetInterval([]int{0}, hal.ProfileTime, 1<<31)
			return p, err
		}, []hal.TimerProgram{{CPU: 0, Enabled: true, Source: hal.ProfileTime, Period: 10_000_000}}},
	}
	for _, tt := range tests {
		p, err := tt.do()
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if len(p.Timers) != len(tt.want) {
			t.Fatalf("%s: %+v", tt.name, p.Timers)
		}
		for i := range tt.want {
			if p.Timers[i].CPU != tt.want[i].CPU || p.Timers[i].Enabled != tt.want[i].Enabled || p.Timers[i].Period != tt.want[i].Period {
				t.Errorf("%s: timer %d = %+v, want %+v", tt.name, i, p.Timers[i], tt.want[i])
			}
		}
	}
	info, _ := in.QuerySource([]int{0, 1, 2, 3}, hal.ProfileTime)
	for i, want := range []uint32{10_000_000, 1221, 1221, 1221} {
		if info[i].Interval != want {
			t.Errorf("processor %d interval %d, want %d", i, info[i].Interval, want)
		}
	}
}

// The timer HAL follows the machine's version
// (docs/reference/hal.md#the-shipped-hals), and a bound set in the
// settings wins on every version.
func TestTimerPerVersion(t *testing.T) {
	tests := []struct {
		version, settings string
		want              hal.Bounds
		clampedMax        uint32 // what a set of 5,000,000 leaves
	}{
		{"10.0.19041", "", hal.Bounds{Min: 1221, Max: 1_000_000, Default: 10000}, 1_000_000},
		{"10.0.10240", "", hal.Bounds{Min: 1221, Max: 1_000_000, Default: 10000}, 1_000_000},
		{"6.3", "", hal.Bounds{Min: 1221, Max: 10_000_000, Default: 39063}, 5_000_000},
		{"3.51", "", hal.Bounds{Min: 1221, Max: 10_000_000, Default: 39063}, 5_000_000},
		{"10.0.19041", `{"max": 10000000, "default": 39063}`, hal.Bounds{Min: 1221, Max: 10_000_000, Default: 39063}, 5_000_000},
		{"6.1", `{"default": 10000}`, hal.Bounds{Min: 1221, Max: 10_000_000, Default: 10000}, 5_000_000},
	}
	for _, tt := range tests {
		in := hal.Local(apic.New)
		if err := in.Configure(hal.Machine{CPUs: 1, FreqMHz: 3000, Vendor: hal.VendorIntel, Arch: "x64", Version: tt.version}, []byte(tt.settings)); err != nil {
			t.Fatalf("%s %s: %v", tt.version, tt.settings, err)
		}
		d, _ := in.Describe()
		if len(d.Sources) != 1 || d.Sources[0].Bounds != tt.want || d.Sources[0].Description != "Timer" {
			t.Errorf("%s %s: %+v, want bounds %+v and description Timer", tt.version, tt.settings, d.Sources, tt.want)
		}
		if eff, _, _ := in.SetInterval([]int{0}, hal.ProfileTime, 5_000_000); eff[0] != tt.clampedMax {
			t.Errorf("%s %s: a set of 5000000 left %d, want %d", tt.version, tt.settings, eff[0], tt.clampedMax)
		}
	}
	in := hal.Local(apic.New)
	if err := in.Configure(hal.Machine{CPUs: 1, FreqMHz: 3000, Version: "10.0.19041"}, []byte(`{"default": 2000000}`)); err == nil {
		t.Error("a default above 10.0's maximum was accepted")
	}
}
