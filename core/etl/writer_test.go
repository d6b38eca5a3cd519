package etl

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
	"unicode/utf16"
)

// These tests check the writer at the byte level against the facts of
// spec etl.md (§1 buffers, §2 record headers, §3 the file header, §4
// payloads), with a walker of their own: the lab's reader has its own
// tests and reads the writer's files back in the output's round trip.

var le = binary.LittleEndian

func testHeader(ptr int) FileHeader {
	return FileHeader{PointerSize: ptr, Processors: 2, Major: 10, Minor: 0, Build: 19041, CPUSpeedMHz: 3000,
		TimerResolution: 156250, PerfFreq: 10_000_000, StartTicks: 1234, BootTime: 100, StartTime: 1334, EndTime: 99999,
		LoggerName: "NT Kernel Logger", LogFileName: "trace.etl", GroupMask: [8]uint32{0, 0x20000002}}
}

// rec is one record as the walker finds it.
type rec struct {
	buffer, offset int
	kind           HeaderType
	first          uint16 // version (or size, for GUID headers)
	size           int
	hook           Hook
	ticks          int64
	payload        []byte
}

// walk splits a file into buffers and records, checking the layout
// rules every buffer must follow.
func walk(t *testing.T, file []byte) (headers [][]byte, recs []rec) {
	t.Helper()
	if len(file)%WriteBufferSize != 0 {
		t.Fatalf("file of %d bytes: not whole %d-byte buffers", len(file), WriteBufferSize)
	}
	for bi := 0; bi*WriteBufferSize < len(file); bi++ {
		b := file[bi*WriteBufferSize : (bi+1)*WriteBufferSize]
		headers = append(headers, b[:BufferHeaderSize])
		if got := le.Uint32(b[OffBufferSize:]); got != WriteBufferSize {
			t.Fatalf("buffer %d: BufferSize %d", bi, got)
		}
		saved := int(le.Uint32(b[OffSavedOffset:]))
		if saved < BufferHeaderSize || saved > WriteBufferSize || saved%RecordAlign != 0 {
			t.Fatalf("buffer %d: SavedOffset %d", bi, saved)
		}
		if off := int(le.Uint32(b[OffOffset:])); off != saved {
			t.Errorf("buffer %d: Offset %d, SavedOffset %d", bi, off, saved)
		}
		for i := saved; i < len(b); i++ {
			if b[i] != FillByte {
				t.Fatalf("buffer %d: byte %#x after SavedOffset %#x is %#x, want 0xFF", bi, i, saved, b[i])
			}
		}
		for at := BufferHeaderSize; at < saved; {
			r := rec{buffer: bi, offset: at, first: le.Uint16(b[at:]), kind: HeaderType(b[at+2])}
			if b[at+3] != HeaderFlags {
				t.Fatalf("buffer %d offset %#x: flags %#x", bi, at, b[at+3])
			}
			hs := 0
			switch r.kind {
			case HeaderSystem32, HeaderSystem64:
				hs, r.size, r.hook, r.ticks = SystemHeaderSize, int(le.Uint16(b[at+4:])), Hook(le.Uint16(b[at+6:])), int64(le.Uint64(b[at+16:]))
			case HeaderPerfInfo32, HeaderPerfInfo64:
				hs, r.size, r.hook, r.ticks = PerfInfoHeaderSize, int(le.Uint16(b[at+4:])), Hook(le.Uint16(b[at+6:])), int64(le.Uint64(b[at+8:]))
			case HeaderFullGUID, HeaderFullGUIDTrace64:
				hs, r.size, r.ticks = GUIDHeaderSize, int(r.first), int64(le.Uint64(b[at+16:]))
			default:
				t.Fatalf("buffer %d offset %#x: header type %#x", bi, at, r.kind)
			}
			if r.size < hs || at+r.size > saved {
				t.Fatalf("buffer %d offset %#x: record size %d overruns SavedOffset %d", bi, at, r.size, saved)
			}
			r.payload = b[at+hs : at+r.size]
			recs = append(recs, r)
			at += (r.size + RecordAlign - 1) &^ (RecordAlign - 1)
		}
	}
	return headers, recs
}

