package etl

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
)

// MaxBufferSize is the largest BufferSize the reader accepts: ETW's own
// maximum buffer is 16 MiB, so a larger one is a damaged header, and the
// reader's memory stays within two buffers of this size.
const MaxBufferSize = 16 << 20

// BufferHeader is a buffer's WMI_BUFFER_HEADER, the fields a reader uses.
type BufferHeader struct {
	BufferSize     uint32 // bytes the buffer occupies in the file
	SavedOffset    uint32 // bytes in use once uncompressed, header included
	TimeStamp      int64
	SequenceNumber int64
	ProcessorIndex uint16
	Flag           uint16 // BufferFlag* bits
	Type           uint16 // BufferType*
}

// Compressed tells whether the buffer's bytes after its header are
// compressed (MS-XCA plain LZ77).
func (h BufferHeader) Compressed() bool { return h.Flag&BufferFlagCompressed != 0 }

// DecodeBufferHeader decodes the first BufferHeaderSize bytes of b.
func DecodeBufferHeader(b []byte) BufferHeader {
	le := binary.LittleEndian
	return BufferHeader{
		BufferSize:     le.Uint32(b[OffBufferSize:]),
		SavedOffset:    le.Uint32(b[OffSavedOffset:]),
		TimeStamp:      int64(le.Uint64(b[OffTimeStamp:])),
		SequenceNumber: int64(le.Uint64(b[OffSequenceNumber:])),
		ProcessorIndex: le.Uint16(b[OffProcessorIndex:]),
		Flag:           le.Uint16(b[OffBufferFlag:]),
		Type:           le.Uint16(b[OffBufferType:]),
	}
}

// FormatError is a damaged file: what is wrong and where, by buffer (0 is
// the file's first) and offset (in the buffer's uncompressed bytes, its
// header included), with the buffer's offset in the file.
type FormatError struct {
	Buffer     int
	FileOffset int64
	Offset     int
	Msg        string
}

// Error is "buffer N (file offset 0x…), offset 0x…: what is wrong".
func (e *FormatError) Error() string {
	return fmt.Sprintf("buffer %d (file offset %#x), offset %#x: %s", e.Buffer, e.FileOffset, e.Offset, e.Msg)
}

// Record is one event of a buffer: its header decoded, its payload (the
// bytes after the header and any header extras) not. Payload aliases the
// reader's buffer and is valid until the next call of Next.
type Record struct {
	Kind      HeaderType
	Hook      Hook   // kernel events (SYSTEM, compact and PERFINFO headers)
	Version   uint16 // kernel: the first u16; GUID header: Version; EVENT_HEADER: the descriptor's Version
	Provider  GUID   // GUID and EVENT_HEADER records
	EventID   uint16 // EVENT_HEADER: the descriptor's Id
	Opcode    uint8  // kernel: the hook's opcode; GUID header: Type; EVENT_HEADER: the descriptor's Opcode
	Flags     uint16 // EVENT_HEADER's Flags (0x0001 extended data, 0x0020 a 32-bit process)
	ProcessID uint32 // NoID where the header has none (PERFINFO)
	ThreadID  uint32 // NoID where the header has none (PERFINFO)
	Time      int64  // SystemTime / TimeStamp: clock ticks
	Payload   []byte
	Processor uint16 // the buffer's ProcessorIndex
	Buffer    int    // the buffer's index in the file
	Offset    int    // the record's offset in the buffer
}

// NoID is a record's ProcessID and ThreadID when its header carries none.
const NoID = 0xFFFFFFFF

// Kernel tells whether the record is a kernel event, identified by Hook
// and Version.
func (r *Record) Kernel() bool { return r.Kind.Kernel() }

// Kernel tells whether records of this kind are kernel events (SYSTEM,
// compact SYSTEM and PERFINFO headers).
func (k HeaderType) Kernel() bool {
	switch k {
	case HeaderSystem32, HeaderSystem64, HeaderCompact32, HeaderCompact64, HeaderPerfInfo32, HeaderPerfInfo64:
		return true
	}
	return false
}

// Size is the size of the record header of this kind, 0 for a kind the
// reader does not know.
func (k HeaderType) Size() int {
	switch k {
	case HeaderSystem32, HeaderSystem64:
		return SystemHeaderSize
	case HeaderCompact32, HeaderCompact64:
		return CompactHeaderSize
	case HeaderPerfInfo32, HeaderPerfInfo64:
		return PerfInfoHeaderSize
	case HeaderFullGUID, HeaderFullGUIDTrace64:
		return GUIDHeaderSize
	case HeaderEvent32, HeaderEvent64:
		return EventHeaderSize
	}
	return 0
}

// String names the kind as notes and errors show it.
func (k HeaderType) String() string {
	switch k {
	case HeaderSystem32, HeaderSystem64:
		return "SYSTEM"
	case HeaderCompact32, HeaderCompact64:
		return "compact SYSTEM"
	case HeaderPerfInfo32, HeaderPerfInfo64:
		return "PERFINFO"
	case HeaderFullGUID, HeaderFullGUIDTrace64:
		return "GUID"
	case HeaderEvent32, HeaderEvent64:
		return "EVENT_HEADER"
	}
	return fmt.Sprintf("header type %#02x", uint8(k))
}

