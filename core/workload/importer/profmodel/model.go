package profmodel

import (
	"context"
	"encoding/binary"
	"fmt"
	"strings"
	"unicode/utf8"
)

// Model is a profile on its way to a workload: images of functions with
// the source addresses seen in them, and processes of threads with their
// weighted stacks. A format fills it (Image, Func, Process, Thread, Add);
// Layout places it; Spec writes it. Make one with New.
type Model struct {
	images  []*Image
	imageBy map[string]*Image   // by the format's key (mapping, dso…)
	names   map[string]int      // image names given, for unique names
	renamed map[string][]string // a name given twice: the names made unique
	// renameAt is where the note on a name given twice sits in notes
	// (one note per name, rewritten as more images take it).
	renameAt map[string]int
	procs    []*Process
	procBy   map[string]*Process
	nfuncs   int
	notes    []string
	warns    []string // see Warn
	invalid  int      // names with bytes that are not UTF-8

	// ctx ends the import (a memory budget): Add stops adding once it
	// has ended, and stop holds why.
	ctx  context.Context
	adds int
	stop error
	// deep counts the stacks cut to MaxStackDepth frames (see Cut).
	deep int
	// budget is what the model may hold (0: no bound), held what it
	// holds so far (see Charge).
	budget, held int64
}

// Image is an image being built: an executable or library, or a
// source file of a source-level profiler, holding functions. Model.Image
// makes one.
type Image struct {
	order  int // position in Model.images: order of first appearance
	name   string
	kernel bool
	// start and limit are the source's mapping ([start, limit)), when
	// hasRange; otherwise the origin is the page below the lowest address.
	start, limit uint64
	hasRange     bool
	funcs        []*Func
	fnBy         map[string]*Func

	// Filled by Layout.
	origin uint64 // source address of offset 0
	extent uint64 // bytes from the image's base to its last function's end
	base   uint64 // the target machine's base address
}

// Func is a function being built, in its image. Model.Func makes one.
type Func struct {
	id   int
	name string
	img  *Image
	// code is the weight of the samples that ran this function's code:
	// its own where it was not inlined and that of the functions inlined
	// into it (what an address lookup charges to it).
	code float64
	// leafAt is code by source address (only addresses known).
	leafAt map[uint64]float64
	// lo and hi are the lowest and highest source address seen in the
	// function (any physical frame), when hasAddr.
	lo, hi  uint64
	hasAddr bool
	// physical says the function was a physical frame at least once (not
	// inlined into its caller): it has code, and addresses if the source
	// gave them. A function only ever inlined owns no address.
	physical bool
	// unsymbolized marks a function that is an address the source could
	// not name (image+0xOFFSET): not a function a linker placed, so its
	// start is its address, not aligned.
	unsymbolized bool
	// events are the per-event counts of the samples that ran this
	// function's code (see AddEvent).
	events map[string]float64
	// Rates from the events (0: the model's default).
	cpi, cacheMiss, cacheRef, branch, mispredict float64

	// Filled by Layout.
	offset, size uint64
	moved        bool              // placed in the image's synthetic area
	hot          map[uint64]uint64 // offset in the function of each leaf address
}

// Process is a process being built. Model.Process makes one.
type Process struct {
	name     string
	threads  []*Thread
	threadBy map[string]*Thread
}

// Thread is a thread being built: its stacks and weight. Process.Thread
// makes one.
type Thread struct {
	weight float64
	// share is the thread's busy share (0: 1, all the time runnable).
	share  float64
	stacks map[string]*stack
	order  []*stack
}

// stack is a distinct stack of a thread with its summed weight.
type stack struct {
	frames  []*Func // leaf first
	inlined []bool  // per frame, inlined into the next (nil: none is)
	weight  float64
}

// Frame is one frame of a sample (Add takes them leaf first).
type Frame struct {
	// Func is the frame's function.
	Func *Func
	// Inlined says the function is inlined into the next frame's: the
	// frame is a calling context, and its code is the next frame's.
	Inlined bool
	// Addr is the source address the frame executed, when HasAddr (an
	// inlined frame's address is its physical frame's, and is not read).
	Addr    uint64
	HasAddr bool
}

// physical is the index of the frame whose code runs: the innermost
// frame not inlined into the next (the last frame is never inlined).
func physical(frames []Frame) int {
	i := 0
	for i < len(frames)-1 && frames[i].Inlined {
		i++
	}
	return i
}

// New is an empty model. When ctx ends (a memory budget's watchdog,
// Ctrl-C), Add stops adding samples soon after, and Err says why.
func New(ctx context.Context) *Model {
	return &Model{imageBy: map[string]*Image{}, names: map[string]int{}, procBy: map[string]*Process{}, ctx: ctx}
}

