package etl

import (
	"encoding/binary"
	"fmt"
)

// cursor reads a payload field by field; the first field that does not
// fit sets err and every later read returns zero.
type cursor struct {
	b   []byte
	off int
	ptr int // PointerSize
	err error
	ev  string
}

func (c *cursor) need(n int, field string) bool {
	if c.err != nil {
		return false
	}
	if n < 0 || c.off+n > len(c.b) {
		c.err = fmt.Errorf("%s payload of %d bytes ends before its %s (offset %d)", c.ev, len(c.b), field, c.off)
		return false
	}
	return true
}

func (c *cursor) u8(field string) uint8 {
	if !c.need(1, field) {
		return 0
	}
	c.off++
	return c.b[c.off-1]
}

func (c *cursor) u16(field string) uint16 {
	if !c.need(2, field) {
		return 0
	}
	c.off += 2
	return binary.LittleEndian.Uint16(c.b[c.off-2:])
}

func (c *cursor) u32(field string) uint32 {
	if !c.need(4, field) {
		return 0
	}
	c.off += 4
	return binary.LittleEndian.Uint32(c.b[c.off-4:])
}

func (c *cursor) u64(field string) uint64 {
	if !c.need(8, field) {
		return 0
	}
	c.off += 8
	return binary.LittleEndian.Uint64(c.b[c.off-8:])
}

// pointer reads a PointerSize field.
func (c *cursor) pointer(field string) uint64 {
	if c.ptr == 4 {
		return uint64(c.u32(field))
	}
	return c.u64(field)
}

func (c *cursor) skip(n int, field string) {
	if c.need(n, field) {
		c.off += n
	}
}

func (c *cursor) guid(field string) GUID {
	var g GUID
	if c.need(16, field) {
		copy(g[:], c.b[c.off:])
		c.off += 16
	}
	return g
}

func (c *cursor) utf16(field string) string {
	if c.err != nil {
		return ""
	}
	s, rest := UTF16String(c.b[c.off:])
	c.off = len(c.b) - len(rest)
	return s
}

func (c *cursor) ansi(field string) string {
	if c.err != nil {
		return ""
	}
	s, rest := ANSIString(c.b[c.off:])
	c.off = len(c.b) - len(rest)
	return s
}

// rawPointers is the rest of the payload's whole pointers (stack frames)
// as they are stored.
func (c *cursor) rawPointers() []byte {
	if c.err != nil {
		return nil
	}
	rest := c.b[c.off:]
	return rest[:len(rest)-len(rest)%c.ptr]
}

func newCursor(p []byte, ptr int, ev string) *cursor {
	if ptr != 4 {
		ptr = 8
	}
	return &cursor{b: p, ptr: ptr, ev: ev}
}

// Process is a Process Start, End, DCStart or DCEnd event (versions 3 and 4).
type Process struct {
	UniqueProcessKey   uint64
	ProcessID          uint32
	ParentID           uint32
	SessionID          uint32
	ExitStatus         int32
	DirectoryTableBase uint64
	Flags              uint32 // version 4 and later
	ImageFileName      string // ANSI, such as "Test.x86.exe"
	CommandLine        string
}

// DecodeProcess decodes a Process event's payload of the given version.
func DecodeProcess(p []byte, ptr int, version uint16) (Process, error) {
	c := newCursor(p, ptr, "Process")
	if version < 3 {
		return Process{}, fmt.Errorf("Process event version %d is older than the versions read (3 and later)", version)
	}
	var e Process
	e.UniqueProcessKey = c.pointer("UniqueProcessKey")
	e.ProcessID = c.u32("ProcessId")
	e.ParentID = c.u32("ParentId")
	e.SessionID = c.u32("SessionId")
	e.ExitStatus = int32(c.u32("ExitStatus"))
	e.DirectoryTableBase = c.pointer("DirectoryTableBase")
	if version >= 4 {
		e.Flags = c.u32("Flags")
	}
	c.sid()
	e.ImageFileName = c.ansi("ImageFileName")
	e.CommandLine = c.utf16("CommandLine")
	return e, c.err
}

// sid skips a user SID as kernel events hold it: a null pointer-sized
// value (4 bytes), else a TOKEN_USER head of two pointers and the SID
// (revision, sub-authority count n, 6-byte authority, n × u32).
func (c *cursor) sid() {
	if !c.need(4, "UserSID") {
		return
	}
	if binary.LittleEndian.Uint32(c.b[c.off:]) == 0 {
		c.off += 4
		return
	}
	c.skip(2*c.ptr+1, "UserSID")
	n := int(c.u8("UserSID"))
	c.skip(6+4*n, "UserSID")
}

// Thread is a Thread Start, End, DCStart or DCEnd event: the fields the
// reader uses, the first two of every version.
type Thread struct {
	ProcessID uint32
	ThreadID  uint32
}

