package etl

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"unicode/utf16"
)

// This file is the writer's buffers and record headers: what a live
// kernel logger writes (spec etl.md §1–3). A file is the header buffer,
// then 64 KiB buffers, one stream per processor, uncompressed: each
// processor's records go into that processor's buffer, which is written
// to the file when the next record does not fit (and at Close). So the
// writer's memory is one buffer per processor, whatever the number of
// events.

// WriteBufferSize is the size of every buffer the writer writes: 64 KiB,
// a live kernel logger's usual.
const WriteBufferSize = 64 << 10

// KernelLoggerID is the LoggerId the writer puts in its buffers: the low
// 16 bits of the NT Kernel Logger's TRACEHANDLE (0xFFFF).
const KernelLoggerID = 0xFFFF

// bufferState is WMI_BUFFER_HEADER.State of every buffer in the real
// uncompressed kernel trace of the corpus (a flushed buffer).
const bufferState = 3

// KernelEventVersion is the u32 that follows the group mask in the
// EventTrace header extension (0x00/5) of the real files of the corpus.
const KernelEventVersion = 0x46

// FileHeader is what the writer puts in the file's TRACE_LOGFILE_HEADER
// (spec etl.md §3).
type FileHeader struct {
	// PointerSize is 4 (an x86 machine: every pointer-sized field of
	// every payload is 4 bytes) or 8.
	PointerSize int
	// Processors is NumberOfProcessors, and the number of buffer
	// streams.
	Processors int
	// Major, Minor are the Windows version (Version's first two bytes);
	// Build its build number (ProviderVersion).
	Major, Minor uint8
	Build        uint32
	// CPUSpeedMHz is the processors' clock.
	CPUSpeedMHz uint32
	// TimerResolution is the clock interrupt's period in 100 ns units.
	TimerResolution uint32
	// PerfFreq is the ticks per second of the records' SystemTime (clock
	// type 1, QueryPerformanceCounter).
	PerfFreq int64
	// StartTicks is the header record's SystemTime: the session's start
	// on the records' clock.
	StartTicks int64
	// BootTime, StartTime and EndTime are FILETIMEs (100 ns since 1601).
	BootTime, StartTime, EndTime int64
	// LoggerName and LogFileName are the two strings after the header.
	LoggerName, LogFileName string
	// GroupMask is the session's PERFINFO_GROUPMASK, written in the
	// header extension event (0x00/5).
	GroupMask [8]uint32
	// LogFileMode is the session's EVENT_TRACE_* mode.
	LogFileMode uint32
}

// Writer writes an .etl file: the header buffer at NewWriter, then each
// processor's records through that processor's 64 KiB buffer. It is not
// safe for concurrent use.
type Writer struct {
	out     io.Writer
	h       FileHeader
	ptr     int
	cpus    []*cpuBuffer
	seq     int64
	written uint32 // buffers written, the header's included
	events  int64
	err     error
	closed  bool
}

// cpuBuffer is one processor's buffer being filled.
type cpuBuffer struct {
	b    []byte // WriteBufferSize bytes
	used int    // header included
	last int64  // the newest record's SystemTime
}

// ErrRecordTooBig is a record that cannot fit a buffer.
var ErrRecordTooBig = errors.New("etl: record larger than a buffer")

// NewWriter writes the header buffer of a file described by h to out and
// returns the writer of its events. out may be an io.WriterAt too (an
// *os.File): then Close writes BuffersWritten into the header.
func NewWriter(out io.Writer, h FileHeader) (*Writer, error) {
	if h.PointerSize != 4 && h.PointerSize != 8 {
		return nil, fmt.Errorf("etl: pointer size %d: want 4 or 8", h.PointerSize)
	}
	if h.Processors < 1 || h.Processors > 0xFFFF {
		return nil, fmt.Errorf("etl: %d processors: want 1 to 65535", h.Processors)
	}
	w := &Writer{out: out, h: h, ptr: h.PointerSize, cpus: make([]*cpuBuffer, h.Processors)}
	if err := w.writeHeaderBuffer(); err != nil {
		return nil, err
	}
	return w, nil
}

// PointerSize is the file's pointer size.
func (w *Writer) PointerSize() int { return w.ptr }

// Events is the number of records written so far (the header buffer's
// included).
func (w *Writer) Events() int64 { return w.events }

// Buffers is the number of buffers written so far (the header buffer
// included).
func (w *Writer) Buffers() uint32 { return w.written }

// Close writes every processor's last buffer, in processor order, and
// then, when the output is an io.WriterAt, the number of buffers into
// the header (TRACE_LOGFILE_HEADER.BuffersWritten).
func (w *Writer) Close() error {
	if w.closed {
		return w.err
	}
	w.closed = true
	for cpu, c := range w.cpus {
		if c != nil && c.used > BufferHeaderSize {
			w.flush(cpu)
		}
	}
	if w.err != nil {
		return w.err
	}
	if wa, ok := w.out.(io.WriterAt); ok {
		var b [4]byte
		binary.LittleEndian.PutUint32(b[:], w.written)
		if _, err := wa.WriteAt(b[:], BufferHeaderSize+SystemHeaderSize+LogOffBuffersWritten); err != nil {
			w.err = err
		}
	}
	return w.err
}

