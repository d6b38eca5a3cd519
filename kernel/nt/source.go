package nt

import (
	"fmt"
	"sort"
)

// Source is a KPROFILE_SOURCE (docs/reference/constants.md#profile-sources).
type Source uint32

// The KPROFILE_SOURCE values. Their numbering has never changed.
const (
	ProfileTime                 Source = 0x00
	ProfileAlignmentFixup       Source = 0x01
	ProfileTotalIssues          Source = 0x02
	ProfilePipelineDry          Source = 0x03
	ProfileLoadInstructions     Source = 0x04
	ProfilePipelineFrozen       Source = 0x05
	ProfileBranchInstructions   Source = 0x06
	ProfileTotalNonissues       Source = 0x07
	ProfileDcacheMisses         Source = 0x08
	ProfileIcacheMisses         Source = 0x09
	ProfileCacheMisses          Source = 0x0A
	ProfileBranchMispredictions Source = 0x0B
	ProfileStoreInstructions    Source = 0x0C
	ProfileFpInstructions       Source = 0x0D
	ProfileIntegerInstructions  Source = 0x0E
	Profile2Issue               Source = 0x0F
	Profile3Issue               Source = 0x10
	Profile4Issue               Source = 0x11
	ProfileSpecialInstructions  Source = 0x12
	ProfileTotalCycles          Source = 0x13
	ProfileIcacheIssues         Source = 0x14
	ProfileDcacheAccesses       Source = 0x15
	ProfileMemoryBarrierCycles  Source = 0x16
	ProfileLoadLinkedIssues     Source = 0x17
	ProfileMaximum              Source = 0x18

	// Emon (GenuineIntel) processor-specific sources,
	// docs/reference/hal.md#emon.
	ProfileUnhaltedCoreCycles       Source = 0x19
	ProfileInstructionRetired       Source = 0x1A
	ProfileUnhaltedReferenceCycles  Source = 0x1B
	ProfileLLCReference             Source = 0x1C
	ProfileLLCMisses                Source = 0x1D
	ProfileBranchInstructionRetired Source = 0x1E
	ProfileBranchMispredictsRetired Source = 0x1F
)

var sourceNames = map[Source]string{
	ProfileTime:                 "ProfileTime",
	ProfileAlignmentFixup:       "ProfileAlignmentFixup",
	ProfileTotalIssues:          "ProfileTotalIssues",
	ProfilePipelineDry:          "ProfilePipelineDry",
	ProfileLoadInstructions:     "ProfileLoadInstructions",
	ProfilePipelineFrozen:       "ProfilePipelineFrozen",
	ProfileBranchInstructions:   "ProfileBranchInstructions",
	ProfileTotalNonissues:       "ProfileTotalNonissues",
	ProfileDcacheMisses:         "ProfileDcacheMisses",
	ProfileIcacheMisses:         "ProfileIcacheMisses",
	ProfileCacheMisses:          "ProfileCacheMisses",
	ProfileBranchMispredictions: "ProfileBranchMispredictions",
	ProfileStoreInstructions:    "ProfileStoreInstructions",
	ProfileFpInstructions:       "ProfileFpInstructions",
	ProfileIntegerInstructions:  "ProfileIntegerInstructions",
	Profile2Issue:               "Profile2Issue",
	Profile3Issue:               "Profile3Issue",
	Profile4Issue:               "Profile4Issue",
	ProfileSpecialInstructions:  "ProfileSpecialInstructions",
	ProfileTotalCycles:          "ProfileTotalCycles",
	ProfileIcacheIssues:         "ProfileIcacheIssues",
	ProfileDcacheAccesses:       "ProfileDcacheAccesses",
	ProfileMemoryBarrierCycles:  "ProfileMemoryBarrierCycles",
	ProfileLoadLinkedIssues:     "ProfileLoadLinkedIssues",
	ProfileMaximum:              "ProfileMaximum",

	ProfileUnhaltedCoreCycles:       "ProfileUnhaltedCoreCycles",
	ProfileInstructionRetired:       "ProfileInstructionRetired",
	ProfileUnhaltedReferenceCycles:  "ProfileUnhaltedReferenceCycles",
	ProfileLLCReference:             "ProfileLLCReference",
	ProfileLLCMisses:                "ProfileLLCMisses",
	ProfileBranchInstructionRetired: "ProfileBranchInstructionRetired",
	ProfileBranchMispredictsRetired: "ProfileBranchMispredictsRetired",
}

// Name returns the source's name ("ProfileTime"), or "Profile0xNN" for a
// value the model has no name for.
func (s Source) Name() string {
	if n, ok := sourceNames[s]; ok {
		return n
	}
	return fmt.Sprintf("Profile0x%X", uint32(s))
}

// String is Name.
func (s Source) String() string { return s.Name() }

