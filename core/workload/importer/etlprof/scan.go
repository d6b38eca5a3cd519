package etlprof

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path"
	"strings"

	"github.com/proflab/proflab/core/etl"
	"github.com/proflab/proflab/core/workload/importer/profmodel"
)

// trace is what one pass over a file's records keeps: the header, the
// samples, and what names them (threads, processes, images, methods,
// stacks), each event with its time so that a sample finds what was true
// when it was taken.
type trace struct {
	hdr        etl.LogfileHeader
	ptr        int
	buffers    int
	compressed int

	samples []sample
	// stacks are the stack events to join to samples after the pass:
	// plain Stack events and stack key references.
	stacks []stackRef
	// keyDefs are the stack keys' definitions by key, in file order.
	keyDefs map[uint64][]keyDef
	// frames interns the frame lists of stacks and keys (id+1 in refs)
	// as the file stores them (PointerSize bytes a frame): each list is
	// kept once, and decoded when a sample's stack is built.
	frames  []string
	frameBy map[string]uint32

	threads   map[uint32][]timed[uint32] // tid → its pid over time
	processes map[uint32][]timed[string] // pid → its name over time
	images    map[uint32][]image         // pid → its images (kernel: pid 0)
	imageIDs  map[[2]uint64]etl.ImageID  // (pid, base) → identity
	rsds      map[[2]uint64]etl.DbgIDRSDS
	methods   map[uint32][]method // pid → JIT-compiled methods
	intervals map[uint16][]timed[uint32]
	srcNames  map[uint16]string

	// skipped counts the records not used, by kind, and bad the records
	// whose payload could not be read (named only for the notes).
	skipped  map[kind]int
	bad      map[kind]int
	firstBad string
}

// timed is a value from an event at a time.
type timed[T any] struct {
	t int64
	v T
}

// sample is a profile interrupt.
type sample struct {
	t      int64
	ip     uint64
	tid    uint32
	source uint16
	flags  uint8
	pmc    bool
	// kernel and user are the interned frames (id+1, 0: none) of the
	// stack's kernel part and user part.
	kernel, user uint32
}

// stackRef is a stack event to join to its sample: a plain Stack (frames)
// or a key reference (key, kernel or user).
type stackRef struct {
	t, eventTime int64
	tid          uint32
	frames       uint32 // plain: interned id+1
	key          uint64
	hook         etl.Hook
}

// keyDef is a stack key's definition: KeyCreate, KeyDelete or KeyRundown.
type keyDef struct {
	t      int64
	frames uint32 // interned id+1
	create bool
}

// image is a loaded image.
type image struct {
	t          int64
	base, size uint64
	name       string // base name of the path
	path       string
	stamp      uint32
	key        string // the model's image key (the namer sets it)
}

// method is a JIT-compiled .NET method's code.
type method struct {
	t           int64
	start, size uint64
	name        string
}

func newTrace() *trace {
	return &trace{
		keyDefs: map[uint64][]keyDef{}, frameBy: map[string]uint32{},
		threads: map[uint32][]timed[uint32]{}, processes: map[uint32][]timed[string]{},
		images: map[uint32][]image{}, imageIDs: map[[2]uint64]etl.ImageID{}, rsds: map[[2]uint64]etl.DbgIDRSDS{},
		methods: map[uint32][]method{}, intervals: map[uint16][]timed[uint32]{}, srcNames: map[uint16]string{},
		skipped: map[kind]int{}, bad: map[kind]int{},
	}
}

// scan reads every record of the file src into a trace. Its errors name
// the buffer and offset of damage.
func scan(ctx context.Context, src io.Reader) (*trace, error) {
	r := etl.NewReader(src)
	hdr, _, err := r.ReadHeader()
	if err != nil {
		return nil, err
	}
	tr := newTrace()
	tr.hdr, tr.ptr = hdr, int(hdr.PointerSize)
	for n := 1; ; n++ {
		if err := profmodel.Stopped(ctx, n); err != nil {
			return nil, err
		}
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		tr.record(&rec)
	}
	tr.buffers, tr.compressed = r.Buffers(), r.CompressedBuffers()
	return tr, nil
}

// record keeps what rec says, or counts it as skipped.
func (tr *trace) record(rec *etl.Record) {
	var err error
	if rec.Kernel() {
		err = tr.kernel(rec)
	} else {
		err = tr.provider(rec)
	}
	if err != nil {
		tr.bad[kindOf(rec, true)]++
		if tr.firstBad == "" {
			tr.firstBad = fmt.Sprintf("buffer %d, offset %#x: %v", rec.Buffer, rec.Offset, err)
		}
	}
}

