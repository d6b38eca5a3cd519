package etl

import (
	"encoding/binary"
	"unicode/utf16"
)

// This file is the writer's event encoders: the payloads of the spec's
// etl.md §4, each pointer-sized field as wide as the file's PointerSize. Each
// reserves its record in the processor's buffer and fills it in place,
// so that writing an event allocates nothing.

// Event versions the writer writes.
const (
	VersionProcess        = 4
	VersionThread         = 3
	VersionImage          = 3
	VersionSampledProfile = 2
	VersionPmcInterrupt   = 2
	VersionInterval       = 3
	VersionStackWalk      = 2
	VersionRundown        = 2
)

// systemSID is the user SID the writer gives every process: S-1-5-18
// (LocalSystem), revision 1, one sub-authority.
var systemSID = []byte{1, 1, 0, 0, 0, 0, 0, 5, 18, 0, 0, 0}

// ptrBuf appends pointer-sized fields.
type ptrBuf struct {
	b   []byte
	at  int
	ptr int
}

func (p *ptrBuf) u8(v uint8)   { p.b[p.at] = v; p.at++ }
func (p *ptrBuf) u16(v uint16) { binary.LittleEndian.PutUint16(p.b[p.at:], v); p.at += 2 }
func (p *ptrBuf) u32(v uint32) { binary.LittleEndian.PutUint32(p.b[p.at:], v); p.at += 4 }
func (p *ptrBuf) u64(v uint64) { binary.LittleEndian.PutUint64(p.b[p.at:], v); p.at += 8 }
func (p *ptrBuf) pointer(v uint64) {
	if p.ptr == 4 {
		p.u32(uint32(v))
		return
	}
	p.u64(v)
}
func (p *ptrBuf) bytes(b []byte) { p.at += copy(p.b[p.at:], b) }
func (p *ptrBuf) utf16z(s string) {
	for _, u := range utf16.Encode([]rune(s)) {
		p.u16(u)
	}
	p.u16(0)
}
func (p *ptrBuf) ansiz(s string) { p.at += copy(p.b[p.at:], s); p.u8(0) }

// utf16Len is s's NUL-terminated UTF-16 size in bytes.
func utf16Len(s string) int {
	n := 0
	for _, r := range s {
		n += 2
		if r >= 0x10000 {
			n += 2
		}
	}
	return n + 2
}

// WriteProcess writes a Process event (Start, End, DCStart or DCEnd by
// hook, version 4) with a full SYSTEM header naming the process: p's
// fields, the user SID S-1-5-18 behind a TOKEN_USER head whose pointer
// is a made-up address inside the process object (UniqueProcessKey +
// 0x4C0: readers take a null pointer for "no SID"), and empty
// PackageFullName and ApplicationId.
func (w *Writer) WriteProcess(cpu int, hook Hook, ticks int64, p Process) {
	n := w.ptr + 4*4 + w.ptr + 4 + 2*w.ptr + len(systemSID) + len(p.ImageFileName) + 1 +
		utf16Len(p.CommandLine) + 2 + 2
	b := w.System(cpu, hook, VersionProcess, 0, p.ProcessID, ticks, n)
	if b == nil {
		return
	}
	e := ptrBuf{b: b, ptr: w.ptr}
	e.pointer(p.UniqueProcessKey)
	e.u32(p.ProcessID)
	e.u32(p.ParentID)
	e.u32(p.SessionID)
	e.u32(uint32(p.ExitStatus))
	e.pointer(p.DirectoryTableBase)
	e.u32(p.Flags)
	e.pointer(p.UniqueProcessKey + 0x4C0) // TOKEN_USER.User.Sid
	e.pointer(0)                          // Attributes, padded to a pointer
	e.bytes(systemSID)
	e.ansiz(p.ImageFileName)
	e.utf16z(p.CommandLine)
	e.utf16z("") // PackageFullName
	e.utf16z("") // ApplicationId
}

// ThreadRecord is a Thread event's payload as the writer writes it
// (version 3).
type ThreadRecord struct {
	ProcessID, ThreadID           uint32
	StackBase, StackLimit         uint64
	UserStackBase, UserStackLimit uint64
	Affinity                      uint64
	Win32StartAddr, TebBase       uint64
	SubProcessTag                 uint32
	BasePriority, PagePriority    uint8
	IoPriority, ThreadFlags       uint8
}

// WriteThread writes a Thread event (Start, End, DCStart or DCEnd by
// hook).
func (w *Writer) WriteThread(cpu int, hook Hook, ticks int64, t ThreadRecord) {
	b := w.System(cpu, hook, VersionThread, t.ThreadID, t.ProcessID, ticks, 8+7*w.ptr+8)
	if b == nil {
		return
	}
	e := ptrBuf{b: b, ptr: w.ptr}
	e.u32(t.ProcessID)
	e.u32(t.ThreadID)
	for _, v := range []uint64{t.StackBase, t.StackLimit, t.UserStackBase, t.UserStackLimit, t.Affinity, t.Win32StartAddr, t.TebBase} {
		e.pointer(v)
	}
	e.u32(t.SubProcessTag)
	e.u8(t.BasePriority)
	e.u8(t.PagePriority)
	e.u8(t.IoPriority)
	e.u8(t.ThreadFlags)
}

