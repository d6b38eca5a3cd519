package importer

import (
	"bytes"
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// perfHeader matches a sample's header line as `perf script` prints it by
// default: comm, pid[/tid], [cpu], time:, [period], event:, and (without
// call graphs) the ip, symbol and dso on the same line.
var perfHeader = regexp.MustCompile(`^\s*(\S.*?)\s+(-?\d+)(?:/(-?\d+))?\s+(?:\[(\d+)\]\s+)?(\d+\.\d+):\s+(?:(\d+)\s+)?(\S+?):(?:\s+(.*?))?\s*$`)

// splitFrame splits `ip symbol[+0xOFFSET] (dso)` (a frame line's text or
// the end of a header without call graph). The dso is the last
// parenthesized group, parentheses inside it balanced ("(/usr/bin/prog
// (deleted))"); the symbol is everything between, parentheses and spaces
// included ("std::vector<int>::push_back(int const&)").
func splitFrame(s string) (ip, sym, dso string, ok bool) {
	s = strings.TrimSpace(s)
	i := strings.IndexAny(s, " \t")
	if i <= 0 || !strings.HasSuffix(s, ")") {
		return "", "", "", false
	}
	ip, rest := s[:i], strings.TrimSpace(s[i:])
	for _, r := range ip {
		if !strings.ContainsRune("0123456789abcdefABCDEF", r) {
			return "", "", "", false
		}
	}
	depth := 0
	for j := len(rest) - 1; j >= 0; j-- {
		switch rest[j] {
		case ')':
			depth++
		case '(':
			depth--
			if depth == 0 {
				return ip, strings.TrimSpace(rest[:j]), rest[j+1 : len(rest)-1], true
			}
		}
	}
	return "", "", "", false
}

// symOffset is perf's +0xOFFSET after a symbol.
var symOffset = regexp.MustCompile(`\+0x[0-9a-fA-F]+$`)

// perfSample is one sample of a perf script file.
type perfSample struct {
	line      int
	comm      string
	pid, tid  int64
	tidOnly   bool // the header printed one number: the thread's (see groupThreads)
	cpu       int
	hasCPU    bool
	period    float64
	hasPeriod bool
	event     string // normalised (see eventName)
	rawEvent  string
	frames    []perfFrame
}

// perfFrame is one frame: ip, symbol without its offset, dso.
type perfFrame struct {
	addr uint64
	sym  string
	dso  string
	line int
	// inlined: perf printed "(inlined)" instead of the dso (see
	// perfBuilder.entries)
	inlined bool
}

// parsePerf reads every sample of a perf script text. Lines starting with
// '#' are comments; a sample is a header line followed by its frame lines
// (indented) up to a blank line or the next header.
func parsePerf(name string, data []byte) ([]perfSample, int, error) {
	var out []perfSample
	var cur *perfSample
	skipped := 0
	for ln := 1; len(data) > 0; ln++ {
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
			if s, ok, err := parsePerfHeader(name, line, ln); err != nil {
				return nil, 0, err
			} else if ok {
				out = append(out, s)
				cur = &out[len(out)-1]
				continue
			}
			if cur == nil {
				return nil, 0, &Error{Source: name, Line: ln, Msg: fmt.Sprintf("%q is neither a sample header (`comm pid/tid [cpu] time: period event:`) nor a frame of one: is this the default output of `perf script`?", clip(line))}
			}
			if fr, ok := parsePerfFrame(line, ln); ok {
				cur.frames = append(cur.frames, fr)
				continue
			}
			skipped++ // srcline and other annotations under a frame
		default:
			s, ok, err := parsePerfHeader(name, line, ln)
			if err != nil {
				return nil, 0, err
			}
			if !ok {
				return nil, 0, &Error{Source: name, Line: ln, Msg: fmt.Sprintf("%q is not a sample header of `perf script` (comm pid/tid [cpu] time: period event:): give the default output of perf script (custom -F field lists are not read)", clip(line))}
			}
			out = append(out, s)
			cur = &out[len(out)-1]
		}
	}
	groupThreads(out)
	return out, skipped, nil
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

// parsePerfHeader reads a header line; ok is false when it is none.
func parsePerfHeader(name, line string, ln int) (perfSample, bool, error) {
	g := perfHeader.FindStringSubmatch(line)
	if g == nil {
		return perfSample{}, false, nil
	}
	s := perfSample{line: ln, comm: g[1], rawEvent: g[7], event: eventName(g[7])}
	var err error
	if s.pid, err = strconv.ParseInt(g[2], 10, 64); err != nil {
		return s, false, &Error{Source: name, Line: ln, Msg: fmt.Sprintf("pid %q is not a number", g[2])}
	}
	s.tid = s.pid
	s.tidOnly = g[3] == ""
	if g[3] != "" {
		if s.tid, err = strconv.ParseInt(g[3], 10, 64); err != nil {
			return s, false, &Error{Source: name, Line: ln, Msg: fmt.Sprintf("tid %q is not a number", g[3])}
		}
	}
	if g[4] != "" {
		cpu, err := strconv.Atoi(g[4])
		if err != nil || cpu > 1<<20 {
			return s, false, &Error{Source: name, Line: ln, Msg: fmt.Sprintf("cpu [%s] is not a processor number", g[4])}
		}
		s.cpu, s.hasCPU = cpu, true
	}
	if g[6] != "" {
		p, err := strconv.ParseUint(g[6], 10, 64)
		if err != nil || p > 1<<53 {
			return s, false, &Error{Source: name, Line: ln, Msg: fmt.Sprintf("period %s is not a count below 2^53", g[6])}
		}
		s.period, s.hasPeriod = float64(p), true
	}
	if rest := g[8]; rest != "" {
		if ip, sym, dso, ok := splitFrame(rest); ok {
			fr, err := newPerfFrame(ip, sym, dso, ln)
			if err != nil {
				return s, false, &Error{Source: name, Line: ln, Msg: err.Error()}
			}
			s.frames = append(s.frames, fr)
		}
	}
	return s, true, nil
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
	ip, sym, dso, ok := splitFrame(line)
	if !ok {
		return perfFrame{}, false
	}
	fr, err := newPerfFrame(ip, sym, dso, ln)
	return fr, err == nil
}

func newPerfFrame(ip, sym, dso string, ln int) (perfFrame, error) {
	a, err := strconv.ParseUint(ip, 16, 64)
	if err != nil {
		return perfFrame{}, fmt.Errorf("ip %q is not a 64-bit hexadecimal address", ip)
	}
	sym = symOffset.ReplaceAllString(strings.TrimSpace(sym), "")
	if dso == "inlined" {
		return perfFrame{addr: a, sym: sym, line: ln, inlined: true}, nil
	}
	return perfFrame{addr: a, sym: sym, dso: dso, line: ln}, nil
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

// clip shortens a line for a message.
func clip(s string) string {
	if len(s) > 120 {
		return s[:117] + "..."
	}
	return s
}