// Reader reads a file's buffers one at a time and their records in order.
// Its memory is one buffer (two when compressed) whatever the file's size.
type Reader struct {
	r          io.Reader
	fileOffset int64 // of the next buffer
	index      int   // of the current buffer; -1 before the first
	cur        BufferHeader
	curOffset  int64
	hdr        [BufferHeaderSize]byte
	raw        []byte // the buffer's bytes after the header, as in the file
	data       []byte // the buffer's bytes, header included, uncompressed
	pos, end   int
	inBuffer   bool
	compressed int
}

// NewReader reads the buffers of r from its start.
func NewReader(r io.Reader) *Reader {
	return &Reader{r: r, index: -1}
}

// Buffers is the number of buffers read so far.
func (r *Reader) Buffers() int { return r.index + 1 }

// CompressedBuffers is how many of the buffers read so far were compressed.
func (r *Reader) CompressedBuffers() int { return r.compressed }

// BytesRead is the file offset past the last buffer read.
func (r *Reader) BytesRead() int64 { return r.fileOffset }

// Buffer is the header of the buffer whose records Next returns now.
func (r *Reader) Buffer() BufferHeader { return r.cur }

func (r *Reader) errorf(offset int, format string, args ...any) error {
	return &FormatError{Buffer: r.index, FileOffset: r.curOffset, Offset: offset, Msg: fmt.Sprintf(format, args...)}
}

// nextBuffer reads the next buffer into data; io.EOF at the file's end.
func (r *Reader) nextBuffer() error {
	n, err := io.ReadFull(r.r, r.hdr[:])
	if err == io.EOF {
		return io.EOF
	}
	r.index++
	r.curOffset = r.fileOffset
	if err != nil {
		if errors.Is(err, io.ErrUnexpectedEOF) {
			return r.errorf(0, "truncated: the file ends %d bytes into the %d-byte buffer header", n, BufferHeaderSize)
		}
		return r.errorf(0, "reading the buffer header: %v", err)
	}
	h := DecodeBufferHeader(r.hdr[:])
	r.cur = h
	if h.BufferSize < BufferHeaderSize || h.BufferSize > MaxBufferSize {
		return r.errorf(OffBufferSize, "BufferSize %d is outside %d..%d bytes: not a buffer of an .etl file, or a damaged one", h.BufferSize, BufferHeaderSize, MaxBufferSize)
	}
	if h.SavedOffset > MaxBufferSize {
		return r.errorf(OffSavedOffset, "SavedOffset %d is past the largest buffer (%d bytes)", h.SavedOffset, MaxBufferSize)
	}
	body := int(h.BufferSize) - BufferHeaderSize
	if cap(r.raw) < body {
		r.raw = make([]byte, body)
	}
	r.raw = r.raw[:body]
	m, err := io.ReadFull(r.r, r.raw)
	if err != nil {
		if errors.Is(err, io.ErrUnexpectedEOF) || err == io.EOF {
			return r.errorf(BufferHeaderSize+m, "truncated: the file ends %d of %d bytes into the buffer", BufferHeaderSize+m, h.BufferSize)
		}
		return r.errorf(BufferHeaderSize+m, "reading the buffer: %v", err)
	}
	r.fileOffset += int64(h.BufferSize)
	saved := int(h.SavedOffset)
	if saved < BufferHeaderSize {
		saved = BufferHeaderSize // an empty buffer
	}
	if h.Compressed() {
		r.compressed++
		if cap(r.data) < saved {
			r.data = make([]byte, 0, saved)
		}
		r.data = append(r.data[:0], r.hdr[:]...)
		out, err := DecompressLZ77(r.data[BufferHeaderSize:], r.raw, saved-BufferHeaderSize)
		if err != nil {
			return r.errorf(BufferHeaderSize, "compressed buffer (SavedOffset %d): %v", h.SavedOffset, err)
		}
		r.data = r.data[:BufferHeaderSize+len(out)]
	} else {
		if saved > int(h.BufferSize) {
			return r.errorf(OffSavedOffset, "SavedOffset %d overruns the buffer's %d bytes", h.SavedOffset, h.BufferSize)
		}
		if cap(r.data) < saved {
			r.data = make([]byte, 0, saved)
		}
		r.data = append(append(r.data[:0], r.hdr[:]...), r.raw[:saved-BufferHeaderSize]...)
	}
	r.pos, r.end = BufferHeaderSize, len(r.data)
	return nil
}

// Next returns the file's next record, io.EOF after the last, or a
// *FormatError naming the buffer and offset of damage.
func (r *Reader) Next() (Record, error) {
	for {
		if !r.inBuffer {
			if err := r.nextBuffer(); err != nil {
				return Record{}, err
			}
			r.inBuffer = true
		}
		if r.pos+4 > r.end || binary.LittleEndian.Uint32(r.data[r.pos:]) == 0xFFFFFFFF {
			r.inBuffer = false
			continue
		}
		rec, size, err := r.decode(r.data[r.pos:r.end], r.pos)
		if err != nil {
			r.inBuffer = false
			return Record{}, err
		}
		r.pos += (size + RecordAlign - 1) &^ (RecordAlign - 1)
		return rec, nil
	}
}