// kind is what the notes count records by: a kernel hook, or a provider's
// events (of one event id or opcode, for the records that could not be
// read), named only when a note is written.
type kind struct {
	kernel   bool
	hook     etl.Hook
	provider etl.GUID
	header   etl.HeaderType
	event    uint16
	exact    bool // the event is part of the kind
}

// kindOf is a record's kind; exact keeps its event id or opcode.
func kindOf(rec *etl.Record, exact bool) kind {
	if rec.Kernel() {
		return kind{kernel: true, hook: rec.Hook}
	}
	k := kind{provider: rec.Provider, header: rec.Kind, exact: exact}
	if exact {
		k.event = rec.EventID | uint16(rec.Opcode)
	}
	return k
}

// String names the kind as the notes show it.
func (k kind) String() string {
	switch {
	case k.kernel:
		return "kernel " + k.hook.String()
	case k.exact:
		return fmt.Sprintf("provider %s event %d", k.provider, k.event)
	}
	switch k.provider {
	case etl.CLRRuntime:
		return "CLR runtime events (other than MethodLoadVerbose)"
	case etl.CLRRundown:
		return "CLR rundown events (other than the methods' DCStart/DCEnd)"
	case etl.KernelTraceControl:
		return "KernelTraceControl events (other than ImageId and DbgID_RSDS)"
	}
	return fmt.Sprintf("%s events of provider %s", k.header, k.provider)
}

// kernel keeps a kernel event.
func (tr *trace) kernel(rec *etl.Record) error {
	p, ptr := rec.Payload, tr.ptr
	switch rec.Hook {
	case etl.HookSampledProfile, etl.HookPmcInterrupt:
		var s etl.Sample
		var err error
		pmc := rec.Hook == etl.HookPmcInterrupt
		if pmc {
			s, err = etl.DecodePmcSample(p, ptr)
		} else {
			s, err = etl.DecodeSampledProfile(p, ptr)
		}
		if err != nil {
			return err
		}
		tr.samples = append(tr.samples, sample{t: rec.Time, ip: s.IP, tid: s.ThreadID, source: s.Source, flags: s.Flags, pmc: pmc})
	case etl.HookSetInterval, etl.HookCollectionStart, etl.HookCollectionEnd:
		iv, err := etl.DecodeInterval(p, ptr)
		if err != nil {
			return err
		}
		src := uint16(iv.Source)
		tr.intervals[src] = append(tr.intervals[src], timed[uint32]{rec.Time, iv.NewInterval})
		if iv.SourceName != "" {
			tr.srcNames[src] = iv.SourceName
		}
	case etl.HookStackWalk:
		st, raw, err := etl.DecodeStackHead(p, ptr)
		if err != nil {
			return err
		}
		tr.stacks = append(tr.stacks, stackRef{t: rec.Time, eventTime: st.EventTimeStamp, tid: st.ThreadID, frames: tr.intern(raw), hook: rec.Hook})
	case etl.HookStackKeyKernel, etl.HookStackKeyUser:
		st, err := etl.DecodeStackKeyRef(p, ptr)
		if err != nil {
			return err
		}
		tr.stacks = append(tr.stacks, stackRef{t: rec.Time, eventTime: st.EventTimeStamp, tid: st.ThreadID, key: st.Key, hook: rec.Hook})
	case etl.HookStackKeyCreate, etl.HookStackKeyDelete, etl.HookStackRundown:
		k, raw, err := etl.DecodeStackKeyHead(p, ptr)
		if err != nil {
			return err
		}
		tr.keyDefs[k.Key] = append(tr.keyDefs[k.Key], keyDef{t: rec.Time, frames: tr.intern(raw), create: rec.Hook == etl.HookStackKeyCreate})
	case etl.HookProcessStart, etl.HookProcessEnd, etl.HookProcessDCStart, etl.HookProcessDCEnd:
		pr, err := etl.DecodeProcess(p, ptr, rec.Version)
		if err != nil {
			return err
		}
		tr.processes[pr.ProcessID] = append(tr.processes[pr.ProcessID], timed[string]{rec.Time, pr.ImageFileName})
	case etl.HookThreadStart, etl.HookThreadEnd, etl.HookThreadDCStart, etl.HookThreadDCEnd:
		th, err := etl.DecodeThread(p, ptr)
		if err != nil {
			return err
		}
		tr.threads[th.ThreadID] = append(tr.threads[th.ThreadID], timed[uint32]{rec.Time, th.ProcessID})
	case etl.HookImageLoad, etl.HookImageDCStart, etl.HookImageDCEnd, etl.HookImageUnload:
		im, err := etl.DecodeImage(p, ptr, rec.Version)
		if err != nil {
			return err
		}
		tr.addImage(im, rec.Time)
	case etl.HookHeader, etl.HookHeaderExtension, etl.HookRundownComplete, etl.HookPartitionInfo:
		// the header is read; its extensions say nothing a workload uses
	default:
		tr.skipped[kindOf(rec, false)]++
	}
	return nil
}

