package native

import (
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/proflab/proflab/core/workload/importer/profmodel"
	"github.com/proflab/proflab/core/workload/importer/profread"
)

// Pmcstat reads pmcstat -G callchains: a section per PMC event,
// `@ EVENT [N samples]`, then one tree per sampled function: the
// function with its samples (`20.86%  [7447]     zfs_lz4_compress @
// /boot/kernel/zfs.ko`), its callers indented under it, each with the
// samples whose chain went through it (its percentage is of its
// parent's).
//
//   - Weight: the samples of the weight event, its section's: a cycles
//     event (CPU_CLK_UNHALTED_CORE, cpu_clk_unhalted.thread_p,
//     unhalted-cycles…), else instructions (inst_retired.any…), else the
//     first section's, with a warning when it counts cache misses,
//     branches or another event that is not time. A node's samples less
//     its callers' are chains that end there (pmcstat's depth limit, or
//     an unwind that stopped): each such count is a stack from the
//     sampled function up to that node.
//   - Rates: the other sections' samples per sampled function give CPI
//     and cache and branch rates as perf's events do (profmodel's rates),
//     assuming every event was sampled at the same rate (pmcstat -n,
//     65536 by default): the report does not print the rates.
//   - Names: the symbol exactly as printed (an address `0xffffffff80b1c2d3`
//     where pmcstat had no symbol); images by the path after `@` (a line
//     without one is in the image printed last), named by base name;
//     kernel images are those under /boot/, *.ko and "kernel".
//   - One process (--process, else the file's name) of one thread,
//     busy 1: the report does not split samples by process or thread.
//   - Addresses: none (pmcstat prints functions, not pcs); the synthetic
//     layout.
var Pmcstat = &profread.Format{
	Name:  "pmcstat",
	About: "FreeBSD pmcstat -G callchain reports (hwpmc samples, one section per event)",
	Detect: func(c *profread.Content) (any, bool) {
		return nil, c.Text && len(c.Lines) > 0 && pmcstatSection.MatchString(c.Lines[0])
	},
	Read: readPmcstat,
}

// pmcstatSection is a section's header: `@ EVENT [N samples]`.
var pmcstatSection = regexp.MustCompile(`^@ (\S.*?) \[(\d+) samples\]\s*$`)

// pmcstatNode is a node line: indentation (its depth), percentage,
// [samples], then the name and, when the image changes, ` @ image`.
var pmcstatNode = regexp.MustCompile(`^( *)(\d+(?:\.\d+)?)%\s+\[(\d+)\]\s+(\S.*?)\s*$`)

// pmcstatNodeRow is a node of a section's trees.
type pmcstatNodeRow struct {
	line        int
	name, image string
	count       float64
	childCount  float64
	parent      int
}

// pmcstatSectionRows is an event's section.
type pmcstatSectionRows struct {
	event, class string
	line         int
	samples      int64
	nodes        []pmcstatNodeRow
}

