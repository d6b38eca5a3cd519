package native

import (
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/proflab/proflab/core/workload/importer/profmodel"
	"github.com/proflab/proflab/core/workload/importer/profread"
)

// Perf is the text `perf script` prints.
var Perf = &profread.Format{
	Name:  "perf",
	About: "the text `perf script` prints (Linux perf), with or without call graphs",
	Detect: func(c *profread.Content) (any, bool) {
		return nil, c.Text && len(c.Lines) > 0 && isPerfHeader(c.Lines[0])
	},
	Read: importPerf,
}

// importPerf fills r.Model from `perf script` text: the samples of the weight
// event (cycles, else the file's first event) become stacks of threads of
// processes; the other events give per-function rates.
func importPerf(r *profread.Reading) error {
	name, data, opt, m, im := r.Name, r.Data, r.Options, r.Model, r.Sampling
	samples, skipped, records, err := parsePerf(r.Ctx, name, data)
	if err != nil {
		return err
	}
	if len(samples) == 0 {
		return &profread.Error{Source: name, Msg: "no sample header found: give the output of `perf script` (lines such as `prog 1234/1235 [002] 12345.678901: 250000 cycles:`)"}
	}
	if skipped > 0 {
		m.Note("%d indented lines under frames (srcline or other annotations) were skipped", skipped)
	}
	if records > 0 {
		m.Note("%d side-band records (PERF_RECORD_… lines: mmap, comm, fork…) were skipped: only samples are read", records)
	}
	wev, raw := weightEvent(samples, m)
	scale := busyScale(samples, wev, m)
	names, execs := processNames(samples)
	if samples, err = keepProcess(name, samples, opt.Process, names); err != nil {
		return err
	}
	im.SampleType, im.PeriodType, im.PeriodUnit = raw, wev, "events"
	if wev == "" {
		im.SampleType, im.PeriodType = "samples", "samples"
	}
	pb := &perfBuilder{m: m, names: names}
	if opt.Process != "" {
		maps.DeleteFunc(execs, func(pid int64, _ []string) bool { return names[pid] != opt.Process })
	}
	if len(execs) > 0 {
		pids := slices.Sorted(maps.Keys(execs))
		m.Note("pids that ran several programs (exec): %d; each process is named by the program most of its main thread's samples ran (for one, pid %d ran %s: it is %q)", len(pids), pids[0], strings.Join(execs[pids[0]], ", then "), names[pids[0]])
	}
	pb.findOutliers(samples)
	var noFrames, idle, zero int64
	firstNoFrames := 0
	for i := range samples {
		s := &samples[i]
		if s.event != wev {
			continue
		}
		if len(s.frames) == 0 {
			if noFrames == 0 {
				firstNoFrames = s.line
			}
			noFrames++
			continue
		}
		if s.hasPeriod && s.period == 0 {
			zero++
			continue
		}
		if opt.DropIdle && (s.pid == 0 || profmodel.IsIdle(s.frames[0].sym)) {
			idle++
			continue
		}
		pb.add(s)
		im.Samples++
	}
	if im.Samples == 0 && noFrames > 0 {
		return &profread.Error{Source: name, Line: firstNoFrames, Msg: fmt.Sprintf("the %s samples have no instruction pointer: no frame lines follow the header and it names no ip/sym/dso; record and print them with `perf script` defaults (or -F +ip,+sym,+dso)", im.SampleType)}
	}
	if noFrames > 0 {
		m.Note("%d %s samples without frames were dropped (the first at line %d)", noFrames, im.SampleType, firstNoFrames)
	}
	if zero > 0 {
		m.Note("%d %s samples with a period of 0 carry no weight and were skipped", zero, im.SampleType)
	}
	if idle > 0 {
		m.Note("%d idle samples (swapper's, or an idle function's) were dropped (--drop-idle)", idle)
	}
	if pb.guessedDSO > 0 {
		m.Note("%d callchain entries were printed \"(inlined)\" down to their physical function (its debug name differs from its symbol, as glibc's __libc_start_main_impl): each was taken as physical, in the image of its address where the same address is printed with its dso elsewhere; else in the image other frames print its symbol with; else in the library whose addresses span it or lie within 64 KiB of it; else in [unknown]", pb.guessedDSO)
	}
	if im.Samples == 0 {
		return &profread.Error{Source: name, Msg: fmt.Sprintf("no %s sample is left to import", im.SampleType)}
	}
	noteOutliers(m, pb.outlierFrames, len(pb.outlierSeen), pb.outlierExample)
	pb.finish(im, scale)
	pb.rates(samples, wev)
	return nil
}

