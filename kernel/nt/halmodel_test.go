package nt

import (
	"slices"
	"testing"
)

func TestAmd64Table(t *testing.T) {
	if got, want := len(Amd64Sources), int(Amd64LastSource-Amd64FirstSource)+1; got != want {
		t.Fatalf("%d Amd64 sources, want %d (0x19…0xBF)", got, want)
	}
	for i, s := range Amd64Sources {
		if s.Source != Amd64FirstSource+Source(i) {
			t.Fatalf("entry %d is source %#x, want %#x", i, s.Source, Amd64FirstSource+Source(i))
		}
		if s.Select&0xFFFF0000 != 0x00030000 || s.Description == "" {
			t.Errorf("%#x: select %#x, description %q: want USR|OS and a name", s.Source, s.Select, s.Description)
		}
	}
	// The examples docs/reference/hal.md#amd64 and
	// docs/reference/hal.md#what-windows-10-itself-reports list.
	for _, tc := range []struct {
		src  Source
		desc string
		sel  uint32
	}{
		{25, "FPDispatchedFPUOps", 0x00033F00},
		{26, "FPDispatchedFPUOpsAddExcludeJunk", 0x00030100},
		{27, "FPDispatchedFPUOpsMulExcludeJunk", 0x00030200},
		{28, "FPDispatchedFPUOpsStoreExcludeJunk", 0x00030400},
		{29, "FPDispatchedFPUOpsAddJunk", 0x00030800},
		{30, "FPDispatchedFPUOpsMulJunk", 0x00031000},
		{0x68, "FRRetiredx86Instructions", 0x000300C0},
		{105, "FRRetireduops", 0x000300C1},
		{106, "FRRetiredBranches", 0x000300C2},
		{107, "FRRetiredBranchesMispredicted", 0x000300C3},
		{108, "FRRetiredTakenBranches", 0x000300C4},
		{109, "FRRetiredTakenBranchesMispredicted", 0x000300C5},
		{110, "FRRetiredFarControlTransfers", 0x000300C6},
		{111, "FRRetiredResyncsNonControlTransferBranches", 0x000300C7},
		{112, "FRRetiredNearReturns", 0x000300C8},
		{113, "FRRetiredNearReturnsMispredicted", 0x000300C9},
		{114, "FRRetiredTakenBranchesMispredictedByAddressMiscompare", 0x000300CA},
		{115, "FRRetiredFPUInstructions", 0x00030FCB},
		{116, "FRRetiredFPUInstructionsx87", 0x000301CB},
		{117, "FRRetiredFPUInstructionsMMXAnd3DNow", 0x000302CB},
		{118, "FRRetiredFPUInstructionsPackedSSEAndSSE2", 0x000304CB},
		{121, "FRRetiredFastpathDoubleOpInstructionsLowOpInPosition0", 0x000301CC},
		{122, "FRRetiredFastpathDoubleOpInstructionsLowOpInPosition1", 0x000302CC},
		{123, "FRRetiredFastpathDoubleOpInstructionsLowOpInPosition2", 0x000304CC},
		{124, "FRInterruptsMaskedCycles", 0x000300CD},
		{0xBF, "BUSharedToDirty", 0x00032063},
	} {
		if got := SourceDescription(VendorAMD, tc.src); got != tc.desc {
			t.Errorf("AMD source %d: description %q, want %q", tc.src, got, tc.desc)
		}
		if got, ok := EventSelect(VendorAMD, tc.src); !ok || got != tc.sel {
			t.Errorf("AMD source %d: select %#x, %v, want %#x", tc.src, got, ok, tc.sel)
		}
	}
	if SourceName(VendorAMD, 0x19) != "ProfileFPDispatchedFPUOps" || SourceName(VendorIntel, 0x19) != "ProfileUnhaltedCoreCycles" {
		t.Errorf("vendor names of 0x19: %q, %q", SourceName(VendorAMD, 0x19), SourceName(VendorIntel, 0x19))
	}
	if SourceDescription(VendorIntel, 0x1A) != "InstructionRetired" || SourceDescription(VendorAMD, ProfileTime) != "Timer" {
		t.Error("descriptions outside the Amd64 range")
	}
	if _, ok := EventSelect(VendorAMD, 0xC0); ok {
		t.Error("AMD select past 0xBF")
	}
}

func TestTimerBoundsFor(t *testing.T) {
	for _, tc := range []struct {
		version string
		want    Bounds
	}{
		{"10.0.19041", Bounds{1221, 1_000_000, 10000}},
		{"10.0.10240", Bounds{1221, 1_000_000, 10000}},
		{"10.0", Bounds{1221, 1_000_000, 10000}},
		{"6.3", Bounds{1221, 10_000_000, 39063}},
		{"3.51", Bounds{1221, 10_000_000, 39063}},
	} {
		if got := TimerBoundsFor(tc.version); got != tc.want {
			t.Errorf("%s: %+v, want %+v", tc.version, got, tc.want)
		}
	}
	if Timer10Bounds.Clamp(5_000_000) != 1_000_000 {
		t.Error("10.0 timer does not clamp to 1000000")
	}
}

func TestCounterSourcesFor(t *testing.T) {
	for _, tc := range []struct {
		vendor, arch, version string
		want                  int // number of sources
	}{
		{VendorIntel, "x86", "6.1", 0},     // no 32-bit HAL before 6.2
		{VendorAMD, "x86", "6.1", 0},       // not even on AMD
		{VendorIntel, "x86", "6.2", 12},    // 6.2's 32-bit HAL
		{VendorIntel, "x64", "5.2", 0},     // Intel x64 sources from Vista
		{VendorIntel, "x64", "6.0", 12},    // x64 Vista
		{VendorAMD, "x64", "5.2", 8 + 167}, // the x64 HAL of 2003 SP1, AuthenticAMD
		{VendorAMD, "x64", "10.0.19041", 8 + 167},
		{VendorIntel, "x64", "10.0.19041", 12},
		{"CyrixInstead", "x64", "10.0.19041", 0},
	} {
		got := CounterSourcesFor(tc.vendor, tc.arch, tc.version)
		if len(got) != tc.want {
			t.Errorf("%s %s %s: %d sources, want %d", tc.vendor, tc.arch, tc.version, len(got), tc.want)
		}
		if !slices.IsSorted(got) {
			t.Errorf("%s %s %s: not in source order", tc.vendor, tc.arch, tc.version)
		}
	}
}