// DecodeThread decodes a Thread event's payload.
func DecodeThread(p []byte, ptr int) (Thread, error) {
	c := newCursor(p, ptr, "Thread")
	var e Thread
	e.ProcessID = c.u32("ProcessId")
	e.ThreadID = c.u32("ThreadId")
	return e, c.err
}

// Image is an Image Load (0x030A), Unload, DCStart or DCEnd event
// (versions 2 and 3).
type Image struct {
	ImageBase     uint64
	ImageSize     uint64
	ProcessID     uint32 // 0 for kernel modules
	Checksum      uint32
	TimeDateStamp uint32
	DefaultBase   uint64
	FileName      string // an NT path, such as \Device\HarddiskVolume2\Windows\System32\ntdll.dll
}

// DecodeImage decodes an Image event's payload.
func DecodeImage(p []byte, ptr int, version uint16) (Image, error) {
	c := newCursor(p, ptr, "Image")
	if version < 2 {
		return Image{}, fmt.Errorf("Image event version %d is older than the versions read (2 and later)", version)
	}
	var e Image
	e.ImageBase = c.pointer("ImageBase")
	e.ImageSize = c.pointer("ImageSize")
	e.ProcessID = c.u32("ProcessId")
	e.Checksum = c.u32("ImageChecksum")
	e.TimeDateStamp = c.u32("TimeDateStamp")
	c.skip(4, "SignatureLevel")
	e.DefaultBase = c.pointer("DefaultBase")
	c.skip(16, "Reserved")
	e.FileName = c.utf16("FileName")
	return e, c.err
}

// Sample is a SampledProfile (0x0F2E) or PmcCounterProfile (0x0F2F)
// event: a profile interrupt.
type Sample struct {
	IP       uint64
	ThreadID uint32
	Count    uint16 // SampledProfile: 1
	Flags    uint8  // SampledProfile: bit 0 DPC, bit 1 ISR, bits 3–7 priority
	Source   uint16 // PmcCounterProfile: the ProfileSource; 0 (ProfileTime) for SampledProfile
}

// DecodeSampledProfile decodes a SampledProfile payload.
func DecodeSampledProfile(p []byte, ptr int) (Sample, error) {
	c := newCursor(p, ptr, "SampledProfile")
	var e Sample
	e.IP = c.pointer("InstructionPointer")
	e.ThreadID = c.u32("ThreadId")
	e.Count = c.u16("Count")
	e.Flags = c.u8("flags")
	return e, c.err
}

// DecodePmcSample decodes a PmcCounterProfile payload.
func DecodePmcSample(p []byte, ptr int) (Sample, error) {
	c := newCursor(p, ptr, "PmcCounterProfile")
	var e Sample
	e.IP = c.pointer("InstructionPointer")
	e.ThreadID = c.u32("ThreadId")
	e.Source = c.u16("ProfileSource")
	e.Count = 1
	return e, c.err
}

// Interval is a SampledProfileInterval event (SetInterval,
// CollectionStart, CollectionEnd).
type Interval struct {
	Source      uint32
	NewInterval uint32 // 100 ns for ProfileTime, events for a counter
	OldInterval uint32
	SourceName  string
}

// DecodeInterval decodes a SampledProfileInterval payload.
func DecodeInterval(p []byte, ptr int) (Interval, error) {
	c := newCursor(p, ptr, "SampledProfileInterval")
	var e Interval
	e.Source = c.u32("Source")
	e.NewInterval = c.u32("NewInterval")
	e.OldInterval = c.u32("OldInterval")
	if c.err == nil && c.off < len(c.b) {
		e.SourceName = c.utf16("SourceName")
	}
	return e, c.err
}

// Stack is a StackWalk Stack event (0x1820), or with Key set a stack key
// reference (StackKeyKernel 0x1825, StackKeyUser 0x1826).
type Stack struct {
	EventTimeStamp int64 // the SystemTime of the event the stack belongs to
	ProcessID      uint32
	ThreadID       uint32
	Frames         []uint64 // Stack: innermost first
	Key            uint64   // key references
}

// DecodeStack decodes a StackWalk Stack payload.
func DecodeStack(p []byte, ptr int) (Stack, error) {
	e, raw, err := DecodeStackHead(p, ptr)
	e.Frames = AppendFrames(nil, raw, ptr)
	return e, err
}

// DecodeStackHead decodes a StackWalk Stack payload's head
// (EventTimeStamp, StackProcess, StackThread) and returns its frames as
// they are stored, PointerSize bytes each, innermost first, without
// copying them (AppendFrames decodes them; a trailing partial frame is
// left out).
func DecodeStackHead(p []byte, ptr int) (Stack, []byte, error) {
	c := newCursor(p, ptr, "StackWalk")
	var e Stack
	e.EventTimeStamp = int64(c.u64("EventTimeStamp"))
	e.ProcessID = c.u32("StackProcess")
	e.ThreadID = c.u32("StackThread")
	return e, c.rawPointers(), c.err
}