// readPmcstat reads a pmcstat -G report into r.Model.
func readPmcstat(r *profread.Reading) error {
	var sections []*pmcstatSectionRows
	var cur *pmcstatSectionRows
	var path profread.IndentPath[int]
	var image string
	skipped, firstSkipped := 0, 0
	err := profread.EachLine(r.Ctx, r.Data, func(ln int, line string) error {
		trimmed := strings.TrimSpace(line)
		if trimmed == "" || strings.HasPrefix(trimmed, "#") {
			return nil
		}
		if g := pmcstatSection.FindStringSubmatch(line); g != nil {
			n, err := strconv.ParseInt(g[2], 10, 64)
			if err != nil {
				return r.LineErrorf(ln, "the sample count %q is not a number", g[2])
			}
			cur = &pmcstatSectionRows{event: g[1], class: pmcEventClass(g[1]), line: ln, samples: n}
			sections = append(sections, cur)
			path, image = profread.IndentPath[int]{}, ""
			return nil
		}
		g := pmcstatNode.FindStringSubmatch(line)
		if g == nil || cur == nil {
			if cur == nil {
				return r.LineErrorf(ln, "%q comes before any `@ EVENT [N samples]` section header: give the output of pmcstat -G", profread.Clip(trimmed))
			}
			if skipped == 0 {
				firstSkipped = ln
			}
			skipped++
			return nil
		}
		depth := len(g[1])
		count, err := strconv.ParseFloat(g[3], 64)
		if err != nil || count > 1<<53 {
			return r.LineErrorf(ln, "sample count [%s] is not a count below 2^53", g[3])
		}
		name := g[4]
		if i := strings.LastIndex(name, " @ "); i >= 0 {
			name, image = strings.TrimSpace(name[:i]), strings.TrimSpace(name[i+3:])
		} else if depth == 0 {
			image = "" // pmcstat names the image of every sampled function
		}
		node := pmcstatNodeRow{line: ln, name: name, image: image, count: count, parent: -1}
		if !path.Enter(depth, len(cur.nodes)) {
			return r.LineErrorf(ln, "%q is %d levels deeper than the line above (one at most): the callchain tree is broken", profread.Clip(name), depth-path.Depth())
		}
		if depth > 0 {
			node.parent = path.Rows[depth-1]
			p := &cur.nodes[node.parent]
			p.childCount += count
			if p.childCount > p.count {
				return r.LineErrorf(ln, "the callers of %q (line %d) have more samples (%g) than it has (%g)", profread.Clip(p.name), p.line, p.childCount, p.count)
			}
		}
		cur.nodes = append(cur.nodes, node)
		return nil
	})
	if err != nil {
		return err
	}
	if len(sections) == 0 {
		return r.Errorf("no `@ EVENT [N samples]` section: give the output of pmcstat -G")
	}
	if skipped > 0 {
		r.Model.Note("%d lines that are not callchain lines were skipped (the first at line %d)", skipped, firstSkipped)
	}
	return pmcstatModel(r, sections)
}

// pmcstatModel adds the weight event's chains to the model and the other
// events' samples as rates.
func pmcstatModel(r *profread.Reading, sections []*pmcstatSectionRows) error {
	m, im := r.Model, r.Sampling
	w := sections[0]
	for _, class := range []string{profmodel.EventCycles, profmodel.EventInstructions} {
		if s := pmcstatFind(sections, class); s != nil {
			w = s
			break
		}
	}
	if w.class != profmodel.EventCycles && w.class != profmodel.EventInstructions {
		events := make([]string, len(sections))
		for i, s := range sections {
			events[i] = s.event
		}
		if w.class != "" || notTime(strings.ToLower(w.event)) {
			m.Warn("the report's events (%s) count something other than where the program ran: its %s samples are taken for time; sample a cycles event (pmcstat -S CPU_CLK_UNHALTED_CORE or unhalted-cycles) with the others beside it for rates", strings.Join(events, ", "), w.event)
		} else {
			m.Note("%s is not an event known to count cycles or instructions: its samples are taken as the program's time", w.event)
		}
	}
	pname := r.Options.Process
	if pname == "" {
		pname = filepath.Base(r.Name)
	}
	var th *profmodel.Thread
	var idle, total float64
	var frames []profmodel.Frame
	for i := range w.nodes {
		n := &w.nodes[i]
		end := n.count - n.childCount
		if end <= 0 {
			continue
		}
		frames = frames[:0]
		top := i
		for w.nodes[top].parent >= 0 {
			top = w.nodes[top].parent
		}
		if r.Options.DropIdle && profmodel.IsIdle(w.nodes[top].name) {
			idle += end
			continue
		}
		for j := i; j >= 0; j = w.nodes[j].parent {
			frames = append(frames, profmodel.Frame{Func: pmcstatFn(m, w.nodes[j])})
		}
		// frames run from node i up to the sampled function: leaf first is
		// the sampled function, so reverse.
		for a, b := 0, len(frames)-1; a < b; a, b = a+1, b-1 {
			frames[a], frames[b] = frames[b], frames[a]
		}
		if th == nil {
			th = m.Process("", pname).Thread("")
		}
		m.Add(th, frames, end)
		total += end
	}
	if idle > 0 {
		m.Note("%g samples whose sampled function is an idle function were dropped (--drop-idle)", idle)
	}
	if total <= 0 {
		return r.LineErrorf(w.line, "the %s section has no sample left to import", w.event)
	}
	im.SampleType = w.event
	im.PeriodType = w.class
	if im.PeriodType == "" {
		im.PeriodType = w.event
	}
	im.PeriodUnit = "events"
	im.Samples = int64(total)
	var sum float64
	for _, n := range w.nodes {
		if n.parent < 0 {
			sum += n.count
		}
	}
	if int64(sum) != w.samples {
		m.Note("the %s section's header says %d samples, its sampled functions add up to %g", w.event, w.samples, sum)
	}
	pmcstatRates(m, sections, w)
	return nil
}