// decode reads the record at the start of b, which is at offset in the
// buffer, and returns it with its size.
func (r *Reader) decode(b []byte, offset int) (Record, int, error) {
	le := binary.LittleEndian
	kind := HeaderType(b[2])
	rec := Record{Kind: kind, Processor: r.cur.ProcessorIndex, Buffer: r.index, Offset: offset, ProcessID: NoID, ThreadID: NoID}
	hsize := kind.Size()
	if hsize == 0 || b[3]&HeaderFlags != HeaderFlags {
		return rec, 0, r.errorf(offset, "record header %#08x is of no kind the reader knows (header type %#02x, flags %#02x)", le.Uint32(b), b[2], b[3])
	}
	if len(b) < hsize {
		return rec, 0, r.errorf(offset, "a %s record header (%d bytes) overruns the buffer's %d bytes in use", kind, hsize, r.end)
	}
	var size int
	if kind.Kernel() {
		size = int(le.Uint16(b[4:]))
	} else {
		size = int(le.Uint16(b[0:]))
	}
	if size < hsize {
		return rec, 0, r.errorf(offset, "%s record size %d is smaller than its %d-byte header", kind, size, hsize)
	}
	if size > len(b) {
		return rec, 0, r.errorf(offset, "%s record size %d overruns the buffer's %d bytes in use", kind, size, r.end)
	}
	start := hsize
	switch kind {
	case HeaderSystem32, HeaderSystem64, HeaderCompact32, HeaderCompact64:
		rec.Version = le.Uint16(b[0:])
		rec.Hook = Hook(uint16(b[7])<<8 | uint16(b[6]))
		rec.Opcode = b[6]
		rec.ThreadID = le.Uint32(b[8:])
		rec.ProcessID = le.Uint32(b[12:])
		rec.Time = int64(le.Uint64(b[16:]))
	case HeaderPerfInfo32, HeaderPerfInfo64:
		rec.Version = le.Uint16(b[0:])
		rec.Hook = Hook(uint16(b[7])<<8 | uint16(b[6]))
		rec.Opcode = b[6]
		rec.Time = int64(le.Uint64(b[8:]))
		extra := int(rec.Version>>8&7) * 8
		if rec.Version&0x8000 != 0 {
			extra += 8
		}
		if extra > size-hsize {
			return rec, 0, r.errorf(offset, "PERFINFO record version %#04x announces %d bytes after its header, more than its size %d holds", rec.Version, extra, size)
		}
		start += extra
	case HeaderFullGUID, HeaderFullGUIDTrace64:
		rec.Opcode = b[4]
		rec.Version = le.Uint16(b[6:])
		rec.ThreadID = le.Uint32(b[8:])
		rec.ProcessID = le.Uint32(b[12:])
		rec.Time = int64(le.Uint64(b[16:]))
		copy(rec.Provider[:], b[24:40])
	case HeaderEvent32, HeaderEvent64:
		rec.Flags = le.Uint16(b[4:])
		rec.ThreadID = le.Uint32(b[8:])
		rec.ProcessID = le.Uint32(b[12:])
		rec.Time = int64(le.Uint64(b[16:]))
		copy(rec.Provider[:], b[24:40])
		rec.EventID = le.Uint16(b[40:])
		rec.Version = uint16(b[42])
		rec.Opcode = b[45]
		if rec.Flags&EventFlagExtendedInfo != 0 {
			n, err := extendedDataSize(b[hsize:size])
			if err != nil {
				return rec, 0, r.errorf(offset, "EVENT_HEADER record: %v", err)
			}
			start += n
		}
	}
	rec.Payload = b[start:size:size]
	return rec, size, nil
}

// EVENT_HEADER flags the reader uses.
const (
	EventFlagExtendedInfo = 0x0001 // extended data items follow the header
	EventFlag32BitHeader  = 0x0020 // the event was logged by a 32-bit process
)

// extendedDataSize is the size of the extended data items at the start of
// b: each an 8-byte head (u16 reserved, u16 type, u16 linkage in bit 0,
// u16 size) and its data padded to 8 bytes, the last without linkage.
func extendedDataSize(b []byte) (int, error) {
	n := 0
	for {
		if n+8 > len(b) {
			return 0, fmt.Errorf("an extended data item at payload offset %d overruns the record", n)
		}
		linked := binary.LittleEndian.Uint16(b[n+4:])&1 != 0
		size := int(binary.LittleEndian.Uint16(b[n+6:]))
		n += 8 + (size+7)&^7
		if n > len(b) {
			return 0, fmt.Errorf("an extended data item of %d bytes overruns the record", size)
		}
		if !linked {
			return n, nil
		}
	}
}