func TestHeaderBuffer(t *testing.T) {
	for _, tc := range []struct {
		ptr        int
		sys        HeaderType
		size, boot int
	}{{8, HeaderSystem64, 0x118, 0xF8}, {4, HeaderSystem32, 0x110, 0xF0}} {
		var out bytes.Buffer
		w, err := NewWriter(&out, testHeader(tc.ptr))
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		hdrs, recs := walk(t, out.Bytes())
		if len(hdrs) != 1 {
			t.Fatalf("ptr %d: %d buffers, want the header buffer alone", tc.ptr, len(hdrs))
		}
		h := hdrs[0]
		if f, ty := le.Uint16(h[OffBufferFlag:]), le.Uint16(h[OffBufferType:]); f != BufferFlagFlushMarker|BufferFlagProcessorIndex || ty != BufferTypeHeader {
			t.Errorf("ptr %d: header buffer flag %#x type %d, want 0x21 and 4", tc.ptr, f, ty)
		}
		if len(recs) != 2 || recs[0].hook != HookHeader || recs[1].hook != HookHeaderExtension {
			t.Fatalf("ptr %d: header buffer records %+v", tc.ptr, recs)
		}
		r := recs[0]
		if r.kind != tc.sys || r.first != 2 || r.ticks != 1234 {
			t.Errorf("ptr %d: header record kind %#x version %d time %d", tc.ptr, r.kind, r.first, r.ticks)
		}
		p := r.payload
		checks := []struct {
			name      string
			off       int
			got, want uint64
		}{
			{"BufferSize", LogOffBufferSize, uint64(le.Uint32(p[LogOffBufferSize:])), WriteBufferSize},
			{"Version", LogOffVersion, uint64(le.Uint32(p[LogOffVersion:])), 10},
			{"ProviderVersion", LogOffProviderVersion, uint64(le.Uint32(p[LogOffProviderVersion:])), 19041},
			{"NumberOfProcessors", LogOffNumberOfProcessors, uint64(le.Uint32(p[LogOffNumberOfProcessors:])), 2},
			{"EndTime", LogOffEndTime, le.Uint64(p[LogOffEndTime:]), 99999},
			{"PointerSize", LogOffPointerSize, uint64(le.Uint32(p[LogOffPointerSize:])), uint64(tc.ptr)},
			{"CpuSpeedInMHz", LogOffCpuSpeedInMHz, uint64(le.Uint32(p[LogOffCpuSpeedInMHz:])), 3000},
			{"BootTime", tc.boot, le.Uint64(p[tc.boot:]), 100},
			{"PerfFreq", tc.boot + 8, le.Uint64(p[tc.boot+8:]), 10_000_000},
			{"StartTime", tc.boot + 16, le.Uint64(p[tc.boot+16:]), 1334},
			{"ReservedFlags (clock)", tc.boot + 24, uint64(le.Uint32(p[tc.boot+24:])), ClockQPC},
			{"BuffersWritten (not patched: no WriterAt)", LogOffBuffersWritten, uint64(le.Uint32(p[LogOffBuffersWritten:])), 0},
		}
		for _, c := range checks {
			if c.got != c.want {
				t.Errorf("ptr %d: %s at %#x = %d, want %d", tc.ptr, c.name, c.off, c.got, c.want)
			}
		}
		names := decodeUTF16Z(t, p[tc.size:], 2)
		if names[0] != "NT Kernel Logger" || names[1] != "trace.etl" {
			t.Errorf("ptr %d: names %q", tc.ptr, names)
		}
		ext := recs[1].payload
		if len(ext) != 36 || le.Uint32(ext[4:]) != 0x20000002 || le.Uint32(ext[32:]) != KernelEventVersion {
			t.Errorf("ptr %d: header extension %x", tc.ptr, ext)
		}
	}
}

