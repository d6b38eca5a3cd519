package calltree

import (
	"fmt"
	"math"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/proflab/proflab/core/workload/importer/profmodel"
	"github.com/proflab/proflab/core/workload/importer/profread"
)

// Callgrind reads the callgrind format, version 1 (valgrind's
// "Callgrind Format Specification").
//
//   - Weight: the self cost of the first event of the `events:` line (Ir,
//     instructions executed, by default), read from the cost lines; the
//     cost lines after `calls=` lines are inclusive costs of calls, which
//     give the call graph (see callcontexts.go) and are no self cost.
//     Callgrind counts every instruction: it does not sample, so the
//     sample count is the total of that event and the period is 0.
//   - Rates: with --cache-sim=yes and --branch-sim=yes, each function's
//     own Ir, LL misses (ILmr+DLmr+DLmw), LL references (I1mr+D1mr+D1mw),
//     branches (Bc+Bi) and mispredictions (Bcm+Bim) give its
//     cache_miss_rate, cache_ref_rate, branch_rate and mispredict_rate as
//     perf's events do (profmodel.Func.SetRates).
//   - Names: `fn=` exactly as written (`(below main)`, `0x0000000000004290`
//     for a function without a symbol, `f'2` with --separate-recs), name
//     compression `(id) name` resolved. Images: one per `ob=` object, named
//     by its file's base name (`???` when callgrind did not know it); a
//     function without one is in an image named after the command.
//   - Addresses: with --dump-instr=yes (`positions: instr …`) every cost
//     line's instruction address, relative to its object as callgrind
//     writes it, is kept: the function's self cost per address becomes its
//     hotspots, call sites widen their caller's span. With line positions
//     only, the functions get the synthetic layout.
//   - Processes and threads: one process (--process, else the `cmd:`
//     program's base name, else the file's); a thread per `thread:` part
//     (--separate-threads=yes with --combine-dumps=yes), busy shares
//     relative to the busiest thread (callgrind serialises threads).
//   - Left out: file and line positions, `jump=`/`jcnd=` counts, call
//     counts, `summary:` (`totals:` is checked: a total that differs from
//     the cost lines' sum is a warning), the `bb` subposition.
var Callgrind = &profread.Format{
	Name:  "callgrind",
	About: "callgrind profiles (valgrind --tool=callgrind, with or without --dump-instr=yes; cachegrind's output)",
	Detect: func(c *profread.Content) (any, bool) {
		return nil, c.Text && isCallgrind(c)
	},
	Read: readCallgrind,
}

// isCallgrind recognises callgrind text: the "# callgrind format" line,
// or header lines (`key: value`) of which one is `events:`, before the
// first position or cost line.
func isCallgrind(c *profread.Content) bool {
	if strings.HasPrefix(string(c.Data[:min(len(c.Data), 64)]), "# callgrind format") {
		return true
	}
	for _, l := range c.Lines {
		key, _, ok := strings.Cut(l, ":")
		switch {
		case key == "events":
			return true
		case !ok || !callgrindHeaderKeys[key]:
			return false
		}
	}
	return false
}

// callgrindHeaderKeys are the keys of the format's header lines.
var callgrindHeaderKeys = map[string]bool{
	"version": true, "creator": true, "pid": true, "thread": true, "part": true, "cmd": true, "desc": true,
	"positions": true, "events": true, "event": true, "summary": true, "totals": true,
}

// callgrindReader is a callgrind file being read.
type callgrindReader struct {
	r      *profread.Reading
	events []string
	// posN is the number of subpositions of a cost line, addrAt the
	// index of "instr" among them (-1: none).
	posN, addrAt int
	last         []uint64 // the last cost line's subpositions
	names        map[string]map[string]string
	ob, fn       string // the current object and function
	cob, cfn     string // the called object and function of the next call
	hasCob       bool
	cur          *cgFunc // the current function (nil: look it up)
	callee       *cgFunc // the callee of a pending calls= line
	callLine     int     // the pending calls= line
	jumpLine     int     // a pending jump=/jcnd= line
	thread       string
	graphs       map[string]*callGraph
	threadOrder  []string
	funcs        map[[2]string]*cgFunc
	cmd          string
	creator      string
	// part is the first event's self cost since the last totals: line;
	// badTotals the first totals: line that differs from it.
	part             float64
	badTotals        int
	badTotal, badSum float64
	unknown          int
	firstUnknown     int
}

