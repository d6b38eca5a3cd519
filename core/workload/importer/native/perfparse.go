package native

import (
	"bytes"
	"context"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/proflab/proflab/core/workload/importer/profmodel"
	"github.com/proflab/proflab/core/workload/importer/profread"
)

// perfHeader matches a sample's header line as `perf script` prints it,
// from perf 3.x to 6.x, by default or with common -F field lists: [VM:pid
// VCPU:n] comm, pid/tid or tid, [cpu], misc (-F +misc: K, U…), date and
// time of day (-F +tod), time:, period, event:, and (without call graphs)
// the ip, symbol and dso on the same line. Every field after the thread
// is optional, but a header has a time or an event (see parsePerfHeader).
var perfHeader = regexp.MustCompile(perfHeaderPattern("?"))

// perfHeaderTimed is perfHeader with its time required. A comm may end
// in a number ("node:worker 1", "Web Content 2"): perfHeader's shortest
// comm then takes that number for the pid and fails to read the rest as
// a header, where the header has a time that the right comm reaches.
var perfHeaderTimed = regexp.MustCompile(perfHeaderPattern(""))

// perfHeaderPattern is the header's pattern, the time optional ("?") or
// not ("").
func perfHeaderPattern(timeOptional string) string {
	return `^\s*` +
		`(?:VM:\s*\d+\s+)?(?:VCPU:\s*\d+\s+)?` + // a guest's samples
		`(\S.*?)\s+(-?\d+)(?:/(-?\d+))?\s+` + // comm, pid[/tid]
		`(?:\[(\d+)\]\s+)?` + // [cpu]
		`(?:[KUHGgMESp]{1,6}\s+)?` + // misc
		`(?:\d{4}-\d\d-\d\d\s+\d\d:\d\d:\d\d(?:\.\d+)?\s+)?` + // tod
		`(?:(\d+)\.(\d+):(?:\s+|$))` + timeOptional + // time (seconds.fraction)
		`(?:(\d+)\s+)?` + // period
		`(?:(\S+?):(?:\s+|$))?` + // event
		`(.*?)\s*$`
}

// perfEventName is what a header without a time must have as its event:
// a name such as cycles, cpu-clock:pppH, cpu_core/cycles/u, r003c or
// sched:sched_switch.
var perfEventName = regexp.MustCompile(`^[A-Za-z][\w.:/=,@+-]*$`)

// splitFrame splits a frame (a frame line's text, or the end of a header
// without call graph): `ip [symbol[+0xOFFSET]] [(dso)]`. The dso is the
// last parenthesized group, parentheses inside it balanced
// ("(/usr/bin/prog (deleted))"); the symbol is everything between,
// parentheses and spaces included ("std::vector<int>::push_back(int
// const&)"). perf prints `(inlined)` where the dso would be for a function
// inlined at that ip (--inline, --call-graph dwarf): a marker, not a dso.
// -F +dsoff prints the dso as `(dso+0xOFFSET)`: the offset is dropped.
// Without the dso field (-F ip,sym) the frame is `ip symbol`, and a
// symbol ending in a parenthesized group is then read as its dso.
func splitFrame(s string) (ip, sym, dso string, hasDso, inlined, ok bool) {
	s = strings.TrimSpace(s)
	ip, rest, _ := strings.Cut(s, " ")
	if i := strings.IndexByte(ip, '\t'); i >= 0 {
		ip, rest = ip[:i], ip[i+1:]+" "+rest
	}
	if ip == "" {
		return "", "", "", false, false, false
	}
	for _, r := range ip {
		if !strings.ContainsRune("0123456789abcdefABCDEF", r) {
			return "", "", "", false, false, false
		}
	}
	rest = strings.TrimSpace(rest)
	if !strings.HasSuffix(rest, ")") {
		return ip, rest, "", false, false, true
	}
	depth := 0
	for j := len(rest) - 1; j >= 0; j-- {
		switch rest[j] {
		case ')':
			depth++
		case '(':
			depth--
			if depth == 0 {
				sym, dso = strings.TrimSpace(rest[:j]), rest[j+1:len(rest)-1]
				if dso == "inlined" {
					return ip, sym, "", false, true, true
				}
				return ip, sym, dsoOffset.ReplaceAllString(dso, ""), true, false, true
			}
		}
	}
	return ip, rest, "", false, false, true
}

