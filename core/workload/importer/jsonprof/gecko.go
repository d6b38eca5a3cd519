package jsonprof

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/proflab/proflab/core/workload/importer/profmodel"
	"github.com/proflab/proflab/core/workload/importer/profread"
)

// GeckoUnknownImage holds the frames of a Firefox profile at addresses
// that no library listed holds (JIT code): functions named by their
// address, in the synthetic layout.
const GeckoUnknownImage = "[unknown]"

// Gecko reads Firefox profiles, in the forms found in the wild:
//
//   - the Gecko format the browser writes (about:profiling, the Gecko
//     profiler's MOZ_PROFILER_SHUTDOWN file; meta.version): threads whose
//     tables (samples, stackTable, frameTable) have a schema and rows
//     of data, a stringTable per thread, libs with their address ranges,
//     and the child processes' profiles in "processes";
//   - the processed format (meta.preprocessedProfileVersion: "Save as
//     file" / upload in profiler.firefox.com): column tables (samples
//     with stack and time or timeDeltas, weight and weightType;
//     stackTable, frameTable, funcTable, resourceTable), strings in each
//     thread's stringArray (older: stringTable), or in shared.stringArray
//     (version 56 and later), libs per profile (41 and later) or per
//     thread, and from version 60 the stack, frame, function and
//     resource tables shared by the threads in "shared";
//   - Firefox DevTools' old performance panel export, a Gecko profile
//     under "profile" (rows without schema).
//
// Weight is time in milliseconds: a sample weighs its weight (1 when the
// profile has none) times meta.interval; "tracing-ms" weights are
// milliseconds themselves; "bytes" weights are taken with a warning.
// Names are the Firefox Profiler's: the function's name (processed), or
// the frame's location (Gecko format) parsed as the profiler parses it:
// "name (url:line:col)" is a JavaScript function of that script (an
// unnamed one "(root scope) url"), "name (in lib)" a native function of
// that library, "0x…" an unsymbolicated address of the library whose
// range holds it, named lib+0xOFFSET as perf's are, anything else a
// label ("(root)", "Startup::XRE_Main"). Each script and each library is
// an image (JavaScript by the script's file name, libraries by name);
// labels are in NoFileImage. Native frames keep their addresses
// (absolute in the Gecko format, library-relative in the processed
// one), laid out as perf's are; a processed profile's inlined frames
// (inlineDepth above 0) are inlined into the frame after them, the
// address the physical frame's; the rest take the synthetic layout.
//
// A process per pid, named by its threads' processName (else
// processType, else "pid N"; "Web Content#PID" when several share it);
// a thread per thread with samples, busy for its samples' time over
// the profile's wall span (from the earliest sample of any thread to the
// end of the latest, each process's start time taken into account). Samples whose stack's category is "Idle"
// (the profiler's mark of a sleeping thread) are idle: kept by default
// (a note gives their share), dropped by --drop-idle. --process keeps
// the processes of that name.
var Gecko = &profread.Format{
	Name:  "gecko",
	About: "Firefox Profiler JSON: the Gecko format the browser writes and the processed format profiler.firefox.com saves",
	Detect: func(c *profread.Content) (any, bool) {
		j := c.JSON()
		return nil, j.Has("meta", '{') && j.Has("threads", '[') || j.Has("profile", '{') && (j.Has("systemHost", '{') || j.Has("duration", '0'))
	},
	Read: readGecko,
}

// geckoFile is a Firefox profile (or a child process's profile).
type geckoFile struct {
	Meta struct {
		Version                    *float64 `json:"version"`
		PreprocessedProfileVersion *float64 `json:"preprocessedProfileVersion"`
		Interval                   float64  `json:"interval"`
		StartTime                  float64  `json:"startTime"`
		Categories                 []struct {
			Name string `json:"name"`
		} `json:"categories"`
	} `json:"meta"`
	Libs      []geckoLib        `json:"libs"`
	Threads   []json.RawMessage `json:"threads"`
	Processes []geckoFile       `json:"processes"`
	// Shared holds what the threads share: strings (processed version 56
	// on), sources (58 on), and the stack, frame, function and resource
	// tables (60 on).
	Shared struct {
		StringArray   []string   `json:"stringArray"`
		Sources       geckoTable `json:"sources"`
		StackTable    geckoTable `json:"stackTable"`
		FrameTable    geckoTable `json:"frameTable"`
		FuncTable     geckoTable `json:"funcTable"`
		ResourceTable geckoTable `json:"resourceTable"`
	} `json:"shared"`
	// Profile is the Gecko profile of Firefox DevTools' old export.
	Profile *geckoFile `json:"profile"`
}

