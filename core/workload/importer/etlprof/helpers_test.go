package etlprof_test

import (
	"encoding/binary"
	"os"
	"unicode/utf16"

	"github.com/proflab/proflab/core/etl"
)

// synth builds small .etl files for tests: a header buffer, then buffers
// of records, of either pointer size (the lab's writer makes real ones).
type synth struct {
	ptr  int
	recs [][]byte
	// size is the records' buffer's size (0: 64 KiB, a logger's usual)
	size int
}

var le = binary.LittleEndian

func (s *synth) pointer(b []byte, v uint64) []byte {
	if s.ptr == 4 {
		return le.AppendUint32(b, uint32(v))
	}
	return le.AppendUint64(b, v)
}

func utf16z(b []byte, text string) []byte {
	for _, u := range utf16.Encode([]rune(text)) {
		b = le.AppendUint16(b, u)
	}
	return le.AppendUint16(b, 0)
}

// system appends a record with a full SYSTEM header.
func (s *synth) system(hook etl.Hook, version uint16, pid, tid uint32, t int64, payload []byte) {
	b := le.AppendUint16(nil, version)
	b = append(b, byte(etl.HeaderSystem64), etl.HeaderFlags)
	b = le.AppendUint16(b, uint16(etl.SystemHeaderSize+len(payload)))
	b = append(b, hook.Opcode(), hook.Group())
	b = le.AppendUint32(b, tid)
	b = le.AppendUint32(b, pid)
	b = le.AppendUint64(b, uint64(t))
	b = le.AppendUint64(b, 0)
	s.recs = append(s.recs, append(b, payload...))
}

// perfinfo appends a record with a PERFINFO header.
func (s *synth) perfinfo(hook etl.Hook, version uint16, t int64, payload []byte) {
	b := le.AppendUint16(nil, version)
	b = append(b, byte(etl.HeaderPerfInfo64), etl.HeaderFlags)
	b = le.AppendUint16(b, uint16(etl.PerfInfoHeaderSize+len(payload)))
	b = append(b, hook.Opcode(), hook.Group())
	b = le.AppendUint64(b, uint64(t))
	s.recs = append(s.recs, append(b, payload...))
}

func (s *synth) process(pid uint32, name string) {
	p := s.pointer(nil, 0xFFFF0000+uint64(pid))
	p = le.AppendUint32(p, pid)
	p = le.AppendUint32(p, 4) // parent
	p = le.AppendUint32(p, 1) // session
	p = le.AppendUint32(p, 0) // exit status
	p = s.pointer(p, 0x1000)  // DirectoryTableBase
	p = le.AppendUint32(p, 0) // flags
	p = le.AppendUint32(p, 0) // no SID
	p = append(append(p, name...), 0)
	p = utf16z(p, name+" --run")
	p = utf16z(utf16z(p, ""), "")
	s.system(etl.HookProcessDCStart, 4, pid, 0, 1, p)
}

func (s *synth) thread(pid, tid uint32) {
	p := le.AppendUint32(nil, pid)
	p = le.AppendUint32(p, tid)
	for range 7 {
		p = s.pointer(p, 0)
	}
	p = le.AppendUint32(p, 0)
	p = append(p, 8, 5, 2, 0)
	s.system(etl.HookThreadDCStart, 3, pid, tid, 1, p)
}

func (s *synth) image(pid uint32, base, size uint64, path string) {
	p := s.pointer(nil, base)
	p = s.pointer(p, size)
	p = le.AppendUint32(p, pid)
	p = le.AppendUint32(p, 0x1234) // checksum
	p = le.AppendUint32(p, 0x5000) // TimeDateStamp
	p = le.AppendUint32(p, 0)
	p = s.pointer(p, base)
	p = append(p, make([]byte, 16)...)
	p = utf16z(p, path)
	s.system(etl.HookImageDCStart, 3, pid, 0, 1, p)
}

func (s *synth) interval(t int64, source, interval uint32, name string) {
	p := le.AppendUint32(nil, source)
	p = le.AppendUint32(p, interval)
	p = le.AppendUint32(p, 10000)
	s.perfinfo(etl.HookCollectionStart, 3, t, utf16z(p, name))
}