// weightEvent is the event whose samples weigh: a measure of time
// (cycles, else cpu-clock, task-clock or ref-cycles), else instructions,
// else the file's first event; raw is its name as the file writes it.
// An event known to count something other than time (cache misses, page
// faults, a tracepoint…) is taken with a warning, an unknown one (a raw
// event) with a note.
func weightEvent(samples []perfSample, m *profmodel.Model) (ev, raw string) {
	seen := map[string]string{}
	var order []string
	for _, s := range samples {
		if _, ok := seen[s.event]; !ok {
			seen[s.event] = s.rawEvent
			order = append(order, s.event)
		}
	}
	for _, want := range []string{"cycles", "cpu-clock", "task-clock", "ref-cycles", "instructions"} {
		if r, ok := seen[want]; ok {
			return want, r
		}
	}
	ev, raw = order[0], seen[order[0]]
	if ev == "" {
		m.Note("the samples name no event (perf script -F without event): they are taken as the program's time")
		return ev, raw
	}
	if notTime(ev) {
		m.Warn("the file's events (%s) count something other than where the program ran: its %s samples are taken for time; record cycles (perf record's default), cpu-clock or task-clock, with the others beside it for rates", strings.Join(order, ", "), raw)
	} else {
		m.Note("%s is not an event perf names for time: its samples are taken as the program's time", raw)
	}
	return ev, raw
}

// notTime reports whether a perf event (as eventName gives it) is known
// to count something other than time or instructions: cache, TLB and
// branch events, faults, switches and migrations, tracepoints.
func notTime(ev string) bool {
	if strings.Contains(ev, ":") {
		return true // a tracepoint: sched:sched_switch, syscalls:…
	}
	e := strings.ToLower(ev)
	for _, part := range []string{"miss", "cache", "tlb", "branch", "fault", "switch", "migration", "stalled", "mem-", "node-", "l1-", "llc-", "dummy", "bpf-output"} {
		if strings.Contains(e, part) {
			return true
		}
	}
	return e == "cs"
}

// keepProcess keeps only the samples of processes named process (all,
// when it is ""), by the names processNames gave.
func keepProcess(name string, samples []perfSample, process string, names map[int64]string) ([]perfSample, error) {
	if process == "" {
		return samples, nil
	}
	var out []perfSample
	for _, s := range samples {
		if names[s.pid] == process {
			out = append(out, s)
		}
	}
	if len(out) == 0 {
		seen := map[string]bool{}
		for _, n := range names {
			seen[n] = true
		}
		list := slices.Sorted(func(yield func(string) bool) {
			for n := range seen {
				if !yield(n) {
					return
				}
			}
		})
		return nil, &profread.Error{Source: name, Msg: fmt.Sprintf("--process %s: no sample of a process of that name; the file has %s", process, strings.Join(list, ", "))}
	}
	return out, nil
}

