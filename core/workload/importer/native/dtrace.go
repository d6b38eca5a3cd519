package native

import (
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/proflab/proflab/core/workload/importer/profmodel"
	"github.com/proflab/proflab/core/workload/importer/profread"
)

// DTrace reads a printed stack aggregation: each entry is the
// keys (on one line), the stack's frames, one per line, leaf first,
// indented (`              libc.so.1`_lwp_park+0x8`,
// `              genunix`cv_wait+0x3c`), then the aggregated value.
//
//   - Weight: the value after each stack (count(); a sum() is taken as
//     it is). Entries of value 0 are skipped; entries without a frame (a
//     kernel thread's empty ustack()) are dropped with a note.
//   - Names: `module`function` frames give the function exactly, without
//     its +0xOFFSET, in an image per module (`libc.so.1`, `genunix`); an
//     unsymbolized frame (`module`0x7ff1c2a0`, `0x7ff1c2a0`) is a
//     function of that name. Other frame texts (ustack helpers, jstack)
//     are functions of their text in an image `[helper]`.
//   - Kernel: the frames of a stack that holds a frame of the kernel
//     (unix, genunix, kernel, mach_kernel) are kernel functions (a
//     stack() beside a ustack() is printed as its own group of lines).
//   - Addresses: the +0xOFFSET of each frame is kept: a function's frames
//     are laid out at their offsets from the function's start (symbol
//     start at the function's offset 0, functions 16-byte aligned in
//     order of first appearance, each as long as its highest offset
//     plus 16 bytes), so the leaf offsets become the function's hotspots.
//   - Processes: the keys before the stack, as printed (`bash`, `1234`,
//     `bash 1234`), name the entry's process (--process keeps one), one
//     thread each, busy shares relative to the busiest; without keys,
//     one process (--process, else the file's name).
//   - Left out: "dtrace:" messages (drops are noted), probe lines, keys
//     after the stack, ustack helper annotations (`[ … ]` lines).
var DTrace = &profread.Format{
	Name:  "dtrace",
	About: "DTrace stack aggregations (@[ustack()] = count(), stack(), execname or pid keys), what stackcollapse.pl reads",
	Detect: func(c *profread.Content) (any, bool) {
		return nil, c.Text && isDTrace(c.Lines)
	},
	Read: readDTrace,
}

// isDTrace says whether the first lines are a printed stack aggregation:
// a frame with a module (`mod`func`), every other line indented or a
// message of dtrace's own.
func isDTrace(lines []string) bool {
	frames := 0
	for _, l := range lines {
		switch {
		case dtraceNoise(l):
		case isDTraceFrame(l):
			frames++
		case l[0] != ' ' && l[0] != '\t':
			return false
		}
	}
	return frames > 0
}

// dtraceCPUHeader and dtraceProbeLine are the lines dtrace prints when a
// probe fires without -q: `CPU     ID                    FUNCTION:NAME`
// and `  1  75383                        :tick-60s`.
var (
	dtraceCPUHeader = regexp.MustCompile(`^\s*CPU\s+ID\s+FUNCTION:NAME\s*$`)
	dtraceProbeLine = regexp.MustCompile(`^\s*\d+\s+\d+\s+\S*:\S+\s*$`)
	dtraceOffset    = regexp.MustCompile(`\+0x([0-9a-fA-F]+)$`)
	dtraceHex       = regexp.MustCompile(`^0x[0-9a-fA-F]+$`)
	dtraceProfile   = regexp.MustCompile(`\bprofile-(\d+)(ns|nsec|us|usec|ms|msec|s|sec|hz)?\b`)
)

// dtraceNoise says whether line is one of dtrace's own (a message, a
// probe's firing, ^C).
func dtraceNoise(line string) bool {
	t := strings.TrimSpace(line)
	switch {
	case strings.HasPrefix(line, "dtrace:"), t == "^C":
		return true
	case strings.HasPrefix(t, "CPU"):
		return dtraceCPUHeader.MatchString(line)
	case t != "" && t[0] >= '0' && t[0] <= '9' && strings.IndexByte(t, ':') > 0:
		return dtraceProbeLine.MatchString(line)
	}
	return false
}