// geckoLib is a library mapped into a process.
type geckoLib struct {
	Start flexUint `json:"start"`
	End   flexUint `json:"end"`
	Name  string   `json:"name"`
	Path  string   `json:"path"`
}

// geckoThread is a thread of either form.
type geckoThread struct {
	Name          string              `json:"name"`
	ProcessName   string              `json:"processName"`
	ProcessType   string              `json:"processType"`
	Pid           profread.FlexString `json:"pid"`
	Tid           profread.FlexString `json:"tid"`
	Samples       geckoTable          `json:"samples"`
	StackTable    geckoTable          `json:"stackTable"`
	FrameTable    geckoTable          `json:"frameTable"`
	FuncTable     geckoTable          `json:"funcTable"`
	ResourceTable geckoTable          `json:"resourceTable"`
	StringTable   geckoStrings        `json:"stringTable"`
	StringArray   []string            `json:"stringArray"`
	Libs          []geckoLib          `json:"libs"`
}

// geckoReader reads a Firefox profile's threads into a srcBuilder.
type geckoReader struct {
	r        *profread.Reading
	b        *srcBuilder
	keep     func(string) bool
	unique   uniqueProcessNames
	procName map[string]string
	st       geckoStats
}

// geckoStats are what reading the threads counted.
type geckoStats struct {
	samples, idle, idleKept, noStack, zero int64
	outside                                int64 // frames at addresses in no library
	bytes, tracing                         bool
	interval                               float64
	threads                                int
}

// readGecko reads a Firefox profile.
func readGecko(r *profread.Reading) error {
	var f geckoFile
	if err := r.DecodeJSON(r.Data, &f, "Firefox profile"); err != nil {
		return err
	}
	if f.Profile != nil && f.Threads == nil {
		f = *f.Profile
	}
	gr := &geckoReader{r: r, b: newSrcBuilder(r.Model), unique: uniqueProcessNames{}, procName: map[string]string{}}
	var names []string
	var threads []geckoPart
	if err := gr.collect(&f, &f, "", &threads, &names); err != nil {
		return err
	}
	keep, err := keepProcesses(r, names)
	if err != nil {
		return err
	}
	gr.keep = keep
	for _, p := range threads {
		if err := gr.thread(p); err != nil {
			return err
		}
	}
	if gr.st.samples == 0 {
		return r.Errorf("no sample is left to import (%d threads read; %d idle samples dropped, %d samples without a stack)", gr.st.threads, gr.st.idle, gr.st.noStack)
	}
	if err := gr.b.finish(r); err != nil {
		return err
	}
	gr.notes()
	return nil
}

// geckoPart is a thread to read with the profile it belongs to.
type geckoPart struct {
	top, prof *geckoFile
	t         *geckoThread
	index     string // "threads[2]", "processes[1].threads[0]"
}

// collect decodes the threads of prof (at the path at of the file) and
// of its child processes, with their processes' names.
func (gr *geckoReader) collect(top, prof *geckoFile, at string, out *[]geckoPart, names *[]string) error {
	for i, raw := range prof.Threads {
		where := fmt.Sprintf("%sthreads[%d]", at, i)
		if len(raw) > 0 && raw[0] == '"' {
			return gr.r.Errorf("%s is a string (a Gecko profile older than the importer reads): open the file in profiler.firefox.com and save it there (the processed format), then import that", where)
		}
		t := new(geckoThread)
		if err := json.Unmarshal(raw, t); err != nil {
			return gr.r.Errorf("%s cannot be read: %v", where, err)
		}
		*out = append(*out, geckoPart{top: top, prof: prof, t: t, index: where})
		*names = append(*names, geckoProcessName(t))
	}
	for i := range prof.Processes {
		if err := gr.collect(top, &prof.Processes[i], fmt.Sprintf("%sprocesses[%d].", at, i), out, names); err != nil {
			return err
		}
	}
	return nil
}

// geckoProcessName is the name of a thread's process.
func geckoProcessName(t *geckoThread) string {
	switch {
	case t.ProcessName != "":
		return t.ProcessName
	case t.ProcessType != "" && t.ProcessType != "default":
		return t.ProcessType
	case t.Pid != "":
		return "pid " + string(t.Pid)
	}
	return "firefox"
}

