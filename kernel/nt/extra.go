package nt

// Named constants of the reference (docs/reference/README.md) that the
// rest of the package does not define, added so that the scenario API can
// export every named constant of the reference under its own name
// (docs/scenario-api.md#constants).

// Trace header and group constants (docs/reference/tracing.md#constants).
const (
	EVENT_TRACE_GROUP_PERFINFO   uint16 = 0x0F00 // the group byte of the PERFINFO hooks
	TRACE_HEADER_TYPE_PERFINFO32 uint32 = 0x10   // HeaderType of PERFINFO_TRACE_MARKER_X86
	TRACE_HEADER_TYPE_PERFINFO64 uint32 = 0x11   // HeaderType of PERFINFO_TRACE_MARKER_X64
	EVENT_TRACE_USE_PAGED_MEMORY uint32 = 0x01000000
)

// winnt.h names of the privilege LUIDs
// (docs/reference/constants.md#access-rights-and-privileges); the same values as
// SeSystemProfilePrivilege and SeProfileSingleProcessPrivilege.
const (
	SE_SYSTEM_PROFILE_PRIVILEGE      = SeSystemProfilePrivilege
	SE_PROF_SINGLE_PROCESS_PRIVILEGE = SeProfileSingleProcessPrivilege
)

// IRQLs named by the reference (docs/reference/constants.md#irqls).
const (
	PASSIVE_LEVEL  = 0
	DISPATCH_LEVEL = 2
)
