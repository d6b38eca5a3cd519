package calltree

import (
	"bytes"
	"fmt"
	"math"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/proflab/proflab/core/workload/importer/profmodel"
	"github.com/proflab/proflab/core/workload/importer/profread"
)

// GHCProf reads a GHC time and allocation profiling report: its
// header (total ticks), then the cost-centre stack tree (`COST CENTRE
// MODULE [SRC] no. entries %time %alloc %time %alloc [ticks bytes]`);
// the flat table before it is only checked.
//
//   - Weight: each tree row's individual ticks (the `ticks` column of
//     -P and -pa), else its individual %time × the header's total ticks
//     / 100 (0.1% resolution: a cost centre under 0.05% is lost); a row's
//     stack is its path from MAIN, leaf first.
//   - Names: the cost centre's label exactly (`main.go.acc'`,
//     `medium.\`, `CAF`); images: one per module (`Main`,
//     `GHC.IO.Encoding`), so each module's `CAF` is its own function.
//     Two rows of one label in one module (at several SRC locations) are
//     one function.
//   - Processes and threads: one process (--process, else the program
//     the header names), one thread, busy 1; a program that ran on
//     several capabilities is noted.
//   - Addresses: none; the synthetic layout.
//   - Idle: --drop-idle drops the IDLE cost centre (and the usual idle
//     names).
//   - Left out: allocation, entries, SRC, the inherited columns.
//
// The JSON report of `+RTS -pj` (GHC 8.4 on; what speedscope reads) is
// the same tree: cost_centres (id, label, module, src_loc) and profile,
// a tree of nodes (id, ticks, children), with total_ticks and
// tick_interval (µs); see readGHCJSON.
var GHCProf = &profread.Format{
	Name:  "ghcprof",
	About: "GHC cost-centre profiles, prog.prof from `+RTS -p` (-P, -pa; GHC 6 to 9 column sets) or `+RTS -pj` (JSON)",
	Detect: func(c *profread.Content) (any, bool) {
		if j := c.JSON(); j.Kind == '{' {
			return nil, j.Has("cost_centres", '[') && j.Has("profile", '{')
		}
		if !c.Text || len(c.Lines) == 0 {
			return nil, false
		}
		return nil, strings.Contains(c.Lines[0], "Time and Allocation Profiling Report") || isGHCTreeHeader(c.Lines[0])
	},
	Read: readGHCProf,
}

// isGHCTreeHeader says whether line is the header of the cost-centre
// tree (the flat table's header has no "no." column).
func isGHCTreeHeader(line string) bool {
	f := strings.Fields(line)
	return len(f) >= 4 && f[0] == "COST" && f[1] == "CENTRE" && f[2] == "MODULE" && slicesIndex(f, "no.") > 0
}

// slicesIndex is the index of s in list, or -1.
func slicesIndex(list []string, s string) int {
	for i, x := range list {
		if x == s {
			return i
		}
	}
	return -1
}

// ghcTicks is the header's `(453 ticks @ 1000 us, 1 processor)` (GHC 6:
// `(0 ticks @ 20 ms)`).
var ghcTicks = regexp.MustCompile(`\((\d+) ticks @ (\d+) (us|ms)(?:, (\d+) processors?)?\)`)

// ghcNumber is a number of the tree's columns.
var ghcNumber = regexp.MustCompile(`^[0-9]+(\.[0-9]+)?$`)

// ghcTree is the tree header's layout.
type ghcTree struct {
	moduleCol, srcCol int // rune columns of MODULE and SRC (srcCol -1: no SRC)
	numeric           []string
	timeAt, ticksAt   int // indexes in numeric of individual %time and ticks (-1: none)
}

