package importer

import (
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// perfFormat is the text `perf script` prints.
var perfFormat = format{
	name:  Perf,
	about: "the text `perf script` prints (Linux perf), with or without call graphs",
	detect: func(c *content) (any, bool) {
		return nil, c.text && len(c.lines) > 0 && perfHeader.MatchString(c.lines[0])
	},
	read: func(r *reading) error { return importPerf(r.name, r.data, r.opt, r.m, r.im) },
}

// importPerf fills m from `perf script` text: the samples of the weight
// event (cycles, else the file's first event) become stacks of threads of
// processes; the other events give per-function rates.
func importPerf(name string, data []byte, opt Options, m *model, im *Imported) error {
	samples, skipped, err := parsePerf(name, data)
	if err != nil {
		return err
	}
	if len(samples) == 0 {
		return &Error{Source: name, Msg: "no sample header found: give the output of `perf script` (lines such as `prog 1234/1235 [002] 12345.678901: 250000 cycles:`)"}
	}
	if skipped > 0 {
		m.note("%d indented lines under frames (srcline or other annotations) were skipped", skipped)
	}
	wev, raw := weightEvent(samples, m)
	ref := busyReference(samples, wev)
	if samples, err = keepProcess(name, samples, opt.Process); err != nil {
		return err
	}
	im.SampleType, im.PeriodType, im.PeriodUnit = raw, wev, "events"
	pb := &perfBuilder{m: m, names: processNames(samples)}
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
		if opt.DropIdle && (s.pid == 0 || isIdle(s.frames[0].sym)) {
			idle++
			continue
		}
		pb.add(s)
		im.Samples++
	}
	if im.Samples == 0 && noFrames > 0 {
		return &Error{Source: name, Line: firstNoFrames, Msg: fmt.Sprintf("the %s samples have no instruction pointer: no frame lines follow the header and it names no ip/sym/dso; record and print them with `perf script` defaults (or -F +ip,+sym,+dso)", wev)}
	}
	if noFrames > 0 {
		m.note("%d %s samples without frames were dropped (the first at line %d)", noFrames, wev, firstNoFrames)
	}
	if zero > 0 {
		m.note("%d %s samples with a period of 0 carry no weight and were skipped", zero, wev)
	}
	if idle > 0 {
		m.note("%d idle samples (swapper's, or an idle function's) were dropped (--drop-idle)", idle)
	}
	if pb.guessedDSO > 0 {
		m.note("%d callchain entries were printed \"(inlined)\" down to their physical function (its debug name differs from its symbol, as glibc's __libc_start_main_impl): each was taken as physical, in the image of its sample's user or kernel frame with the nearest address (else [unknown])", pb.guessedDSO)
	}
	if im.Samples == 0 {
		return &Error{Source: name, Msg: fmt.Sprintf("no %s sample is left to import", wev)}
	}
	pb.finish(im, ref)
	pb.rates(samples, wev)
	return nil
}

