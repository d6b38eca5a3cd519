package nt

import (
	"strconv"
	"strings"
)

// The shipped HALs model the HAL of the machine's Windows version
// (docs/reference/hal.md#the-shipped-hals, and the choices of
// docs/reference/README.md). These
// functions are that model, shared by the HAL plugins' logic and the
// kernel's in-process test HALs. A HAL configuration that sets its values
// explicitly wins over them.

// TimerDescription is the timer HAL's description string for ProfileTime
// in every version that lists sources
// (docs/reference/hal.md#what-windows-10-itself-reports).
const TimerDescription = "Timer"

// Timer10Bounds is ProfileTime on the timer HAL of every 10.0 version
// (docs/reference/hal.md#what-windows-10-itself-reports, as Windows' own
// tools print it): minimum 1221, maximum 1,000,000
// (0.1 s; a larger set is clamped to it), default 10000 (1 ms).
var Timer10Bounds = Bounds{Min: 1221, Max: 1_000_000, Default: 10000}

// TimerBoundsFor returns ProfileTime's bounds on the timer HAL of version
// ("10.0.19041", "6.1"): Timer10Bounds from 10.0, TimerBounds before.
func TimerBoundsFor(version string) Bounds {
	if major, _ := versionNumbers(version); major >= 10 {
		return Timer10Bounds
	}
	return TimerBounds
}

// HasCounterSources reports whether the HAL of a version and architecture
// implements counter-overflow sources on a vendor's processors
// (docs/reference/constants.md#profile-sources,
// docs/reference/hal.md#the-shipped-hals): no 32-bit HAL before 6.2
// implements anything but ProfileTime; the
// x64 HAL has AuthenticAMD sources from its first release (2003 SP1,
// modelled as 5.2) and GenuineIntel sources from 6.0 (x64 Vista). From
// 6.2 the 32-bit HAL offers the vendor's sources too: the lab's AMD
// processors are all 64-bit capable, so the x86 pre-check of
// docs/reference/hal.md#the-hals-profile-interfaces (CPUID
// 0x80000001 EDX bit 29) always passes.
func HasCounterSources(vendor, arch, version string) bool {
	major, minor := versionNumbers(version)
	atLeast := func(ma, mi int) bool { return major > ma || major == ma && minor >= mi }
	if arch != "x64" && !atLeast(6, 2) {
		return false
	}
	switch vendor {
	case VendorIntel:
		return atLeast(6, 0)
	case VendorAMD:
		return atLeast(5, 2)
	}
	return false
}

// CounterSourcesFor returns the counter sources of the vendor's HAL
// interface on a version and architecture, in source order, ProfileTime
// excluded: IntelCounterSources on GenuineIntel; on AuthenticAMD the Amd64
// general sources followed by every processor-specific one
// (Amd64Sources); nil where the version's HAL has none
// (HasCounterSources). The slice is the caller's.
func CounterSourcesFor(vendor, arch, version string) []Source {
	if !HasCounterSources(vendor, arch, version) {
		return nil
	}
	return VendorCounterSources(vendor)
}

// VendorCounterSources returns every counter source of the vendor's HAL
// interface, whatever the version (CounterSourcesFor applies the
// version). The slice is the caller's.
func VendorCounterSources(vendor string) []Source {
	switch vendor {
	case VendorIntel:
		return append([]Source(nil), IntelCounterSources...)
	case VendorAMD:
		out := append(make([]Source, 0, len(AMDCounterSources)+len(Amd64Sources)), AMDCounterSources...)
		for _, s := range Amd64Sources {
			out = append(out, s.Source)
		}
		return out
	}
	return nil
}

// SourceDescription returns the vendor's HAL description string for a
// source: the Amd64 interface's own string for its processor-specific
// sources on AuthenticAMD, Source.Description otherwise.
func SourceDescription(vendor string, s Source) string {
	if vendor == VendorAMD && s >= Amd64FirstSource && s <= Amd64LastSource {
		return Amd64Sources[s-Amd64FirstSource].Description
	}
	return s.Description()
}

// SourceName returns the vendor's name for a source: "Profile" + its
// description string (docs/reference/hal.md#the-hals-profile-interfaces),
// so Profile0x19 is ProfileUnhaltedCoreCycles
// on GenuineIntel and ProfileFPDispatchedFPUOps on AuthenticAMD.
func SourceName(vendor string, s Source) string {
	if vendor == VendorAMD && s >= Amd64FirstSource && s <= Amd64LastSource {
		return "Profile" + Amd64Sources[s-Amd64FirstSource].Description
	}
	return s.Name()
}

// versionNumbers reads the major and minor numbers of "10.0.19041" or
// "6.1"; the empty string is the lab's default version (10.0.19041); an
// unreadable string gives 0, 0.
func versionNumbers(v string) (major, minor int) {
	if strings.TrimSpace(v) == "" {
		return 10, 0
	}
	parts := strings.SplitN(strings.TrimSpace(v), ".", 3)
	if len(parts) < 2 {
		return 0, 0
	}
	major, err1 := strconv.Atoi(parts[0])
	minor, err2 := strconv.Atoi(parts[1])
	if err1 != nil || err2 != nil {
		return 0, 0
	}
	return major, minor
}
