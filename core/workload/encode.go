package workload

import (
	"bufio"
	"io"
	"math"
	"strconv"
	"strings"
)

// WriteTOML writes s as TOML to w as it goes, a table at a time, so that
// a workload of millions of functions and stacks is never held as text
// in memory (an imported profile's workload can be hundreds of MiB).
// The text is byte for byte what github.com/BurntSushi/toml's encoder
// writes for s (its field order, indentation and quoting; a test
// compares the two), and [Parse] reads it back as s. It returns w's
// first error.
func WriteTOML(w io.Writer, s *Spec) error {
	e := &encoder{w: bufio.NewWriterSize(w, 64<<10)}
	e.spec(s)
	if e.err != nil {
		return e.err
	}
	return e.w.Flush()
}

// encoder writes TOML as github.com/BurntSushi/toml does: in a table,
// the key/value pairs first, then the sub-tables and arrays of tables,
// each in struct order; a blank line before every table header; two
// spaces of indentation per level below the top.
type encoder struct {
	w     *bufio.Writer
	wrote bool // something was written (no blank line before the first header)
	err   error
}

// The omission rules of the struct tags: omitzero skips zero numbers
// (and zero addresses), omitempty empty strings, slices and false.

func (e *encoder) spec(s *Spec) {
	e.str(0, "name", s.Name, true)
	e.uint(0, "instruction_bytes", s.InstructionBytes, true)
	e.uint(0, "quantum_us", s.QuantumUS, true)
	e.uint(0, "segment_instructions", s.SegmentInstructions, true)
	e.bool(0, "create_processes", s.CreateProcesses)
	for i := range s.Images {
		img := &s.Images[i]
		e.header(0, "[[image]]")
		e.str(1, "name", img.Name, false)
		e.addr(1, "base", img.Base)
		e.bool(1, "kernel", img.Kernel)
		e.functions(1, "image.function", img.Functions)
	}
	for i := range s.Processes {
		p := &s.Processes[i]
		e.header(0, "[[process]]")
		e.str(1, "name", p.Name, false)
		e.functions(1, "process.function", p.Functions)
		e.stacks(1, "process.stack", p.Stacks)
		for j := range p.Threads {
			t := &p.Threads[j]
			e.header(1, "[[process.thread]]")
			e.uint(2, "affinity", t.Affinity, true)
			e.int(2, "cpu", int64(t.CPU), true)
			e.float(2, "busy", t.Busy, true)
			e.shares(2, "process.thread.run", t.Run)
			e.stacks(2, "process.thread.stack", t.Stacks)
		}
	}
	// BurntSushi's omitempty never omits a struct with a float field
	// (it counts no number as empty), so [kernel] is always written.
	k := &s.Kernel
	e.header(0, "[kernel]")
	e.float(1, "interrupt_share", k.InterruptShare, true)
	e.float(1, "dpc_share", k.DPCShare, true)
	e.shares(1, "kernel.isr", k.ISR)
	e.shares(1, "kernel.dpc", k.DPC)
}

// functions writes fs as the array of tables key, at depth (its
// entries' keys one level deeper).
func (e *encoder) functions(depth int, key string, fs []Function) {
	for i := range fs {
		f := &fs[i]
		e.header(depth, "[["+key+"]]")
		d := depth + 1
		e.str(d, "name", f.Name, false)
		e.bool(d, "inline", f.Inline)
		e.addr(d, "base", f.Base)
		e.addr(d, "offset", f.Offset)
		e.uint(d, "size", f.Size, true)
		e.float(d, "weight", f.Weight, false)
		e.float(d, "cpi", f.CPI, true)
		e.float(d, "branch_rate", f.BranchRate, true)
		e.float(d, "mispredict_rate", f.MispredictRate, true)
		e.float(d, "cache_miss_rate", f.CacheMissRate, true)
		e.float(d, "cache_ref_rate", f.CacheRefRate, true)
		e.uint(d, "loop_instructions", f.LoopInstructions, true)
		e.str(d, "caller", f.Caller, true)
		for _, h := range f.Hotspots {
			e.header(d, "[["+key+".hotspot]]")
			e.uint(d+1, "offset", h.Offset, false)
			e.uint(d+1, "size", h.Size, false)
			e.float(d+1, "weight", h.Weight, false)
		}
	}
}

