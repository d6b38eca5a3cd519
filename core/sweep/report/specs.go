package report

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/proflab/proflab/core/suggest"
)

// PlotSpec is one plot a sweep file asks for ([[plot]]): a metric
// against a parameter or another metric, one series per value of a
// parameter, with optional reference lines.
type PlotSpec struct {
	// X is the horizontal axis: a swept parameter, or a metric (a
	// flattened name), each grid point then drawn at its mean of it.
	X string `json:"x"`
	// Y is the metric on the vertical axis (a flattened name, "a.b").
	Y string `json:"y"`
	// Group is the parameter whose values are the series ("": one series
	// per combination of the other varying parameters, or with a metric
	// on x, of the non-numeric ones).
	Group string `json:"group,omitempty"`
	// LogX forces a log (true) or linear (false) x axis; nil chooses (log
	// for positive values spanning a factor of 20 or more).
	LogX *bool `json:"log_x,omitempty"`
	// LogY forces a log (true) or linear (false) y axis; nil chooses as
	// for x, from the means.
	LogY *bool `json:"log_y,omitempty"`
	// Reference is a metric drawn as a dashed line against the same x in
	// each series' colour, without points or bars: a bound, a model.
	Reference string `json:"reference,omitempty"`
	// Slope asks for a guide line y = c·x^Slope through the geometric
	// mean of the plotted means (a straight line of that slope on log–log
	// axes; −0.5 is 1/√x), drawn dotted in grey.
	Slope *float64 `json:"slope,omitempty"`
	// Title replaces the plot's title ("Y against X", in their labels).
	Title string `json:"title,omitempty"`
	// Subtitle is a smaller line under the title ("": none).
	Subtitle string `json:"subtitle,omitempty"`
	// StatsSubtitle puts the statistics line ("mean ± 95% CI (Student's
	// t) over the repeats") under the title as its subtitle (subtitle =
	// true); the caption says it always.
	StatsSubtitle bool `json:"stats_subtitle,omitempty"`
	// XLabel and YLabel replace the axes' titles as written, units and
	// all ("": the name's label from [labels], or the name, and its unit).
	XLabel string `json:"x_label,omitempty"`
	YLabel string `json:"y_label,omitempty"`
	// Line is the sweep file's line of the plot's y (else of its [[plot]]
	// header), for the report's messages.
	Line int `json:"line,omitempty"`
}

// Unit is the unit a sweep file gives a parameter or a metric ([units]):
// one unit, or one per value of another parameter (the interval of
// ProfileTime is in 100 ns, that of ProfileTotalIssues in events).
type Unit struct {
	// Name is the parameter or metric.
	Name string `json:"name"`
	// Unit is shown after the name on the axes ("interval (100 ns)");
	// "" when By says it.
	Unit string `json:"unit,omitempty"`
	// By is the parameter whose value says the unit ([units.interval]
	// by = "source"), and Values the unit per value of it: a plot whose
	// points are in more than one unit on an axis is drawn as panels,
	// one per unit, never on one axis.
	By     string            `json:"by,omitempty"`
	Values map[string]string `json:"values,omitempty"`
	// Line is the sweep file's line, for messages.
	Line int `json:"line,omitempty"`
}

// Label is the text a sweep file gives a parameter or a metric on the
// plots ([labels] tv_distance = "total variation distance"): the axis
// titles, legends and default titles say it instead of the name.
type Label struct {
	Name  string `json:"name"`
	Label string `json:"label"`
	// Line is the sweep file's line, for messages.
	Line int `json:"line,omitempty"`
}

// knownUnits are the units the lab infers from a name's suffix when the
// sweep file gives none: duration_us is in µs, rate_hz in Hz, and so on.
var knownUnits = []struct{ suffix, unit string }{
	{"_ns", "ns"}, {"_us", "µs"}, {"_ms", "ms"}, {"_s", "s"}, {"_sec", "s"},
	{"_hz", "Hz"}, {"_khz", "kHz"}, {"_mhz", "MHz"},
	{"_bytes", "bytes"}, {"_kib", "KiB"}, {"_mib", "MiB"},
	{"_pct", "%"}, {"_percent", "%"},
}