// isDTraceFrame says whether line is surely a frame: indented, `module`
// then a symbol or address, or an address alone.
func isDTraceFrame(line string) bool {
	if line == "" || (line[0] != ' ' && line[0] != '\t') {
		return false
	}
	t := strings.TrimSpace(line)
	if dtraceHex.MatchString(t) {
		return true
	}
	mod, sym, ok := strings.Cut(t, "`")
	return ok && mod != "" && sym != "" && !strings.ContainsAny(mod, " \t")
}

// dtraceFrame is a distinct frame text: its function and offset.
type dtraceFrame struct {
	module, name string
	helper       bool
	off          uint64
	hasOff       bool
}

// dtraceEntry is an aggregation entry: its process key, its frames
// (indexes in the frame table, leaf first) by group, and its value.
type dtraceEntry struct {
	line   int
	proc   string
	frames [][]int32
	value  float64
}

// dtraceReader reads a stack aggregation.
type dtraceReader struct {
	r       *profread.Reading
	frameBy map[string]int32
	frames  []dtraceFrame
	entries []dtraceEntry
	// the entry being read
	keys     []string
	groups   [][]int32
	indent   string // the current group's frame indentation
	gap      bool   // a blank line since the last frame
	start    int
	drops    []string
	helpers  int
	annotate int
	profile  string
}

// readDTrace reads a stack aggregation into r.Model.
func readDTrace(r *profread.Reading) error {
	d := &dtraceReader{r: r, frameBy: map[string]int32{}}
	var pend string
	pendLn := 0
	err := profread.EachLine(r.Ctx, r.Data, func(ln int, line string) error {
		if pendLn > 0 {
			if err := d.line(pendLn, pend, isDTraceFrame(line)); err != nil {
				return err
			}
		}
		pend, pendLn = strings.TrimRight(line, " \t"), ln
		return nil
	})
	if err == nil && pendLn > 0 {
		err = d.line(pendLn, pend, false)
	}
	if err != nil {
		return err
	}
	if len(d.groups) > 0 || len(d.keys) > 0 {
		return r.LineErrorf(d.start, "the last entry has no value after its stack: is the output cut?")
	}
	return d.build()
}

// line reads one line; nextIsFrame says whether the very next line is a
// frame (a number line before a frame is a key, else a value).
func (d *dtraceReader) line(ln int, line string, nextIsFrame bool) error {
	t := strings.TrimSpace(line)
	switch {
	case t == "":
		d.gap = len(d.groups) > 0
		return nil
	case dtraceNoise(line):
		if strings.HasPrefix(line, "dtrace:") {
			if strings.Contains(t, "drop") {
				d.drops = append(d.drops, t)
			}
			if g := dtraceProfile.FindStringSubmatch(t); g != nil && d.profile == "" {
				d.profile = g[0]
			}
		}
		return nil
	case isDTraceFrame(line) || (len(d.groups) > 0 && !d.gap && d.indent != "" && strings.HasPrefix(line, d.indent) &&
		line[len(d.indent)] != ' ' && line[len(d.indent)] != '\t' && !dtraceValueLine(t)):
		if strings.HasPrefix(t, "[ ") && strings.HasSuffix(t, " ]") {
			d.annotate++ // a ustack helper's annotation of the frame above
			return nil
		}
		if len(d.groups) == 0 && len(d.keys) == 0 {
			d.start = ln
		}
		if len(d.groups) == 0 || d.gap {
			d.groups = append(d.groups, nil)
			d.indent = line[:len(line)-len(strings.TrimLeft(line, " \t"))]
			d.gap = false
		}
		g := &d.groups[len(d.groups)-1]
		*g = append(*g, d.frame(t))
		return nil
	}
	fields := strings.Fields(t)
	last := fields[len(fields)-1]
	isNum := dtraceValueLine(last)
	if nextIsFrame || !isNum {
		if len(d.groups) > 0 || !nextIsFrame {
			return d.r.LineErrorf(ln, "%q is neither a frame (`module`function+0xOFFSET`), the keys before a stack nor the value after one: give the output of a stack aggregation (@[ustack()] = count())", profread.Clip(t))
		}
		if len(d.keys) == 0 {
			d.start = ln
		}
		d.keys = append(d.keys, fields...)
		return nil
	}
	// The value: the entry ends. Words before it are keys printed after
	// the stack (or, with no stack, the keys of an empty stack).
	v, err := strconv.ParseUint(last, 10, 64)
	if err != nil || v > 1<<53 {
		return d.r.LineErrorf(ln, "value %q is not a count below 2^53", profread.Clip(last))
	}
	if len(d.groups) == 0 && len(d.keys) == 0 {
		d.start = ln
	}
	if len(d.groups) == 0 {
		d.keys = append(d.keys, fields[:len(fields)-1]...)
	}
	d.entries = append(d.entries, dtraceEntry{line: d.start, proc: strings.Join(d.keys, " "), frames: d.groups, value: float64(v)})
	d.keys, d.groups, d.gap, d.indent = nil, nil, false, ""
	return nil
}