// symOffset is perf's +0xOFFSET after a symbol, dsoOffset after a dso
// (-F +dsoff).
var (
	symOffset = regexp.MustCompile(`\+0x[0-9a-fA-F]+$`)
	dsoOffset = regexp.MustCompile(`\+0x[0-9a-fA-F]+$`)
)

// perfSample is one sample of a perf script file.
type perfSample struct {
	line      int
	comm      string
	pid, tid  int64
	tidOnly   bool // the header printed one number: the thread's (see groupThreads)
	cpu       int
	hasCPU    bool
	time      int64 // nanoseconds, when hasTime
	hasTime   bool
	period    float64
	hasPeriod bool
	event     string // normalised (see eventName); "" when the header prints none
	rawEvent  string
	frames    []perfFrame
}

// perfFrame is one frame: ip, symbol without its offset, dso.
type perfFrame struct {
	addr uint64
	sym  string
	// dso is the frame's dso as perf prints it ("" when the line has none:
	// -F without dso). An inlined frame's is the dso of the frame that
	// holds its ip (see inlinedDSOs).
	dso string
	// inlined says perf printed `(inlined)` for the dso: the function is
	// inlined at this ip into the function of a frame nearer the root
	// with the same ip (perf's --inline, on by default with --call-graph
	// dwarf). The address belongs to that function; the inlined frame is
	// a calling context without an address of its own.
	inlined bool
	line    int
}

// parsePerf reads every sample of a perf script text. Lines starting with
// '#' are comments; a sample is a header line followed by its frame lines
// (indented) up to a blank line or the next header. Side-band records
// (`PERF_RECORD_MMAP2 …` lines of --show-mmap-events and the like) are
// skipped and counted in records.
func parsePerf(ctx context.Context, name string, data []byte) (out []perfSample, skipped, records int, err error) {
	var cur *perfSample
	for ln := 1; len(data) > 0; ln++ {
		if err := profmodel.Stopped(ctx, ln); err != nil {
			return nil, 0, 0, err
		}
		var raw []byte
		raw, data, _ = bytes.Cut(data, []byte{'\n'})
		line := strings.TrimRight(string(raw), "\r")
		switch {
		case strings.TrimSpace(line) == "":
			cur = nil
		case line[0] == '#':
		case line[0] == '\t' && cur != nil && isFrame(line, cur, ln):
			// perf script indents frames with a tab (headers, right-
			// aligned, with spaces).
		case line[0] == ' ' || line[0] == '\t':
			// perf script right-aligns comm, so a header can be indented
			// too: it is tried first (a frame has no "time:" field).
			if s, ok, rec, err := parsePerfHeader(name, line, ln); err != nil {
				return nil, 0, 0, err
			} else if rec {
				records++
				cur = nil
				continue
			} else if ok {
				out = append(out, s)
				cur = &out[len(out)-1]
				continue
			}
			if cur == nil {
				return nil, 0, 0, &profread.Error{Source: name, Line: ln, Msg: fmt.Sprintf("%q is neither a sample header (`comm pid/tid [cpu] time: period event:`) nor a frame of one: is this the output of `perf script`?", profread.Clip(line))}
			}
			if fr, ok := parsePerfFrame(line, ln); ok && (fr.dso != "" || fr.inlined) {
				cur.frames = append(cur.frames, fr)
				continue
			}
			skipped++ // srcline and other annotations under a frame
		default:
			s, ok, rec, err := parsePerfHeader(name, line, ln)
			if err != nil {
				return nil, 0, 0, err
			}
			if rec {
				records++
				cur = nil
				continue
			}
			if !ok {
				return nil, 0, 0, &profread.Error{Source: name, Line: ln, Msg: fmt.Sprintf("%q is not a sample header of `perf script` (comm pid/tid [cpu] time: period event:): give the output of perf script with at least comm, tid and time or event (-F comm,tid,time,event,ip,sym,dso reads)", profread.Clip(line))}
			}
			out = append(out, s)
			cur = &out[len(out)-1]
		}
	}
	groupThreads(out)
	inlinedDSOs(out)
	return out, skipped, records, nil
}

