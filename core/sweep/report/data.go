// Package report writes a finished sweep's reports from its output
// folder's results.jsonl: results.csv (parameters and metrics flattened),
// summary.md (per grid point: n, mean with its 95% confidence interval,
// stddev, min, max of each metric over the repeats, and the failures),
// SVG plots (gonum.org/v1/plot: the sweep file's [[plot]] tables, or
// defaults a person would choose, their error bars the confidence
// intervals of summary.md) and report.html, one page that needs no
// network.
//
// What the reports cost is bounded by what they can show, not by the
// metrics the runs recorded: the default plots, the page's tables and
// its embedded plots have limits, and what they leave out is said on
// the page and returned for the terminal; results.csv and summary.md
// hold everything, written as streams.
//
// Every report is a function of the results without their timings, so
// that a sweep's reports are the same bytes for any number of workers or
// shards.
package report

import (
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/proflab/proflab/core/input"
	"github.com/proflab/proflab/core/sweep/results"
)

// data is what the reports are made of: everything but the runs
// themselves, which the CSV reads again from the results file, so that a
// report's memory grows with the grid points, never with the repeats.
type data struct {
	dir    string
	sweep  string   // the sweep file's name, from sweep.json
	unread []string // the parameters no run read, from sweep.json
	// from the sweep file, through sweep.json: its path as given, its
	// [units] (by name and as written) and its [[plot]] tables
	sweepPath string
	units     map[string]Unit
	unitList  []Unit
	labels    map[string]string
	labelList []Label
	specs     []PlotSpec
	formats   []string     // the figure formats to write
	expect    results.Runs // what each line must be (nil: any index of 0 or more)
	runs      int
	params    []param  // every parameter, in name order
	metric    []string // numeric metrics, flattened names, sorted
	columns   []string // every metric, numeric or not, flattened, sorted
	points    []*point // grid points in run order
}

// param is a parameter and its distinct values in first-seen order.
type param struct {
	name    string
	values  []string // as text
	numbers []float64
	numeric bool
}

func (p param) varies() bool { return len(p.values) > 1 }

// point is one grid point: the runs with one set of parameters.
type point struct {
	params  map[string]string
	n       int // runs
	ok      int
	failed  int
	errors  int
	metrics map[string]*moments
}

// moments are a metric's running statistics over a point's repeats
// (Welford's algorithm for the variance).
type moments struct {
	n             int
	sum, mean, m2 float64
	minV, maxV    float64
}

func (m *moments) add(v float64) {
	if m.n == 0 {
		m.minV, m.maxV = v, v
	}
	m.n++
	m.sum += v
	d := v - m.mean
	m.mean += d / float64(m.n)
	m.m2 += float64(d * (v - m.mean))
	m.minV, m.maxV = math.Min(m.minV, v), math.Max(m.maxV, v)
}

// stats are a metric's statistics over a point's repeats.
type stats struct {
	n                        int
	mean, stddev, minV, maxV float64
}

// ci is the 95% confidence interval of the mean over the repeats,
// "[lo, hi]" (Student's t with n−1 degrees of freedom: the repeats are
// independent runs with their own seeds), or "" under two repeats.
func (s stats) ci() string {
	if s.n < 2 {
		return ""
	}
	h := tQuantile975(s.n-1) * s.stddev / math.Sqrt(float64(s.n))
	return "[" + num(s.mean-h) + ", " + num(s.mean+h) + "]"
}

// halfCI is the half-width of the 95% confidence interval of the mean,
// t(0.975, n−1)·s/√n, as ci gives it: the error bar of a plotted mean;
// 0 under two repeats (one run has no interval, and no bar), and for
// values so near the float's limits that the width overflows.
func (s stats) halfCI() float64 {
	if s.n < 2 {
		return 0
	}
	h := tQuantile975(s.n-1) * s.stddev / math.Sqrt(float64(s.n))
	if math.IsInf(h, 0) || math.IsNaN(h) {
		return 0 // values near the float's limits: no bar rather than an endless axis
	}
	return h
}