// geckoFrame is what a frame of a thread resolves to.
type geckoFrame struct {
	fn      int
	addr    uint64
	hasAddr bool
	cat     int // category (-1: none)
	lib     int // the library of an address (-1: none)
	// inlined says the frame is inlined into the next one (a processed
	// profile's inlineDepth above 0): the address is the physical one's.
	inlined bool
}

// thread reads one thread's samples.
func (gr *geckoReader) thread(p geckoPart) error {
	r, t := gr.r, p.t
	pname := geckoProcessName(t)
	if !gr.keep(pname) || t.Samples.len() == 0 {
		return nil
	}
	gr.st.threads++
	// From processed version 60 the threads share their tables.
	shared := &p.top.Shared
	for _, tb := range []struct{ own, shared *geckoTable }{
		{&t.StackTable, &shared.StackTable}, {&t.FrameTable, &shared.FrameTable},
		{&t.FuncTable, &shared.FuncTable}, {&t.ResourceTable, &shared.ResourceTable},
	} {
		if !tb.own.present {
			*tb.own = *tb.shared
		}
	}
	strs := []string(t.StringTable)
	if t.StringArray != nil {
		strs = t.StringArray
	}
	if strs == nil {
		strs = p.top.Shared.StringArray
	}
	str := func(c geckoCell) (string, bool) {
		i, ok := c.index()
		if !ok || i >= len(strs) {
			return "", false
		}
		return strs[i], true
	}
	libs := t.Libs
	if libs == nil {
		libs = p.prof.Libs
	}
	interval := p.prof.Meta.Interval
	if interval <= 0 {
		interval = p.top.Meta.Interval
	}
	if interval <= 0 {
		interval = 1
	}
	gr.st.interval = interval
	cats := p.prof.Meta.Categories
	if cats == nil {
		cats = p.top.Meta.Categories
	}
	idleCat := -1
	for i, c := range cats {
		if c.Name == "Idle" {
			idleCat = i
		}
	}
	pkey := string(t.Pid)
	if _, ok := gr.procName[pkey]; !ok {
		gr.procName[pkey] = gr.unique.name(pname, pkey)
	}
	th := gr.b.thread(pkey, gr.procName[pkey], string(t.Tid)+"/"+p.index)

	for _, tb := range []struct {
		t    *geckoTable
		name string
	}{{&t.Samples, "samples table"}, {&t.StackTable, "stackTable"}, {&t.FrameTable, "frameTable"}, {&t.FuncTable, "funcTable"}, {&t.ResourceTable, "resourceTable"}} {
		if err := tb.t.check(p.index, tb.name); err != nil {
			return r.Errorf("%v", err)
		}
	}

	// Frames, resolved on first use.
	nframes := t.FrameTable.len()
	frames := make([]*geckoFrame, nframes)
	resolve := gr.rawFrame
	if t.FrameTable.columnar() {
		resolve = gr.processedFrame
	}
	frameOf := func(f int) (*geckoFrame, error) {
		if f < 0 || f >= nframes {
			return nil, r.Errorf("%s: a stack names frame %d; the frameTable has %d", p.index, f, nframes)
		}
		if frames[f] == nil {
			gf, err := resolve(p, t, f, str, libs)
			if err != nil {
				return nil, err
			}
			frames[f] = gf
		}
		return frames[f], nil
	}

	// Samples, summed by stack.
	nstacks := t.StackTable.len()
	stackCol := t.Samples.column("stack", 0)
	timeCol := t.Samples.column("time", 1)
	deltas := t.Samples.has("timeDeltas")
	deltaCol := t.Samples.column("timeDeltas", -1)
	weightCol := t.Samples.column("weight", -1)
	weightType := t.Samples.weightType
	weights := map[int]float64{}
	counts := map[int]int64{}
	var order []int
	first, last, at := 0.0, 0.0, 0.0
	ns := t.Samples.len()
	for i := 0; i < ns; i++ {
		if deltas {
			at += deltaCol(i).v
		} else {
			at = timeCol(i).v
		}
		if i == 0 || at < first {
			first = at
		}
		if i == 0 || at > last {
			last = at
		}
		s, ok := stackCol(i).index()
		if !ok {
			gr.st.noStack++
			continue
		}
		if s >= nstacks {
			return r.Errorf("%s: sample %d names stack %d; the stackTable has %d", p.index, i, s, nstacks)
		}
		w := 1.0
		if c := weightCol(i); c.kind == '0' {
			w = c.v
		}
		if w < 0 {
			return r.Errorf("%s: sample %d has weight %g: weights are >= 0", p.index, i, w)
		}
		switch weightType {
		case "tracing-ms":
			gr.st.tracing = true
		case "bytes":
			gr.st.bytes = true
		default:
			w *= interval
		}
		if _, seen := counts[s]; !seen {
			order = append(order, s)
		}
		weights[s] += w
		counts[s]++
	}
	// Sample times are milliseconds since the start time of their
	// process's profile (Gecko format) or of the whole profile
	// (processed).
	origin := p.prof.Meta.StartTime
	if t.Samples.columnar() {
		origin = p.top.Meta.StartTime
	}
	gr.b.cover(origin+first, origin+last+interval)

	// Stacks, from each sampled stack to its root (or its innermost
	// profmodel.MaxStackDepth+1 frames: a deeper one is cut).
	prefixCol := t.StackTable.column("prefix", 0)
	frameCol := t.StackTable.column("frame", 1)
	stackCat := t.StackTable.column("category", -1)
	// A walk that reaches the bound may be going round a cycle: the
	// table is checked for one then, once.
	checked := false
	acyclic := func() error {
		if checked {
			return nil
		}
		checked = true
		if j := firstCycle(nstacks, func(i int) int {
			if pre, ok := prefixCol(i).index(); ok {
				return pre
			}
			return -1
		}); j >= 0 {
			return r.Errorf("%s: stack %d is its own prefix (the stackTable's prefixes form a cycle): the profile is damaged", p.index, j)
		}
		return nil
	}
	var sf []srcFrame
	for _, s := range order {
		sf = sf[:0]
		cat := -1
		if c, ok := stackCat(s).index(); ok {
			cat = c
		}
		for j := s; ; {
			if profmodel.Deeper(len(sf)) {
				if err := acyclic(); err != nil {
					return err
				}
				break
			}
			fi, ok := frameCol(j).index()
			if !ok {
				return r.Errorf("%s: stack %d has no frame", p.index, j)
			}
			gf, err := frameOf(fi)
			if err != nil {
				return err
			}
			if cat < 0 && gf.cat >= 0 {
				cat = gf.cat
			}
			sf = append(sf, srcFrame{fn: gf.fn, addr: gf.addr, hasAddr: gf.hasAddr, inlined: gf.inlined})
			pre, ok := prefixCol(j).index()
			if !ok {
				break
			}
			if pre >= nstacks {
				return r.Errorf("%s: stack %d has prefix %d; the stackTable has %d", p.index, j, pre, nstacks)
			}
			j = pre
		}
		idle := cat >= 0 && cat == idleCat
		if idle && r.Options.DropIdle {
			gr.st.idle += counts[s]
			continue
		}
		if idle {
			gr.st.idleKept += counts[s]
		}
		if weights[s] <= 0 {
			gr.st.zero += counts[s]
			continue
		}
		gr.b.addFrames(th, sf, weights[s])
		gr.st.samples += counts[s]
	}
	return nil
}