// processNames names each pid: the comm of most of its main thread's
// samples (tid = pid), else of most of its samples; a tie goes to the
// comm seen last (a process that exec'd is the program it became: a
// shell that ran python3 under its pid is python3). pid 0 is "swapper".
// execs lists the pids whose main thread showed several comms, with them
// in order of first sample.
func processNames(samples []perfSample) (names map[int64]string, execs map[int64][]string) {
	type tally struct {
		n    [2]int // samples: all, of the main thread
		last int    // index of the last sample
	}
	by := map[int64]map[string]*tally{}
	order := map[int64][]string{} // comms of the main thread, in order
	for i, s := range samples {
		m := by[s.pid]
		if m == nil {
			m = map[string]*tally{}
			by[s.pid] = m
		}
		t := m[s.comm]
		if t == nil {
			t = &tally{}
			m[s.comm] = t
		}
		t.n[0]++
		t.last = i
		if s.tid == s.pid {
			if t.n[1] == 0 {
				order[s.pid] = append(order[s.pid], s.comm)
			}
			t.n[1]++
		}
	}
	names, execs = map[int64]string{}, map[int64][]string{}
	for pid, m := range by {
		k := 0
		if len(order[pid]) > 0 {
			k = 1 // the main thread decides
		}
		best := ""
		for comm, t := range m {
			if b := m[best]; b == nil || t.n[k] > b.n[k] || (t.n[k] == b.n[k] && t.last > b.last) {
				best = comm
			}
		}
		names[pid] = best
		if len(order[pid]) > 1 {
			execs[pid] = order[pid]
		}
	}
	if _, ok := names[0]; ok {
		names[0] = "swapper"
		delete(execs, 0)
	}
	return names, execs
}

// perfBuilder builds the model from perf samples.
type perfBuilder struct {
	m       *profmodel.Model
	names   map[int64]string
	used    map[string]int64 // process names given, by pid
	periods []float64
	frames  []profmodel.Frame
	// entryBuf is entries' scratch; guessedDSO counts the physical
	// frames perf printed "(inlined)", whose image was guessed
	entryBuf   []entryFrame
	guessedDSO int
	// outliers are the outlier addresses by image key (see outliers.go).
	outliers       map[any]map[uint64]bool
	outlierFrames  int64
	outlierSeen    map[outlierAt]bool
	outlierExample string
}

// outlierAt is an outlier address of an image.
type outlierAt struct {
	img  *profmodel.Image
	addr uint64
}

// findOutliers finds the outlier addresses of every image from the
// frames of every sample.
func (pb *perfBuilder) findOutliers(samples []perfSample) {
	c := newAddrCensus()
	for i := range samples {
		s := &samples[i]
		for _, fr := range s.frames {
			key, _, kernel := imageKey(s.pid, fr)
			c.add(key, kernel, fr.addr)
		}
	}
	pb.outliers, _, _ = c.outliers()
	pb.outlierSeen = map[outlierAt]bool{}
}

// add adds a sample of the weight event.
func (pb *perfBuilder) add(s *perfSample) {
	p := pb.process(s.pid)
	key := strconv.FormatInt(s.tid, 10)
	if s.pid == 0 {
		key += "/" + strconv.Itoa(s.cpu) // the idle task: one per processor
	}
	t := p.Thread(key)
	w := 1.0
	if s.hasPeriod {
		w = s.period
	}
	pb.periods = append(pb.periods, w)
	pb.frames = pb.frames[:0]
	entries, guessed := pb.entries(s.frames)
	pb.guessedDSO += guessed
	for _, fr := range entries {
		f, outlier := pb.fn(s.pid, fr.perfFrame, true)
		if outlier {
			pb.outlierFrames++
			pb.outlierSeen[outlierAt{f.Image(), fr.addr}] = true
			if pb.outlierExample == "" {
				pb.outlierExample = outlierExample(fr.addr, f.Image().Name()) + fmt.Sprintf(" at line %d", fr.line)
			}
		}
		// an inlined frame's address is its physical frame's
		pb.frames = append(pb.frames, profmodel.Frame{Func: f, Inlined: fr.into, Addr: fr.addr, HasAddr: !outlier && !fr.into})
	}
	pb.m.Add(t, pb.frames, w)
}

// entryFrame is a frame of a sample with its image resolved and whether
// it is inlined into the next frame.
type entryFrame struct {
	perfFrame
	into bool // inlined into the next frame
}