func decodeUTF16Z(t *testing.T, b []byte, n int) []string {
	t.Helper()
	var out []string
	var cur []uint16
	for i := 0; i+1 < len(b) && len(out) < n; i += 2 {
		u := le.Uint16(b[i:])
		if u == 0 {
			out = append(out, string(utf16.Decode(cur)))
			cur = nil
			continue
		}
		cur = append(cur, u)
	}
	if len(out) != n {
		t.Fatalf("want %d NUL-terminated UTF-16 strings in %x", n, b)
	}
	return out
}

func TestSampleRecordsAndBufferStreams(t *testing.T) {
	for _, ptr := range []int{8, 4} {
		dir := t.TempDir()
		f, err := os.Create(filepath.Join(dir, "t.etl"))
		if err != nil {
			t.Fatal(err)
		}
		w, err := NewWriter(f, testHeader(ptr))
		if err != nil {
			t.Fatal(err)
		}
		const n = 5000 // more than a 64 KiB buffer holds per processor
		for i := range n {
			w.WriteSampledProfile(i%2, int64(2000+i), 0x40001000+uint64(i), uint32(100+i%2), ProfileFlagISR)
		}
		w.WritePmcInterrupt(1, 9000, 0x40002000, 7, 0x13)
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		_ = f.Close()
		file, err := os.ReadFile(f.Name())
		if err != nil {
			t.Fatal(err)
		}
		hdrs, recs := walk(t, file)
		if got := le.Uint32(recs[0].payload[LogOffBuffersWritten:]); got != uint32(len(hdrs)) {
			t.Errorf("ptr %d: BuffersWritten %d, the file has %d buffers", ptr, got, len(hdrs))
		}
		wantSize := PerfInfoHeaderSize + ptr + 8 // 32 on x64, 28 (padded to 32) on x86
		samples := map[int]int{}
		var seqs []uint64
		for _, h := range hdrs[1:] {
			seqs = append(seqs, le.Uint64(h[OffSequenceNumber:]))
			if f := le.Uint16(h[OffBufferFlag:]); f != BufferFlagProcessorIndex {
				t.Errorf("ptr %d: data buffer flag %#x, want 0x20", ptr, f)
			}
		}
		for i, s := range seqs {
			if s != uint64(i+1) {
				t.Errorf("ptr %d: buffer %d SequenceNumber %d", ptr, i+1, s)
			}
		}
		for _, r := range recs {
			cpu := int(le.Uint16(hdrs[r.buffer][OffProcessorIndex:]))
			switch r.hook {
			case HookSampledProfile:
				wantKind := HeaderPerfInfo64
				if ptr == 4 {
					wantKind = HeaderPerfInfo32
				}
				if r.kind != wantKind || r.size != wantSize || r.first != VersionSampledProfile {
					t.Fatalf("ptr %d: SampledProfile kind %#x size %d version %d", ptr, r.kind, r.size, r.first)
				}
				i := int(r.ticks - 2000)
				if cpu != i%2 {
					t.Errorf("ptr %d: sample %d on processor %d's buffer", ptr, i, cpu)
				}
				ip := le.Uint64(append(append([]byte{}, r.payload[:ptr]...), make([]byte, 8-ptr)...))
				tid := le.Uint32(r.payload[ptr:])
				if ip != 0x40001000+uint64(i) || tid != uint32(100+i%2) || le.Uint16(r.payload[ptr+4:]) != 1 || r.payload[ptr+6] != ProfileFlagISR {
					t.Errorf("ptr %d: sample %d payload %x", ptr, i, r.payload)
				}
				samples[cpu]++
			case HookPmcInterrupt:
				if le.Uint16(r.payload[ptr+4:]) != 0x13 || cpu != 1 {
					t.Errorf("ptr %d: PMC payload %x on processor %d", ptr, r.payload, cpu)
				}
			}
		}
		if samples[0] != n/2 || samples[1] != n/2 {
			t.Errorf("ptr %d: samples per processor %v", ptr, samples)
		}
		if len(hdrs) < 4 {
			t.Errorf("ptr %d: %d buffers: %d samples should fill several per processor", ptr, len(hdrs), n)
		}
	}
}