// cgFunc is a callgrind function: its workload function and, per
// event, its self cost.
type cgFunc struct {
	f      *profmodel.Func
	events []float64
}

// readCallgrind reads a callgrind file into r.Model.
func readCallgrind(r *profread.Reading) error {
	cr := &callgrindReader{r: r, posN: 1, addrAt: -1, last: make([]uint64, 1),
		names:  map[string]map[string]string{"ob": {}, "fl": {}, "fn": {}},
		graphs: map[string]*callGraph{}, funcs: map[[2]string]*cgFunc{}}
	if err := profread.EachLine(r.Ctx, r.Data, cr.line); err != nil {
		return err
	}
	if cr.callLine > 0 {
		return r.LineErrorf(cr.callLine, "a calls= line ends the file: it must be followed by the cost line of the call")
	}
	if cr.events == nil {
		return r.Errorf("no `events:` line: a callgrind file names its events in its header (give the output of valgrind --tool=callgrind)")
	}
	return cr.build()
}

// line reads one line.
func (cr *callgrindReader) line(ln int, line string) error {
	line = strings.TrimSpace(line)
	if line == "" || line[0] == '#' {
		return nil
	}
	switch c := line[0]; {
	case c >= '0' && c <= '9', c == '+', c == '-', c == '*':
		return cr.costLine(ln, line)
	}
	if key, val, ok := strings.Cut(line, "="); ok && !strings.ContainsAny(key, ": \t") {
		return cr.spec(ln, key, strings.TrimSpace(val))
	}
	if key, val, ok := strings.Cut(line, ":"); ok && callgrindHeaderKeys[key] {
		return cr.header(ln, key, strings.TrimSpace(val))
	}
	if cr.unknown == 0 {
		cr.firstUnknown = ln
	}
	cr.unknown++
	return nil
}

// header reads a `key: value` line.
func (cr *callgrindReader) header(ln int, key, val string) error {
	r := cr.r
	switch key {
	case "events":
		ev := strings.Fields(val)
		if len(ev) == 0 {
			return r.LineErrorf(ln, "`events:` names no event")
		}
		if cr.events != nil && strings.Join(ev, " ") != strings.Join(cr.events, " ") {
			return r.LineErrorf(ln, "a part with the events %q after parts with %q: the parts of one file must count the same events", val, strings.Join(cr.events, " "))
		}
		cr.events = ev
	case "positions":
		ps := strings.Fields(val)
		cr.posN, cr.addrAt = len(ps), -1
		for i, p := range ps {
			switch p {
			case "instr":
				cr.addrAt = i
			case "line", "bb":
			default:
				return r.LineErrorf(ln, "position %q is not one of instr, bb or line", p)
			}
		}
		if cr.posN == 0 {
			return r.LineErrorf(ln, "`positions:` names no position")
		}
		cr.last = make([]uint64, cr.posN)
	case "thread":
		cr.thread = val
	case "cmd":
		cr.cmd = val
	case "creator":
		cr.creator = val
	case "totals":
		f := strings.Fields(val)
		if len(f) == 0 {
			return r.LineErrorf(ln, "`totals:` gives no cost")
		}
		v, err := parseCallgrindNumber(f[0])
		if err != nil {
			return r.LineErrorf(ln, "totals: %v", err)
		}
		if math.Abs(v-cr.part) > 0.5 && cr.badTotals == 0 {
			cr.badTotals, cr.badTotal, cr.badSum = ln, v, cr.part
		}
		cr.part = 0
	}
	return nil
}

