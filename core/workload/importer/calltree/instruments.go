package calltree

import (
	"fmt"
	"math"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"unicode"

	"github.com/proflab/proflab/core/workload/importer/profmodel"
	"github.com/proflab/proflab/core/workload/importer/profread"
)

// InstrumentsImage is the image of every function of a deep copy (it
// names no library).
const InstrumentsImage = "instruments"

// Instruments reads a deep copy: tab-separated rows under a header
// such as `Weight	Self Weight		Symbol Name`, one row per call-tree
// node, the symbol indented by its depth.
//
//   - Weight: each node's self weight (the "Self Weight"/"Self (ms)"
//     column; without one, its total less its children's totals), in the
//     unit the copy shows converted to one unit per kind: milliseconds
//     for time (ns, µs, ms, s, min, h), cycles (cycles, Kc, Mc, Gc, Tc),
//     bytes (Bytes, KB, MB, GB, TB: powers of 1024) or a bare count. A
//     node's stack is its path from the root, leaf first.
//   - Names: the symbol exactly as shown (`delta()`, `<Unknown
//     Address>`, `DYLD-STUB$$malloc`), indentation removed.
//   - Processes and threads: a root row `name (pid)` is a process, and a
//     row right under it (or a root row) named `… 0xTID` or `Main
//     Thread` a thread; neither is a frame. Other rows belong to one
//     process (--process, else the file's name) with one thread. Busy
//     shares are relative to the busiest thread (the copy has no time
//     span).
//   - Addresses: none; the synthetic layout (one image, "instruments").
//   - Left out: the percentages, "Source Path" and other columns.
var Instruments = &profread.Format{
	Name:  "instruments",
	About: "Instruments' \"Deep Copy\" of a call tree (macOS Time Profiler, Allocations), every Xcode version's column set",
	Detect: func(c *profread.Content) (any, bool) {
		return nil, c.Text && len(c.Lines) > 0 && isInstrumentsHeader(c.Lines[0])
	},
	Read: readInstruments,
}

// isInstrumentsHeader says whether line is a deep copy's header: tab-
// separated columns, one of them "Symbol Name" or "Symbol Names".
func isInstrumentsHeader(line string) bool {
	cols := strings.Split(line, "\t")
	return len(cols) >= 2 && instrumentsColumn(cols, "Symbol Name", "Symbol Names") > 0
}

// instrumentsColumn is the index of the first column named one of names
// (case and spaces ignored), or -1.
func instrumentsColumn(cols []string, names ...string) int {
	for i, c := range cols {
		for _, n := range names {
			if strings.EqualFold(strings.TrimSpace(c), n) {
				return i
			}
		}
	}
	return -1
}

// An instrumentsKind is what a deep copy's weights measure.
type instrumentsKind string

const (
	instrumentsTime   instrumentsKind = "time/ms"
	instrumentsCycles instrumentsKind = "cycles"
	instrumentsBytes  instrumentsKind = "bytes"
	instrumentsCount  instrumentsKind = "count"
)

// instrumentsUnits are the units Instruments prints, with their kind and
// factor to the kind's unit.
var instrumentsUnits = map[string]struct {
	kind   instrumentsKind
	factor float64
}{
	"ns": {instrumentsTime, 1e-6}, "µs": {instrumentsTime, 1e-3}, "μs": {instrumentsTime, 1e-3}, "us": {instrumentsTime, 1e-3},
	"ms": {instrumentsTime, 1}, "s": {instrumentsTime, 1e3}, "min": {instrumentsTime, 6e4}, "h": {instrumentsTime, 3.6e6},
	"cycles": {instrumentsCycles, 1}, "c": {instrumentsCycles, 1}, "Kc": {instrumentsCycles, 1e3}, "Mc": {instrumentsCycles, 1e6},
	"Gc": {instrumentsCycles, 1e9}, "Tc": {instrumentsCycles, 1e12},
	"Bytes": {instrumentsBytes, 1}, "B": {instrumentsBytes, 1}, "KB": {instrumentsBytes, 1 << 10}, "MB": {instrumentsBytes, 1 << 20},
	"GB": {instrumentsBytes, 1 << 30}, "TB": {instrumentsBytes, 1 << 40},
}

// instrumentsValue is a weight cell: a number, its unit, and (in total
// columns) the percentage: "4273.0ms   99.9%", "96.08 Gc  100.0%",
// "846.00 ms", "693", "-".
var instrumentsValue = regexp.MustCompile(`^([0-9]+(?:[.,][0-9]+)?)\s*([^\s0-9%.,]+)?(?:\s+[0-9]+(?:[.,][0-9]+)?\s*%)?$`)

// instrumentsHeaderUnit is a unit in a column's name: "Self (ms)".
var instrumentsHeaderUnit = regexp.MustCompile(`\(([^()\s]+)\)\s*$`)

