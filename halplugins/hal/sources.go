package hal

import "github.com/proflab/proflab/kernel/nt"

// Source is a KPROFILE_SOURCE value (docs/reference/constants.md#profile-sources).
type Source = nt.Source

// Bounds are a source's interval limits and default, in the source's units
// (PROFILE_SOURCE_INFO.MinInterval, MaxInterval and the default interval).
type Bounds = nt.Bounds

// The profile sources a HAL is most likely to support. Every other
// KPROFILE_SOURCE value is a valid Source too: Source(0x1C) and so on.
const (
	ProfileTime                     = nt.ProfileTime
	ProfileTotalIssues              = nt.ProfileTotalIssues
	ProfileBranchInstructions       = nt.ProfileBranchInstructions
	ProfileDcacheMisses             = nt.ProfileDcacheMisses
	ProfileIcacheMisses             = nt.ProfileIcacheMisses
	ProfileCacheMisses              = nt.ProfileCacheMisses
	ProfileBranchMispredictions     = nt.ProfileBranchMispredictions
	ProfileFpInstructions           = nt.ProfileFpInstructions
	ProfileTotalCycles              = nt.ProfileTotalCycles
	ProfileIcacheIssues             = nt.ProfileIcacheIssues
	ProfileDcacheAccesses           = nt.ProfileDcacheAccesses
	ProfileUnhaltedCoreCycles       = nt.ProfileUnhaltedCoreCycles
	ProfileInstructionRetired       = nt.ProfileInstructionRetired
	ProfileUnhaltedReferenceCycles  = nt.ProfileUnhaltedReferenceCycles
	ProfileLLCReference             = nt.ProfileLLCReference
	ProfileLLCMisses                = nt.ProfileLLCMisses
	ProfileBranchInstructionRetired = nt.ProfileBranchInstructionRetired
	ProfileBranchMispredictsRetired = nt.ProfileBranchMispredictsRetired
)

// CPU vendor strings, as [Machine.Vendor] has them.
const (
	VendorIntel = nt.VendorIntel // "GenuineIntel"
	VendorAMD   = nt.VendorAMD   // "AuthenticAMD"
)

// Units of a source's interval, as [SourceSpec.Units] has them.
const (
	Units100ns  = "100ns"  // ProfileTime: 100-nanosecond units of simulated time
	UnitsEvents = "events" // counter sources: occurrences of the counted event
)

// TimerBounds are ProfileTime's bounds on the shipped APIC HAL before
// 10.0, in 100 ns units: minimum 1221 (≈122 µs), default 39063 (≈3.9 ms),
// maximum 10,000,000 (1 s) (docs/reference/hal.md#the-shipped-hals).
// TimerBoundsFor gives a version's.
func TimerBounds() Bounds { return nt.TimerBounds }

// TimerBoundsFor returns ProfileTime's bounds on the timer HAL of a
// Windows version ([Machine.Version]): on every 10.0 version minimum 1221,
// default 10000 (1 ms), maximum 1,000,000
// (docs/reference/hal.md#what-windows-10-itself-reports); before,
// TimerBounds.
func TimerBoundsFor(version string) Bounds { return nt.TimerBoundsFor(version) }

// CounterBounds are every counter source's bounds on the shipped PMU HAL,
// in events: minimum 4096, default 65536, maximum 0x7FFFFFFF
// (docs/reference/hal.md#the-shipped-hals).
func CounterBounds() Bounds { return nt.CounterBounds }

// CounterSources returns the counter-overflow sources of the vendor's HAL
// profile interface (docs/reference/hal.md#the-hals-profile-interfaces),
// in source order, ProfileTime excluded, on
// every version: the Emon list on GenuineIntel; on AuthenticAMD the Amd64
// general sources and the processor-specific ones 0x19–0xBF; nil
// otherwise. CounterSourcesFor applies a version. The slice is the
// caller's.
func CounterSources(vendor string) []Source { return nt.VendorCounterSources(vendor) }

// CounterSourcesFor is CounterSources on the machine's version and
// architecture: nil where that version's HAL has no counter sources (no
// 32-bit HAL before 6.2, no GenuineIntel x64 HAL before 6.0;
// docs/reference/hal.md#the-shipped-hals).
func CounterSourcesFor(m Machine) []Source { return nt.CounterSourcesFor(m.Vendor, m.Arch, m.Version) }

// SourceDescription returns the vendor's HAL description string for a
// source ("Timer", "TotalIssues", "FPDispatchedFPUOps" for 0x19 on
// AuthenticAMD).
func SourceDescription(vendor string, s Source) string { return nt.SourceDescription(vendor, s) }

// SourceName returns the vendor's name of a source, "Profile" + its
// description string.
func SourceName(vendor string, s Source) string { return nt.SourceName(vendor, s) }

// EventSelect returns the event-select register value the vendor's HAL
// interface programs for a source
// (docs/reference/hal.md#the-hals-profile-interfaces), and whether it has
// one.
func EventSelect(vendor string, s Source) (uint32, bool) { return nt.EventSelect(vendor, s) }