// unitAt is name's unit at the grid point pt: the sweep file's (for the
// value pt has of its by parameter, if it has one), or the one the
// name's suffix says, or "". pt may be nil for a unit without by.
func (d *data) unitAt(name string, pt *point) string {
	if u, ok := d.units[name]; ok {
		if u.By == "" {
			return u.Unit
		}
		if pt == nil {
			return ""
		}
		return u.Values[pt.params[u.By]]
	}
	for _, k := range knownUnits {
		if strings.HasSuffix(strings.ToLower(name), k.suffix) && len(name) > len(k.suffix) {
			return k.unit
		}
	}
	return ""
}

// unitOf is name's one unit over the whole sweep, or "" (none, or one
// per value of a parameter).
func (d *data) unitOf(name string) string { return d.unitAt(name, nil) }

// nameLabel is the sweep file's label of a parameter or metric
// ([labels]), or its name.
func (d *data) nameLabel(name string) string {
	if l, ok := d.labels[name]; ok {
		return l
	}
	return name
}

// axisLabel is "label (unit)", or the label when it has no one unit.
func (d *data) axisLabel(name string) string {
	if u := d.unitOf(name); u != "" {
		return d.nameLabel(name) + " (" + u + ")"
	}
	if u, ok := d.units[name]; ok && u.By != "" {
		return d.nameLabel(name) + " (unit by " + d.nameLabel(u.By) + ")"
	}
	return d.nameLabel(name)
}

// checkSpecs holds the sweep file's [units] and [[plot]] to what the
// runs recorded: a name that is neither a parameter nor a metric is an
// error at the sweep file's line (a misspelt metric would otherwise
// silently draw nothing), and is dropped so that the other reports can
// still be written. Without any metric (every run failed) the metric
// names cannot be told apart from typos, and are not checked.
func (d *data) checkSpecs() []string {
	if len(d.metric) == 0 && len(d.columns) == 0 {
		return nil
	}
	var errs []string
	where := func(line int) string {
		if line > 0 {
			return fmt.Sprintf("%s:%d", d.sweepPath, line)
		}
		return d.sweepPath
	}
	for _, u := range d.unitList {
		if d.param(u.Name) == nil && !slices.Contains(d.columns, u.Name) {
			errs = append(errs, fmt.Sprintf("%s: [units] %q is neither a parameter nor a metric the runs recorded (%s)", where(u.Line), u.Name, d.namesHint(u.Name)))
			delete(d.units, u.Name)
			continue
		}
		if err := d.checkUnitBy(u); err != "" {
			errs = append(errs, fmt.Sprintf("%s: [units] %s: %s", where(u.Line), u.Name, err))
			delete(d.units, u.Name)
		}
	}
	for _, l := range d.labelList {
		if d.param(l.Name) == nil && !slices.Contains(d.columns, l.Name) {
			errs = append(errs, fmt.Sprintf("%s: [labels] %q is neither a parameter nor a metric the runs recorded (%s)", where(l.Line), l.Name, d.namesHint(l.Name)))
			delete(d.labels, l.Name)
		}
	}
	d.specs = slices.DeleteFunc(d.specs, func(s PlotSpec) bool {
		bad := false
		metric := func(key, name string) {
			switch {
			case slices.Contains(d.metric, name):
			case slices.Contains(d.columns, name):
				errs = append(errs, fmt.Sprintf("%s: [[plot]] %s = %q: the runs recorded it, but not as a number; a plot needs a numeric metric", where(s.Line), key, name))
				bad = true
			default:
				what := "is not a metric"
				if key == "x" {
					what = "is neither a swept parameter nor a metric"
				}
				errs = append(errs, fmt.Sprintf("%s: [[plot]] %s = %q %s the runs recorded (%s)", where(s.Line), key, name, what, d.namesHint(name)))
				bad = true
			}
		}
		metric("y", s.Y)
		if d.param(s.X) == nil {
			metric("x", s.X) // a swept parameter, or else a metric
		}
		if s.Reference != "" {
			metric("reference", s.Reference)
		}
		return bad
	})
	return errs
}

