package nt

import "fmt"

// Status is an NTSTATUS: the 32-bit result of a native service.
type Status uint32

// NTSTATUS values returned by the model
// (docs/reference/constants.md#ntstatus-values).
const (
	StatusSuccess               Status = 0x00000000
	StatusDatatypeMisalignment  Status = 0x80000002
	StatusBufferOverflow        Status = 0x80000005
	StatusNotImplemented        Status = 0xC0000002
	StatusInvalidInfoClass      Status = 0xC0000003
	StatusInfoLengthMismatch    Status = 0xC0000004
	StatusAccessViolation       Status = 0xC0000005
	StatusInvalidHandle         Status = 0xC0000008
	StatusInvalidParameter      Status = 0xC000000D
	StatusNoMemory              Status = 0xC0000017
	StatusAccessDenied          Status = 0xC0000022
	StatusBufferTooSmall        Status = 0xC0000023
	StatusObjectTypeMismatch    Status = 0xC0000024
	StatusPrivilegeNotHeld      Status = 0xC0000061
	StatusIntegerDivideByZero   Status = 0xC0000094
	StatusInsufficientResources Status = 0xC000009A
	StatusMemoryNotAllocated    Status = 0xC00000A0
	StatusProfilingNotStarted   Status = 0xC00000B7
	StatusProfilingNotStopped   Status = 0xC00000B8
	StatusNotSupported          Status = 0xC00000BB
	StatusProfilingAtLimit      Status = 0xC00000D3
	StatusInvalidParameter7     Status = 0xC00000F5
	StatusAddressAlreadyExists  Status = 0xC000020A
	StatusWMIInstanceNotFound   Status = 0xC0000296
	StatusWMIAlreadyEnabled     Status = 0xC0000303
)

// statusNames maps every NTSTATUS the model can return to its name.
var statusNames = map[Status]string{
	StatusSuccess:               "STATUS_SUCCESS",
	StatusDatatypeMisalignment:  "STATUS_DATATYPE_MISALIGNMENT",
	StatusBufferOverflow:        "STATUS_BUFFER_OVERFLOW",
	StatusNotImplemented:        "STATUS_NOT_IMPLEMENTED",
	StatusInvalidInfoClass:      "STATUS_INVALID_INFO_CLASS",
	StatusInfoLengthMismatch:    "STATUS_INFO_LENGTH_MISMATCH",
	StatusAccessViolation:       "STATUS_ACCESS_VIOLATION",
	StatusInvalidHandle:         "STATUS_INVALID_HANDLE",
	StatusInvalidParameter:      "STATUS_INVALID_PARAMETER",
	StatusNoMemory:              "STATUS_NO_MEMORY",
	StatusAccessDenied:          "STATUS_ACCESS_DENIED",
	StatusBufferTooSmall:        "STATUS_BUFFER_TOO_SMALL",
	StatusObjectTypeMismatch:    "STATUS_OBJECT_TYPE_MISMATCH",
	StatusPrivilegeNotHeld:      "STATUS_PRIVILEGE_NOT_HELD",
	StatusIntegerDivideByZero:   "STATUS_INTEGER_DIVIDE_BY_ZERO",
	StatusInsufficientResources: "STATUS_INSUFFICIENT_RESOURCES",
	StatusMemoryNotAllocated:    "STATUS_MEMORY_NOT_ALLOCATED",
	StatusProfilingNotStarted:   "STATUS_PROFILING_NOT_STARTED",
	StatusProfilingNotStopped:   "STATUS_PROFILING_NOT_STOPPED",
	StatusNotSupported:          "STATUS_NOT_SUPPORTED",
	StatusProfilingAtLimit:      "STATUS_PROFILING_AT_LIMIT",
	StatusInvalidParameter7:     "STATUS_INVALID_PARAMETER_7",
	StatusAddressAlreadyExists:  "STATUS_ADDRESS_ALREADY_EXISTS",
	StatusWMIInstanceNotFound:   "STATUS_WMI_INSTANCE_NOT_FOUND",
	StatusWMIAlreadyEnabled:     "STATUS_WMI_ALREADY_ENABLED",
}

// Statuses returns every named NTSTATUS, keyed by name.
func Statuses() map[string]Status {
	out := make(map[string]Status, len(statusNames))
	for v, n := range statusNames {
		out[n] = v
	}
	return out
}

// Name returns the status's symbolic name, or its value in hex
// ("0xC0001234") when the model does not know it.
func (s Status) Name() string {
	if n, ok := statusNames[s]; ok {
		return n
	}
	return fmt.Sprintf("0x%08X", uint32(s))
}