// WriteImage writes an Image event: Load (HookImageLoad), Unload,
// DCStart or DCEnd (by hook).
func (w *Writer) WriteImage(cpu int, hook Hook, ticks int64, im Image) {
	b := w.System(cpu, hook, VersionImage, 0, im.ProcessID, ticks, 3*w.ptr+12+4+16+utf16Len(im.FileName))
	if b == nil {
		return
	}
	e := ptrBuf{b: b, ptr: w.ptr}
	e.pointer(im.ImageBase)
	e.pointer(im.ImageSize)
	e.u32(im.ProcessID)
	e.u32(im.Checksum)
	e.u32(im.TimeDateStamp)
	e.u32(0) // SignatureLevel, SignatureType, Reserved
	e.pointer(im.DefaultBase)
	e.at += 16 // 4 × u32 Reserved, zero
	e.utf16z(im.FileName)
}

// SampledProfile flags (the byte after Count).
const (
	ProfileFlagDPC = 0x01
	ProfileFlagISR = 0x02
)

// ProfileFlags is the SampledProfile flags byte of a sample taken in a
// DPC, an ISR, both or neither.
func ProfileFlags(dpc, isr bool) uint8 {
	var f uint8
	if dpc {
		f |= ProfileFlagDPC
	}
	if isr {
		f |= ProfileFlagISR
	}
	return f
}

// WriteSampledProfile writes a SampledProfile event (0x0F2E): the
// interrupted IP and thread, Count 1, the DPC and ISR flags.
func (w *Writer) WriteSampledProfile(cpu int, ticks int64, ip uint64, tid uint32, flags uint8) {
	b := w.PerfInfo(cpu, HookSampledProfile, VersionSampledProfile, ticks, w.ptr+8)
	if b == nil {
		return
	}
	e := ptrBuf{b: b, ptr: w.ptr}
	e.pointer(ip)
	e.u32(tid)
	e.u16(1)
	e.u8(flags)
	e.u8(0) // Rank
}

// WritePmcInterrupt writes a PmcCounterProfile event (0x0F2F): the IP,
// the thread and the counter source that overflowed.
func (w *Writer) WritePmcInterrupt(cpu int, ticks int64, ip uint64, tid uint32, source uint16) {
	b := w.PerfInfo(cpu, HookPmcInterrupt, VersionPmcInterrupt, ticks, w.ptr+8)
	if b == nil {
		return
	}
	e := ptrBuf{b: b, ptr: w.ptr}
	e.pointer(ip)
	e.u32(tid)
	e.u16(source)
	e.u16(0)
}

// WriteInterval writes a SampledProfileInterval event: SetInterval,
// CollectionStart or CollectionEnd (by hook).
func (w *Writer) WriteInterval(cpu int, hook Hook, ticks int64, source, newInterval, oldInterval uint32, sourceName string) {
	b := w.PerfInfo(cpu, hook, VersionInterval, ticks, 12+utf16Len(sourceName))
	if b == nil {
		return
	}
	e := ptrBuf{b: b, ptr: w.ptr}
	e.u32(source)
	e.u32(newInterval)
	e.u32(oldInterval)
	e.utf16z(sourceName)
}

// MaxStackFrames is the most frames a StackWalk event holds (what
// RtlWalkFrameChain's callers in the kernel logger keep).
const MaxStackFrames = 192

// WriteStackWalk writes a StackWalk Stack event (0x1820) for the event
// at eventTicks of thread tid in process pid: frames innermost first (at
// most MaxStackFrames are written).
func (w *Writer) WriteStackWalk(cpu int, eventTicks int64, pid, tid uint32, frames []uint64) {
	if len(frames) > MaxStackFrames {
		frames = frames[:MaxStackFrames]
	}
	b := w.PerfInfo(cpu, HookStackWalk, VersionStackWalk, eventTicks, 16+len(frames)*w.ptr)
	if b == nil {
		return
	}
	e := ptrBuf{b: b, ptr: w.ptr}
	e.u64(uint64(eventTicks))
	e.u32(pid)
	e.u32(tid)
	for _, f := range frames {
		e.pointer(f)
	}
}

// WriteRundownComplete writes the EventTrace end-of-rundown event
// (0x00/8), empty, as real files carry one per processor.
func (w *Writer) WriteRundownComplete(cpu int, ticks int64) {
	w.PerfInfo(cpu, HookRundownComplete, VersionRundown, ticks, 0)
}

// WriteImageID writes KernelTraceControl's ImageId event (Type 0,
// Version 2): an image's identity (TimeDateStamp, original file name)
// at its (ProcessId, ImageBase).
func (w *Writer) WriteImageID(cpu int, ticks int64, im Image, originalFileName string) {
	b := w.Classic(cpu, KernelTraceControl, TypeImageID, VersionImageID, 0, im.ProcessID, ticks, 2*w.ptr+8+utf16Len(originalFileName))
	if b == nil {
		return
	}
	e := ptrBuf{b: b, ptr: w.ptr}
	e.pointer(im.ImageBase)
	e.pointer(im.ImageSize)
	e.u32(im.ProcessID)
	e.u32(im.TimeDateStamp)
	e.utf16z(originalFileName)
}

// PDB is the identity of an image's program database, as a symbol
// server is asked for it.
type PDB struct {
	Signature GUID
	Age       uint32
	FileName  string
}

// WriteDbgIDRSDS writes KernelTraceControl's DbgID_RSDS event (Type
// 0x24): the PDB of the image at (ProcessId, ImageBase).
func (w *Writer) WriteDbgIDRSDS(cpu int, ticks int64, im Image, pdb PDB) {
	b := w.Classic(cpu, KernelTraceControl, TypeDbgIDRSDS, VersionImageID, 0, im.ProcessID, ticks, w.ptr+4+16+4+len(pdb.FileName)+1)
	if b == nil {
		return
	}
	e := ptrBuf{b: b, ptr: w.ptr}
	e.pointer(im.ImageBase)
	e.u32(im.ProcessID)
	e.bytes(pdb.Signature[:])
	e.u32(pdb.Age)
	e.ansiz(pdb.FileName)
}