// spec reads a `spec=value` line.
func (cr *callgrindReader) spec(ln int, key, val string) error {
	r := cr.r
	if cr.callLine > 0 {
		return r.LineErrorf(cr.callLine, "the calls= line is not followed by the cost line of the call (line %d is %s=)", ln, key)
	}
	table := map[string]string{"ob": "ob", "cob": "ob", "fl": "fl", "fi": "fl", "fe": "fl", "cfi": "fl", "cfl": "fl", "jfi": "fl",
		"fn": "fn", "cfn": "fn", "jfn": "fn"}[key]
	var name string
	if table != "" {
		var err error
		if name, err = cr.name(table, val); err != nil {
			return r.LineErrorf(ln, "%s=%s: %v", key, profread.Clip(val), err)
		}
	}
	switch key {
	case "ob":
		cr.ob, cr.cur = name, nil
	case "fn":
		cr.fn, cr.cur = name, nil
	case "cob":
		cr.cob, cr.hasCob = name, true
	case "cfn":
		cr.cfn = name
	case "calls":
		if cr.cfn == "" {
			return r.LineErrorf(ln, "calls= without a cfn= before it: the called function is not named")
		}
		fields := strings.Fields(val)
		if len(fields) < 1+cr.posN {
			return r.LineErrorf(ln, "calls=%s: want a call count and %d target position(s)", profread.Clip(val), cr.posN)
		}
		if _, err := parseCallgrindNumber(fields[0]); err != nil {
			return r.LineErrorf(ln, "calls=%s: call count: %v", profread.Clip(val), err)
		}
		if _, err := cr.positions(fields[1:1+cr.posN], nil); err != nil {
			return r.LineErrorf(ln, "calls=%s: target position: %v", profread.Clip(val), err)
		}
		ob := cr.ob
		if cr.hasCob {
			ob = cr.cob
		}
		cr.callee = cr.function(ob, cr.cfn)
		cr.callLine = ln
		cr.hasCob = false
	case "jump", "jcnd":
		cr.jumpLine = ln
	case "fl", "fi", "fe", "cfi", "cfl", "jfi", "jfn":
	default:
		if cr.unknown == 0 {
			cr.firstUnknown = ln
		}
		cr.unknown++
	}
	return nil
}

// name resolves a position name with name compression: "(id) name"
// defines id, "(id)" refers to it, other text is the name itself.
func (cr *callgrindReader) name(table, val string) (string, error) {
	if len(val) < 2 || val[0] != '(' || val[1] < '0' || val[1] > '9' {
		return val, nil
	}
	end := strings.IndexByte(val, ')')
	if end < 0 {
		return "", fmt.Errorf("the compressed name has no ')'")
	}
	id := val[1:end]
	if strings.Trim(id, "0123456789") != "" {
		return "", fmt.Errorf("compressed name id %q is not a number", id)
	}
	if rest := strings.TrimSpace(val[end+1:]); rest != "" {
		cr.names[table][id] = rest
		return rest, nil
	}
	n, ok := cr.names[table][id]
	if !ok {
		return "", fmt.Errorf("compressed name (%s) is used before it is defined", id)
	}
	return n, nil
}

// costLine reads a cost line: subpositions, then costs.
func (cr *callgrindReader) costLine(ln int, line string) error {
	r := cr.r
	if cr.events == nil {
		return r.LineErrorf(ln, "a cost line before the `events:` header line: is the file cut at its start?")
	}
	fields := strings.Fields(line)
	if len(fields) < cr.posN {
		return r.LineErrorf(ln, "the cost line has %d fields; `positions:` says each starts with %d position(s)", len(fields), cr.posN)
	}
	pos, err := cr.positions(fields[:cr.posN], cr.last)
	if err != nil {
		return r.LineErrorf(ln, "%v", err)
	}
	copy(cr.last, pos)
	costs := fields[cr.posN:]
	if len(costs) > len(cr.events) {
		return r.LineErrorf(ln, "the cost line has %d costs for %d events", len(costs), len(cr.events))
	}
	if cr.jumpLine > 0 { // the source position of a jump: no cost
		cr.jumpLine = 0
		return nil
	}
	if cr.fn == "" {
		return r.LineErrorf(ln, "a cost line before any fn= line: the function is not named")
	}
	if cr.cur == nil {
		cr.cur = cr.function(cr.ob, cr.fn)
	}
	var first float64
	for i, c := range costs {
		v, err := parseCallgrindNumber(c)
		if err != nil {
			return r.LineErrorf(ln, "cost of %s: %v", cr.events[i], err)
		}
		if i == 0 {
			first = v
		}
		if cr.callee == nil {
			cr.cur.events[i] += v
		}
	}
	g := cr.graph()
	addr, hasAddr := uint64(0), cr.addrAt >= 0
	if hasAddr {
		addr = pos[cr.addrAt]
	}
	if cr.callee != nil { // the inclusive cost of the call
		g.call(cr.cur.f, cr.callee.f, first)
		if hasAddr {
			cr.cur.f.See(addr)
		}
		cr.callee, cr.callLine = nil, 0
		return nil
	}
	g.self(cr.cur.f, first, addr, hasAddr)
	cr.part += first
	return nil
}