// String returns the name and the value, for messages.
func (s Status) String() string { return fmt.Sprintf("%s (0x%08X)", s.Name(), uint32(s)) }

// Success reports NT_SUCCESS(s): the top bit is clear (success, information).
func (s Status) Success() bool { return int32(s) >= 0 }

// Win32 error codes returned by TraceQueryInformation/TraceSetInformation.
const (
	ErrorSuccess             uint32 = 0
	ErrorInvalidFunction     uint32 = 1
	ErrorInvalidHandle       uint32 = 6
	ErrorAccessDenied        uint32 = 5
	ErrorNotEnoughMemory     uint32 = 8
	ErrorOutOfMemory         uint32 = 14
	ErrorBadLength           uint32 = 24
	ErrorNotSupported        uint32 = 50
	ErrorInvalidParameter    uint32 = 87
	ErrorInsufficientBuffer  uint32 = 122
	ErrorMoreData            uint32 = 234
	ErrorNoAccess            uint32 = 998
	ErrorPrivilegeNotHeld    uint32 = 1314
	ErrorNoSystemResources   uint32 = 1450
	ErrorIncorrectSize       uint32 = 1462
	ErrorWMIInstanceNotFound uint32 = 4201
	ErrorWMIAlreadyEnabled   uint32 = 4206
)

// Win32Errors returns every Win32 error code the model returns, keyed by
// its name.
func Win32Errors() map[string]uint32 {
	return map[string]uint32{
		"ERROR_SUCCESS":                ErrorSuccess,
		"ERROR_INVALID_FUNCTION":       ErrorInvalidFunction,
		"ERROR_ACCESS_DENIED":          ErrorAccessDenied,
		"ERROR_INVALID_HANDLE":         ErrorInvalidHandle,
		"ERROR_NOT_ENOUGH_MEMORY":      ErrorNotEnoughMemory,
		"ERROR_OUTOFMEMORY":            ErrorOutOfMemory,
		"ERROR_BAD_LENGTH":             ErrorBadLength,
		"ERROR_NOT_SUPPORTED":          ErrorNotSupported,
		"ERROR_INVALID_PARAMETER":      ErrorInvalidParameter,
		"ERROR_INSUFFICIENT_BUFFER":    ErrorInsufficientBuffer,
		"ERROR_MORE_DATA":              ErrorMoreData,
		"ERROR_NOACCESS":               ErrorNoAccess,
		"ERROR_PRIVILEGE_NOT_HELD":     ErrorPrivilegeNotHeld,
		"ERROR_NO_SYSTEM_RESOURCES":    ErrorNoSystemResources,
		"ERROR_INCORRECT_SIZE":         ErrorIncorrectSize,
		"ERROR_WMI_INSTANCE_NOT_FOUND": ErrorWMIInstanceNotFound,
		"ERROR_WMI_ALREADY_ENABLED":    ErrorWMIAlreadyEnabled,
	}
}

// Win32Error is RtlNtStatusToDosError for the statuses the model returns:
// the code a Win32 function reports for an NTSTATUS failure.
func Win32Error(s Status) uint32 {
	switch s {
	case StatusSuccess:
		return ErrorSuccess
	case StatusDatatypeMisalignment, StatusAccessViolation:
		return ErrorNoAccess
	case StatusBufferOverflow:
		return ErrorMoreData
	case StatusNotImplemented:
		return ErrorInvalidFunction
	case StatusInvalidInfoClass, StatusInvalidParameter, StatusInvalidParameter7:
		return ErrorInvalidParameter
	case StatusInfoLengthMismatch:
		return ErrorBadLength
	case StatusInvalidHandle, StatusObjectTypeMismatch:
		return ErrorInvalidHandle
	case StatusNoMemory:
		return ErrorNotEnoughMemory
	case StatusAccessDenied:
		return ErrorAccessDenied
	case StatusBufferTooSmall:
		return ErrorInsufficientBuffer
	case StatusPrivilegeNotHeld:
		return ErrorPrivilegeNotHeld
	case StatusInsufficientResources:
		return ErrorNoSystemResources
	case StatusNotSupported:
		return ErrorNotSupported
	case StatusWMIInstanceNotFound:
		return ErrorWMIInstanceNotFound
	case StatusWMIAlreadyEnabled:
		return ErrorWMIAlreadyEnabled
	}
	return 317 // ERROR_MR_MID_NOT_FOUND: no mapping known
}