// tQuantile975 is the 0.975 quantile of Student's t with df degrees of
// freedom: a table to 30, then the Cornish–Fisher expansion around the
// normal's 1.959964 (within 1e-4 of the exact value there).
func tQuantile975(df int) float64 {
	table := [...]float64{12.7062, 4.3027, 3.1824, 2.7764, 2.5706, 2.4469, 2.3646, 2.3060, 2.2622, 2.2281,
		2.2010, 2.1788, 2.1604, 2.1448, 2.1314, 2.1199, 2.1098, 2.1009, 2.0930, 2.0860,
		2.0796, 2.0739, 2.0687, 2.0639, 2.0595, 2.0555, 2.0518, 2.0484, 2.0452, 2.0423}
	if df >= 1 && df <= len(table) {
		return table[df-1]
	}
	z, n := 1.959964, float64(df)
	return z + (z*z*z+z)/(4*n) + (float64(5*math.Pow(z, 5))+16*z*z*z+3*z)/(96*n*n)
}

func (pt *point) stats(metric string) stats {
	m := pt.metrics[metric]
	if m == nil || m.n == 0 {
		return stats{}
	}
	s := stats{n: m.n, mean: m.sum / float64(m.n), minV: m.minV, maxV: m.maxV}
	if m.n > 1 {
		s.stddev = math.Sqrt(m.m2 / float64(m.n-1))
	}
	return s
}

// load reads dir's results.jsonl, in run order, once, keeping per grid
// point the outcomes and each metric's running statistics; every line
// must be one of runs (results.Validate).
func load(dir string, runs results.Runs) (*data, error) {
	d := &data{dir: dir, units: map[string]Unit{}, labels: map[string]string{}, formats: DefaultFormats, expect: runs}
	d.readSweepJSON()
	params := map[string]*param{}
	metrics := map[string]bool{}
	columns := map[string]bool{}
	points := map[string]*point{}
	torn, err := eachRun(dir, runs, func(l results.Line, texts map[string]string, numbers map[string]float64) {
		d.runs++
		for k := range texts {
			columns[k] = true
		}
		key, _ := json.Marshal(l.Params)
		pt := points[string(key)]
		if pt == nil {
			pt = &point{params: map[string]string{}, metrics: map[string]*moments{}}
			for k, v := range l.Params {
				pt.params[k] = text(v)
			}
			points[string(key)] = pt
			d.points = append(d.points, pt)
		}
		pt.n++
		for k, v := range numbers {
			metrics[k] = true
			m := pt.metrics[k]
			if m == nil {
				m = &moments{}
				pt.metrics[k] = m
			}
			m.add(v)
		}
		switch l.Status {
		case results.StatusOK:
			pt.ok++
		case results.StatusFailed:
			pt.failed++
		default:
			pt.errors++
		}
		for k, v := range l.Params {
			p := params[k]
			if p == nil {
				p = &param{name: k, numeric: true}
				params[k] = p
			}
			t := text(v)
			if !contains(p.values, t) {
				p.values = append(p.values, t)
				f, isNum := number(v)
				p.numbers = append(p.numbers, f)
				p.numeric = p.numeric && isNum
			}
		}
	})
	if err != nil {
		return nil, err
	}
	if torn {
		return nil, fmt.Errorf("%s: the last line is torn: the sweep did not finish (proflab sweep --resume)", filepath.Join(dir, results.FileName))
	}
	for _, k := range sortedKeys(params) {
		d.params = append(d.params, *params[k])
	}
	d.metric = sortedKeys(metrics)
	d.columns = sortedKeys(columns)
	return d, nil
}

// manifestKind bounds the read of sweep.json as core/sweep's reader does.
var manifestKind = input.Kind{Name: "sweep manifest", Limit: 16 << 20}