// readGHCProf reads a .prof report into r.Model.
func readGHCProf(r *profread.Reading) error {
	if d := bytes.TrimLeft(r.Data, " \t\r\n"); len(d) > 0 && d[0] == '{' {
		return readGHCJSON(r)
	}
	m, im := r.Model, r.Sampling
	var program string
	var ticks, interval, caps int64 = -1, 0, 1
	var tree *ghcTree
	var path profread.IndentPath[ghcRow]
	afterTitle, treeLine, base := false, 0, -1
	var total, rowTicks float64
	var idle int
	var frames []profmodel.Frame
	var th *profmodel.Thread
	err := profread.EachLine(r.Ctx, r.Data, func(ln int, line string) error {
		trimmed := strings.TrimSpace(line)
		switch {
		case trimmed == "":
			return nil
		case tree == nil && strings.Contains(line, "Time and Allocation Profiling Report"):
			afterTitle = true
			return nil
		case tree == nil && afterTitle:
			afterTitle = false
			program = trimmed
			if i := strings.Index(program, " +RTS"); i >= 0 {
				program = program[:i]
			} else if f := strings.Fields(program); len(f) > 0 {
				program = f[0]
			}
			return nil
		case tree == nil && strings.HasPrefix(trimmed, "total time"):
			g := ghcTicks.FindStringSubmatch(trimmed)
			if g == nil {
				return r.LineErrorf(ln, "%q does not give the ticks as GHC writes them (`(453 ticks @ 1000 us, 1 processor)`)", profread.Clip(trimmed))
			}
			ticks, _ = strconv.ParseInt(g[1], 10, 64)
			interval, _ = strconv.ParseInt(g[2], 10, 64)
			if g[3] == "ms" {
				interval *= 1000
			}
			if g[4] != "" {
				caps, _ = strconv.ParseInt(g[4], 10, 64)
			}
			return nil
		case tree == nil && isGHCTreeHeader(line):
			tree = newGHCTree(line)
			treeLine = ln
			if tree.timeAt < 0 && tree.ticksAt < 0 {
				return r.LineErrorf(ln, "the cost-centre tree's header has neither %%time nor ticks: nothing to weigh the cost centres by")
			}
			if tree.ticksAt < 0 && ticks < 0 {
				return r.LineErrorf(ln, "the report has no ticks column and no `total time` line before its tree: give the whole .prof file (or run with +RTS -P)")
			}
			return nil
		case tree == nil:
			return nil // the title, the flat table and its header
		}
		row, err := tree.row(line)
		if err != nil {
			return r.LineErrorf(ln, "%v", err)
		}
		if base < 0 {
			base = row.depth
		}
		if row.depth -= base; row.depth < 0 {
			return r.LineErrorf(ln, "%q is indented less than the tree's first row", profread.Clip(row.label))
		}
		if !path.Enter(row.depth, row) {
			return r.LineErrorf(ln, "%q is %d levels deeper than the row above (one at most): the tree is broken", profread.Clip(row.label), row.depth-path.Depth())
		}
		w := row.ticks
		if tree.ticksAt < 0 {
			w = row.time / 100 * float64(ticks)
		}
		rowTicks += row.ticks
		if w <= 0 {
			return nil
		}
		if r.Options.DropIdle && (profmodel.IsIdle(row.label) || row.module == "IDLE") {
			idle++
			return nil
		}
		frames = frames[:0]
		for i := len(path.Rows) - 1; i >= 0; i-- {
			pr := path.Rows[i]
			frames = append(frames, profmodel.Frame{Func: m.Func(m.Image("module:"+pr.module, pr.module, false), pr.label)})
		}
		if th == nil {
			pname := r.Options.Process
			if pname == "" {
				pname = filepath.Base(program)
			}
			if pname == "" || pname == "." {
				pname = filepath.Base(r.Name)
			}
			th = m.Process("", pname).Thread("")
		}
		m.Add(th, frames, w)
		total += w
		return nil
	})
	if err != nil {
		return err
	}
	if tree == nil {
		return r.Errorf("no cost-centre tree (a `COST CENTRE MODULE … no. entries %%time %%alloc` header): give the whole .prof file that +RTS -p writes")
	}
	if idle > 0 {
		m.Note("%d rows of idle cost centres were dropped (--drop-idle)", idle)
	}
	if total <= 0 {
		if ticks == 0 {
			return r.LineErrorf(treeLine, "the report has 0 ticks: the program ran for less than one tick; profile a longer run")
		}
		return r.LineErrorf(treeLine, "no cost centre has time: there is nothing to import")
	}
	im.SampleType = "ticks"
	if tree.ticksAt < 0 {
		im.SampleType = "%time × total ticks"
		m.Note("the weights are each cost centre's %%time (0.1%% resolution) of the %d ticks: run with +RTS -P for the ticks themselves", ticks)
	} else if ticks >= 0 && math.Abs(rowTicks-float64(ticks)) > 0.5 {
		m.Note("the rows' ticks add up to %g, the header says %d", rowTicks, ticks)
	}
	im.Samples = int64(math.Round(total))
	if ticks >= 0 && tree.ticksAt < 0 {
		im.Samples = ticks
	}
	if interval > 0 {
		im.Period, im.PeriodUnit, im.PeriodType = float64(interval), "us", "ticks"
	}
	if caps > 1 {
		m.Note("the program ran on %d capabilities; their ticks are one thread's in the workload", caps)
	}
	return nil
}

