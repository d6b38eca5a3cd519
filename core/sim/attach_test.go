package sim_test

import (
	"strings"
	"testing"

	"github.com/proflab/proflab/core/sim"
	"github.com/proflab/proflab/core/workload"
	"github.com/proflab/proflab/kernel"
)

// TestAttachClock: the simulator's clock is the one it was made with
// (what its HALs program before Attach) or else the machine's; a
// mismatch or no clock at all is an error, never a silent default.
func TestAttachClock(t *testing.T) {
	t.Parallel()
	machine := func(freq int) *kernel.Machine {
		m, err := kernel.NewMachine(kernel.Config{Arch: kernel.X64, CPUs: 1, FreqMHz: freq, HALs: kernel.StandardTestHALs("GenuineIntel")})
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	tests := []struct {
		name         string
		simMHz, mMHz int
		wantErr      string
		wantMHz      uint64 // cycles per simulated microsecond
	}{
		{"the machine's", 0, 2000, "", 2000},
		{"the simulator's", 2000, 0, "", 2000},
		{"both agree", 3000, 3000, "", 3000},
		{"mismatch", 2000, 3000, "the simulator runs at 2000 MHz, the machine at 3000 MHz", 0},
		{"none", 0, 0, "no clock frequency", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := sim.New(sim.Options{Seed: 1, FreqMHz: tt.simMHz})
			m := machine(tt.mMHz)
			err := s.Attach(m, nil)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("Attach: %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			p := m.NewProcess("app", kernel.Token{})
			res, err := s.Run(1000, workload.OneProcess("", p, []workload.Function{{Name: "f", Base: 0x10000, Size: 0x100, Weight: 1}}))
			if err != nil {
				t.Fatal(err)
			}
			var cycles uint64
			for _, f := range res.Functions {
				cycles += f.Cycles
			}
			if want := 1000 * tt.wantMHz; cycles != want {
				t.Errorf("1000 µs on one processor took %d cycles, want %d", cycles, want)
			}
		})
	}
}