// AppendFrames appends to dst the frames stored in raw, PointerSize (4 or
// 8) bytes each.
func AppendFrames(dst []uint64, raw []byte, ptr int) []uint64 {
	c := newCursor(raw, ptr, "frames")
	for c.off+c.ptr <= len(raw) {
		dst = append(dst, c.pointer("frame"))
	}
	return dst
}

// DecodeStackKeyRef decodes a StackKeyKernel or StackKeyUser payload.
func DecodeStackKeyRef(p []byte, ptr int) (Stack, error) {
	c := newCursor(p, ptr, "StackWalk key reference")
	var e Stack
	e.EventTimeStamp = int64(c.u64("EventTimeStamp"))
	e.ProcessID = c.u32("StackProcess")
	e.ThreadID = c.u32("StackThread")
	e.Key = c.pointer("StackKey")
	return e, c.err
}

// StackKey is a stack key's definition: KeyCreate (0x1822), KeyDelete
// (0x1823) or KeyRundown (0x1824).
type StackKey struct {
	Key    uint64
	Frames []uint64 // innermost first
}

// DecodeStackKey decodes a KeyCreate, KeyDelete or KeyRundown payload.
func DecodeStackKey(p []byte, ptr int) (StackKey, error) {
	e, raw, err := DecodeStackKeyHead(p, ptr)
	e.Frames = AppendFrames(nil, raw, ptr)
	return e, err
}

// DecodeStackKeyHead decodes a KeyCreate, KeyDelete or KeyRundown
// payload's key and returns its frames as they are stored (see
// DecodeStackHead).
func DecodeStackKeyHead(p []byte, ptr int) (StackKey, []byte, error) {
	c := newCursor(p, ptr, "StackWalk key")
	var e StackKey
	e.Key = c.pointer("StackKey")
	return e, c.rawPointers(), c.err
}

// ImageID is KernelTraceControl's ImageId event: an image's identity.
type ImageID struct {
	ImageBase        uint64
	ImageSize        uint64
	ProcessID        uint32
	TimeDateStamp    uint32
	OriginalFileName string
}

// DecodeImageID decodes an ImageId payload.
func DecodeImageID(p []byte, ptr int) (ImageID, error) {
	c := newCursor(p, ptr, "ImageId")
	var e ImageID
	e.ImageBase = c.pointer("ImageBase")
	e.ImageSize = c.pointer("ImageSize")
	e.ProcessID = c.u32("ProcessId")
	e.TimeDateStamp = c.u32("TimeDateStamp")
	e.OriginalFileName = c.utf16("OriginalFileName")
	return e, c.err
}

// DbgIDRSDS is KernelTraceControl's DbgID_RSDS event: the PDB an image's
// symbols are in.
type DbgIDRSDS struct {
	ImageBase   uint64
	ProcessID   uint32
	Signature   GUID
	Age         uint32
	PdbFileName string
}

// DecodeDbgIDRSDS decodes a DbgID_RSDS payload.
func DecodeDbgIDRSDS(p []byte, ptr int) (DbgIDRSDS, error) {
	c := newCursor(p, ptr, "DbgID_RSDS")
	var e DbgIDRSDS
	e.ImageBase = c.pointer("ImageBase")
	e.ProcessID = c.u32("ProcessId")
	e.Signature = c.guid("Signature")
	e.Age = c.u32("Age")
	e.PdbFileName = c.ansi("PdbFileName")
	return e, c.err
}

// Method is a CLR method event: MethodLoadVerbose (runtime provider),
// MethodDCStartVerbose or MethodDCEndVerbose (rundown provider).
type Method struct {
	MethodID     uint64
	ModuleID     uint64
	StartAddress uint64
	Size         uint32
	Token        uint32
	Flags        uint32
	Namespace    string // holds the type, such as System.DateTime
	Name         string
	Signature    string
}

// FullName is the method's name as PerfView gives it: Namespace.Name, or
// Name alone without a namespace.
func (m Method) FullName() string {
	if m.Namespace == "" {
		return m.Name
	}
	return m.Namespace + "." + m.Name
}

// DecodeMethod decodes a CLR method event's payload (fields are 64-bit
// whatever the pointer size).
func DecodeMethod(p []byte) (Method, error) {
	c := newCursor(p, 8, "CLR method")
	var e Method
	e.MethodID = c.u64("MethodID")
	e.ModuleID = c.u64("ModuleID")
	e.StartAddress = c.u64("MethodStartAddress")
	e.Size = c.u32("MethodSize")
	e.Token = c.u32("MethodToken")
	e.Flags = c.u32("MethodFlags")
	e.Namespace = c.utf16("MethodNamespace")
	e.Name = c.utf16("MethodName")
	e.Signature = c.utf16("MethodSignature")
	return e, c.err
}