// inlinedDSOs gives each inlined frame a dso: that of the frame that is
// not inlined and has the same ip, next in its stack (perf prints the
// function an ip belongs to after the functions inlined there), else
// anywhere in the process's samples. perf 6 sometimes prints an ip with
// `(inlined)` alone (--call-graph dwarf: glibc's __libc_start_main_impl,
// __memcpy_avx512_unaligned_erms); such a frame's dso is the one whose
// frames print its symbol with a dso elsewhere (the process's, else any
// process's; the dso most of them name, the first seen on a tie); else
// the dso of the process whose other frames' span of addresses holds the
// ip, or lies within inlinedReach of it (the nearest; the narrowest of
// those that hold it); else none, "[unknown]". (The sample's nearest
// frame's dso, however far, was taken last: perf record of a C program
// put libc's memcpy in the program's image, stretching it to 1.4 MB.)
func inlinedDSOs(samples []perfSample) {
	type at struct {
		pid int64
		ip  uint64
	}
	known := map[at]string{}
	any := false
	for i := range samples {
		for _, fr := range samples[i].frames {
			if fr.inlined {
				any = true
			} else if _, ok := known[at{samples[i].pid, fr.addr}]; !ok {
				known[at{samples[i].pid, fr.addr}] = fr.dso
			}
		}
	}
	if !any {
		return
	}
	type span struct{ lo, hi uint64 }
	spans := map[int64]map[string]span{}
	syms := newSymbolDSOs()
	for i := range samples {
		for _, fr := range samples[i].frames {
			if fr.inlined || fr.dso == "" || strings.HasPrefix(fr.dso, "[unknown") {
				continue
			}
			syms.add(samples[i].pid, fr.sym, fr.dso)
			m := spans[samples[i].pid]
			if m == nil {
				m = map[string]span{}
				spans[samples[i].pid] = m
			}
			sp, ok := m[fr.dso]
			if !ok {
				sp = span{fr.addr, fr.addr}
			}
			m[fr.dso] = span{min(sp.lo, fr.addr), max(sp.hi, fr.addr)}
		}
	}
	within := func(pid int64, ip uint64) (string, bool) {
		best, dist, width := "", uint64(0), uint64(0)
		for dso, sp := range spans[pid] {
			d := uint64(0)
			switch {
			case ip < sp.lo:
				d = sp.lo - ip
			case ip > sp.hi:
				d = ip - sp.hi
			}
			if d > inlinedReach {
				continue
			}
			if w := sp.hi - sp.lo; best == "" || d < dist || d == dist && (w < width || w == width && dso < best) {
				best, dist, width = dso, d, w
			}
		}
		return best, best != ""
	}
	for i := range samples {
		frames := samples[i].frames
		for k := range frames {
			if !frames[k].inlined {
				continue
			}
			if j := k + 1; j < len(frames) && frames[j].addr == frames[k].addr && !frames[j].inlined {
				frames[k].dso = frames[j].dso
				continue
			}
			key := at{samples[i].pid, frames[k].addr}
			if dso, ok := known[key]; ok {
				frames[k].dso = dso
				continue
			}
			if dso, ok := syms.of(key.pid, frames[k].sym); ok {
				frames[k].dso = dso
				continue
			}
			if dso, ok := within(key.pid, key.ip); ok {
				frames[k].dso = dso
			}
		}
	}
}

// inlinedReach is how far from a dso's sampled addresses an ip printed
// `(inlined)` alone may lie and be taken for that dso's: 64 KiB, a
// neighbour in the same code (glibc's __libc_start_main_impl lies 0xBB
// bytes past __libc_start_call_main), far less than the gap between two
// libraries' mappings.
const inlinedReach = 64 << 10

// symbolDSOs counts the dsos perf prints a symbol with, per process and
// in all.
type symbolDSOs struct {
	byPid map[int64]map[string][]dsoCount
	all   map[string][]dsoCount
}

// dsoCount is a dso and how many frames print a symbol with it.
type dsoCount struct {
	dso string
	n   int
}

