package pmu_test

import (
	"strings"
	"testing"

	"github.com/proflab/proflab/halplugins/hal"
	"github.com/proflab/proflab/halplugins/pmu"
)

func configured(t *testing.T, vendor, settings string) hal.Instance {
	t.Helper()
	in := hal.Local(pmu.New)
	if err := in.Configure(hal.Machine{CPUs: 2, FreqMHz: 3000, Vendor: vendor, Arch: "x64"}, []byte(settings)); err != nil {
		t.Fatal(err)
	}
	return in
}

func TestSourcesPerVendor(t *testing.T) {
	for vendor, want := range map[string]int{hal.VendorIntel: 12, hal.VendorAMD: 8 + 167} {
		d, _ := configured(t, vendor, "").Describe()
		if len(d.Sources) != want {
			t.Errorf("%s: %d sources, want %d", vendor, len(d.Sources), want)
		}
		for _, s := range d.Sources {
			if s.Source == hal.ProfileTime || s.Bounds != hal.CounterBounds() {
				t.Errorf("%s: %+v", vendor, s)
			}
		}
	}
}

func TestCountersRunOut(t *testing.T) {
	in := configured(t, hal.VendorIntel, `{"counters": 2, "skid": [{"instructions": 9, "weight": 1}]}`)
	srcs := []hal.Source{hal.ProfileTotalIssues, hal.ProfileCacheMisses, hal.ProfileBranchMispredictions}
	for i, s := range srcs[:2] {
		p, err := in.StartInterrupt([]int{0, 1}, s)
		if err != nil || len(p.Counters) != 2 || p.Counters[0].Index != i || p.Counters[0].Skid[0].Instructions != 9 {
			t.Fatalf("start %s: %+v %v", s, p, err)
		}
		if sel, _ := hal.EventSelect(hal.VendorIntel, s); p.Counters[0].EventSelect != sel || p.Counters[0].Reload != 65536 {
			t.Errorf("start %s programmed %+v", s, p.Counters[0])
		}
	}
	p, _ := in.StartInterrupt([]int{1}, srcs[2])
	if len(p.Counters) != 0 || len(p.Log) != 1 || !strings.Contains(p.Log[0], "processor 1: all 2 counters are busy") {
		t.Fatalf("third start: %+v", p)
	}
	// A set reprograms started counters only; the refused one stays off.
	_, p, _ = in.SetInterval([]int{1}, srcs[2], 5000)
	if !p.Empty() {
		t.Errorf("set on the refused source programmed %+v", p)
	}
	_, p, _ = in.SetInterval([]int{1}, srcs[0], 5000)
	if len(p.Counters) != 1 || p.Counters[0].Reload != 5000 || p.Counters[0].Index != 0 {
		t.Errorf("set on a started source programmed %+v", p)
	}
	// Stopping frees the counter; the retried start gets it.
	in.StopInterrupt([]int{1}, srcs[0])
	p, _ = in.StartInterrupt([]int{1}, srcs[2])
	if len(p.Counters) != 1 || p.Counters[0].Index != 0 || !p.Counters[0].Enabled {
		t.Errorf("retried start programmed %+v", p)
	}
}

func TestSettingsChecked(t *testing.T) {
	for _, s := range []string{`{"counters": 0}`, `{"counters": 9}`, `{"skid": [{"instructions": 1, "weight": 0}]}`, `{"min": 10, "default": 5}`} {
		if err := hal.Local(pmu.New).Configure(hal.Machine{CPUs: 1, FreqMHz: 1, Vendor: hal.VendorIntel, Arch: "x64"}, []byte(s)); err == nil {
			t.Errorf("settings %s accepted", s)
		}
	}
}