func TestEventPayloads(t *testing.T) {
	var out bytes.Buffer
	w, err := NewWriter(&out, testHeader(4))
	if err != nil {
		t.Fatal(err)
	}
	w.WriteProcess(0, HookProcessDCStart, 5, Process{UniqueProcessKey: 0x81000000, ProcessID: 8, ParentID: 4,
		ImageFileName: "app.exe", CommandLine: "app.exe -x"})
	w.WriteThread(0, HookThreadDCStart, 5, ThreadRecord{ProcessID: 8, ThreadID: 12, Affinity: 3, BasePriority: 8})
	w.WriteImage(0, HookImageDCStart, 5, Image{ImageBase: 0x400000, ImageSize: 0x2000, ProcessID: 8, TimeDateStamp: 0x5000, FileName: `\Device\X\app.exe`})
	w.WriteInterval(1, HookCollectionStart, 6, 0, 10000, 10000, "Timer")
	w.WriteStackWalk(1, 7, 8, 12, []uint64{0x401000, 0x401234, 0x402010})
	w.WriteImageID(0, 5, Image{ImageBase: 0x400000, ImageSize: 0x2000, ProcessID: 8, TimeDateStamp: 0x5000}, "app.exe")
	w.WriteDbgIDRSDS(0, 5, Image{ImageBase: 0x400000, ProcessID: 8}, PDB{Signature: MustGUID("01234567-89ab-cdef-0123-456789abcdef"), Age: 1, FileName: "app.pdb"})
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	_, recs := walk(t, out.Bytes())
	by := map[Hook]rec{}
	var classic []rec
	for _, r := range recs[2:] {
		if r.kind == HeaderFullGUID {
			classic = append(classic, r)
			continue
		}
		by[r.hook] = r
	}
	p := by[HookProcessDCStart].payload
	// ptr key, 4 × u32, ptr DTB, u32 flags, 2 × ptr TOKEN_USER (a non-null
	// SID pointer), SID (8 + 4), "app.exe\0", 3 UTF-16 strings
	if le.Uint32(p[28:]) == 0 || le.Uint32(p[4:]) != 8 || le.Uint32(p[8:]) != 4 || p[36] != 1 || p[37] != 1 || p[43] != 5 || le.Uint32(p[44:]) != 18 ||
		string(p[48:56]) != "app.exe\x00" || by[HookProcessDCStart].first != VersionProcess {
		t.Errorf("Process payload %x", p)
	}
	if got := decodeUTF16Z(t, p[56:], 3); got[0] != "app.exe -x" || got[1] != "" || got[2] != "" {
		t.Errorf("Process strings %q", got)
	}
	th := by[HookThreadDCStart]
	if len(th.payload) != 8+7*4+8 || le.Uint32(th.payload[4:]) != 12 || le.Uint32(th.payload[8+4*4:]) != 3 || th.payload[8+7*4+4] != 8 {
		t.Errorf("Thread payload %x", th.payload)
	}
	im := by[HookImageDCStart].payload
	if le.Uint32(im[0:]) != 0x400000 || le.Uint32(im[4:]) != 0x2000 || le.Uint32(im[8:]) != 8 || le.Uint32(im[16:]) != 0x5000 ||
		decodeUTF16Z(t, im[44:], 1)[0] != `\Device\X\app.exe` {
		t.Errorf("Image payload %x", im)
	}
	iv := by[HookCollectionStart]
	if iv.first != VersionInterval || le.Uint32(iv.payload[4:]) != 10000 || decodeUTF16Z(t, iv.payload[12:], 1)[0] != "Timer" {
		t.Errorf("interval payload %x", iv.payload)
	}
	sw := by[HookStackWalk]
	if le.Uint64(sw.payload) != 7 || le.Uint32(sw.payload[8:]) != 8 || le.Uint32(sw.payload[12:]) != 12 || len(sw.payload) != 16+3*4 ||
		le.Uint32(sw.payload[16:]) != 0x401000 || le.Uint32(sw.payload[24:]) != 0x402010 {
		t.Errorf("StackWalk payload %x", sw.payload)
	}
	if len(classic) != 2 {
		t.Fatalf("%d KernelTraceControl events", len(classic))
	}
	for _, c := range classic {
		b := out.Bytes()[c.buffer*WriteBufferSize+c.offset:]
		if GUID(b[24:40]) != KernelTraceControl || le.Uint16(b[6:]) != VersionImageID {
			t.Errorf("classic header %x", b[:48])
		}
	}
	if b := out.Bytes()[classic[1].buffer*WriteBufferSize+classic[1].offset:]; b[4] != TypeDbgIDRSDS ||
		GUID(classic[1].payload[8:24]).String() != "01234567-89ab-cdef-0123-456789abcdef" || string(classic[1].payload[28:36]) != "app.pdb\x00" {
		t.Errorf("DbgID_RSDS %x", classic[1].payload)
	}
}