// weightEvent is the event whose samples weigh: a measure of time
// (cycles, else cpu-clock, task-clock or ref-cycles), else instructions,
// else the file's first event; raw is its name as the file writes it.
// An event known to count something other than time (cache misses, page
// faults, a tracepoint…) is taken with a warning, an unknown one (a raw
// event) with a note.
func weightEvent(samples []perfSample, m *model) (ev, raw string) {
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
	if notTime(ev) {
		m.warn("the file's events (%s) count something other than where the program ran: its %s samples are taken for time; record cycles (perf record's default), cpu-clock or task-clock, with the others beside it for rates", strings.Join(order, ", "), raw)
	} else {
		m.note("%s is not an event perf names for time: its samples are taken as the program's time", raw)
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
// when it is "").
func keepProcess(name string, samples []perfSample, process string) ([]perfSample, error) {
	if process == "" {
		return samples, nil
	}
	names := processNames(samples)
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
		return nil, &Error{Source: name, Msg: fmt.Sprintf("--process %s: no sample of a process of that name; the file has %s", process, strings.Join(list, ", "))}
	}
	return out, nil
}

// processNames names each pid: the comm of its main thread (tid = pid),
// else of its first sample; pid 0 is "swapper".
func processNames(samples []perfSample) map[int64]string {
	names := map[int64]string{}
	main := map[int64]bool{}
	for _, s := range samples {
		if _, ok := names[s.pid]; !ok || (!main[s.pid] && s.tid == s.pid) {
			names[s.pid] = s.comm
			main[s.pid] = s.tid == s.pid
		}
	}
	if _, ok := names[0]; ok {
		names[0] = "swapper"
	}
	return names
}

// perfBuilder builds the model from perf samples.
type perfBuilder struct {
	m       *model
	names   map[int64]string
	used    map[string]int64 // process names given, by pid
	periods []float64
	frames  []frame
	// entryBuf is entries' scratch; guessedDSO counts the physical
	// frames perf printed "(inlined)", whose image was guessed
	entryBuf   []entryFrame
	guessedDSO int
}

// add adds a sample of the weight event.
func (pb *perfBuilder) add(s *perfSample) {
	p := pb.process(s.pid)
	key := strconv.FormatInt(s.tid, 10)
	if s.pid == 0 {
		key += "/" + strconv.Itoa(s.cpu) // the idle task: one per processor
	}
	t := p.thread(key)
	w := 1.0
	if s.hasPeriod {
		w = s.period
	}
	pb.periods = append(pb.periods, w)
	pb.frames = pb.frames[:0]
	entries, guessed := pb.entries(s.frames)
	pb.guessedDSO += guessed
	for _, fr := range entries {
		f := pb.fn(s.pid, fr.perfFrame, true)
		pb.frames = append(pb.frames, frame{f: f, inlined: fr.into, addr: fr.addr, hasAddr: !fr.into})
	}
	pb.m.add(t, pb.frames, w)
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
// of a run is physical whatever perf printed. An inlined frame's image
// is its physical frame's dso; a run printed "(inlined)" to its end
// names no dso, and takes that of the sample's frame in the same space
// (user or kernel) whose ip is nearest, else [unknown] (guessed counts
// them).
func (pb *perfBuilder) entries(frames []perfFrame) (out []entryFrame, guessed int) {
	out = pb.entryBuf[:0]
	for i := 0; i < len(frames); {
		j := i
		for j+1 < len(frames) && frames[j].inlined && frames[j+1].addr == frames[j].addr {
			j++
		}
		dso := frames[j].dso
		if frames[j].inlined {
			dso = nearestDSO(frames, frames[j].addr)
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

// nearestDSO is the dso of the frame printed with one whose ip is
// nearest addr, in the same space (user or kernel), the callee's on a
// tie; "" (the image [unknown]) when there is none.
func nearestDSO(frames []perfFrame, addr uint64) string {
	dso, best, found := "", uint64(0), false
	for _, fr := range frames {
		if fr.inlined || (fr.addr >= kernelAddress) != (addr >= kernelAddress) {
			continue
		}
		if d := max(fr.addr, addr) - min(fr.addr, addr); !found || d < best {
			dso, best, found = fr.dso, d, true
		}
	}
	return dso
}

// process is pid's process; names are made unique with "#pid".
func (pb *perfBuilder) process(pid int64) *proc {
	key := strconv.FormatInt(pid, 10)
	if p := pb.m.procBy[key]; p != nil {
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
	return pb.m.proc(key, n)
}

// fn is the function of a frame (made when make is true, else nil when
// the weight event's samples have none).
func (pb *perfBuilder) fn(pid int64, fr perfFrame, make bool) *fn {
	dso := fr.dso
	kernel := fr.addr >= kernelAddress || strings.HasPrefix(dso, "[kernel")
	key := "k:" + dso
	if !kernel {
		key = "u:" + strconv.FormatInt(pid, 10) + ":" + dso
	}
	var img *image
	if make {
		img = pb.m.image(key, imageName(dso), kernel)
	} else if img = pb.m.imageBy[key]; img == nil {
		return nil
	}
	name := fr.sym
	unknown := name == "" || name == "[unknown]"
	if unknown {
		name = unknownKey(fr.addr)
	}
	if !make {
		return img.fnBy[name]
	}
	f := pb.m.fn(img, name)
	f.unsymbolized = f.unsymbolized || unknown
	return f
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

// unknownKey is the provisional name of an unsymbolized address; after
// layout it becomes image+0xOFFSET (see nameUnknown).
func unknownKey(addr uint64) string { return unknownPrefix + strconv.FormatUint(addr, 16) }

// unknownPrefix starts the provisional names (no symbol has a NUL).
const unknownPrefix = "\x00unknown "

// busyReference is the weight of a processor busy all the time: the
// weight (periods of the weight event, idle samples included) of the
// busiest processor in the whole file, or, when a sample has no [cpu]
// column, of the busiest thread.
func busyReference(samples []perfSample, wev string) float64 {
	cpus, threads := map[int]float64{}, map[[2]int64]float64{}
	noCPU := false
	for _, s := range samples {
		if s.event != wev || len(s.frames) == 0 {
			continue
		}
		w := 1.0
		if s.hasPeriod {
			w = s.period
		}
		cpus[s.cpu] += w
		key := [2]int64{s.pid, s.tid}
		if s.pid == 0 {
			key[1] = int64(s.cpu)
		}
		threads[key] += w
		noCPU = noCPU || !s.hasCPU
	}
	var ref float64
	if noCPU {
		for _, w := range threads {
			ref = max(ref, w)
		}
		return ref
	}
	for _, w := range cpus {
		ref = max(ref, w)
	}
	return ref
}

// finish sets the threads' busy shares (their weight over ref) and the
// period.
func (pb *perfBuilder) finish(im *Imported, ref float64) {
	for _, p := range pb.m.procs {
		for _, t := range p.threads {
			t.share = min(1, t.weight/ref)
		}
	}
	lo, hi, sum := pb.periods[0], pb.periods[0], 0.0
	for _, v := range pb.periods {
		lo, hi, sum = min(lo, v), max(hi, v), sum+v
	}
	im.Period = sum / float64(len(pb.periods))
	if lo != hi {
		pb.m.note("the %s periods vary from %g to %g (perf record -F: frequency mode); the mean is given as the period", im.PeriodType, lo, hi)
	}
}
