package etl_test

import (
	"encoding/binary"
	"testing"
	"unicode/utf16"

	"github.com/proflab/proflab/core/etl"
)

func utf16z(s string) []byte {
	var b []byte
	for _, u := range utf16.Encode([]rune(s)) {
		b = binary.LittleEndian.AppendUint16(b, u)
	}
	return append(b, 0, 0)
}

func TestUTF16String(t *testing.T) {
	for _, c := range []struct {
		in   []byte
		want string
		rest int
	}{
		{append(utf16z("ntdll.dll"), 1, 2), "ntdll.dll", 2},
		{append(utf16z("Zürich ∑ 𝄞"), 7), "Zürich ∑ 𝄞", 1},
		{utf16z("")[:0], "", 0},
		{[]byte{'a', 0, 'b', 0, 'c'}, "ab", 0}, // no NUL: to the end, an odd byte dropped
	} {
		got, rest := etl.UTF16String(c.in)
		if got != c.want || len(rest) != c.rest {
			t.Errorf("%x: %q and %d bytes after, want %q and %d", c.in, got, len(rest), c.want, c.rest)
		}
	}
}

// TestLogfileHeaderLayouts decodes TRACE_LOGFILE_HEADER of both pointer
// sizes at the offsets of etl.LayoutFor: the fields after the pointers
// move by 8 bytes on 32-bit (two pointers of 4), BootTime stays 8-aligned.
func TestLogfileHeaderLayouts(t *testing.T) {
	le := binary.LittleEndian
	for _, c := range []struct {
		ptr                                 int
		boot, freq, start, clock, lost, end int
	}{
		{8, 0xF8, 0x100, 0x108, 0x110, 0x114, 0x118},
		{4, 0xF0, 0xF8, 0x100, 0x108, 0x10C, 0x110},
	} {
		l := etl.LayoutFor(c.ptr)
		if l.BootTime != c.boot || l.PerfFreq != c.freq || l.StartTime != c.start || l.ReservedFlags != c.clock || l.BuffersLost != c.lost || l.Size != c.end {
			t.Errorf("PointerSize %d: layout %+v", c.ptr, l)
		}
		p := make([]byte, l.Size)
		le.PutUint32(p[etl.LogOffProviderVersion:], 7601)
		le.PutUint32(p[etl.LogOffNumberOfProcessors:], 4)
		le.PutUint32(p[etl.LogOffPointerSize:], uint32(c.ptr))
		le.PutUint64(p[c.boot:], 11)
		le.PutUint64(p[c.freq:], 3_000_000)
		le.PutUint64(p[c.start:], 22)
		le.PutUint32(p[c.clock:], etl.ClockCPUCycles)
		le.PutUint32(p[c.lost:], 5)
		p = append(append(p, utf16z("NT Kernel Logger")...), utf16z(`C:\t.etl`)...)
		h, err := etl.DecodeLogfileHeader(p)
		if err != nil || h.Build != 7601 || h.NumberOfProcessors != 4 || h.BootTime != 11 || h.PerfFreq != 3_000_000 || h.StartTime != 22 ||
			h.ClockType != etl.ClockCPUCycles || h.BuffersLost != 5 || h.LoggerName != "NT Kernel Logger" || h.LogFileName != `C:\t.etl` {
			t.Errorf("PointerSize %d: %+v, %v", c.ptr, h, err)
		}
		if _, err := etl.DecodeLogfileHeader(p[:l.Size-1]); err == nil {
			t.Errorf("PointerSize %d: a short payload was read", c.ptr)
		}
	}
}