// positions reads subpositions: absolute (decimal or 0x hexadecimal),
// relative to last (+N, -N) or the same (*); last nil means a call's
// target, relative to the last cost line.
func (cr *callgrindReader) positions(fields []string, last []uint64) ([]uint64, error) {
	if last == nil {
		last = cr.last
	}
	out := make([]uint64, len(fields))
	for i, f := range fields {
		// A KCachegrind range ("0x10+4", "12:20") counts at its start.
		if j := strings.IndexAny(f[1:], "+-:"); j >= 0 && f[0] != '+' && f[0] != '-' {
			f = f[:j+1]
		}
		switch {
		case f == "*":
			out[i] = last[i]
		case f[0] == '+' || f[0] == '-':
			d, ok := parseCallgrindUint(f[1:])
			if !ok {
				return nil, fmt.Errorf("subposition %q is not a relative position (+N, -N)", f)
			}
			switch {
			case f[0] == '-' && d > last[i]:
				return nil, fmt.Errorf("subposition %q takes the last position, %#x, below 0: the file is damaged", f, last[i])
			case f[0] == '-':
				out[i] = last[i] - d
			case d >= maxCallgrindPosition-last[i]:
				return nil, fmt.Errorf("subposition %q takes the last position, %#x, to 2^53 or past it (positions are below 2^53): the file is damaged", f, last[i])
			default:
				out[i] = last[i] + d
			}
		default:
			v, ok := parseCallgrindUint(f)
			if !ok {
				return nil, fmt.Errorf("subposition %q is not a number", f)
			}
			if v >= maxCallgrindPosition {
				return nil, fmt.Errorf("subposition %q is 2^53 or more (positions are below 2^53): the file is damaged", f)
			}
			out[i] = v
		}
	}
	return out, nil
}

// maxCallgrindPosition bounds a subposition (an address, a line): below
// 2^53, as the format's costs are, so that any position the import keeps
// is one the workload (and m:run) reads. No instruction address of a
// 64-bit machine's user space (below 2^47 or 2^56) is refused in
// practice: callgrind writes addresses relative to their object.
const maxCallgrindPosition = 1 << 53

// parseCallgrindUint reads the format's Number: decimal digits, or 0x
// and hexadecimal digits.
func parseCallgrindUint(s string) (uint64, bool) {
	base := 10
	if len(s) > 2 && (s[:2] == "0x" || s[:2] == "0X") {
		s, base = s[2:], 16
	}
	if s == "" || s[0] == '+' || s[0] == '-' {
		return 0, false
	}
	v, err := strconv.ParseUint(s, base, 64)
	return v, err == nil
}

// parseCallgrindNumber reads a cost: a Number below 2^53 (where float64
// sums stay exact; 2^53 itself is refused too: 2^53+1 reads as it).
func parseCallgrindNumber(s string) (float64, error) {
	v, ok := parseCallgrindUint(s)
	if !ok || v >= 1<<53 {
		return 0, fmt.Errorf("%q is not a count below 2^53", profread.Clip(s))
	}
	return float64(v), nil
}

// function is the callgrind function name of object ob.
func (cr *callgrindReader) function(ob, name string) *cgFunc {
	key := [2]string{ob, name}
	if f := cr.funcs[key]; f != nil {
		return f
	}
	m := cr.r.Model
	img := m.Image("ob:"+ob, cr.imageName(ob), false)
	f := &cgFunc{f: m.Func(img, name), events: make([]float64, len(cr.events))}
	cr.funcs[key] = f
	return f
}

// imageName is the image of object ob: its file's base name, or for no
// object the command's.
func (cr *callgrindReader) imageName(ob string) string {
	if ob != "" {
		return filepath.Base(ob)
	}
	if p := callgrindProgram(cr.cmd); p != "" {
		return p
	}
	return "callgrind"
}