// pmcstatFind is the first section of event class.
func pmcstatFind(sections []*pmcstatSectionRows, class string) *pmcstatSectionRows {
	for _, s := range sections {
		if s.class == class {
			return s
		}
	}
	return nil
}

// pmcstatFn is the function of a node: its name in its image.
func pmcstatFn(m *profmodel.Model, n pmcstatNodeRow) *profmodel.Func {
	path := n.image
	name := filepath.Base(path)
	if path == "" {
		name = "[unknown]"
	}
	kernel := strings.HasPrefix(path, "/boot/") || strings.HasSuffix(path, ".ko") || name == "kernel"
	return m.Func(m.Image("pmc:"+path, name, kernel), n.name)
}

// pmcEventClass is the event (as profmodel names them) a hwpmc event
// counts, or "" when it is none of those: event names of FreeBSD's
// pmc(3) tables, the Intel and AMD JSON names and the aliases.
func pmcEventClass(ev string) string {
	e := strings.ToLower(ev)
	has := func(parts ...string) bool {
		for _, p := range parts {
			if strings.Contains(e, p) {
				return true
			}
		}
		return false
	}
	switch {
	case has("misp", "mispred", "branch-miss", "branch_miss"):
		return profmodel.EventBranchMisses
	case has("br_inst_retired", "branch", "br_retired"):
		return profmodel.EventBranches
	case has("llc_miss", "llc-miss", "longest_lat_cache.miss", "cache-miss", "cache_miss", "l3_miss"):
		return profmodel.EventCacheMisses
	case has("llc_ref", "llc-ref", "longest_lat_cache.ref", "cache-ref", "cache_ref"):
		return profmodel.EventCacheReferences
	case has("cycles", "clk_unhalted", "cpu_clk", "unhalted"):
		return profmodel.EventCycles
	case has("inst_retired", "instr_retired", "instructions", "inst_ret", "retired_instructions"):
		return profmodel.EventInstructions
	}
	return ""
}

// pmcstatRates sums every section's samples per sampled function and
// sets the functions' rates, as perf's rates do.
func pmcstatRates(m *profmodel.Model, sections []*pmcstatSectionRows, w *pmcstatSectionRows) {
	if len(sections) < 2 {
		return
	}
	var noFunc float64
	for _, s := range sections {
		if s.class == "" {
			continue
		}
		for _, n := range s.nodes {
			if n.parent >= 0 {
				continue
			}
			img := m.LookupImage("pmc:" + n.image)
			var f *profmodel.Func
			if img != nil {
				f = img.Lookup(n.name)
			}
			if f == nil {
				noFunc += n.count
				continue
			}
			f.AddEvent(s.class, n.count)
		}
	}
	set, clamped := m.SetRates()
	if set > 0 {
		m.Note("per-function rates from the events' samples assume every event was sampled at the same rate (pmcstat -n; the report does not print it)")
	}
	if clamped > 0 {
		m.Note("%d per-function rates were outside the model's ranges (few samples of an event) and were clamped", clamped)
	}
	if noFunc > 0 {
		m.Note("%g samples of other events than %s fell in functions no %s sample saw; they give no rate", noFunc, w.event, w.event)
	}
}
