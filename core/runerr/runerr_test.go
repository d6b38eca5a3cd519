package runerr

import "testing"

func TestUnlocated(t *testing.T) {
	for _, tc := range []struct {
		e    Error
		want string
	}{
		{Error{Message: "s.lua:3: scenario exceeded its time budget of 1s (--timeout)", Where: "s.lua:3"}, "scenario exceeded its time budget of 1s (--timeout)"},
		{Error{Message: "scenario interrupted"}, "scenario interrupted"},
		// a Where taken from the traceback, not the message: the message stays
		{Error{Message: "the HAL plugin apic crashed", Where: "s.lua:9"}, "the HAL plugin apic crashed"},
		{Error{Message: "s.lua:30: x", Where: "s.lua:3"}, "s.lua:30: x"},
	} {
		if got := tc.e.Unlocated(); got != tc.want {
			t.Errorf("Unlocated(%q, where %q) = %q, want %q", tc.e.Message, tc.e.Where, got, tc.want)
		}
	}
}