// parseInstrumentsValue reads a weight cell; unit is the column's own
// unit ("" for none), used when the cell has none.
func parseInstrumentsValue(cell, unit string) (float64, instrumentsKind, error) {
	s := strings.TrimSpace(strings.Map(asciiSpace, cell))
	if s == "-" || s == "" {
		return 0, "", nil
	}
	g := instrumentsValue.FindStringSubmatch(s)
	if g == nil {
		return 0, "", fmt.Errorf("weight %q is not a value Instruments prints (such as \"1.23 s  45.6%%\", \"123.00 ms\" or \"42\")", profread.Clip(s))
	}
	num := strings.Replace(g[1], ",", ".", 1) // a decimal comma (a non-English locale)
	v, err := strconv.ParseFloat(num, 64)
	if err != nil || math.IsInf(v, 0) {
		return 0, "", fmt.Errorf("weight %q is not a number", profread.Clip(s))
	}
	u := g[2]
	if u == "" {
		u = unit
	}
	if u == "" {
		return v, instrumentsCount, nil
	}
	k, ok := instrumentsUnits[u]
	if !ok {
		return 0, "", fmt.Errorf("weight %q has a unit Instruments' importer does not know (%q): give time (ms, s…), cycles (Mc, Gc…) or bytes (KB, MB…)", profread.Clip(s), u)
	}
	return v * k.factor, k.kind, nil
}

// asciiSpace is r, or ' ' for any Unicode space: Instruments pads its
// weight cells with the spaces of the locale and of its fonts (Xcode 16:
// U+2007 FIGURE SPACE before a percentage, "2.45 s  \u20070.0%"; a
// no-break space U+00A0 or a narrow one U+202F between a number and
// its unit or percent sign in French and other locales), which the
// value's pattern reads as the spaces they stand for.
func asciiSpace(r rune) rune {
	if r > 0x7F && unicode.IsSpace(r) {
		return ' '
	}
	return r
}

// instrumentsRow is a call-tree row.
type instrumentsRow struct {
	line        int
	depth       int
	name        string
	total, self float64
	parent      int // index of the parent row, -1 for a root
	childTotal  float64
	// isProcess and isThread mark the rows that are no frame; proc and
	// thread are the process and thread rows a row is under.
	isProcess, isThread bool
	proc, thread        string
}

// instrumentsProcess is a process row: `name (pid)`.
var instrumentsProcess = regexp.MustCompile(`^(.*\S)\s+\((\d+)\)$`)

// instrumentsThread is a thread row: `Main Thread  0x1c2d3`, `Thread
// 0x5e1`, `com.apple.NSURLConnectionLoader  0x6a0b`.
var instrumentsThread = regexp.MustCompile(`(?i)(^main thread$|\s0x[0-9a-f]+$)`)

// readInstruments reads a deep copy into r.Model.
func readInstruments(r *profread.Reading) error {
	var header []string
	var cols struct{ total, self, symbol int }
	var totalUnit, selfUnit string
	var rows []instrumentsRow
	var path profread.IndentPath[int]
	base := -1
	kind := instrumentsKind("")
	kindLine := 0
	err := profread.EachLine(r.Ctx, r.Data, func(ln int, line string) error {
		if strings.TrimSpace(line) == "" {
			return nil
		}
		if header == nil {
			if !isInstrumentsHeader(line) {
				return r.LineErrorf(ln, "%q is not a deep copy's header (tab-separated columns such as `Weight\tSelf Weight\t\tSymbol Name`): copy the call tree with Edit > Deep Copy", profread.Clip(line))
			}
			header = strings.Split(line, "\t")
			cols.symbol = instrumentsColumn(header, "Symbol Name", "Symbol Names")
			cols.total = instrumentsColumn(header, "Weight", "Running Time", "Bytes Used", "Count", "Sample Count", "Total")
			cols.self = instrumentsColumn(header, "Self Weight", "Self (ms)", "Self", "Self Count", "Self Bytes")
			if cols.total < 0 && cols.self < 0 {
				return r.LineErrorf(ln, "the header names no weight column (Weight, Running Time, Bytes Used, Count or Self Weight): give a deep copy of a call tree")
			}
			if cols.total >= 0 {
				totalUnit = instrumentsUnitOf(header[cols.total])
			}
			if cols.self >= 0 {
				selfUnit = instrumentsUnitOf(header[cols.self])
			}
			return nil
		}
		cells := strings.Split(line, "\t")
		if len(cells) <= cols.symbol {
			return r.LineErrorf(ln, "the row has %d tab-separated cells; the header's Symbol Name is cell %d: is the copy cut?", len(cells), cols.symbol+1)
		}
		cell := strings.TrimRight(cells[cols.symbol], " ")
		name := strings.TrimLeft(cell, " ")
		if name == "" {
			return r.LineErrorf(ln, "the row has no symbol name")
		}
		indent := len(cell) - len(name)
		if base < 0 {
			base = indent
		}
		row := instrumentsRow{line: ln, depth: indent - base, name: name, parent: -1}
		if row.depth < 0 {
			return r.LineErrorf(ln, "%q is indented less than the first row: a deep copy starts at its root", profread.Clip(name))
		}
		readCell := func(col int, unit string) (float64, error) {
			if col < 0 || col >= len(cells) {
				return 0, nil
			}
			v, k, err := parseInstrumentsValue(cells[col], unit)
			if err != nil {
				return 0, r.LineErrorf(ln, "%v", err)
			}
			if k != "" && kind != "" && k != kind {
				return 0, r.LineErrorf(ln, "a weight in %s after weights in %s (line %d): one copy measures one thing", k, kind, kindLine)
			}
			if k != "" && kind == "" {
				kind, kindLine = k, ln
			}
			return v, nil
		}
		var err error
		if row.total, err = readCell(cols.total, totalUnit); err != nil {
			return err
		}
		if row.self, err = readCell(cols.self, selfUnit); err != nil {
			return err
		}
		if !path.Enter(row.depth, len(rows)) {
			return r.LineErrorf(ln, "%q is %d levels deeper than the row above (one at most): the tree is broken", profread.Clip(name), row.depth-path.Depth())
		}
		if row.depth > 0 {
			row.parent = path.Rows[row.depth-1]
			rows[row.parent].childTotal += row.total
		}
		rows = append(rows, row)
		return nil
	})
	if err != nil {
		return err
	}
	if len(rows) == 0 {
		return r.Errorf("the deep copy has no rows under its header: copy the call tree's top row with Edit > Deep Copy")
	}
	return instrumentsModel(r, rows, kind, cols.self >= 0)
}

