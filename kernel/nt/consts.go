package nt

// System information classes (docs/reference/constants.md#information-classes).
const (
	SystemProcessorPerformanceInformation   uint32 = 0x08
	SystemInterruptInformation              uint32 = 0x17
	SystemPerformanceTraceInformation       uint32 = 0x1F
	SystemProcessorProfileControlArea       uint32 = 0x81
	SystemProcessorPerformanceInformationEx uint32 = 0x8D
	SystemSecureKernelProfileInformation    uint32 = 0xB2
)

// HAL information classes (docs/reference/hal.md#information-classes).
const (
	HalProfileSourceInformation          uint32 = 0x01 // HAL_QUERY_INFORMATION_CLASS
	HalQueryProfileSourceList            uint32 = 0x14
	HalQueryProfileNumberOfCounters      uint32 = 0x2C
	HalProfileSourceInterval             uint32 = 0x00 // HAL_SET_INFORMATION_CLASS
	HalProfileSourceInterruptHandler     uint32 = 0x01
	HalProfileSourceTimerHandler         uint32 = 0x0A
	HalProfileDpgoSourceInterruptHandler uint32 = 0x0C
	HalProfileSourceAdd                  uint32 = 0x14
	HalProfileSourceRemove               uint32 = 0x15
)

// TRACE_INFO_CLASS values for TraceQueryInformation/TraceSetInformation.
const (
	TraceSystemTraceEnableFlagsInfo uint32 = 0x04
	TraceSampledProfileIntervalInfo uint32 = 0x05
	TraceProfileSourceConfigInfo    uint32 = 0x06
	TraceProfileSourceListInfo      uint32 = 0x07
	TracePmcEventListInfo           uint32 = 0x08
	TracePmcCounterListInfo         uint32 = 0x09
)

// EVENT_TRACE_INFORMATION_CLASS values (the first dword of a
// SystemPerformanceTraceInformation buffer).
const (
	EventTraceKernelVersionInformation               uint32 = 0x00
	EventTraceGroupMaskInformation                   uint32 = 0x01
	EventTracePerformanceInformation                 uint32 = 0x02
	EventTraceTimeProfileInformation                 uint32 = 0x03
	EventTraceSessionSecurityInformation             uint32 = 0x04
	EventTraceSpinlockInformation                    uint32 = 0x05
	EventTraceStackTracingInformation                uint32 = 0x06
	EventTraceExecutiveResourceInformation           uint32 = 0x07
	EventTraceHeapTracingInformation                 uint32 = 0x08
	EventTraceHeapSummaryTracingInformation          uint32 = 0x09
	EventTracePoolTagFilterInformation               uint32 = 0x0A
	EventTracePebsTracingInformation                 uint32 = 0x0B
	EventTraceProfileConfigInformation               uint32 = 0x0C
	EventTraceProfileSourceListInformation           uint32 = 0x0D
	EventTraceProfileEventListInformation            uint32 = 0x0E
	EventTraceProfileCounterListInformation          uint32 = 0x0F
	EventTraceStackCachingInformation                uint32 = 0x10
	EventTraceObjectTypeFilterInformation            uint32 = 0x11
	EventTraceSoftRestartInformation                 uint32 = 0x12
	EventTraceLastBranchConfigurationInformation     uint32 = 0x13
	EventTraceLastBranchEventListInformation         uint32 = 0x14
	EventTraceProfileSourceAddInformation            uint32 = 0x15
	EventTraceProfileSourceRemoveInformation         uint32 = 0x16
	EventTraceProcessorTraceConfigurationInformation uint32 = 0x17
	EventTraceProcessorTraceEventListInformation     uint32 = 0x18
	EventTraceCoverageSamplerInformation             uint32 = 0x19
	MaxEventTraceInfoClass                           uint32 = 0x1A
)

// Hook IDs of the PERFINFO group (docs/reference/tracing.md#hook-ids).
const (
	PERFINFO_LOG_TYPE_SAMPLED_PROFILE              uint16 = 0x0F2E
	PERFINFO_LOG_TYPE_PMC_INTERRUPT                uint16 = 0x0F2F
	PERFINFO_LOG_TYPE_PMC_CONFIG                   uint16 = 0x0F30
	PERFINFO_LOG_TYPE_SAMPLED_PROFILE_CACHE        uint16 = 0x0F37
	PERFINFO_LOG_TYPE_SAMPLED_PROFILE_NMI          uint16 = 0x0F47
	PERFINFO_LOG_TYPE_SAMPLED_PROFILE_SET_INTERVAL uint16 = 0x0F48
	PERFINFO_LOG_TYPE_SAMPLED_PROFILE_DC_START     uint16 = 0x0F49
	PERFINFO_LOG_TYPE_SAMPLED_PROFILE_DC_END       uint16 = 0x0F4A
	PERFINFO_LOG_TYPE_CONTEXTSWAP                  uint16 = 0x0524
)