// Image returns the image of key (the format's own: a mapping, a dso, a
// file), making it with name (made unique by a "#2", "#3"… suffix, with
// a note) the first time; kernel says it holds kernel code, which Layout
// places in the target's system space.
func (m *Model) Image(key, name string, kernel bool) *Image {
	if img := m.imageBy[key]; img != nil {
		return img
	}
	name = m.valid(name)
	unique := name
	if n := m.names[name]; n > 0 {
		unique = fmt.Sprintf("%s#%d", name, n+1)
		m.noteRename(name, unique)
	}
	m.names[name]++
	img := &Image{order: len(m.images), name: unique, kernel: kernel, fnBy: map[string]*Func{}}
	m.imageBy[key] = img
	m.images = append(m.images, img)
	return img
}

// noteRename keeps one note per image name given more than once (the
// same library in several processes, or several files of one name),
// at the place of its first rename, naming every suffixed image.
func (m *Model) noteRename(name, unique string) {
	if m.renamed == nil {
		m.renamed, m.renameAt = map[string][]string{}, map[string]int{}
	}
	m.renamed[name] = append(m.renamed[name], unique)
	others := m.renamed[name]
	var text string
	if len(others) == 1 {
		text = fmt.Sprintf("two images are named %q: the second is %q", name, unique)
	} else {
		text = fmt.Sprintf("%d images are named %q (the same file in several processes, or several files of that name): the others are %q", len(others)+1, name, others[0])
		for _, o := range others[1:] {
			text += fmt.Sprintf(", %q", o)
		}
	}
	if i, ok := m.renameAt[name]; ok {
		m.notes[i] = text
		return
	}
	m.renameAt[name] = len(m.notes)
	m.notes = append(m.notes, text)
}

// Func returns img's function of that name, making it the first time:
// two source functions of one name in one image are one function.
func (m *Model) Func(img *Image, name string) *Func {
	if f := img.fnBy[name]; f != nil {
		return f
	}
	valid := m.valid(name)
	if f := img.fnBy[valid]; f != nil && valid != name {
		// two names that differ only in bytes that are not UTF-8 are
		// one name once those bytes are U+FFFD: one function
		img.fnBy[name] = f
		return f
	}
	f := &Func{id: m.nfuncs, name: valid, img: img}
	m.nfuncs++
	img.fnBy[valid] = f
	img.fnBy[name] = f
	img.funcs = append(img.funcs, f)
	return f
}

// Process returns the process of key (the format's own), making it with
// name the first time.
func (m *Model) Process(key, name string) *Process {
	if p := m.procBy[key]; p != nil {
		return p
	}
	p := &Process{name: m.valid(name), threadBy: map[string]*Thread{}}
	m.procBy[key] = p
	m.procs = append(m.procs, p)
	return p
}

// Thread returns p's thread of key (the format's own), making it the
// first time.
func (p *Process) Thread(key string) *Thread {
	if t := p.threadBy[key]; t != nil {
		return t
	}
	t := &Thread{stacks: map[string]*stack{}}
	p.threadBy[key] = t
	p.threads = append(p.threads, t)
	return t
}

// See records that the function's code spans source address addr (a
// physical frame's address, which Add records itself; or the start of a
// function the format lays out, as DTrace's offsets are).
func (f *Func) See(addr uint64) {
	if !f.hasAddr {
		f.lo, f.hi, f.hasAddr = addr, addr, true
		return
	}
	f.lo, f.hi = min(f.lo, addr), max(f.hi, addr)
}

// Add records a sample of weight w with frames (leaf first) on t: its
// stack's weight (the leaf's own: pprof's flat), and the code weight
// and address of its physical frame (the leaf itself unless it is
// inlined). The outermost frame is never inlined. After ctx ended (see
// New), it adds nothing.
func (m *Model) Add(t *Thread, frames []Frame, w float64) {
	m.adds++
	if m.stop == nil {
		m.stop = Stopped(m.ctx, m.adds)
	}
	if m.stop != nil {
		return
	}
	frames[len(frames)-1].Inlined = false // the outermost has nothing to be inlined into
	var key []byte
	anyInlined := false
	for _, fr := range frames {
		id := uint64(fr.Func.id) << 1
		if fr.Inlined {
			id |= 1
			anyInlined = true
		} else {
			fr.Func.physical = true
			if fr.HasAddr {
				fr.Func.See(fr.Addr)
			}
		}
		key = binary.AppendUvarint(key, id)
	}
	code := frames[physical(frames)]
	code.Func.code += w
	if code.HasAddr {
		if code.Func.leafAt == nil {
			code.Func.leafAt = map[uint64]float64{}
		}
		code.Func.leafAt[code.Addr] += w
	}
	t.weight += w
	s := t.stacks[string(key)]
	if s == nil {
		if !m.Charge(StackBytes(len(frames))) {
			return
		}
		fs := make([]*Func, len(frames))
		for i, fr := range frames {
			fs[i] = fr.Func
		}
		s = &stack{frames: fs}
		if anyInlined {
			s.inlined = make([]bool, len(frames))
			for i, fr := range frames {
				s.inlined[i] = fr.Inlined
			}
		}
		t.stacks[string(key)] = s
		t.order = append(t.order, s)
	}
	s.weight += w
}

