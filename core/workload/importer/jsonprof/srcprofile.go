package jsonprof

import (
	"encoding/binary"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/proflab/proflab/core/workload/importer/profmodel"
	"github.com/proflab/proflab/core/workload/importer/profread"
)

// The source-level profilers (V8's, speedscope's exporters, Firefox's
// profiler, stackprof) name functions by source file and name, without
// addresses. A srcBuilder turns their weighted stacks into the model:
// one image per source file (the script's URL, the Ruby or Python file),
// named by the file's base name; functions named as the tool shows them
// (told apart by their line where two functions of one file share a
// name); the synthetic layout (profmodel.Model.Layout) for every function.

// NoFileImage holds the functions of a source-level profile that name no
// file (labels, pseudo-frames such as stackprof's "(garbage
// collection)").
const NoFileImage = "(no file)"

// srcFunc identifies a function of a source-level profile.
type srcFunc struct {
	// img is the image's key (the file's full path or URL).
	img string
	// name is the function's name as the tool shows it.
	name string
	// line and col are where the function starts (1-based; 0: unknown):
	// two functions of one file with one name are told apart by them.
	line, col int
}

// srcFrame is a frame of a stack: a function (srcFunc id) and, where
// the source has one (a native frame of a Firefox profile), the address
// it executed and whether it is inlined into the next frame.
type srcFrame struct {
	fn      int
	addr    uint64
	hasAddr bool
	inlined bool
}

// srcBuilder collects a source-level profile's weighted stacks by thread
// and writes them into the model once every function is known (names
// that two functions share need the whole profile).
type srcBuilder struct {
	m       *profmodel.Model
	funcs   []srcFunc
	funcBy  map[srcFunc]int
	imgName map[string]string
	ranges  map[string][2]uint64 // images' mappings [start, limit), by key
	threads []*srcThread
	buf     []srcFrame
	// lo and hi are the wall time the profile covers (when covered), in
	// the weight's unit: the threads' busy shares are their weights over
	// hi − lo.
	lo, hi  float64
	covered bool
	key     []byte
}

// srcThread is a thread of a source-level profile.
type srcThread struct {
	procKey, procName, key string
	stacks                 []srcStack
	byKey                  map[string]int
	weight                 float64
}

// srcFrameBytes is what a frame of a stack's copy holds (a srcFrame).
const srcFrameBytes = 24

// srcStack is a distinct stack (leaf first) and its weight.
type srcStack struct {
	frames []srcFrame
	weight float64
}

func newSrcBuilder(m *profmodel.Model) *srcBuilder {
	return &srcBuilder{m: m, funcBy: map[srcFunc]int{}, imgName: map[string]string{}, ranges: map[string][2]uint64{}}
}

// image declares the image of key and its name (the first name given
// for a key is kept).
func (b *srcBuilder) image(key, name string) {
	if _, ok := b.imgName[key]; !ok {
		b.imgName[key] = name
	}
}

// mapping gives the image of key the source's mapping [start, limit)
// (its addresses are the process's).
func (b *srcBuilder) mapping(key string, start, limit uint64) {
	b.ranges[key] = [2]uint64{start, limit}
}

// fileImage declares and returns the image key of a source file or URL
// ("" is NoFileImage).
func (b *srcBuilder) fileImage(file string) string {
	if file == "" {
		b.image("", NoFileImage)
		return ""
	}
	b.image(file, sourceImageName(file))
	return file
}

// cover extends the wall time the profile covers to [lo, hi] (times of
// one clock, in the weight's unit).
func (b *srcBuilder) cover(lo, hi float64) {
	if !b.covered {
		b.lo, b.hi, b.covered = lo, hi, true
		return
	}
	b.lo, b.hi = min(b.lo, lo), max(b.hi, hi)
}

// fn is the id of a function (registered the first time).
func (b *srcBuilder) fn(f srcFunc) int {
	if id, ok := b.funcBy[f]; ok {
		return id
	}
	id := len(b.funcs)
	b.funcs = append(b.funcs, f)
	b.funcBy[f] = id
	return id
}

// thread is the thread of key in the process of procKey (made with
// procName the first time).
func (b *srcBuilder) thread(procKey, procName, key string) *srcThread {
	for _, t := range b.threads {
		if t.procKey == procKey && t.key == key {
			return t
		}
	}
	t := &srcThread{procKey: procKey, procName: procName, key: key, byKey: map[string]int{}}
	b.threads = append(b.threads, t)
	return t
}

// add adds weight w to t's stack of frames (srcFunc ids, leaf first).
func (b *srcBuilder) add(t *srcThread, frames []int, w float64) {
	b.buf = b.buf[:0]
	for _, f := range frames {
		b.buf = append(b.buf, srcFrame{fn: f})
	}
	b.addFrames(t, b.buf, w)
}

// addFrames adds weight w to t's stack of frames (leaf first): its
// innermost profmodel.MaxStackDepth, when it is deeper (the model
// counts it for a warning).
func (b *srcBuilder) addFrames(t *srcThread, frames []srcFrame, w float64) {
	if profmodel.Deeper(len(frames)) {
		frames = frames[:b.m.Cut(len(frames), func(i int) bool { return frames[i].inlined })]
	}
	b.key = b.key[:0]
	for _, f := range frames {
		b.key = binary.AppendUvarint(b.key, uint64(f.fn))
		if f.hasAddr {
			b.key = binary.AppendUvarint(b.key, f.addr+1)
		} else {
			b.key = append(b.key, 0)
		}
		if f.inlined {
			b.key = append(b.key, 1)
		} else {
			b.key = append(b.key, 0)
		}
	}
	i, ok := t.byKey[string(b.key)]
	if !ok {
		// the copy and its key, counted against the memory budget
		if !b.m.Charge(int64(len(frames))*srcFrameBytes + int64(len(b.key)) + 128) {
			return
		}
		i = len(t.stacks)
		t.stacks = append(t.stacks, srcStack{frames: slices.Clone(frames)})
		t.byKey[string(b.key)] = i
	}
	t.stacks[i].weight += w
	t.weight += w
}