func newSymbolDSOs() *symbolDSOs {
	return &symbolDSOs{byPid: map[int64]map[string][]dsoCount{}, all: map[string][]dsoCount{}}
}

// add counts a frame of process pid printing sym with dso.
func (s *symbolDSOs) add(pid int64, sym, dso string) {
	if sym == "" || sym == "[unknown]" {
		return
	}
	count := func(list []dsoCount) []dsoCount {
		if j := slices.IndexFunc(list, func(c dsoCount) bool { return c.dso == dso }); j >= 0 {
			list[j].n++
			return list
		}
		return append(list, dsoCount{dso, 1})
	}
	if s.byPid[pid] == nil {
		s.byPid[pid] = map[string][]dsoCount{}
	}
	s.byPid[pid][sym] = count(s.byPid[pid][sym])
	s.all[sym] = count(s.all[sym])
}

// of is the dso most frames of process pid print sym with (else of any
// process; the first seen on a tie).
func (s *symbolDSOs) of(pid int64, sym string) (string, bool) {
	list := s.byPid[pid][sym]
	if list == nil {
		list = s.all[sym]
	}
	best := -1
	for j, c := range list {
		if best < 0 || c.n > list[best].n {
			best = j
		}
	}
	if best < 0 {
		return "", false
	}
	return list[best].dso, true
}

// groupThreads gives the samples whose header has one number a process.
// perf script's default fields print the thread's id alone (`comm tid`;
// `-F +pid` prints `pid/tid`), so the process is not known: the threads of
// one command name are taken as one process, identified by the first of
// its threads the file shows (tid 0 stays the idle swapper, pid 0).
func groupThreads(samples []perfSample) {
	pidOf := map[string]int64{}
	for i := range samples {
		s := &samples[i]
		if !s.tidOnly || s.tid == 0 {
			continue
		}
		pid, ok := pidOf[s.comm]
		if !ok {
			pid = s.tid
			pidOf[s.comm] = pid
		}
		s.pid = pid
	}
}

// isPerfHeader says whether line is a sample header or a side-band
// record (detection).
func isPerfHeader(line string) bool {
	_, ok, record, err := parsePerfHeader("", line, 1)
	return (ok || record) && err == nil
}

// parsePerfHeader reads a header line; ok is false when it is none, and
// record true when it is a side-band record (`PERF_RECORD_…`) rather than
// a sample.
func parsePerfHeader(name, line string, ln int) (s perfSample, ok, record bool, err error) {
	g := perfHeaderTimed.FindStringSubmatch(line)
	if g == nil {
		g = perfHeader.FindStringSubmatch(line)
	}
	if g == nil {
		return s, false, false, nil
	}
	const (
		comm, pid, tid, cpu, secs, frac, period, event, rest = 1, 2, 3, 4, 5, 6, 7, 8, 9
	)
	// A side-band record's type can look like an event (`PERF_RECORD_COMM
	// exec: p:123/123`, `PERF_RECORD_MMAP -1/0: […]`).
	if strings.HasPrefix(g[rest], "PERF_RECORD_") && g[event] == "" || strings.HasPrefix(strings.TrimSpace(g[event]), "PERF_RECORD_") {
		return s, false, true, nil
	}
	// Without a time, a header is `comm tid event:` (perf 3.x records no
	// time for one program): the event must look like one.
	if g[secs] == "" && !perfEventName.MatchString(g[event]) {
		return s, false, false, nil
	}
	s = perfSample{line: ln, comm: g[comm], rawEvent: g[event], event: eventName(g[event])}
	if s.pid, err = strconv.ParseInt(g[pid], 10, 64); err != nil {
		return s, false, false, &profread.Error{Source: name, Line: ln, Msg: fmt.Sprintf("pid %q is not a number", g[pid])}
	}
	s.tid = s.pid
	s.tidOnly = g[tid] == ""
	if g[tid] != "" {
		if s.tid, err = strconv.ParseInt(g[tid], 10, 64); err != nil {
			return s, false, false, &profread.Error{Source: name, Line: ln, Msg: fmt.Sprintf("tid %q is not a number", g[tid])}
		}
	}
	if g[cpu] != "" {
		c, err := strconv.Atoi(g[cpu])
		if err != nil || c > 1<<20 {
			return s, false, false, &profread.Error{Source: name, Line: ln, Msg: fmt.Sprintf("cpu [%s] is not a processor number", g[cpu])}
		}
		s.cpu, s.hasCPU = c, true
	}
	if g[secs] != "" {
		if s.time, err = nanoseconds(g[secs], g[frac]); err != nil {
			return s, false, false, &profread.Error{Source: name, Line: ln, Msg: err.Error()}
		}
		s.hasTime = true
	}
	text := g[rest]
	if g[period] != "" && g[event] == "" {
		// -F without event: a decimal ip of a frame on the header line
		// is not a period.
		if _, _, _, _, _, ok := splitFrame(g[period] + " " + text); ok && text != "" {
			text, g[period] = g[period]+" "+text, ""
		}
	}
	if g[period] != "" {
		p, err := strconv.ParseUint(g[period], 10, 64)
		if err != nil || p > 1<<53 {
			return s, false, false, &profread.Error{Source: name, Line: ln, Msg: fmt.Sprintf("period %s is not a count below 2^53", g[period])}
		}
		s.period, s.hasPeriod = float64(p), true
	}
	if text != "" {
		if ip, sym, dso, _, inlined, ok := splitFrame(text); ok {
			fr, err := newPerfFrame(ip, sym, dso, inlined, ln)
			if err != nil {
				return s, false, false, &profread.Error{Source: name, Line: ln, Msg: err.Error()}
			}
			s.frames = append(s.frames, fr)
		}
	}
	return s, true, false, nil
}

