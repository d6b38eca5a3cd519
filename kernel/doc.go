// Package kernel is proflab's model of the Windows NT kernel's profiling
// machinery: profile objects and their buckets, the profile services,
// profile intervals per source, the profile interrupt, PEBS control areas,
// the NT Kernel Logger's profile events and the bug check, per modelled
// Windows version (3.10 to 10.0.19041, x86 and x64).
//
// The model is pure and deterministic: no I/O, no wall clock, no
// goroutines and no global state. Two Machines never share anything, so
// many may run side by side. The behaviour reference is docs/reference/
// (docs/reference/README.md); a test (TestKernelImportsOnlyStdlib) keeps the
// package free of Lua, TOML, plugins, gRPC and os/exec.
//
// # Shape
//
// A Machine is one computer: processors (KPRCB-like state), processes
// with tokens, handle tables and address spaces, the global and
// per-process profile lists, the HAL it was given, the NT Kernel Logger
// and a bug-check state. Service calls are methods of a Thread, which
// carries PreviousMode (user threads of a Process, or kernel-mode callers
// from NewKernelCaller) and the processor it runs on. Thread.Call invokes
// a service by name with raw arguments, following the version's
// declaration (Machine.Services), as the scenario API does.
//
// A kernel fault Windows would bug-check on stops the machine: the call
// returns a *BugCheck, and every later call that would run the machine
// returns an error wrapping ErrHalted. Inspection (HALLog, BugCheck,
// memory reads) keeps working.
//
// # Choices where the reference is silent
//
// The reference lists its own choices
// (docs/reference/README.md#choices-the-model-makes-where-the-sources-are-silent:
// address-space boundaries, HAL
// start/stop per source and processor, 3.10/3.50 timer handling, unknown
// classes, the segment arithmetic, bug-check parameters, statuses the
// pages do not name, TraceQueryInformation sizing). The model follows
// them, and adds these:
//
//   - Address-space layout beyond the reference: the first 64 KB of user
//     space are never mapped; system space holds the non-paged pool,
//     kernel-mode callers' allocations, and a system-PTE region where each
//     locked buffer is mapped followed by an unmapped guard page, so the
//     ULONG after a page-ending buffer faults even when the user mapped
//     the next page. Running out of that region fails NtStartProfile with
//     STATUS_INSUFFICIENT_RESOURCES, as exhausting system PTEs would.
//     Bug checks report the fixed instruction address 0xFFFFF80000102A4C
//     (x64) or 0x80402A4C (x86).
//   - "4.0" models 4.0 SP4: the SP4 validation (BufferSize 0, the segment
//     path's BufferSize ≥ 4, the empty-affinity rule) applies from 4.0.
//     On x86 from SP4, a segment-looking request (BucketSize 0, base below
//     0x10000) with BufferSize below 4 is STATUS_INVALID_PARAMETER_7, the
//     result the ReactOS test records on Windows. Before SP4 the same
//     request divides by zero in kernel mode: bug check 0x1E
//     (KMODE_EXCEPTION_NOT_HANDLED) with STATUS_INTEGER_DIVIDE_BY_ZERO.
//   - The profile IRQL is 0x1F on every x86 version (the choice;
//     pre-Vista HALs may have used PROFILE_LEVEL 0x1B) and 0x0F on x64.
//   - Handles: values are multiples of 4 from 4; the low two bits are
//     ignored, as the Object Manager does. NtCurrentProcess (-1 at pointer
//     width) is valid wherever a process handle is; closing it is
//     STATUS_INVALID_HANDLE. A kernel-mode caller's handles live in the
//     System process's table and are not access-checked. The lab's
//     Process.DuplicateHandle makes another handle with any access mask; a
//     profile lives until its last handle is closed (which stops it if
//     started).
//   - Probes: ProbeForWrite/ProbeForRead check alignment first, then the
//     range against MmUserProbeAddress; ProbeForWrite then touches every
//     page. Pointer-sized and ULONG variables (ProfileHandle, Interval,
//     ReturnLength) are probed by touching their bytes, without alignment.
//     If a handle write still faults after its probe, create returns
//     STATUS_ACCESS_VIOLATION (the handle stays in the table).
//   - Locking at start happens in the calling thread's address space with
//     its mode, so a kernel-mode caller starting a user process's profile
//     fails with STATUS_ACCESS_VIOLATION (its buffer is not in the System
//     process's space). Freeing a started profile's buffer leaves the
//     pages in its system mapping.
//   - KPROFILE.Source is a SHORT from 3.51: the match compares the
//     sign-extended 16-bit value with the interrupt's source, so before
//     6.2 (no HAL check at create) a profile for source 0x10000 counts
//     ProfileTime interrupts.
//   - The interrupt walks the current process's list first, then the
//     global list, each in insertion order. Segment (V86) profiles are
//     matched as flat ranges from 0; V86 trap frames are not modelled.
//   - Before 3.51 there is no affinity: profiles count on every
//     processor. In 3.51 a non-zero affinity that selects no active
//     processor is kept and never counts; from SP4 to 6.0 it means all.
//   - The cache-errata mechanism is the interval clamp only: no errata
//     callback object is created, so a configured errata interval starts
//     no interrupt and adds no HAL log rows.
//   - The NT Kernel Logger exists from 5.0 and sampled-profile events
//     (EVENT_TRACE_FLAG_PROFILE) from 5.1. From 6.2 they come from a
//     ProfileCallbackObject on the global list; before 6.2 the interrupt
//     traces them directly for ProfileTime. Either way, profile tracing
//     takes a ProfileTime reference on every processor. Count is 1.
//   - The set-interval event 0x0F48 exists from 6.0. Its Old and New come
//     from HAL queries, which appear in the HAL log.
//   - 3.10 and 3.50: NtSetIntervalProfile(Interval) calls the timer HAL on
//     every processor (logged as "set" with no class) and keeps the value
//     the HAL answers; NtQueryIntervalProfile(Interval) reports it with no
//     HAL call.
//   - SYSTEM_PROCESSOR_PERFORMANCE_INFORMATION: KernelTime includes idle,
//     DPC and interrupt time; after 3.10 every time is rounded down to
//     whole ticks of 156,250 (15.625 ms). The Ex form's AvailableTime is
//     the idle time. QueryEx is not modelled.
//   - SystemPerformanceTraceInformation (0x1F) models
//     EventTraceTimeProfileInformation (query and set; a buffer other than
//     8 bytes is STATUS_INFO_LENGTH_MISMATCH, and the set needs
//     SeSystemProfilePrivilege from user mode and is then the
//     NtSetIntervalProfile body for ProfileTime), the group mask (0x01),
//     and the 6.2 profiling sub-classes 0x0B, 0x0C, 0x0E and 0x0F. Every
//     other sub-class gives STATUS_NOT_IMPLEMENTED.
//   - SystemProcessorProfileControlArea: a wrong length is checked after
//     the user-mode denial; the output pointer is written for every
//     outcome after the length check (NULL on failure, the existing area
//     for STATUS_ADDRESS_ALREADY_EXISTS). Areas are 64-byte aligned pool
//     allocations of 0x60 bytes.
//   - TraceQueryInformation class 5 with Source 0 reads the kernel's
//     current ProfileTime interval (no HAL call); class 7 lists the
//     sources the machine's HALs describe (no HAL call is logged for the
//     list). TraceSetInformation class 5 with Source 0 needs
//     SeSystemProfilePrivilege. Classes 4, 6, 8 and 9 are checked as
//     docs/reference/tracing.md#tracequeryinformation-and-tracesetinformation
//     gives, then sent to sub-classes 0x01, 0x0C, 0x0E and 0x0F with the
//     session handle; class 8 knows only PerfInfoGuid (group 0x0F). Other
//     classes give ERROR_NOT_SUPPORTED.
//   - The NT Kernel Logger is the only logger; its TRACEHANDLE's low 16
//     bits are 0xFFFF. Its PERFINFO_GROUPMASK is real: PERF_PROFILE starts
//     the sampled-profile callback and the ProfileTime interrupt;
//     PERF_PMC_PROFILE starts a callback object and the interrupt of each
//     source chosen with EventTraceProfileConfigInformation (at most 4),
//     each interrupt tracing hook 0x0F2F. Setting either bit from user
//     mode needs SeSystemProfilePrivilege (checked when the new mask has
//     it). Fixed-size sub-class structures of the wrong size are
//     STATUS_INFO_LENGTH_MISMATCH; array structures that are not whole
//     elements STATUS_INVALID_PARAMETER. The counter list allocates the
//     ETW_PMC_SUPPORT from pool (STATUS_NO_MEMORY under injection) and
//     allows 4 counters, 8 from 1703, and from 1903 the largest count any
//     of the machine's HALs reports for HalQueryProfileNumberOfCounters
//     (HAL.NumberOfCounters; 0 with no counter HAL), asked on each set
//     and logged as a "counters" row of the HAL log per HAL, on
//     processor 0 (the query is machine-wide). The PEBS-index hook and the event list are recorded
//     on the session; context-switch events and counter payloads are not
//     modelled.
//   - A HAL's failure (a plugin crash, or an answer for the wrong number
//     of processors) stops the machine with a *HALError; it is never
//     turned into an NTSTATUS.
//   - The NT Kernel Logger's ProfileTime reference is counted per
//     processor with started profiles: it starts the timer only where it
//     is not already running and its stop leaves it running where a
//     started profile still covers the processor (the reference's choice).
//   - Machine.OnHALCall's hook runs before each call into a HAL (not for
//     the lab's HALSources inspection), also a call for a source no HAL
//     supports (hal "", as HALLog has it); calls it causes do not run it
//     again; its error stops the machine as a *HookError (the caller's
//     own failure, not the HAL's).
//   - Machine.OnProfileClose's hook sees a profile as its last handle
//     is closed, before the kernel stops and deletes it (the lab's
//     outputs keep the profiles a scenario closed); it only observes.
package kernel