// stacks writes ss as the array of tables key.
func (e *encoder) stacks(depth int, key string, ss []Stack) {
	for i := range ss {
		s := &ss[i]
		e.header(depth, "[["+key+"]]")
		d := depth + 1
		if s.Frames != nil { // BurntSushi writes no nil slice
			e.key(d, "frames")
			e.write("[")
			for j, f := range s.Frames {
				if j > 0 {
					e.write(", ")
				}
				e.quoted(f)
			}
			e.write("]\n")
		}
		if len(s.Inlined) > 0 {
			e.key(d, "inlined")
			e.write("[")
			for j, n := range s.Inlined {
				if j > 0 {
					e.write(", ")
				}
				e.write(strconv.Itoa(n))
			}
			e.write("]\n")
		}
		e.float(d, "weight", s.Weight, false)
	}
}

// shares writes ss as the array of tables key.
func (e *encoder) shares(depth int, key string, ss []Share) {
	for _, s := range ss {
		e.header(depth, "[["+key+"]]")
		e.str(depth+1, "function", s.Function, false)
		e.float(depth+1, "weight", s.Weight, true)
	}
}

// header writes a table's header line, after a blank line unless it is
// the first thing written.
func (e *encoder) header(depth int, h string) {
	if e.wrote {
		e.write("\n")
	}
	e.indent(depth)
	e.write(h)
	e.write("\n")
}

// key starts the line of key at depth: "key = ".
func (e *encoder) key(depth int, key string) {
	e.indent(depth)
	e.write(key)
	e.write(" = ")
}

func (e *encoder) indent(depth int) {
	for range depth {
		e.write("  ")
	}
}

// str writes a string value (omitted when empty and omit).
func (e *encoder) str(depth int, key, v string, omit bool) {
	if omit && v == "" {
		return
	}
	e.key(depth, key)
	e.quoted(v)
	e.write("\n")
}

// uint writes an unsigned value (omitted when zero and omit).
func (e *encoder) uint(depth int, key string, v uint64, omit bool) {
	if omit && v == 0 {
		return
	}
	e.key(depth, key)
	e.write(strconv.FormatUint(v, 10))
	e.write("\n")
}

// int writes a signed value (omitted when zero and omit).
func (e *encoder) int(depth int, key string, v int64, omit bool) {
	if omit && v == 0 {
		return
	}
	e.key(depth, key)
	e.write(strconv.FormatInt(v, 10))
	e.write("\n")
}

// bool writes true; false is omitted (every bool is omitempty).
func (e *encoder) bool(depth int, key string, v bool) {
	if v {
		e.key(depth, key)
		e.write("true\n")
	}
}

// addr writes a non-zero address as its quoted hexadecimal text
// (Address.MarshalText); zero is omitted.
func (e *encoder) addr(depth int, key string, a Address) {
	if a == 0 {
		return
	}
	e.key(depth, key)
	e.write(`"0x`)
	e.write(strings.ToUpper(strconv.FormatUint(uint64(a), 16)))
	e.write("\"\n")
}

// float writes a float as BurntSushi does: the shortest 'g' form, with
// ".0" added to an integral one, nan and inf by name (omitted when zero
// and omit).
func (e *encoder) float(depth int, key string, v float64, omit bool) {
	if omit && v == 0 {
		return
	}
	e.key(depth, key)
	switch {
	case math.IsNaN(v):
		if math.Signbit(v) {
			e.write("-")
		}
		e.write("nan")
	case math.IsInf(v, 0):
		if math.Signbit(v) {
			e.write("-")
		}
		e.write("inf")
	default:
		s := strconv.FormatFloat(v, 'g', -1, 64)
		e.write(s)
		if !strings.ContainsAny(s, ".e") {
			e.write(".0")
		}
	}
	e.write("\n")
}

// quoted writes s as a TOML basic string: quotes and backslashes escaped,
// control characters as \b \t \n \f \r or \uXXXX. Bytes that are not
// UTF-8 are written as they are (as BurntSushi does): a spec that holds
// them does not read back, and the importers never make one.
func (e *encoder) quoted(s string) {
	e.write(`"`)
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' && c != 0x7f {
			continue
		}
		e.write(s[start:i])
		start = i + 1
		switch c {
		case '"':
			e.write(`\"`)
		case '\\':
			e.write(`\\`)
		case '\b':
			e.write(`\b`)
		case '\t':
			e.write(`\t`)
		case '\n':
			e.write(`\n`)
		case '\f':
			e.write(`\f`)
		case '\r':
			e.write(`\r`)
		default:
			e.write(`\u00`)
			e.write(string("0123456789abcdef"[c>>4]) + string("0123456789abcdef"[c&15]))
		}
	}
	e.write(s[start:])
	e.write(`"`)
}

// write writes s, keeping the first error.
func (e *encoder) write(s string) {
	if e.err != nil || s == "" {
		return
	}
	_, e.err = e.w.WriteString(s)
	e.wrote = true
}