// instrumentsUnitOf is the unit a column's name gives ("Self (ms)" →
// "ms"), or "".
func instrumentsUnitOf(col string) string {
	if g := instrumentsHeaderUnit.FindStringSubmatch(col); g != nil {
		if _, ok := instrumentsUnits[g[1]]; ok {
			return g[1]
		}
	}
	return ""
}

// instrumentsModel adds the rows' self weights as stacks.
func instrumentsModel(r *profread.Reading, rows []instrumentsRow, kind instrumentsKind, hasSelf bool) error {
	m := r.Model
	pname := r.Options.Process
	if pname == "" {
		pname = filepath.Base(r.Name)
	}
	img := m.Image("u", InstrumentsImage, false)
	pids := map[string]string{} // process names given, by process row
	var negative, idle, procSelf int
	var total float64
	var frames []profmodel.Frame
	for i := range rows {
		row := &rows[i]
		if row.parent >= 0 {
			p := &rows[row.parent]
			row.proc, row.thread = p.proc, p.thread
		}
		switch {
		case row.parent < 0 && instrumentsProcess.MatchString(row.name):
			row.isProcess, row.proc = true, row.name
		case (row.parent < 0 || rows[row.parent].isProcess) && instrumentsThread.MatchString(row.name):
			row.isThread, row.thread = true, row.name
		}
		self := row.self
		if !hasSelf {
			self = row.total - row.childTotal
			if self < -1e-9*max(1, row.total) {
				negative++
			}
			self = max(0, self)
		}
		if self <= 0 {
			continue
		}
		if row.isProcess || row.isThread {
			procSelf++
			continue
		}
		frames = frames[:0]
		for j := i; j >= 0; j = rows[j].parent {
			if !rows[j].isProcess && !rows[j].isThread {
				frames = append(frames, profmodel.Frame{Func: m.Func(img, rows[j].name)})
			}
		}
		if r.Options.DropIdle && profmodel.IsIdle(row.name) {
			idle++
			continue
		}
		name := pname
		if row.proc != "" {
			g := instrumentsProcess.FindStringSubmatch(row.proc)
			name = g[1]
			if other, ok := pids[name]; ok && other != row.proc {
				name += "#" + g[2] // two processes of one name: perf's rule
			}
			pids[name] = row.proc
		}
		m.Add(m.Process("p:"+row.proc, name).Thread(row.thread), frames, self)
		total += self
	}
	if negative > 0 {
		m.Note("%d rows weigh less than their children (rounding in the copy); their self weight is taken as 0", negative)
	}
	if procSelf > 0 {
		m.Note("%d process or thread rows carry a self weight of their own; it is not in any stack and was dropped", procSelf)
	}
	if idle > 0 {
		m.Note("%d rows whose symbol is an idle function were dropped (--drop-idle)", idle)
	}
	if total <= 0 {
		return r.Errorf("no row has a positive self weight: there is nothing to import")
	}
	m.RelativeBusy()
	im := r.Sampling
	im.SampleType = string(kind)
	switch kind {
	case instrumentsTime:
		// Time Profiler samples every thread each millisecond by default.
		im.Period, im.PeriodUnit, im.PeriodType = 1, "ms", "time"
		im.Samples = int64(math.Round(total))
		m.Note("the sample count is the weight in milliseconds: Time Profiler's default interval of 1 ms is assumed")
	case instrumentsCount:
		im.Samples = int64(math.Round(total))
	case instrumentsBytes:
		m.Warn("an Allocations deep copy, not a CPU profile: its bytes are where memory was allocated, not where the program ran, and the workload spends its time in those proportions; for where a program runs, deep-copy a Time Profiler call tree")
		m.Note("the number of allocations is not taken: the sample count is left at 0")
	case instrumentsCycles:
		m.Note("the weights are cycles; the copy does not say how many samples carried them: the sample count is left at 0")
	}
	return nil
}