// dtraceValueLine says whether s is a value: digits.
func dtraceValueLine(s string) bool {
	return s != "" && strings.Trim(s, "0123456789") == ""
}

// frame is the frame table's index of a frame text.
func (d *dtraceReader) frame(text string) int32 {
	if i, ok := d.frameBy[text]; ok {
		return i
	}
	fr := dtraceFrame{name: text}
	switch mod, sym, ok := strings.Cut(text, "`"); {
	case ok && mod != "" && !strings.ContainsAny(mod, " \t"):
		fr.module, fr.name = mod, sym
		if g := dtraceOffset.FindStringSubmatchIndex(sym); g != nil && g[0] > 0 {
			off, err := strconv.ParseUint(sym[g[2]:g[3]], 16, 64)
			if err == nil && off < 1<<32 {
				fr.name, fr.off, fr.hasOff = sym[:g[0]], off, true
			}
		} else if !dtraceHex.MatchString(sym) {
			fr.hasOff = true // printed without +0x: the pc is the symbol's start
		}
	case dtraceHex.MatchString(text):
		fr.module = "[unknown]"
	default:
		fr.module, fr.helper = "[helper]", true
		d.helpers++
	}
	i := int32(len(d.frames))
	d.frames = append(d.frames, fr)
	d.frameBy[text] = i
	return i
}

// dtraceKernelModules are the modules that mark a stack as the kernel's.
var dtraceKernelModules = map[string]bool{"unix": true, "genunix": true, "kernel": true, "mach_kernel": true}

// build lays the frames out and adds the entries.
func (d *dtraceReader) build() error {
	r, m := d.r, d.r.Model
	if len(d.drops) > 0 {
		m.Warn("dtrace dropped data while tracing (%q%s): the counts miss what was dropped; raise -x bufsize / -x aggsize, or sample less often", d.drops[0], map[bool]string{true: fmt.Sprintf(" and %d more messages", len(d.drops)-1)}[len(d.drops) > 1])
	}
	if d.annotate > 0 {
		m.Note("%d ustack helper annotations ([ … ] lines) were skipped", d.annotate)
	}
	if d.helpers > 0 {
		m.Note("%d distinct frames are ustack helper or jstack text (no module`symbol): they are functions of image [helper]", d.helpers)
	}
	// Which frames are the kernel's: those of a group holding a kernel
	// module's frame.
	kernel := make([]bool, len(d.frames))
	for _, e := range d.entries {
		for _, g := range e.frames {
			isK := false
			for _, i := range g {
				mod := d.frames[i].module
				isK = isK || dtraceKernelModules[mod] || strings.HasPrefix(mod, "kernel.") || strings.HasPrefix(mod, "mach_kernel")
			}
			if isK {
				for _, i := range g {
					kernel[i] = true
				}
			}
		}
	}
	fns := d.layout(kernel)
	names := map[string]bool{}
	for _, e := range d.entries {
		names[e.proc] = true
	}
	keyed := len(names) > 1 || !names[""]
	pname := r.Options.Process
	if pname == "" {
		pname = filepath.Base(r.Name)
	}
	if keyed && r.Options.Process != "" && !names[r.Options.Process] {
		return r.Errorf("--process %s: no entry has that key; the file's keys are %s", r.Options.Process, strings.Join(slices.Sorted(func(yield func(string) bool) {
			for n := range names {
				if !yield(n) {
					return
				}
			}
		}), ", "))
	}
	var total float64
	var empty, idle, zero, other float64
	emptyLine := 0
	var frames []profmodel.Frame
	for _, e := range d.entries {
		switch {
		case e.value == 0:
			zero++
			continue
		case len(e.frames) == 0:
			if empty == 0 {
				emptyLine = e.line
			}
			empty += e.value
			continue
		case keyed && r.Options.Process != "" && e.proc != r.Options.Process:
			other += e.value
			continue
		}
		frames = frames[:0]
		for _, g := range e.frames {
			for _, i := range g {
				fr := d.frames[i]
				f := fns[i]
				frames = append(frames, profmodel.Frame{Func: f.fn, Addr: f.base + fr.off, HasAddr: fr.hasOff})
			}
		}
		if r.Options.DropIdle && profmodel.IsIdle(frames[0].Func.Name()) {
			idle += e.value
			continue
		}
		name := pname
		if keyed && e.proc != "" {
			name = e.proc
		}
		m.Add(m.Process("k:"+e.proc, name).Thread(""), frames, e.value)
		total += e.value
	}
	if zero > 0 {
		m.Note("%g entries with a value of 0 were skipped", zero)
	}
	if empty > 0 {
		m.Note("%g samples with an empty stack (a kernel thread's ustack(), say) were dropped (the first entry at line %d)", empty, emptyLine)
	}
	if idle > 0 {
		m.Note("%g samples whose leaf is an idle function were dropped (--drop-idle)", idle)
	}
	if other > 0 {
		m.Note("%g samples of other keys than --process %s were dropped", other, r.Options.Process)
	}
	if total <= 0 {
		return r.Errorf("no stack with a positive value: there is nothing to import (give the output of a stack aggregation such as @[ustack()] = count())")
	}
	m.RelativeBusy()
	im := r.Sampling
	im.SampleType = "count"
	im.Samples = int64(total)
	if us := dtraceProfilePeriod(d.profile); us > 0 {
		im.Period, im.PeriodUnit, im.PeriodType = us, "us", "time ("+d.profile+")"
	}
	return nil
}

