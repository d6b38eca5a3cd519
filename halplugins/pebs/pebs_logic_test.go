package pebs_test

import (
	"testing"

	"github.com/proflab/proflab/halplugins/hal"
	"github.com/proflab/proflab/halplugins/pebs"
)

func TestPEBSProgramming(t *testing.T) {
	in := hal.Local(pebs.New)
	if err := in.Configure(hal.Machine{CPUs: 2, FreqMHz: 3000, Vendor: hal.VendorIntel, Arch: "x64"}, []byte(`{"threshold_records": 4}`)); err != nil {
		t.Fatal(err)
	}
	in.SetInterval([]int{1}, hal.ProfileLLCMisses, 10000)
	p, err := in.StartInterrupt([]int{1}, hal.ProfileLLCMisses)
	if err != nil || len(p.Counters) != 1 || len(p.DS) != 1 {
		t.Fatalf("%+v %v", p, err)
	}
	c, d := p.Counters[0], p.DS[0]
	if !c.PEBS || !c.RequiresControlArea || len(c.Skid) != 0 || c.Reload != 10000 {
		t.Errorf("counter %+v", c)
	}
	if !d.Enabled || d.CPU != 1 || d.ThresholdRecords != 4 || d.BufferRecords != 64 || d.RecordSize != 0xC0 || d.CounterReset[0] != 10000 {
		t.Errorf("DS %+v", d)
	}
	p, _ = in.StopInterrupt([]int{1}, hal.ProfileLLCMisses)
	if len(p.DS) != 1 || p.DS[0].Enabled || len(p.Counters) != 1 || p.Counters[0].Enabled {
		t.Errorf("stop %+v", p)
	}
	desc, _ := in.Describe()
	for _, s := range desc.Sources {
		if !s.Precise {
			t.Errorf("%s not precise", s.Name)
		}
	}
}

func TestNothingOnAMD(t *testing.T) {
	in := hal.Local(pebs.New)
	if err := in.Configure(hal.Machine{CPUs: 2, FreqMHz: 3000, Vendor: hal.VendorAMD, Arch: "x64"}, nil); err != nil {
		t.Fatal(err)
	}
	if d, _ := in.Describe(); len(d.Sources) != 0 {
		t.Errorf("AMD sources %+v", d.Sources)
	}
}