// nanoseconds reads perf's time, seconds and fraction (6 digits, or 9
// with --ns), as nanoseconds.
func nanoseconds(secs, frac string) (int64, error) {
	s, err := strconv.ParseInt(secs, 10, 64)
	if err != nil || s > 1<<33 || len(frac) > 9 {
		return 0, fmt.Errorf("time %s.%s is not perf's seconds.microseconds", secs, frac)
	}
	f, _ := strconv.ParseInt((frac + "000000000")[:9], 10, 64)
	return s*1e9 + f, nil
}

// isFrame appends line to cur's frames if it is a frame line.
func isFrame(line string, cur *perfSample, ln int) bool {
	fr, ok := parsePerfFrame(line, ln)
	if ok {
		cur.frames = append(cur.frames, fr)
	}
	return ok
}

// parsePerfFrame reads a frame line.
func parsePerfFrame(line string, ln int) (perfFrame, bool) {
	ip, sym, dso, _, inlined, ok := splitFrame(line)
	if !ok {
		return perfFrame{}, false
	}
	fr, err := newPerfFrame(ip, sym, dso, inlined, ln)
	return fr, err == nil
}

func newPerfFrame(ip, sym, dso string, inlined bool, ln int) (perfFrame, error) {
	a, err := strconv.ParseUint(ip, 16, 64)
	if err != nil {
		return perfFrame{}, fmt.Errorf("ip %q is not a 64-bit hexadecimal address", ip)
	}
	sym = symOffset.ReplaceAllString(strings.TrimSpace(sym), "")
	return perfFrame{addr: a, sym: sym, dso: dso, inlined: inlined, line: ln}, nil
}

// eventName normalises an event's name: modifiers after ':' and a PMU
// prefix (cpu/cycles/u, cpu_core/instructions/) dropped, aliases folded
// (cpu-cycles → cycles, branch-instructions → branches).
func eventName(ev string) string {
	if strings.Count(ev, "/") >= 2 {
		ev = strings.Split(ev, "/")[1]
	}
	// Modifiers follow the last ':' (cycles:u, cycles:ppp); a tracepoint's
	// subsystem precedes its first (sched:sched_switch) and stays.
	if i := strings.LastIndexByte(ev, ':'); i > 0 && i < len(ev)-1 && strings.Trim(ev[i+1:], "ukhIGHpPSDWe") == "" {
		ev = ev[:i]
	}
	switch ev {
	case "cpu-cycles":
		return "cycles"
	case "branch-instructions":
		return "branches"
	}
	return ev
}