func (s *synth) sample(t int64, tid uint32, ip uint64) {
	p := s.pointer(nil, ip)
	p = le.AppendUint32(p, tid)
	p = le.AppendUint16(p, 1)
	p = append(p, 0, 0)
	s.perfinfo(etl.HookSampledProfile, 2, t, p)
}

func (s *synth) pmc(t int64, tid uint32, ip uint64, source uint16) {
	p := s.pointer(nil, ip)
	p = le.AppendUint32(p, tid)
	p = le.AppendUint16(p, source)
	p = le.AppendUint16(p, 0)
	s.perfinfo(etl.HookPmcInterrupt, 2, t, p)
}

func (s *synth) stack(t int64, pid, tid uint32, frames ...uint64) {
	p := le.AppendUint64(nil, uint64(t))
	p = le.AppendUint32(p, pid)
	p = le.AppendUint32(p, tid)
	for _, f := range frames {
		p = s.pointer(p, f)
	}
	s.perfinfo(etl.HookStackWalk, 2, t, p)
}

func (s *synth) keyRef(hook etl.Hook, t int64, pid, tid uint32, key uint64) {
	p := le.AppendUint64(nil, uint64(t))
	p = le.AppendUint32(p, pid)
	p = le.AppendUint32(p, tid)
	s.perfinfo(hook, 2, t, s.pointer(p, key))
}

func (s *synth) keyDef(hook etl.Hook, t int64, key uint64, frames ...uint64) {
	p := s.pointer(nil, key)
	for _, f := range frames {
		p = s.pointer(p, f)
	}
	s.perfinfo(hook, 2, t, p)
}

// header is the EventTrace header record's payload.
func (s *synth) header() []byte {
	l := etl.LayoutFor(s.ptr)
	p := make([]byte, l.Size)
	le.PutUint32(p[etl.LogOffBufferSize:], 0x10000)
	le.PutUint32(p[etl.LogOffProviderVersion:], 19041)
	le.PutUint32(p[etl.LogOffNumberOfProcessors:], 2)
	le.PutUint32(p[etl.LogOffPointerSize:], uint32(s.ptr))
	le.PutUint64(p[l.PerfFreq:], 10_000_000)
	le.PutUint64(p[l.StartTime:], 132392018711387363)
	le.PutUint32(p[l.ReservedFlags:], etl.ClockQPC)
	return utf16z(utf16z(p, "NT Kernel Logger"), "synth.etl")
}

// buffer is a buffer of records, bufferSize bytes, its tail 0xFF.
func buffer(recs [][]byte, typ uint16, bufferSize int) []byte {
	b := make([]byte, etl.BufferHeaderSize, bufferSize)
	for _, r := range recs {
		b = append(b, r...)
		for len(b)%etl.RecordAlign != 0 {
			b = append(b, 0)
		}
	}
	used := len(b)
	for len(b) < bufferSize {
		b = append(b, etl.FillByte)
	}
	le.PutUint32(b[etl.OffBufferSize:], uint32(bufferSize))
	le.PutUint32(b[etl.OffSavedOffset:], uint32(used))
	le.PutUint32(b[etl.OffOffset:], uint32(used))
	le.PutUint16(b[etl.OffBufferFlag:], etl.BufferFlagProcessorIndex)
	le.PutUint16(b[etl.OffBufferType:], typ)
	return b
}

// bytes is the file: the header buffer, then the records in one buffer.
func (s *synth) bytes() []byte {
	h := &synth{ptr: s.ptr}
	h.system(etl.HookHeader, 2, 0, 0, 0, s.header())
	out := buffer(h.recs, etl.BufferTypeHeader, 512)
	size := s.size
	if size == 0 {
		size = 0x10000
	}
	// the records in as many buffers as they fill
	var recs [][]byte
	used := etl.BufferHeaderSize
	for _, r := range s.recs {
		n := (len(r) + etl.RecordAlign - 1) &^ (etl.RecordAlign - 1)
		if used+n > size && len(recs) > 0 {
			out = append(out, buffer(recs, etl.BufferTypeGeneric, size)...)
			recs, used = nil, etl.BufferHeaderSize
		}
		recs = append(recs, r)
		used += n
	}
	return append(out, buffer(recs, etl.BufferTypeGeneric, size)...)
}

func writeFile(path, text string) error { return os.WriteFile(path, []byte(text), 0o644) }
