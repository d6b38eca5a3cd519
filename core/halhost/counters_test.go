package halhost_test

import (
	"strings"
	"testing"

	"github.com/proflab/proflab/core/halhost"
	"github.com/proflab/proflab/halplugins/apic"
	"github.com/proflab/proflab/halplugins/hal"
)

// counting reports a fixed number of counters.
type counting struct {
	hal.HAL
	n uint32
}

func (c counting) NumberOfCounters() (uint32, error) { return c.n, nil }

// The kernel's view of HalQueryProfileNumberOfCounters: the HAL's answer,
// and an impossible one is the HAL's failure, not a limit.
func TestMachineHALNumberOfCounters(t *testing.T) {
	for _, tc := range []struct {
		n    uint32
		want string // error fragment, "" for none
	}{{0, ""}, {6, ""}, {32, ""}, {33, "33 counters per processor, more than any processor has"}} {
		inst := hal.Local(func() hal.HAL { return counting{apic.New(), tc.n} })
		if err := inst.Configure(machine, nil); err != nil {
			t.Fatal(err)
		}
		mh, err := halhost.NewMachineHAL("c", "in-process", inst, machine, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		n, err := mh.NumberOfCounters()
		switch {
		case tc.want == "" && (err != nil || n != tc.n):
			t.Errorf("%d counters: got %d, %v", tc.n, n, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%d counters: error %v, want %q", tc.n, err, tc.want)
		}
	}
}