// Group masks, enable flags and trace-header constants
// (docs/reference/tracing.md#constants).
const (
	EVENT_TRACE_FLAG_PROFILE           uint32 = 0x01000000
	PERF_PROFILE                       uint32 = 0x20000002
	PERF_PMC_PROFILE                   uint32 = 0x20000400
	PERF_PROFILING                     uint32 = 0x20000402
	PERF_HV_PROFILE                    uint32 = 0x80800000
	EVENT_TRACE_SYSTEM_LOGGER_MODE     uint32 = 0x02000000
	PERFINFO_TRACE_MARKER_X86          uint32 = 0xC0100000
	PERFINFO_TRACE_MARKER_X64          uint32 = 0xC0110000
	TRACE_HEADER_PMC_COUNTERS_MASK     uint32 = 0x00000700
	TRACE_HEADER_PEBS_INDEX_FLAG       uint32 = 0x00008000
	ETW_MAX_PMC_COUNTERS               uint32 = 4
	ETW_MAX_PMC_EVENTS                 uint32 = 4
	ETW_MAX_PROFILING_SOURCES          uint32 = 4
	PERFINFO_SAMPLED_PROFILE_CACHE_MAX uint32 = 20
)

// Kernel object types (KOBJECTS, docs/reference/constants.md#kernel-object-types).
const (
	ProfileObjectOld      uint16 = 0x0F // 3.10 to 3.51
	ProfileObject         uint16 = 0x17 // 4.0 and higher
	ProfileCallbackObject uint16 = 0x11 // 6.2 and higher
)

// Access rights (docs/reference/constants.md#access-rights-and-privileges).
const (
	PROFILE_CONTROL           uint32 = 0x0001
	STANDARD_RIGHTS_REQUIRED  uint32 = 0x000F0000
	SYNCHRONIZE               uint32 = 0x00100000
	PROFILE_ALL_ACCESS        uint32 = STANDARD_RIGHTS_REQUIRED | PROFILE_CONTROL
	PROCESS_QUERY_INFORMATION uint32 = 0x0400
	PROCESS_VM_READ           uint32 = 0x0010
	PROCESS_ALL_ACCESS        uint32 = STANDARD_RIGHTS_REQUIRED | SYNCHRONIZE | 0xFFFF
)

// Privilege LUIDs (docs/reference/constants.md#access-rights-and-privileges).
const (
	SeSystemProfilePrivilege        = 11
	SeProfileSingleProcessPrivilege = 13
)

// Bug-check codes.
const (
	IRQL_NOT_LESS_OR_EQUAL      uint32 = 0x0A
	KMODE_EXCEPTION_NOT_HANDLED uint32 = 0x1E
	PAGE_FAULT_IN_NONPAGED_AREA uint32 = 0x50
	HAL_MEMORY_ALLOCATION       uint32 = 0xAC
)

// BugCheckName returns the symbolic name of a bug-check code.
func BugCheckName(code uint32) string {
	switch code {
	case IRQL_NOT_LESS_OR_EQUAL:
		return "IRQL_NOT_LESS_OR_EQUAL"
	case KMODE_EXCEPTION_NOT_HANDLED:
		return "KMODE_EXCEPTION_NOT_HANDLED"
	case PAGE_FAULT_IN_NONPAGED_AREA:
		return "PAGE_FAULT_IN_NONPAGED_AREA"
	case HAL_MEMORY_ALLOCATION:
		return "HAL_MEMORY_ALLOCATION"
	}
	return "BUGCHECK"
}

// Profile interrupt IRQLs (docs/reference/constants.md#irqls).
const (
	ProfileLevelX64 = 0x0F
	ProfileLevelX86 = 0x1F
)

// Model-specific registers and CPUID bits the kernel's PEBS check reads
// (docs/reference/system-information.md#systemprocessorprofilecontrolarea-0x81).
const (
	MSR_IA32_MISC_ENABLE       = 0x1A0
	MiscEnablePerfMonAvailable = 1 << 7  // bit 7 must be set
	MiscEnablePEBSUnavailable  = 1 << 12 // bit 12 must be clear
	CPUID1ECX_DTES64           = 1 << 2
)