func TestWriterErrors(t *testing.T) {
	var out bytes.Buffer
	if _, err := NewWriter(&out, FileHeader{PointerSize: 6, Processors: 1}); err == nil {
		t.Error("pointer size 6 accepted")
	}
	if _, err := NewWriter(&out, FileHeader{PointerSize: 8}); err == nil {
		t.Error("0 processors accepted")
	}
	w, _ := NewWriter(&out, testHeader(8))
	w.WriteSampledProfile(5, 1, 1, 1, 0)
	if err := w.Close(); err == nil {
		t.Error("processor 5 of 2 accepted")
	}
	w, _ = NewWriter(&out, testHeader(8))
	if w.PerfInfo(0, HookStackWalk, 2, 1, MaxPayload(PerfInfoHeaderSize)+1) != nil || !errors.Is(w.Close(), ErrRecordTooBig) {
		t.Error("a record past a buffer accepted")
	}
	// the most frames a stack walk holds still fit a buffer
	w, _ = NewWriter(&out, testHeader(8))
	w.WriteStackWalk(0, 1, 1, 1, make([]uint64, 1000))
	if err := w.Close(); err != nil {
		t.Error(err)
	}
}

// The lab's reader reads what the writer writes, for both pointer sizes:
// the header, then every event with the values written.
func TestReaderReadsWhatTheWriterWrites(t *testing.T) {
	for _, ptr := range []int{8, 4} {
		var out bytes.Buffer
		w, err := NewWriter(&out, testHeader(ptr))
		if err != nil {
			t.Fatal(err)
		}
		im := Image{ImageBase: 0x400000, ImageSize: 0x3000, ProcessID: 8, TimeDateStamp: 0x77, DefaultBase: 0x400000, FileName: `\Device\HarddiskVolume1\app.exe`}
		w.WriteProcess(0, HookProcessDCStart, 1300, Process{UniqueProcessKey: 0x84000800, ProcessID: 8, ImageFileName: "app.exe", CommandLine: "app.exe"})
		w.WriteThread(0, HookThreadDCStart, 1300, ThreadRecord{ProcessID: 8, ThreadID: 12})
		w.WriteImage(0, HookImageDCStart, 1300, im)
		w.WriteImageID(0, 1300, im, "app.exe")
		pdb := PDB{Signature: MustGUID("01234567-89ab-cdef-0123-456789abcdef"), Age: 1, FileName: "app.pdb"}
		w.WriteDbgIDRSDS(0, 1300, im, pdb)
		w.WriteInterval(1, HookSetInterval, 1400, 0, 5000, 10000, "Timer")
		w.WriteSampledProfile(1, 1500, 0x401010, 12, ProfileFlagDPC)
		w.WriteStackWalk(1, 1500, 8, 12, []uint64{0x401010, 0x402020})
		w.WritePmcInterrupt(0, 1600, 0x401020, 12, 0x13)
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		r := NewReader(bytes.NewReader(out.Bytes()))
		h, _, err := r.ReadHeader()
		if err != nil {
			t.Fatal(err)
		}
		if h.PointerSize != uint32(ptr) || h.PerfFreq != 10_000_000 || h.StartTime != 1334 || h.BootTime != 100 || h.ClockType != ClockQPC ||
			h.NumberOfProcessors != 2 || h.Build != 19041 || h.LoggerName != "NT Kernel Logger" || h.LogFileName != "trace.etl" {
			t.Errorf("ptr %d: header %+v", ptr, h)
		}
		got := map[string]any{}
		for {
			rec, err := r.Next()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Fatalf("ptr %d: %v", ptr, err)
			}
			switch {
			case rec.Kind == HeaderFullGUID || rec.Kind == HeaderFullGUIDTrace64:
				if rec.Opcode == TypeImageID {
					got["imageid"], err = DecodeImageID(rec.Payload, ptr)
				} else {
					got["rsds"], err = DecodeDbgIDRSDS(rec.Payload, ptr)
				}
			case rec.Hook == HookProcessDCStart:
				got["process"], err = DecodeProcess(rec.Payload, ptr, rec.Version)
			case rec.Hook == HookThreadDCStart:
				got["thread"], err = DecodeThread(rec.Payload, ptr)
			case rec.Hook == HookImageDCStart:
				got["image"], err = DecodeImage(rec.Payload, ptr, rec.Version)
			case rec.Hook == HookSetInterval:
				got["interval"], err = DecodeInterval(rec.Payload, ptr)
			case rec.Hook == HookSampledProfile:
				got["sample"], err = DecodeSampledProfile(rec.Payload, ptr)
			case rec.Hook == HookPmcInterrupt:
				got["pmc"], err = DecodePmcSample(rec.Payload, ptr)
			case rec.Hook == HookStackWalk:
				got["stack"], err = DecodeStack(rec.Payload, ptr)
			}
			if err != nil {
				t.Fatalf("ptr %d: %v", ptr, err)
			}
		}
		if p := got["process"].(Process); p.ProcessID != 8 || p.ImageFileName != "app.exe" || p.CommandLine != "app.exe" {
			t.Errorf("ptr %d: process %+v", ptr, p)
		}
		if th := got["thread"].(Thread); th.ThreadID != 12 || th.ProcessID != 8 {
			t.Errorf("ptr %d: thread %+v", ptr, th)
		}
		if g := got["image"].(Image); g != im {
			t.Errorf("ptr %d: image %+v, want %+v", ptr, g, im)
		}
		if id := got["imageid"].(ImageID); id.ImageBase != im.ImageBase || id.TimeDateStamp != 0x77 || id.OriginalFileName != "app.exe" {
			t.Errorf("ptr %d: ImageId %+v", ptr, id)
		}
		if d := got["rsds"].(DbgIDRSDS); d.Signature != pdb.Signature || d.Age != 1 || d.PdbFileName != "app.pdb" || d.ImageBase != im.ImageBase {
			t.Errorf("ptr %d: DbgID_RSDS %+v", ptr, d)
		}
		if iv := got["interval"].(Interval); iv.NewInterval != 5000 || iv.OldInterval != 10000 {
			t.Errorf("ptr %d: interval %+v", ptr, iv)
		}
		if s := got["sample"].(Sample); s.IP != 0x401010 || s.ThreadID != 12 || s.Count != 1 || s.Flags != ProfileFlagDPC {
			t.Errorf("ptr %d: sample %+v", ptr, s)
		}
		if s := got["pmc"].(Sample); s.IP != 0x401020 || s.Source != 0x13 {
			t.Errorf("ptr %d: PMC sample %+v", ptr, s)
		}
		if s := got["stack"].(Stack); s.EventTimeStamp != 1500 || s.ThreadID != 12 || s.ProcessID != 8 || len(s.Frames) != 2 || s.Frames[1] != 0x402020 {
			t.Errorf("ptr %d: stack %+v", ptr, s)
		}
	}
}

func TestProfileFlags(t *testing.T) {
	for _, tc := range []struct {
		dpc, isr bool
		want     uint8
	}{{false, false, 0}, {true, false, 1}, {false, true, 2}, {true, true, 3}} {
		if got := ProfileFlags(tc.dpc, tc.isr); got != tc.want {
			t.Errorf("ProfileFlags(dpc %v, isr %v) = %d, want %d (bit 0 DPC, bit 1 ISR)", tc.dpc, tc.isr, got, tc.want)
		}
	}
}