// headerTypes are the record header kinds of a file's pointer size.
func (w *Writer) headerTypes() (system, perfinfo, classic HeaderType) {
	if w.ptr == 4 {
		return HeaderSystem32, HeaderPerfInfo32, HeaderFullGUID
	}
	return HeaderSystem64, HeaderPerfInfo64, HeaderFullGUIDTrace64
}

// System reserves a record with a full SYSTEM_TRACE_HEADER (32 bytes) on
// processor cpu's buffer and returns its payload, n bytes to fill (nil
// after an error).
func (w *Writer) System(cpu int, hook Hook, version uint16, tid, pid uint32, ticks int64, n int) []byte {
	sys, _, _ := w.headerTypes()
	r := w.reserve(cpu, SystemHeaderSize+n, ticks)
	if r == nil {
		return nil
	}
	le := binary.LittleEndian
	putKernelHead(r, sys, version, SystemHeaderSize+n, hook)
	le.PutUint32(r[8:], tid)
	le.PutUint32(r[12:], pid)
	le.PutUint64(r[16:], uint64(ticks))
	le.PutUint64(r[24:], 0) // KernelTime, UserTime
	return r[SystemHeaderSize:]
}

// PerfInfo reserves a record with a PERFINFO_TRACE_HEADER (16 bytes) and
// returns its payload of n bytes.
func (w *Writer) PerfInfo(cpu int, hook Hook, version uint16, ticks int64, n int) []byte {
	_, pi, _ := w.headerTypes()
	r := w.reserve(cpu, PerfInfoHeaderSize+n, ticks)
	if r == nil {
		return nil
	}
	putKernelHead(r, pi, version, PerfInfoHeaderSize+n, hook)
	binary.LittleEndian.PutUint64(r[8:], uint64(ticks))
	return r[PerfInfoHeaderSize:]
}

// putKernelHead writes the 8 bytes SYSTEM and PERFINFO headers begin
// with: the version, the header kind and flags, the record's size and
// the hook (Opcode, then Group).
func putKernelHead(r []byte, kind HeaderType, version uint16, size int, hook Hook) {
	le := binary.LittleEndian
	le.PutUint16(r[0:], version)
	r[2], r[3] = byte(kind), HeaderFlags
	le.PutUint16(r[4:], uint16(size))
	le.PutUint16(r[6:], uint16(hook))
}

// Classic reserves a record with an EVENT_TRACE_HEADER of a provider's
// GUID (48 bytes) and returns its payload of n bytes.
func (w *Writer) Classic(cpu int, provider GUID, typ uint8, version uint16, tid, pid uint32, ticks int64, n int) []byte {
	_, _, cl := w.headerTypes()
	r := w.reserve(cpu, GUIDHeaderSize+n, ticks)
	if r == nil {
		return nil
	}
	le := binary.LittleEndian
	le.PutUint16(r[0:], uint16(GUIDHeaderSize+n))
	r[2], r[3] = byte(cl), HeaderFlags
	r[4], r[5] = typ, 0 // Type, Level
	le.PutUint16(r[6:], version)
	le.PutUint32(r[8:], tid)
	le.PutUint32(r[12:], pid)
	le.PutUint64(r[16:], uint64(ticks))
	copy(r[24:40], provider[:])
	le.PutUint64(r[40:], 0) // KernelTime, UserTime
	return r[GUIDHeaderSize:]
}

// MaxPayload is the largest payload of a record with a header of hs
// bytes: what fits one buffer.
func MaxPayload(hs int) int { return WriteBufferSize - BufferHeaderSize - hs }

// reserve returns size bytes (padded to RecordAlign in the buffer) at the
// end of cpu's buffer, writing the buffer out first when they do not
// fit.
func (w *Writer) reserve(cpu int, size int, ticks int64) []byte {
	if w.err != nil {
		return nil
	}
	if w.closed {
		w.err = errors.New("etl: write after Close")
		return nil
	}
	if cpu < 0 || cpu >= len(w.cpus) {
		w.err = fmt.Errorf("etl: processor %d: the file has %d", cpu, len(w.cpus))
		return nil
	}
	padded := (size + RecordAlign - 1) &^ (RecordAlign - 1)
	if size > 0xFFFF || padded > WriteBufferSize-BufferHeaderSize {
		w.err = fmt.Errorf("%w: %d bytes", ErrRecordTooBig, size)
		return nil
	}
	c := w.cpus[cpu]
	if c == nil {
		c = &cpuBuffer{b: make([]byte, WriteBufferSize), used: BufferHeaderSize}
		w.cpus[cpu] = c
	}
	if c.used+padded > WriteBufferSize {
		w.flush(cpu)
		if w.err != nil {
			return nil
		}
	}
	r := c.b[c.used : c.used+padded]
	clear(r)
	c.used += padded
	c.last = ticks
	w.events++
	return r[:size]
}

