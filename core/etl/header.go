package etl

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf16"
)

// LogfileHeader is the file header: the TRACE_LOGFILE_HEADER payload of
// the EventTrace header record, the first record of the first buffer.
type LogfileHeader struct {
	BufferSize         uint32
	Version            uint32 // bytes: major, minor, sub, subminor
	Build              uint32 // ProviderVersion: the Windows build number
	NumberOfProcessors uint32
	EndTime            int64 // FILETIME
	TimerResolution    uint32
	MaximumFileSize    uint32
	LogFileMode        uint32
	BuffersWritten     uint32
	StartBuffers       uint32
	PointerSize        uint32 // 4 or 8
	EventsLost         uint32
	CPUSpeedMHz        uint32
	BootTime           int64  // FILETIME
	PerfFreq           int64  // ticks per second of the clock
	StartTime          int64  // FILETIME
	ClockType          uint32 // ReservedFlags: ClockQPC, ClockSystemTime, ClockCPUCycles
	BuffersLost        uint32
	LoggerName         string
	LogFileName        string
}

// LogfileLayout is where TRACE_LOGFILE_HEADER's fields past the two name
// pointers sit for a pointer size: the 32-bit layout has 4-byte pointers at
// 0x38 and 0x3C, the time zone at 0x40 (to 0xEC) and 4 bytes of padding so
// that BootTime is 8-byte aligned at 0xF0, as 64-bit's is at 0xF8.
type LogfileLayout struct {
	TimeZone, BootTime, PerfFreq, StartTime, ReservedFlags, BuffersLost, Size int
}

// LayoutFor is the TRACE_LOGFILE_HEADER layout of a pointer size (4 or 8).
func LayoutFor(pointerSize int) LogfileLayout {
	if pointerSize == 4 {
		return LogfileLayout{TimeZone: 0x40, BootTime: 0xF0, PerfFreq: 0xF8, StartTime: 0x100, ReservedFlags: 0x108, BuffersLost: 0x10C, Size: 0x110}
	}
	return LogfileLayout{TimeZone: 0x48, BootTime: 0xF8, PerfFreq: 0x100, StartTime: 0x108, ReservedFlags: 0x110, BuffersLost: 0x114, Size: 0x118}
}

// DecodeLogfileHeader decodes the payload of the EventTrace header record.
// A PointerSize other than 4 or 8, or a payload shorter than its layout,
// is an error.
func DecodeLogfileHeader(p []byte) (LogfileHeader, error) {
	le := binary.LittleEndian
	var h LogfileHeader
	if len(p) < LogOffLoggerName {
		return h, fmt.Errorf("the EventTrace header's payload has %d bytes, fewer than the %d before its pointers", len(p), LogOffLoggerName)
	}
	h.PointerSize = le.Uint32(p[LogOffPointerSize:])
	if h.PointerSize != 4 && h.PointerSize != 8 {
		return h, fmt.Errorf("the file header's PointerSize is %d; an .etl file has 4 or 8", h.PointerSize)
	}
	l := LayoutFor(int(h.PointerSize))
	if len(p) < l.Size {
		return h, fmt.Errorf("the EventTrace header's payload has %d bytes, fewer than TRACE_LOGFILE_HEADER's %d with PointerSize %d", len(p), l.Size, h.PointerSize)
	}
	h.BufferSize = le.Uint32(p[LogOffBufferSize:])
	h.Version = le.Uint32(p[LogOffVersion:])
	h.Build = le.Uint32(p[LogOffProviderVersion:])
	h.NumberOfProcessors = le.Uint32(p[LogOffNumberOfProcessors:])
	h.EndTime = int64(le.Uint64(p[LogOffEndTime:]))
	h.TimerResolution = le.Uint32(p[LogOffTimerResolution:])
	h.MaximumFileSize = le.Uint32(p[LogOffMaximumFileSize:])
	h.LogFileMode = le.Uint32(p[LogOffLogFileMode:])
	h.BuffersWritten = le.Uint32(p[LogOffBuffersWritten:])
	h.StartBuffers = le.Uint32(p[LogOffStartBuffers:])
	h.EventsLost = le.Uint32(p[LogOffEventsLost:])
	h.CPUSpeedMHz = le.Uint32(p[LogOffCpuSpeedInMHz:])
	h.BootTime = int64(le.Uint64(p[l.BootTime:]))
	h.PerfFreq = int64(le.Uint64(p[l.PerfFreq:]))
	h.StartTime = int64(le.Uint64(p[l.StartTime:]))
	h.ClockType = le.Uint32(p[l.ReservedFlags:])
	h.BuffersLost = le.Uint32(p[l.BuffersLost:])
	rest := p[l.Size:]
	h.LoggerName, rest = UTF16String(rest)
	h.LogFileName, _ = UTF16String(rest)
	return h, nil
}

// UTF16String reads a NUL-terminated UTF-16LE string from the start of b
// and returns it with the bytes after its NUL. A string without a NUL runs
// to the end of b.
func UTF16String(b []byte) (string, []byte) {
	n := len(b) / 2
	end, ascii := n, true
	for i := 0; i < n; i++ {
		lo, hi := b[2*i], b[2*i+1]
		if lo == 0 && hi == 0 {
			end = i
			break
		}
		ascii = ascii && hi == 0 && lo < 0x80
	}
	after := min(2*end+2, len(b))
	if ascii {
		// most names are ASCII: one allocation, the string's
		var sb strings.Builder
		sb.Grow(end)
		for i := 0; i < end; i++ {
			sb.WriteByte(b[2*i])
		}
		return sb.String(), b[after:]
	}
	u := make([]uint16, end)
	for i := range u {
		u[i] = binary.LittleEndian.Uint16(b[2*i:])
	}
	return string(utf16.Decode(u)), b[after:]
}

// ANSIString reads a NUL-terminated 8-bit string from the start of b and
// returns it with the bytes after its NUL.
func ANSIString(b []byte) (string, []byte) {
	for i, c := range b {
		if c == 0 {
			return string(b[:i]), b[i+1:]
		}
	}
	return string(b), nil
}

// ReadHeader reads the file's first record, which must be the EventTrace
// header, and decodes it. Every public parser refuses a file without it.
func (r *Reader) ReadHeader() (LogfileHeader, Record, error) {
	rec, err := r.Next()
	if err != nil {
		if errors.Is(err, io.EOF) {
			return LogfileHeader{}, rec, fmt.Errorf("the file is empty: no buffer, so no EventTrace header")
		}
		return LogfileHeader{}, rec, err
	}
	if !rec.Kernel() || rec.Hook != HookHeader {
		return LogfileHeader{}, rec, &FormatError{Buffer: rec.Buffer, FileOffset: r.curOffset, Offset: rec.Offset,
			Msg: fmt.Sprintf("the first record is a %s record with hook %#04x, not the EventTrace header (hook 0x0000): not an .etl file", rec.Kind, uint16(rec.Hook))}
	}
	h, err := DecodeLogfileHeader(rec.Payload)
	if err != nil {
		return h, rec, &FormatError{Buffer: rec.Buffer, FileOffset: r.curOffset, Offset: rec.Offset, Msg: err.Error()}
	}
	return h, rec, nil
}