// newGHCTree reads the tree's header line.
func newGHCTree(line string) *ghcTree {
	runes := []rune(line)
	t := &ghcTree{moduleCol: runeIndex(runes, "MODULE"), srcCol: runeIndex(runes, " SRC ") + 1, timeAt: -1, ticksAt: -1}
	if t.srcCol == 0 {
		t.srcCol = -1
	}
	f := strings.Fields(line)
	start := slicesIndex(f, "MODULE") + 1
	if i := slicesIndex(f, "SRC"); i > 0 {
		start = i + 1
	}
	t.numeric = f[start:]
	t.timeAt = slicesIndex(t.numeric, "%time")
	t.ticksAt = slicesIndex(t.numeric, "ticks")
	return t
}

// runeIndex is the rune index of sub in runes, or -1.
func runeIndex(runes []rune, sub string) int {
	i := strings.Index(string(runes), sub)
	if i < 0 {
		return -1
	}
	return len([]rune(string(runes)[:i]))
}

// ghcRow is a row of the cost-centre tree.
type ghcRow struct {
	depth              int
	label, module, src string
	time, ticks        float64
}

// row reads a tree row: the indented label, the module, the source
// location (which may hold spaces), then the header's numeric columns.
func (t *ghcTree) row(line string) (ghcRow, error) {
	f := strings.Fields(line)
	n := len(t.numeric)
	if len(f) < n+2 {
		return ghcRow{}, fmt.Errorf("%q is not a row of the cost-centre tree (label, module, then the %d numbers the header names)", profread.Clip(strings.TrimSpace(line)), n)
	}
	nums := f[len(f)-n:]
	row := ghcRow{depth: profread.LeadingSpaces(line)}
	for i, s := range nums {
		v, err := strconv.ParseFloat(s, 64)
		if err != nil || !ghcNumber.MatchString(s) {
			return ghcRow{}, fmt.Errorf("%s %q is not a number: the row does not end with the %d numbers the header names", t.numeric[i], s, n)
		}
		switch i {
		case t.timeAt:
			row.time = v
		case t.ticksAt:
			row.ticks = v
		}
	}
	// The text before the numbers: cut at the header's columns when the
	// row is aligned to them (labels and SRC may hold spaces), else by
	// fields.
	left := strings.TrimRight(line, " \t")
	for range n {
		left = strings.TrimRight(left, "0123456789.")
		left = strings.TrimRight(left, " \t")
	}
	runes := []rune(left)
	aligned := t.moduleCol > 0 && len(runes) > t.moduleCol && runes[t.moduleCol-1] == ' ' && runes[t.moduleCol] != ' '
	if aligned && t.srcCol > 0 {
		aligned = len(runes) > t.srcCol && runes[t.srcCol-1] == ' ' && runes[t.srcCol] != ' '
	}
	if aligned {
		row.label = strings.TrimSpace(string(runes[:t.moduleCol]))
		end := len(runes)
		if t.srcCol > 0 {
			end = t.srcCol
			row.src = strings.TrimSpace(string(runes[t.srcCol:]))
		}
		row.module = strings.TrimSpace(string(runes[t.moduleCol:end]))
		aligned = row.label != "" && row.module != "" && !strings.ContainsAny(row.module, " \t")
	}
	if !aligned {
		lf := strings.Fields(left)
		if len(lf) < 2 {
			return ghcRow{}, fmt.Errorf("%q has no cost centre and module before its numbers", profread.Clip(strings.TrimSpace(line)))
		}
		row.label, row.module, row.src = lf[0], lf[1], strings.Join(lf[2:], " ")
	}
	return row, nil
}

// ghcJSON is the JSON report of `+RTS -pj`.
type ghcJSON struct {
	Program      string `json:"program"`
	TotalTicks   *int64 `json:"total_ticks"`
	TickInterval int64  `json:"tick_interval"`
	Capabilities int64  `json:"initial_capabilities"`
	CostCentres  []struct {
		ID     int64  `json:"id"`
		Label  string `json:"label"`
		Module string `json:"module"`
	} `json:"cost_centres"`
	Profile *ghcJSONNode `json:"profile"`
}