// checkUnitBy holds a unit given per value of a parameter to the runs:
// by is a parameter, and each of its values has a unit (a value without
// one would leave its points in no panel). It says what is wrong, or "".
func (d *data) checkUnitBy(u Unit) string {
	if u.By == "" {
		return ""
	}
	by := d.param(u.By)
	if by == nil {
		return fmt.Sprintf("by = %q is not a parameter of the runs (%s)", u.By, d.namesHint(u.By))
	}
	var missing []string
	for _, v := range by.values {
		if _, ok := u.Values[v]; !ok {
			missing = append(missing, strconv.Quote(v))
		}
	}
	if len(missing) > 0 {
		return fmt.Sprintf("no unit for %s = %s; give each value of %s its unit", u.By, strings.Join(missing, ", "), u.By)
	}
	return ""
}

// namesHint suggests the closest known name and lists the metrics.
func (d *data) namesHint(name string) string {
	known := slices.Clone(d.columns)
	for _, p := range d.params {
		known = append(known, p.name)
	}
	best := suggest.Closest(name, known)
	hint := "metrics: " + strings.Join(d.metric, ", ")
	if best != "" {
		hint = "did you mean " + best + "? " + hint
	}
	return hint
}

// param is the parameter called name, or nil.
func (d *data) param(name string) *param {
	for i := range d.params {
		if d.params[i].name == name {
			return &d.params[i]
		}
	}
	return nil
}

// maxDefaultPlots bounds the metric plots a sweep gets without
// [[plot]]: a scenario may record thousands of metrics (an imported
// profile's per-function shares), and a report drawing each would cost
// gigabytes; the rest are named in the report, and [[plot]] chooses.
const maxDefaultPlots = 12

// choice is the plots to draw and what the defaults left out.
type choice struct {
	specs    []PlotSpec
	defaults bool     // no [[plot]]: the report's own choice
	x        string   // the defaults' x
	constant []string // numeric metrics with one value over the sweep, not plotted
	omitted  []string // metrics past maxDefaultPlots, not plotted
}

// plotSpecs are the plots to draw: the sweep file's, or else the
// defaults a person would choose: each numeric metric that varies over
// the sweep (top-level names first, then in name order, at most
// maxDefaultPlots) against the swept parameter best put on x (the
// numeric one with the most values, else the one with the most values),
// one series per combination of the others.
func (d *data) plotSpecs() choice {
	if len(d.specs) > 0 {
		return choice{specs: d.specs}
	}
	c := choice{defaults: true}
	var x *param
	for _, p := range d.varying() {
		if x == nil || (p.numeric && !x.numeric) || (p.numeric == x.numeric && len(p.values) > len(x.values)) {
			x = &p
		}
	}
	if x == nil {
		return c
	}
	c.x = x.name
	for _, m := range d.metricsByRank() {
		switch {
		case d.constant(m):
			c.constant = append(c.constant, m)
		case len(c.specs) < maxDefaultPlots:
			c.specs = append(c.specs, PlotSpec{X: x.name, Y: m})
		default:
			c.omitted = append(c.omitted, m)
		}
	}
	return c
}

// metricsByRank are the numeric metrics, those of fewer levels first
// ("tv_distance" before "shares.main"), then in name order: the order
// in which the report shows them when it cannot show them all.
func (d *data) metricsByRank() []string {
	out := slices.Clone(d.metric)
	slices.SortStableFunc(out, func(a, b string) int {
		return strings.Count(a, ".") - strings.Count(b, ".")
	})
	return out
}

// constant: every run that recorded metric recorded the same value.
func (d *data) constant(metric string) bool {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, pt := range d.points {
		if m := pt.metrics[metric]; m != nil && m.n > 0 {
			lo, hi = math.Min(lo, m.minV), math.Max(hi, m.maxV)
		}
	}
	return lo == hi
}