// readSweepJSON takes from the folder's sweep.json the sweep file's name
// and path, the parameters no run read, and the [units] and [[plot]] the
// sweep file gave (a folder without one has none of them).
func (d *data) readSweepJSON() {
	// read as the sweep reads it: a regular file of at most 16 MiB
	if b, err := input.ReadFile(manifestKind, filepath.Join(d.dir, "sweep.json")); err == nil {
		var m struct {
			Sweep   string     `json:"sweep"`
			Unread  []string   `json:"unread_params"`
			Units   []Unit     `json:"units"`
			Labels  []Label    `json:"labels"`
			Plots   []PlotSpec `json:"plots"`
			Formats []string   `json:"formats"`
		}
		if json.Unmarshal(b, &m) == nil {
			d.sweep = path.Base(m.Sweep) // the name, whatever folder it ran from
			d.sweepPath = m.Sweep
			d.unread = m.Unread
			d.unitList, d.specs, d.labelList = m.Units, m.Plots, m.Labels
			for _, u := range m.Units {
				d.units[u.Name] = u
			}
			for _, l := range m.Labels {
				d.labels[l.Name] = l.Label
			}
			if CheckFormats(m.Formats) == nil {
				d.formats = m.Formats
			}
		}
	}
}

// eachRun calls fn with every run of dir's results.jsonl in run order,
// with its metrics flattened (flatten), as text and the numeric ones.
func eachRun(dir string, runs results.Runs, fn func(l results.Line, texts map[string]string, numbers map[string]float64)) (torn bool, err error) {
	return results.EachInRunOrder(filepath.Join(dir, results.FileName), runs, func(l results.Line) error {
		texts, numbers := map[string]string{}, map[string]float64{}
		flatten("", l.Metrics, texts, numbers)
		fn(l, texts, numbers)
		return nil
	})
}

// varying are the parameters with more than one value.
func (d *data) varying() []param {
	var out []param
	for _, p := range d.params {
		if p.varies() {
			out = append(out, p)
		}
	}
	return out
}

// flatten writes v's leaves as "a.b.c" names: nested tables by key,
// arrays by 1-based position (as Lua counts).
func flatten(prefix string, v any, texts map[string]string, nums map[string]float64) {
	name := func(k string) string {
		if prefix == "" {
			return k
		}
		return prefix + "." + k
	}
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			flatten(name(k), e, texts, nums)
		}
	case []any:
		for i, e := range x {
			flatten(name(strconv.Itoa(i+1)), e, texts, nums)
		}
	default:
		if prefix == "" {
			return
		}
		texts[prefix] = text(x)
		if f, ok := number(x); ok {
			nums[prefix] = f
		} else if b, ok := x.(bool); ok {
			nums[prefix] = map[bool]float64{false: 0, true: 1}[b]
		}
	}
}

// text renders a JSON value as a table cell.
func text(v any) string {
	switch x := v.(type) {
	case json.Number:
		return x.String()
	case string:
		return x
	case nil:
		return ""
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64)
	}
	return fmt.Sprint(v)
}

func number(v any) (float64, bool) {
	switch x := v.(type) {
	case json.Number:
		f, err := x.Float64()
		return f, err == nil
	case float64:
		return x, true
	case int64:
		return float64(x), true
	}
	return 0, false
}

// num formats a statistic: six significant digits.
func num(f float64) string { return strconv.FormatFloat(f, 'g', 6, 64) }

func contains(xs []string, s string) bool {
	for _, x := range xs {
		if x == s {
			return true
		}
	}
	return false
}

func sortedKeys[V any](m map[string]V) []string { return slices.Sorted(maps.Keys(m)) }

// label names a point by the given parameters: "interval=1221, hal=apic".
func label(pt *point, ps []param) string {
	var parts []string
	for _, p := range ps {
		parts = append(parts, p.name+"="+pt.params[p.name])
	}
	if len(parts) == 0 {
		return "all runs"
	}
	return strings.Join(parts, ", ")
}
