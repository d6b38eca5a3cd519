package main

import (
	"testing"

	"github.com/proflab/proflab/halplugins/hal"
	"github.com/proflab/proflab/halplugins/haltest"
)

// The HAL passes the conformance suite in-process.
func TestConformance(t *testing.T) { haltest.Run(t, newHAL) }

// Its counters carry the configured skid.
func TestSkidSetting(t *testing.T) {
	in := hal.Local(newHAL)
	if err := in.Configure(haltest.Machines()[0], []byte(`{"skid": 7}`)); err != nil {
		t.Fatal(err)
	}
	p, err := in.StartInterrupt([]int{0}, hal.ProfileBranchMispredictions)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Counters) != 1 || !p.Counters[0].Enabled || p.Counters[0].Skid[0].Instructions != 7 {
		t.Fatalf("programming %+v", p)
	}
	if err := hal.Local(newHAL).Configure(haltest.Machines()[0], []byte(`{"skid": 5000}`)); err == nil {
		t.Fatal("skid 5000 accepted")
	}
	if n, err := in.NumberOfCounters(); n != 2 || err != nil {
		t.Fatalf("HalQueryProfileNumberOfCounters: %d, %v, want 2 (one counter per source)", n, err)
	}
}