// provider keeps an event of a provider (KernelTraceControl's image
// identities, the CLR's methods).
func (tr *trace) provider(rec *etl.Record) error {
	switch {
	case rec.Provider == etl.KernelTraceControl && rec.Opcode == etl.TypeImageID && rec.Version == etl.VersionImageID:
		id, err := etl.DecodeImageID(rec.Payload, tr.ptr)
		if err != nil {
			return err
		}
		tr.imageIDs[[2]uint64{uint64(id.ProcessID), id.ImageBase}] = id
	case rec.Provider == etl.KernelTraceControl && rec.Opcode == etl.TypeDbgIDRSDS:
		d, err := etl.DecodeDbgIDRSDS(rec.Payload, tr.ptr)
		if err != nil {
			return err
		}
		tr.rsds[[2]uint64{uint64(d.ProcessID), d.ImageBase}] = d
	case isMethodEvent(rec):
		m, err := etl.DecodeMethod(rec.Payload)
		if err != nil {
			return err
		}
		tr.methods[rec.ProcessID] = append(tr.methods[rec.ProcessID], method{t: rec.Time, start: m.StartAddress, size: uint64(m.Size), name: m.FullName()})
	default:
		tr.skipped[kindOf(rec, false)]++
	}
	return nil
}

// isMethodEvent says whether rec is a CLR method event with a code range:
// MethodLoadVerbose, MethodDCStartVerbose or MethodDCEndVerbose.
func isMethodEvent(rec *etl.Record) bool {
	if rec.Kind != etl.HeaderEvent32 && rec.Kind != etl.HeaderEvent64 {
		return false
	}
	switch rec.Provider {
	case etl.CLRRuntime:
		return rec.EventID == etl.EventMethodLoadVerbose
	case etl.CLRRundown:
		return rec.EventID == etl.EventMethodDCStartVerbose || rec.EventID == etl.EventMethodDCEndVerbose
	}
	return false
}

// addImage keeps an image event: one image per (process, base, size,
// path), the first event's time.
func (tr *trace) addImage(im etl.Image, t int64) {
	list := tr.images[im.ProcessID]
	for _, old := range list {
		if old.base == im.ImageBase && old.size == im.ImageSize && old.path == im.FileName {
			return
		}
	}
	tr.images[im.ProcessID] = append(list, image{t: t, base: im.ImageBase, size: im.ImageSize, name: baseName(im.FileName), path: im.FileName, stamp: im.TimeDateStamp})
}

// baseName is the file name of an NT or DOS path.
func baseName(p string) string {
	p = strings.ReplaceAll(p, "\\", "/")
	b := path.Base(p)
	if b == "." || b == "/" {
		return p
	}
	return b
}

// intern is the id+1 of a frame list as the file stores it, kept once.
func (tr *trace) intern(raw []byte) uint32 {
	if id, ok := tr.frameBy[string(raw)]; ok {
		return id
	}
	key := string(raw)
	tr.frames = append(tr.frames, key)
	id := uint32(len(tr.frames))
	tr.frameBy[key] = id
	return id
}

// framesOf appends the frames of an interned list (id+1) to dst: the
// stored bytes read in place, little-endian, PointerSize bytes a frame.
func (tr *trace) framesOf(dst []uint64, id uint32) []uint64 {
	raw := tr.frames[id-1]
	for i := 0; i+tr.ptr <= len(raw); i += tr.ptr {
		var v uint64
		for k := tr.ptr - 1; k >= 0; k-- {
			v = v<<8 | uint64(raw[i+k])
		}
		dst = append(dst, v)
	}
	return dst
}
