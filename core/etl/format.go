package etl

// BufferHeaderSize is the size of WMI_BUFFER_HEADER, which starts every
// buffer of a file.
const BufferHeaderSize = 72

// Offsets of WMI_BUFFER_HEADER's fields.
const (
	OffBufferSize     = 0x00 // u32: bytes the buffer occupies in the file
	OffSavedOffset    = 0x04 // u32: bytes in use, header included, uncompressed
	OffCurrentOffset  = 0x08 // u32
	OffReferenceCount = 0x0C // i32
	OffTimeStamp      = 0x10 // i64
	OffSequenceNumber = 0x18 // i64
	OffClockFrequency = 0x20 // u64: ClockType (3 bits), Frequency (61 bits)
	OffProcessorIndex = 0x28 // u16
	OffLoggerID       = 0x2A // u16
	OffState          = 0x2C // u32
	OffOffset         = 0x30 // u32 (= SavedOffset)
	OffBufferFlag     = 0x34 // u16
	OffBufferType     = 0x36 // u16
)

// BufferFlag bits.
const (
	BufferFlagFlushMarker    = 0x0001
	BufferFlagProcessorIndex = 0x0020
	BufferFlagCompressed     = 0x0040
)

// BufferType values.
const (
	BufferTypeGeneric = 0
	BufferTypeHeader  = 4
)

// RecordAlign is the alignment of every record in a buffer; the unused
// tail of a buffer is filled with FillByte.
const (
	RecordAlign = 8
	FillByte    = 0xFF
)

// HeaderType is the third byte of a record's first dword: which of the
// record headers follows.
type HeaderType uint8

// The record header kinds (the first dword is u16, HeaderType, u8 flags 0xC0).
const (
	HeaderSystem32        HeaderType = 0x01 // SYSTEM_TRACE_HEADER, full, 32 bytes
	HeaderSystem64        HeaderType = 0x02 // SYSTEM_TRACE_HEADER, full, 32 bytes
	HeaderCompact32       HeaderType = 0x03 // SYSTEM_TRACE_HEADER, compact, 24 bytes
	HeaderCompact64       HeaderType = 0x04 // SYSTEM_TRACE_HEADER, compact, 24 bytes
	HeaderFullGUID        HeaderType = 0x0A // EVENT_TRACE_HEADER with a GUID, 48 bytes
	HeaderPerfInfo32      HeaderType = 0x10 // PERFINFO_TRACE_HEADER, 16 bytes
	HeaderPerfInfo64      HeaderType = 0x11 // PERFINFO_TRACE_HEADER, 16 bytes
	HeaderEvent32         HeaderType = 0x12 // EVENT_HEADER, 80 bytes
	HeaderEvent64         HeaderType = 0x13 // EVENT_HEADER, 80 bytes
	HeaderFullGUIDTrace64 HeaderType = 0x14 // EVENT_TRACE_HEADER with a GUID, 48 bytes
)

// HeaderFlags is the fourth byte of a record's first dword.
const HeaderFlags = 0xC0

// Record header sizes.
const (
	SystemHeaderSize   = 32
	CompactHeaderSize  = 24
	PerfInfoHeaderSize = 16
	GUIDHeaderSize     = 48
	EventHeaderSize    = 80
)

// Hook is a kernel event's identity: Group << 8 | Opcode. Kernel events are
// identified by (Group, Opcode, Version), never by their header kind.
type Hook uint16

// Group is the hook's high byte.
func (h Hook) Group() uint8 { return uint8(h >> 8) }

// Opcode is the hook's low byte.
func (h Hook) Opcode() uint8 { return uint8(h) }