// callgrindProgram is the base name of cmd's program ("" for none).
func callgrindProgram(cmd string) string {
	f := strings.Fields(cmd)
	if len(f) == 0 {
		return ""
	}
	return filepath.Base(f[0])
}

// graph is the current thread's call graph.
func (cr *callgrindReader) graph() *callGraph {
	g := cr.graphs[cr.thread]
	if g == nil {
		g = newCallGraph()
		cr.graphs[cr.thread] = g
		cr.threadOrder = append(cr.threadOrder, cr.thread)
	}
	return g
}

// build adds the threads' calling contexts to the model.
func (cr *callgrindReader) build() error {
	r, m := cr.r, cr.r.Model
	if cr.unknown > 0 {
		m.Note("%d lines that are not callgrind's were skipped (the first at line %d)", cr.unknown, cr.firstUnknown)
	}
	pname := r.Options.Process
	if pname == "" {
		if pname = callgrindProgram(cr.cmd); pname == "" {
			pname = filepath.Base(r.Name)
		}
	}
	p := m.Process("", pname)
	var total, idle float64
	var idleFuncs int
	for _, key := range cr.threadOrder {
		g := cr.graphs[key]
		if r.Options.DropIdle {
			for _, n := range g.nodes {
				if n.self > 0 && profmodel.IsIdle(n.f.Name()) {
					idle += n.self
					idleFuncs++
					n.self, n.selfAt = 0, nil
				}
			}
		}
		total += g.addContexts(m, p, key)
	}
	if idleFuncs > 0 {
		m.Note("the self cost (%g %s) of %d idle functions was dropped (--drop-idle)", idle, cr.events[0], idleFuncs)
	}
	if total <= 0 {
		return r.Errorf("no cost line has a positive %s self cost: there is nothing to import", cr.events[0])
	}
	if cr.badTotals > 0 {
		m.Warn("the totals: line at line %d gives %g %s, the cost lines of its part add up to %g: is the file cut or edited?", cr.badTotals, cr.badTotal, cr.events[0], cr.badSum)
	}
	m.RelativeBusy()
	cr.rates()
	im := r.Sampling
	im.SampleType = cr.events[0]
	im.Samples = int64(total)
	if cr.events[0] == "Ir" {
		im.PeriodType = "instructions"
	}
	if c := strings.ToLower(cr.creator); c == "" || strings.Contains(c, "valgrind") || strings.Contains(c, "callgrind") || strings.Contains(c, "cachegrind") {
		m.Note("callgrind counts every %s (it does not sample): the weights are exact counts, and the sample count is their total", cr.events[0])
	} else {
		// another tool's profile in callgrind's format (xdebug, yappi…):
		// its costs are its own measure, taken as they are
		m.Note("the file was written by %s, not valgrind: each function's self %s, as that tool measured it, is its weight, and the sample count is their total", profread.Clip(cr.creator), cr.events[0])
	}
	return nil
}

// callgrindRates maps callgrind's events to the events profmodel's rates
// reads.
var callgrindRates = map[string]string{
	"Ir":   profmodel.EventInstructions,
	"ILmr": profmodel.EventCacheMisses, "DLmr": profmodel.EventCacheMisses, "DLmw": profmodel.EventCacheMisses,
	"I1mr": profmodel.EventCacheReferences, "D1mr": profmodel.EventCacheReferences, "D1mw": profmodel.EventCacheReferences,
	"Bc": profmodel.EventBranches, "Bi": profmodel.EventBranches,
	"Bcm": profmodel.EventBranchMisses, "Bim": profmodel.EventBranchMisses,
}

// rates sets per-function rates from the cache and branch simulators'
// events, as perf's events do.
func (cr *callgrindReader) rates() {
	mapped := 0
	for _, e := range cr.events {
		if callgrindRates[e] != "" && e != "Ir" {
			mapped++
		}
	}
	if mapped == 0 {
		return
	}
	var clamped int
	for _, f := range cr.funcs {
		events := map[string]float64{}
		for i, e := range cr.events {
			if ev := callgrindRates[e]; ev != "" {
				events[ev] += f.events[i]
			}
		}
		f.f.SetEvents(events)
		_, c := f.f.SetRates()
		clamped += c
	}
	if clamped > 0 {
		cr.r.Model.Note("%d per-function rates were outside the model's ranges and were clamped", clamped)
	}
}