// entries reads the inlined frames of a sample. perf (--call-graph dwarf,
// or any call graph of code with debug information) prints each address
// of a callchain as the functions inlined there, innermost first, each
// "(inlined)", then the physical function with its dso, every line with
// the same ip. So a frame printed "(inlined)" is inlined into the next
// one when that has the same ip; the run ends at the frame printed with
// its dso, which is the physical function (a recursive function at one
// return address twice is two physical frames). perf prints the physical
// function "(inlined)" too when its debug name differs from its symbol
// (glibc's __libc_start_main_impl for __libc_start_main): the last frame
// of a run is physical whatever perf printed (guessed counts them). Every
// frame of a run takes the physical frame's dso, which the parser gave
// the frames printed "(inlined)" (inlinedDSOs).
func (pb *perfBuilder) entries(frames []perfFrame) (out []entryFrame, guessed int) {
	out = pb.entryBuf[:0]
	for i := 0; i < len(frames); {
		j := i
		for j+1 < len(frames) && frames[j].inlined && frames[j+1].addr == frames[j].addr {
			j++
		}
		dso := frames[j].dso
		if frames[j].inlined {
			guessed++
		}
		for k := i; k <= j; k++ {
			fr := entryFrame{perfFrame: frames[k], into: k < j}
			fr.dso, fr.inlined = dso, false
			out = append(out, fr)
		}
		i = j + 1
	}
	pb.entryBuf = out
	return out, guessed
}

// physicalEntry is the index in entries of the frame whose code runs.
func physicalEntry(entries []entryFrame) int {
	i := 0
	for i < len(entries)-1 && entries[i].into {
		i++
	}
	return i
}

// process is pid's process; names are made unique with "#pid".
func (pb *perfBuilder) process(pid int64) *profmodel.Process {
	key := strconv.FormatInt(pid, 10)
	if p := pb.m.LookupProcess(key); p != nil {
		return p
	}
	n := pb.names[pid]
	if pb.used == nil {
		pb.used = map[string]int64{}
	}
	if _, dup := pb.used[n]; dup {
		n = fmt.Sprintf("%s#%d", n, pid)
	}
	pb.used[n] = pid
	return pb.m.Process(key, n)
}

// imageKey is the key, name and kind of a frame's image: one per dso
// per process for user code, one per dso for the kernel.
func imageKey(pid int64, fr perfFrame) (key, name string, kernel bool) {
	dso := fr.dso
	kernel = fr.addr >= kernelAddress || strings.HasPrefix(dso, "[kernel")
	key = "k:" + dso
	if !kernel {
		key = "u:" + strconv.FormatInt(pid, 10) + ":" + dso
	}
	return key, imageName(dso), kernel
}

// fn is the function of a frame (made when make is true, else nil when
// the weight event's samples have none), and whether its address is an
// outlier of its image (then the function is the frame's symbol or
// UnknownFunction, and the address is not the function's).
func (pb *perfBuilder) fn(pid int64, fr perfFrame, make bool) (*profmodel.Func, bool) {
	key, iname, kernel := imageKey(pid, fr)
	var img *profmodel.Image
	if make {
		img = pb.m.Image(key, iname, kernel)
	} else if img = pb.m.LookupImage(key); img == nil {
		return nil, false
	}
	outlier := pb.outliers[key][fr.addr]
	name := fr.sym
	unknown := name == "" || name == "[unknown]"
	if unknown {
		name = profmodel.AddressName(fr.addr)
		if outlier {
			name = UnknownFunction
		}
	}
	if !make {
		return img.Lookup(name), outlier
	}
	f := pb.m.Func(img, name)
	if unknown {
		f.MarkUnsymbolized()
	}
	return f, outlier
}

// imageName is a dso's image name: its file's base name ("[unknown]" and
// "[kernel.kallsyms]" as they are).
func imageName(dso string) string {
	if dso == "" {
		return "[unknown]"
	}
	if strings.HasPrefix(dso, "[") {
		return dso
	}
	return filepath.Base(dso)
}