// ghcJSONNode is a node of the JSON report's cost-centre stack tree: its
// cost centre, its individual ticks and its children.
type ghcJSONNode struct {
	ID       int64         `json:"id"`
	Ticks    float64       `json:"ticks"`
	Children []ghcJSONNode `json:"children"`
}

// readGHCJSON reads the JSON report of `+RTS -pj`: each node of the
// profile tree is a row of the text report's tree (its ticks are the
// individual ticks, its stack the path from the root, MAIN), named by
// its cost centre's label in an image per module, as the text report's
// rows are.
func readGHCJSON(r *profread.Reading) error {
	m, im := r.Model, r.Sampling
	var g ghcJSON
	if err := r.DecodeJSON(r.Data, &g, "GHC JSON profile"); err != nil {
		return err
	}
	if g.Profile == nil {
		return r.Errorf("the GHC JSON profile has no \"profile\" tree: give the whole file that +RTS -pj writes")
	}
	type cc struct{ label, module string }
	ccs := make(map[int64]cc, len(g.CostCentres))
	for _, c := range g.CostCentres {
		ccs[c.ID] = cc{c.Label, c.Module}
	}
	pname := r.Options.Process
	if pname == "" {
		pname = filepath.Base(g.Program)
	}
	if pname == "" || pname == "." {
		pname = filepath.Base(r.Name)
	}
	var th *profmodel.Thread
	var path []cc // root first
	var frames []profmodel.Frame
	var total float64
	var idle int
	var walk func(n *ghcJSONNode, depth int) error
	walk = func(n *ghcJSONNode, depth int) error {
		c, ok := ccs[n.ID]
		if !ok {
			return r.Errorf("the profile tree names cost centre %d, which cost_centres does not list: the file is damaged", n.ID)
		}
		if n.Ticks < 0 || math.IsNaN(n.Ticks) {
			return r.Errorf("cost centre %d (%s) has %v ticks: the file is damaged", n.ID, c.label, n.Ticks)
		}
		if depth > maxGHCDepth {
			return r.Errorf("the profile tree is more than %d cost centres deep: refused (is it really a GHC profile?)", maxGHCDepth)
		}
		path = append(path[:depth], c)
		switch {
		case n.Ticks == 0:
		case r.Options.DropIdle && (profmodel.IsIdle(c.label) || c.module == "IDLE"):
			idle++
		default:
			frames = frames[:0]
			for i := len(path) - 1; i >= 0; i-- {
				frames = append(frames, profmodel.Frame{Func: m.Func(m.Image("module:"+path[i].module, path[i].module, false), path[i].label)})
			}
			if th == nil {
				th = m.Process("", pname).Thread("")
			}
			m.Add(th, frames, n.Ticks)
			total += n.Ticks
		}
		for i := range n.Children {
			if err := walk(&n.Children[i], depth+1); err != nil {
				return err
			}
		}
		return nil
	}
	if err := walk(g.Profile, 0); err != nil {
		return err
	}
	if idle > 0 {
		m.Note("%d nodes of idle cost centres were dropped (--drop-idle)", idle)
	}
	if total <= 0 {
		if g.TotalTicks != nil && *g.TotalTicks == 0 {
			return r.Errorf("the report has 0 ticks: the program ran for less than one tick; profile a longer run")
		}
		return r.Errorf("no cost centre has time: there is nothing to import")
	}
	im.SampleType = "ticks"
	im.Samples = int64(math.Round(total))
	if g.TotalTicks != nil && math.Abs(total-float64(*g.TotalTicks)) > 0.5 {
		m.Note("the nodes' ticks add up to %g, total_ticks says %d", total, *g.TotalTicks)
	}
	if g.TickInterval > 0 {
		im.Period, im.PeriodUnit, im.PeriodType = float64(g.TickInterval), "us", "ticks"
	}
	if g.Capabilities > 1 {
		m.Note("the program ran on %d capabilities; their ticks are one thread's in the workload", g.Capabilities)
	}
	return nil
}

// maxGHCDepth bounds the JSON report's tree (GHC folds recursion into
// one cost-centre stack entry, so real trees are shallow).
const maxGHCDepth = 4096