// Description is the HAL's description string for the source: its name
// without the "Profile" prefix (the names are the descriptions with
// "Profile" put in front, docs/reference/hal.md#the-hals-profile-interfaces),
// except ProfileTime's, which every HAL that lists sources describes as
// TimerDescription ("Timer",
// docs/reference/hal.md#what-windows-10-itself-reports).
func (s Source) Description() string {
	if s == ProfileTime {
		return TimerDescription
	}
	n := s.Name()
	if len(n) > len("Profile") && n[:len("Profile")] == "Profile" {
		return n[len("Profile"):]
	}
	return n
}

// SourceByName looks a source up by its name ("ProfileTime").
func SourceByName(name string) (Source, bool) {
	for v, n := range sourceNames {
		if n == name {
			return v, true
		}
	}
	return 0, false
}

// NamedSources returns every named source in ascending order.
func NamedSources() []Source {
	out := make([]Source, 0, len(sourceNames))
	for v := range sourceNames {
		out = append(out, v)
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

// Bounds are a profile source's interval limits as a HAL reports them
// (PROFILE_SOURCE_INFO.MinInterval/MaxInterval and the default interval).
type Bounds struct {
	Min, Max, Default uint32
}

// Interval bounds of the shipped HALs (docs/reference/hal.md#the-shipped-hals).
// Windows documents no maximum; 10,000,000 (ReactOS's APIC HAL) and
// 0x7FFFFFFF are proflab's choices.
var (
	// TimerBounds is ProfileTime from the local APIC timer, in 100 ns units.
	TimerBounds = Bounds{Min: 1221, Max: 10_000_000, Default: 39063}
	// CounterBounds is every counter-overflow source, in events.
	CounterBounds = Bounds{Min: 4096, Max: 0x7FFFFFFF, Default: 65536}
)

// Clamp returns v limited to [b.Min, b.Max].
func (b Bounds) Clamp(v uint32) uint32 {
	if v < b.Min {
		return b.Min
	}
	if v > b.Max {
		return b.Max
	}
	return v
}

// IntelCounterSources are the counter sources of the Emon HAL interface
// (GenuineIntel, docs/reference/hal.md#emon), in source order, ProfileTime
// excluded.
var IntelCounterSources = []Source{
	ProfileTotalIssues, ProfileBranchInstructions, ProfileCacheMisses,
	ProfileBranchMispredictions, ProfileTotalCycles,
	ProfileUnhaltedCoreCycles, ProfileInstructionRetired,
	ProfileUnhaltedReferenceCycles, ProfileLLCReference, ProfileLLCMisses,
	ProfileBranchInstructionRetired, ProfileBranchMispredictsRetired,
}

// AMDCounterSources are the general sources of the Amd64 HAL interface
// (AuthenticAMD, docs/reference/hal.md#amd64), ProfileTime excluded. The
// processor-specific sources 0x19–0xBF that follow them are Amd64Sources.
var AMDCounterSources = []Source{
	ProfileTotalIssues, ProfileBranchInstructions, ProfileDcacheMisses,
	ProfileIcacheMisses, ProfileBranchMispredictions, ProfileFpInstructions,
	ProfileIcacheIssues, ProfileDcacheAccesses,
}

// EventSelect returns the event-select value the vendor's HAL interface
// programs for a counter source
// (docs/reference/hal.md#the-hals-profile-interfaces), and whether it has
// one.
func EventSelect(vendor string, s Source) (uint32, bool) {
	var t map[Source]uint32
	switch vendor {
	case VendorIntel:
		t = emonSelect
	case VendorAMD:
		t = amdSelect
	}
	v, ok := t[s]
	if !ok && vendor == VendorAMD && s >= Amd64FirstSource && s <= Amd64LastSource {
		return Amd64Sources[s-Amd64FirstSource].Select, true
	}
	return v, ok
}

var emonSelect = map[Source]uint32{
	ProfileTime: 0x0003003C, ProfileTotalIssues: 0x000300C0,
	ProfileBranchInstructions: 0x000300C4, ProfileCacheMisses: 0x0003412E,
	ProfileBranchMispredictions: 0x000300C5, ProfileTotalCycles: 0x0003003C,
	ProfileUnhaltedCoreCycles: 0x0003003C, ProfileInstructionRetired: 0x000300C0,
	ProfileUnhaltedReferenceCycles: 0x0003013C, ProfileLLCReference: 0x00034F2E,
	ProfileLLCMisses: 0x0003412E, ProfileBranchInstructionRetired: 0x000300C4,
	ProfileBranchMispredictsRetired: 0x000300C5,
}

var amdSelect = map[Source]uint32{
	ProfileTime: 0x00030076, ProfileTotalIssues: 0x000300C0,
	ProfileBranchInstructions: 0x000300C2, ProfileDcacheMisses: 0x00030041,
	ProfileIcacheMisses: 0x00030081, ProfileBranchMispredictions: 0x000300C3,
	ProfileFpInstructions: 0x00030FCB, ProfileIcacheIssues: 0x00030080,
	ProfileDcacheAccesses: 0x00030040,
}

// CPU vendor strings.
const (
	VendorIntel = "GenuineIntel"
	VendorAMD   = "AuthenticAMD"
)