// finish writes the stacks into the model: images and functions made in
// order of first appearance (threads in order, each stack read root
// first), names told apart where two functions of one image share one,
// every thread's stacks, and its busy share: its weight over the wall
// time the profile covers (clamped to 1; 1 when not covered). Weights
// too large to add up (absurd times in a damaged file) are an error.
func (b *srcBuilder) finish(r *profread.Reading) error {
	for _, t := range b.threads {
		if math.IsInf(t.weight, 0) || math.IsNaN(t.weight) {
			return r.Errorf("the samples' weights add up past what a float64 holds: the file's times or weights are absurd (damaged?)")
		}
	}
	var used []int // functions in order of first appearance
	seen := make([]bool, len(b.funcs))
	for _, t := range b.threads {
		for _, s := range t.stacks {
			for i := len(s.frames) - 1; i >= 0; i-- {
				if f := s.frames[i].fn; !seen[f] {
					seen[f] = true
					used = append(used, f)
				}
			}
		}
	}
	names := b.names(used)
	fns := make([]*profmodel.Func, len(b.funcs))
	for _, id := range used {
		f := b.funcs[id]
		img := b.m.Image(f.img, b.imgName[f.img], false)
		if r, ok := b.ranges[f.img]; ok {
			img.SetMapping(r[0], r[1])
		}
		fns[id] = b.m.Func(img, names[id])
	}
	var frames []profmodel.Frame
	for _, t := range b.threads {
		if len(t.stacks) == 0 {
			continue
		}
		th := b.m.Process(t.procKey, t.procName).Thread(t.key)
		for _, s := range t.stacks {
			if s.weight <= 0 {
				continue
			}
			frames = frames[:0]
			for _, sf := range s.frames {
				frames = append(frames, profmodel.Frame{Func: fns[sf.fn], Addr: sf.addr, HasAddr: sf.hasAddr, Inlined: sf.inlined})
			}
			b.m.Add(th, frames, s.weight)
		}
		if span := b.hi - b.lo; b.covered && span > 0 && !math.IsInf(span, 0) {
			th.SetBusy(min(1, th.Weight()/span))
		}
	}
	return nil
}

// names are the functions' names in their images: the tool's name, and
// where several functions of one image share it, the name followed by
// where each starts ("(anonymous) (12:5)", "block in run (40)"); a name
// still taken gets " #2", " #3"….
func (b *srcBuilder) names(used []int) map[int]string {
	type imgName struct{ img, name string }
	count := map[imgName]int{}
	for _, id := range used {
		f := b.funcs[id]
		count[imgName{f.img, f.name}]++
	}
	taken := map[imgName]bool{}
	out := make(map[int]string, len(used))
	for _, id := range used {
		f := b.funcs[id]
		n := f.name
		if count[imgName{f.img, f.name}] > 1 && f.line > 0 {
			if f.col > 0 {
				n = fmt.Sprintf("%s (%d:%d)", n, f.line, f.col)
			} else {
				n = fmt.Sprintf("%s (%d)", n, f.line)
			}
		}
		base := n
		for k := 2; taken[imgName{f.img, n}]; k++ {
			n = fmt.Sprintf("%s #%d", base, k)
		}
		taken[imgName{f.img, n}] = true
		out[id] = n
	}
	return out
}

// sourceImageName is the image name of a source file or script URL: its
// last path element ("https://example.com/js/app.js?v=2" → "app.js",
// "/srv/app/models/user.rb" → "user.rb", `C:\app\main.py` → "main.py");
// a module name without a path ("node:fs", "node:internal/timers") is
// kept whole, as is a URL without a file name.
func sourceImageName(file string) string {
	s := file
	if i := strings.Index(s, "://"); i >= 0 {
		rest := s[i+3:]
		if j := strings.IndexAny(rest, "?#"); j >= 0 {
			rest = rest[:j]
		}
		if j := strings.LastIndexByte(rest, '/'); j >= 0 && j+1 < len(rest) {
			return rest[j+1:]
		}
		return file
	}
	if strings.HasPrefix(s, "node:") {
		return s
	}
	if j := strings.LastIndexAny(s, `/\`); j >= 0 && j+1 < len(s) {
		return s[j+1:]
	}
	return file
}

// keepProcesses applies --process to a profile whose processes have
// names: the processes of that name are kept, and none is an error
// listing the names the file has.
func keepProcesses(r *profread.Reading, names []string) (keep func(name string) bool, err error) {
	if r.Options.Process == "" {
		return func(string) bool { return true }, nil
	}
	for _, n := range names {
		if n == r.Options.Process {
			return func(name string) bool { return name == r.Options.Process }, nil
		}
	}
	list := slices.Clone(names)
	slices.Sort(list)
	list = slices.Compact(list)
	return nil, r.Errorf("--process %s: no process of that name; the file has %s", r.Options.Process, strings.Join(list, ", "))
}

// uniqueProcessNames makes process names unique: a name given to
// several processes becomes "name#id" after its first process (as perf
// processes are named).
type uniqueProcessNames map[string]bool

// name is the unique name of the process of id.
func (u uniqueProcessNames) name(name, id string) string {
	if u[name] {
		name = name + "#" + id
	}
	u[name] = true
	return name
}

// srcIdle says whether a source-level profile's leaf frame is idle time:
// V8's "(idle)", or one of [IdleFunctions].
func srcIdle(name string) bool { return name == "(idle)" || profmodel.IsIdle(name) }
