package kernel

import "github.com/proflab/proflab/kernel/nt"

// HALDispatch is the kernel's view of one hardware abstraction layer: the
// HAL_DISPATCH entries and HAL exports the profiling code uses
// (HalQuerySystemInformation with HalProfileSourceInformation,
// HalSetSystemInformation with HalProfileSourceInterval,
// HalStartProfileInterrupt and HalStopProfileInterrupt).
//
// Every call addresses a set of processors (ascending, never empty) so that
// one plugin round trip serves them all; the kernel still logs a row per
// processor. A machine composes the HALs it lists: each source belongs to
// the first HAL whose Sources reports it. A HAL is only ever asked about
// sources it reported.
//
// An error return means the HAL itself failed (a plugin crashed or
// answered nonsense): the machine stops with that error, it is not an
// NTSTATUS. What a HAL does with a value it dislikes (clamping,
// quantising, refusing) is not an error: it is reflected in later queries.
type HALDispatch interface {
	// Name is the HAL's name as the configuration lists it ("apic").
	Name() string
	// Sources describes the profile sources this HAL supports, in source
	// order. It is read once when the machine is created.
	Sources() []SourceDescriptor
	// QuerySource is HalQuerySystemInformation(HalProfileSourceInformation)
	// on each processor in cpus: one SourceInfo per processor, in order.
	QuerySource(cpus []int, src nt.Source) ([]SourceInfo, error)
	// SetInterval is HalSetSystemInformation(HalProfileSourceInterval) on
	// each processor in cpus. It returns the interval in effect afterwards
	// on each processor (what HalSetProfileInterval returns); the kernel
	// uses it only as its own record of the ProfileTime interval.
	SetInterval(cpus []int, src nt.Source, interval uint32) ([]uint32, error)
	// StartInterrupt is HalStartProfileInterrupt(src) on each processor.
	StartInterrupt(cpus []int, src nt.Source) error
	// StopInterrupt is HalStopProfileInterrupt(src) on each processor.
	StopInterrupt(cpus []int, src nt.Source) error
	// NumberOfCounters is HalQuerySystemInformation(
	// HalQueryProfileNumberOfCounters, 0x2C): the performance counters per
	// processor the HAL profiles with, 0 for a HAL with none. The kernel
	// asks it from 1903 for the ETW counter limit
	// (docs/reference/tracing.md#eventtraceprofilecounterlistinformation-0x0f).
	NumberOfCounters() (uint32, error)
}

// SourceDescriptor is what a HAL says about one source it supports.
type SourceDescriptor struct {
	Source      nt.Source
	Name        string // "ProfileTime"
	Description string // the HAL's description string ("Time")
	Units       string // "100ns" for ProfileTime, "events" for counters
	Bounds      nt.Bounds
	Precise     bool // samples report the exact instruction (PEBS)
}

// SourceInfo is HAL_PROFILE_SOURCE_INFORMATION's output part.
type SourceInfo struct {
	Supported bool
	Interval  uint32
}