// TestInterfaceChoice covers items 95–97 of docs/reference/conformance.md:
// the HAL's profile interface
// as CPUID (the settings) dictates.
func TestInterfaceChoice(t *testing.T) {
	has := func(d hal.Description, s hal.Source) bool {
		for _, x := range d.Sources {
			if x.Source == s {
				return true
			}
		}
		return false
	}
	tests := []struct {
		name     string
		vendor   string
		settings string
		count    int
		without  []hal.Source
	}{
		{"95 hypervisor hides the counters on Intel", hal.VendorIntel, `{"hypervisor_hides_counters": true}`, 0, nil},
		{"95 hypervisor hides the counters on AMD", hal.VendorAMD, `{"hypervisor_hides_counters": true}`, 0, nil},
		{"96 EBX bit 2: UnhaltedReferenceCycles unsupported", hal.VendorIntel, `{"cpuid_0a_ebx": 4}`, 11, []hal.Source{0x1B}},
		{"96 EBX bit 4: cache misses unsupported", hal.VendorIntel, `{"cpuid_0a_ebx": 16}`, 10, []hal.Source{hal.ProfileCacheMisses, 0x1D}},
		{"EBX bit 0 set: no core-cycle event, Default interface", hal.VendorIntel, `{"cpuid_0a_ebx": 1}`, 0, nil},
		{"only 5 meaningful EBX bits", hal.VendorIntel, `{"cpuid_0a_ebx_length": 5}`, 8, []hal.Source{hal.ProfileBranchInstructions, hal.ProfileBranchMispredictions, 0x1E, 0x1F}},
		{"no meaningful EBX bit: Default interface", hal.VendorIntel, `{"cpuid_0a_ebx_length": 0}`, 0, nil},
		{"97 Emon counter allocation fails: every source unsupported", hal.VendorIntel, `{"counter_allocation_fails": true}`, 0, nil},
		{"the AMD interface ignores leaf 0x0A", hal.VendorAMD, `{"cpuid_0a_ebx": 127}`, 8 + 167, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d, err := configured(t, tc.vendor, tc.settings).Describe()
			if err != nil {
				t.Fatal(err)
			}
			if len(d.Sources) != tc.count {
				t.Fatalf("%d sources, want %d: %+v", len(d.Sources), tc.count, d.Sources)
			}
			for _, s := range tc.without {
				if has(d, s) {
					t.Errorf("%s is still supported", s)
				}
			}
		})
	}
	// Amd64 bug-checks when its counter memory cannot be allocated
	in := hal.Local(pmu.New)
	err := in.Configure(hal.Machine{CPUs: 2, FreqMHz: 3000, Vendor: hal.VendorAMD, Arch: "x64"}, []byte(`{"counter_allocation_fails": true}`))
	if err == nil || !strings.Contains(err.Error(), "HAL_MEMORY_ALLOCATION") {
		t.Fatalf("AMD allocation failure: %v", err)
	}
	if err := hal.Local(pmu.New).Configure(hal.Machine{CPUs: 1, Vendor: hal.VendorIntel}, []byte(`{"cpuid_0a_ebx_length": 40}`)); err == nil {
		t.Fatal("cpuid_0a_ebx_length 40 accepted")
	}
}

// Counter sources exist where the version's HAL has them
// (docs/reference/hal.md#the-shipped-hals), unless every_version says
// otherwise.
func TestSourcesPerVersion(t *testing.T) {
	tests := []struct {
		vendor, arch, version, settings string
		want                            int
	}{
		{hal.VendorIntel, "x86", "6.1", "", 0},
		{hal.VendorAMD, "x86", "6.1", "", 0},
		{hal.VendorIntel, "x86", "6.2", "", 12},
		{hal.VendorIntel, "x64", "5.2", "", 0},
		{hal.VendorIntel, "x64", "6.0", "", 12},
		{hal.VendorAMD, "x64", "5.2", "", 8 + 167},
		{hal.VendorIntel, "x86", "5.1", `{"every_version": true}`, 12},
		{hal.VendorAMD, "x86", "4.0", `{"every_version": true}`, 8 + 167},
	}
	for _, tt := range tests {
		in := hal.Local(pmu.New)
		if err := in.Configure(hal.Machine{CPUs: 1, FreqMHz: 3000, Vendor: tt.vendor, Arch: tt.arch, Version: tt.version}, []byte(tt.settings)); err != nil {
			t.Fatal(err)
		}
		d, _ := in.Describe()
		if len(d.Sources) != tt.want {
			t.Errorf("%s %s %s %s: %d sources, want %d", tt.vendor, tt.arch, tt.version, tt.settings, len(d.Sources), tt.want)
		}
	}
}

// On AuthenticAMD the processor-specific sources carry the Amd64
// interface's own names and event selects (docs/reference/hal.md#amd64 and
// docs/reference/hal.md#what-windows-10-itself-reports).
func TestAmd64Sources(t *testing.T) {
	in := configured(t, hal.VendorAMD, "")
	d, _ := in.Describe()
	byID := map[hal.Source]hal.SourceSpec{}
	for _, s := range d.Sources {
		byID[s.Source] = s
	}
	for src, desc := range map[hal.Source]string{0x19: "FPDispatchedFPUOps", 0x68: "FRRetiredx86Instructions", 0x7C: "FRInterruptsMaskedCycles", 0xBF: "BUSharedToDirty"} {
		s, ok := byID[src]
		if !ok || s.Description != desc || s.Name != "Profile"+desc || s.Bounds != hal.CounterBounds() {
			t.Errorf("source %#x: %+v, want %s", src, s, desc)
		}
	}
	if _, ok := byID[hal.ProfileCacheMisses]; ok {
		t.Error("AMD lists CacheMisses")
	}
	p, err := in.StartInterrupt([]int{0}, 0x19)
	if err != nil || len(p.Counters) != 1 || p.Counters[0].EventSelect != 0x00033F00 {
		t.Errorf("start 0x19: %+v %v, want event select 0x00033F00", p, err)
	}
}