// notes sets the sample type and period and says what was read.
func (gr *geckoReader) notes() {
	m, im, st := gr.r.Model, gr.r.Sampling, &gr.st
	im.Samples = st.samples
	im.SampleType = "wall/milliseconds"
	im.Period, im.PeriodType, im.PeriodUnit = st.interval, "wall", "milliseconds"
	if st.tracing {
		m.Note("some threads' samples are tracing data weighted in milliseconds (weightType tracing-ms): their weights are the time")
	}
	if st.bytes {
		im.SampleType = "bytes"
		m.Warn("some threads' samples weigh bytes (an allocation profile), not where the program ran: their weights are taken for time")
	}
	if st.idleKept > 0 {
		m.Note("%d of the %d samples are idle (their stack's category is Idle: the thread slept); they are kept as busy time of where the thread slept, --drop-idle drops them", st.idleKept, st.samples)
	}
	if st.idle > 0 {
		m.Note("%d idle samples (category Idle) were dropped (--drop-idle)", st.idle)
	}
	if st.outside > 0 {
		m.Note("%d frames are at addresses that no library of the profile holds (JIT code): they are functions of %s named by their address, laid out without it", st.outside, GeckoUnknownImage)
	}
	if st.noStack > 0 {
		m.Note("%d samples without a stack were dropped", st.noStack)
	}
	if st.zero > 0 {
		m.Note("%d samples of weight 0 were skipped", st.zero)
	}
	if strings.Contains(im.SampleType, "bytes") {
		im.Period = 0
	}
}