// The kernel events of a CPU-sampling trace (spec etl.md §4).
const (
	HookHeader          Hook = 0x0000 // EventTrace header (TRACE_LOGFILE_HEADER), version 2
	HookHeaderExtension Hook = 0x0005 // EventTrace header extension
	HookRundownComplete Hook = 0x0008 // EventTrace end of rundown
	HookPartitionInfo   Hook = 0x0020 // EventTrace partition information

	HookProcessStart   Hook = 0x0301 // version 4
	HookProcessEnd     Hook = 0x0302
	HookProcessDCStart Hook = 0x0303
	HookProcessDCEnd   Hook = 0x0304
	HookImageLoad      Hook = 0x030A // an Image event logged under the Process group

	HookThreadStart   Hook = 0x0501 // version 3
	HookThreadEnd     Hook = 0x0502
	HookThreadDCStart Hook = 0x0503
	HookThreadDCEnd   Hook = 0x0504

	HookImageUnload  Hook = 0x1402
	HookImageDCStart Hook = 0x1403
	HookImageDCEnd   Hook = 0x1404

	HookSampledProfile  Hook = 0x0F2E // version 2
	HookPmcInterrupt    Hook = 0x0F2F // version 2
	HookSetInterval     Hook = 0x0F48 // SampledProfileInterval, version 3
	HookCollectionStart Hook = 0x0F49
	HookCollectionEnd   Hook = 0x0F4A

	HookStackWalk      Hook = 0x1820 // Stack, version 2
	HookStackKeyCreate Hook = 0x1822
	HookStackKeyDelete Hook = 0x1823
	HookStackRundown   Hook = 0x1824
	HookStackKeyKernel Hook = 0x1825
	HookStackKeyUser   Hook = 0x1826
)

// GUID is a Windows GUID as it is stored: the first three fields
// little-endian, the last eight bytes in order.
type GUID [16]byte

// Providers whose events a CPU-sampling trace uses.
var (
	// KernelTraceControl logs ImageId (Type 0, Version 2) and DbgID_RSDS
	// (Type 0x24) as classic events.
	KernelTraceControl = MustGUID("b3e675d7-2554-4f18-830b-2762732560de")
	// CLRRuntime logs MethodLoadVerbose (event 143).
	CLRRuntime = MustGUID("e13c0d23-ccbc-4e12-931b-d9cc2eee27e4")
	// CLRRundown logs MethodDCStartVerbose (143) and MethodDCEndVerbose (144).
	CLRRundown = MustGUID("a669021c-c450-4609-a035-5af59af4df18")
)

// KernelTraceControl event types.
const (
	TypeImageID    = 0x00
	TypeDbgIDRSDS  = 0x24
	VersionImageID = 2
)

// CLR method event ids.
const (
	EventMethodLoadVerbose    = 143 // runtime provider
	EventMethodDCStartVerbose = 143 // rundown provider
	EventMethodDCEndVerbose   = 144 // rundown provider
)

// Offsets of TRACE_LOGFILE_HEADER's fields as a 64-bit logger writes them
// (PointerSize 8). The fields up to LoggerName are the same with
// PointerSize 4; from LoggerName on, the two pointers are 4 bytes each and
// the later fields move (the reader and writer say how, and test it).
const (
	LogOffBufferSize         = 0x00
	LogOffVersion            = 0x04
	LogOffProviderVersion    = 0x08 // the Windows build number
	LogOffNumberOfProcessors = 0x0C
	LogOffEndTime            = 0x10
	LogOffTimerResolution    = 0x18
	LogOffMaximumFileSize    = 0x1C
	LogOffLogFileMode        = 0x20
	LogOffBuffersWritten     = 0x24
	LogOffStartBuffers       = 0x28
	LogOffPointerSize        = 0x2C
	LogOffEventsLost         = 0x30
	LogOffCpuSpeedInMHz      = 0x34
	LogOffLoggerName         = 0x38 // pointer
	TimeZoneInformationSize  = 172
)

// Clock types of TRACE_LOGFILE_HEADER.ReservedFlags.
const (
	ClockQPC        = 1
	ClockSystemTime = 2
	ClockCPUCycles  = 3
)