// dtraceProfilePeriod is the period in microseconds of a profile probe's
// name as dtrace's message gives it (profile-997: 997 Hz; profile-10ms),
// or 0.
func dtraceProfilePeriod(probe string) float64 {
	g := dtraceProfile.FindStringSubmatch(probe)
	if g == nil {
		return 0
	}
	n, err := strconv.ParseFloat(g[1], 64)
	if err != nil || n <= 0 {
		return 0
	}
	switch g[2] {
	case "", "hz":
		return 1e6 / n
	case "ns", "nsec":
		return n / 1e3
	case "us", "usec":
		return n
	case "ms", "msec":
		return n * 1e3
	}
	return n * 1e6 // s, sec
}

// dtraceFn is a frame's function and the synthetic source address of
// its start.
type dtraceFn struct {
	fn   *profmodel.Func
	base uint64
}

// layout makes every frame's function and gives each function a
// synthetic start address: per image, in order of first appearance,
// 16-byte aligned, each function as long as its highest offset plus
// Padding, so that frames sit at their offsets.
func (d *dtraceReader) layout(kernel []bool) []dtraceFn {
	m := d.r.Model
	out := make([]dtraceFn, len(d.frames))
	type fnSpan struct {
		f    *profmodel.Func
		high uint64
		has  bool
	}
	spans := map[*profmodel.Func]*fnSpan{}
	var order []*fnSpan
	for i, fr := range d.frames {
		key, name := "u:"+fr.module, fr.module
		if kernel[i] {
			key = "k:" + fr.module
		}
		f := m.Func(m.Image(key, name, kernel[i]), fr.name)
		out[i].fn = f
		s := spans[f]
		if s == nil {
			s = &fnSpan{f: f}
			spans[f] = s
			order = append(order, s)
		}
		if fr.hasOff {
			s.high, s.has = max(s.high, fr.off), true
		}
	}
	next := map[*profmodel.Image]uint64{}
	bases := map[*profmodel.Func]uint64{}
	for _, s := range order {
		if !s.has {
			continue // no offset seen: the synthetic layout's 256 bytes
		}
		img := s.f.Image()
		base := profmodel.AlignUp(next[img], profmodel.SyntheticAlign)
		bases[s.f] = base
		s.f.See(base) // the symbol's start
		next[img] = base + s.high + profmodel.Padding
	}
	for i := range out {
		out[i].base = bases[out[i].fn]
	}
	return out
}