// flush writes cpu's buffer: its header, its records, the rest 0xFF.
func (w *Writer) flush(cpu int) {
	c := w.cpus[cpu]
	b := c.b
	for i := c.used; i < len(b); i++ {
		b[i] = FillByte
	}
	w.putBufferHeader(b, c.used, cpu, c.last, BufferFlagProcessorIndex, BufferTypeGeneric)
	if _, err := w.out.Write(b); err != nil && w.err == nil {
		w.err = err
	}
	c.used = BufferHeaderSize
}

// putBufferHeader writes a WMI_BUFFER_HEADER at the start of b, whose
// records take used bytes (header included).
func (w *Writer) putBufferHeader(b []byte, used, cpu int, ticks int64, flag, typ uint16) {
	le := binary.LittleEndian
	clear(b[:BufferHeaderSize])
	le.PutUint32(b[OffBufferSize:], WriteBufferSize)
	le.PutUint32(b[OffSavedOffset:], uint32(used))
	le.PutUint32(b[OffCurrentOffset:], uint32(used))
	le.PutUint64(b[OffTimeStamp:], uint64(ticks))
	le.PutUint64(b[OffSequenceNumber:], uint64(w.seq))
	le.PutUint16(b[OffProcessorIndex:], uint16(cpu))
	le.PutUint16(b[OffLoggerID:], KernelLoggerID)
	le.PutUint32(b[OffState:], bufferState)
	le.PutUint32(b[OffOffset:], uint32(used))
	le.PutUint16(b[OffBufferFlag:], flag)
	le.PutUint16(b[OffBufferType:], typ)
	w.seq++
	w.written++
}

// writeHeaderBuffer writes the first buffer: the EventTrace header
// record, then the header extension (the session's group mask).
func (w *Writer) writeHeaderBuffer() error {
	lh := w.logfileHeader()
	names := appendUTF16Z(appendUTF16Z(nil, w.h.LoggerName), w.h.LogFileName)
	size := SystemHeaderSize + len(lh) + len(names)
	ext := SystemHeaderSize + 8*4 + 4
	b := make([]byte, WriteBufferSize)
	at := BufferHeaderSize
	sys, _, _ := w.headerTypes()
	put := func(hook Hook, n int, payload ...[]byte) {
		r := b[at:]
		putKernelHead(r, sys, 2, n, hook)
		binary.LittleEndian.PutUint64(r[16:], uint64(w.h.StartTicks))
		p := SystemHeaderSize
		for _, x := range payload {
			p += copy(r[p:], x)
		}
		at += (n + RecordAlign - 1) &^ (RecordAlign - 1)
		w.events++
	}
	put(HookHeader, size, lh, names)
	var mask [8*4 + 4]byte
	for i, m := range w.h.GroupMask {
		binary.LittleEndian.PutUint32(mask[4*i:], m)
	}
	binary.LittleEndian.PutUint32(mask[32:], KernelEventVersion)
	put(HookHeaderExtension, ext, mask[:])
	for i := at; i < len(b); i++ {
		b[i] = FillByte
	}
	w.putBufferHeader(b, at, 0, 0, BufferFlagFlushMarker|BufferFlagProcessorIndex, BufferTypeHeader)
	_, err := w.out.Write(b)
	return err
}

// logfileHeader is the TRACE_LOGFILE_HEADER payload.
func (w *Writer) logfileHeader() []byte {
	h := w.h
	lay := LayoutFor(w.ptr)
	b := make([]byte, lay.Size)
	le := binary.LittleEndian
	le.PutUint32(b[LogOffBufferSize:], WriteBufferSize)
	b[LogOffVersion], b[LogOffVersion+1] = h.Major, h.Minor
	le.PutUint32(b[LogOffProviderVersion:], h.Build)
	le.PutUint32(b[LogOffNumberOfProcessors:], uint32(h.Processors))
	le.PutUint64(b[LogOffEndTime:], uint64(h.EndTime))
	le.PutUint32(b[LogOffTimerResolution:], h.TimerResolution)
	le.PutUint32(b[LogOffLogFileMode:], h.LogFileMode)
	le.PutUint32(b[LogOffStartBuffers:], 1)
	le.PutUint32(b[LogOffPointerSize:], uint32(w.ptr))
	le.PutUint32(b[LogOffCpuSpeedInMHz:], h.CPUSpeedMHz)
	// LoggerName, LogFileName: pointers, meaningless in a file (0); the
	// time zone: UTC (all zero)
	le.PutUint64(b[lay.BootTime:], uint64(h.BootTime))
	le.PutUint64(b[lay.PerfFreq:], uint64(h.PerfFreq))
	le.PutUint64(b[lay.StartTime:], uint64(h.StartTime))
	le.PutUint32(b[lay.ReservedFlags:], ClockQPC)
	return b
}

// appendUTF16Z appends s as NUL-terminated UTF-16LE.
func appendUTF16Z(b []byte, s string) []byte {
	for _, u := range utf16.Encode([]rune(s)) {
		b = binary.LittleEndian.AppendUint16(b, u)
	}
	return append(b, 0, 0)
}