// LookupImage is the image of key, or nil when none was made.
func (m *Model) LookupImage(key string) *Image { return m.imageBy[key] }

// LookupProcess is the process of key, or nil when none was made.
func (m *Model) LookupProcess(key string) *Process { return m.procBy[key] }

// Threads are every process's threads, processes and threads in order
// of making.
func (m *Model) Threads() []*Thread {
	var out []*Thread
	for _, p := range m.procs {
		out = append(out, p.threads...)
	}
	return out
}

// Notes are the notes added, in order.
func (m *Model) Notes() []string { return m.notes }

// Warnings are the warnings added, in order.
func (m *Model) Warnings() []string { return m.warns }

// Err is why the model stopped adding samples (its context ended, see
// New), or nil.
func (m *Model) Err() error { return m.stop }

// Name is the image's name (unique in its model; in a workload, the
// image's name).
func (img *Image) Name() string { return img.name }

// Kernel says whether the image is kernel code.
func (img *Image) Kernel() bool { return img.kernel }

// SetMapping gives the image the source's mapping [start, limit) (its
// addresses are the source's), unless it has one already: Layout takes
// its start for the image's origin, where its addresses allow.
func (img *Image) SetMapping(start, limit uint64) {
	if img.hasRange {
		return
	}
	img.start, img.limit, img.hasRange = start, limit, true
}

// Lookup is the image's function of that name, or nil when none was
// made.
func (img *Image) Lookup(name string) *Func { return img.fnBy[name] }

// Name is the function's name (unique in its image).
func (f *Func) Name() string { return f.name }

// Image is the function's image.
func (f *Func) Image() *Image { return f.img }

// MarkUnsymbolized marks the function as an address the source could not
// name (image+0xOFFSET, or AddressName's): not a function a linker
// placed, so Layout starts it at its address, not aligned.
func (f *Func) MarkUnsymbolized() { f.unsymbolized = true }

// AddCodeAt records that w of the function's code weight (added by the
// samples' stacks, whose frames then have no address) ran at source
// address addr: for a source that gives costs by address apart from its
// stacks (callgrind's instructions).
func (f *Func) AddCodeAt(addr uint64, w float64) {
	f.See(addr)
	if f.leafAt == nil {
		f.leafAt = map[uint64]float64{}
	}
	f.leafAt[addr] += w
}

// Weight is the thread's summed sample weight.
func (t *Thread) Weight() float64 { return t.weight }

// SetBusy sets the thread's busy share: the part of the time it ran
// (outside (0, 1], the workload says 1, as for a thread never set).
func (t *Thread) SetBusy(share float64) { t.share = share }

// Warn adds a warning: the source may not say where the program ran (it
// measured memory, waiting, cache misses…). The importer shows them
// apart from the notes.
func (m *Model) Warn(format string, args ...any) {
	m.warns = append(m.warns, fmt.Sprintf(format, args...))
}

// Note adds a note for people: what the import left out or changed.
func (m *Model) Note(format string, args ...any) {
	m.notes = append(m.notes, fmt.Sprintf(format, args...))
}

// busy is the thread's busy share for the workload (1 when not set).
func (t *Thread) busy() float64 {
	if t.share <= 0 || t.share > 1 {
		return 1
	}
	return t.share
}

// valid is s with bytes that are not UTF-8 replaced by U+FFFD (TOML text
// is UTF-8); the notes count the names changed.
func (m *Model) valid(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	m.invalid++
	return strings.ToValidUTF8(s, "\uFFFD")
}

// Stopped is the cause of ctx's end (nil while it goes on), looked at on
// every 4096th call (n counts the calls): Add and the formats' loops over
// a profile's lines and samples call it, so that an import stops soon
// after its memory budget's watchdog or Ctrl-C ends ctx.
func Stopped(ctx context.Context, n int) error {
	if n%4096 != 0 || ctx.Err() == nil {
		return nil
	}
	return context.Cause(ctx)
}
