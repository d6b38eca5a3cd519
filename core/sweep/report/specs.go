package report

import (
	"fmt"
	"slices"
	"strings"

	"github.com/proflab/proflab/core/suggest"
)

// PlotSpec is one plot a sweep file asks for ([[plot]]): a metric
// against a parameter, one series per value of another parameter.
type PlotSpec struct {
	// X is the parameter on the horizontal axis.
	X string `json:"x"`
	// Y is the metric on the vertical axis (a flattened name, "a.b").
	Y string `json:"y"`
	// Group is the parameter whose values are the series ("": one series
	// per combination of the other varying parameters).
	Group string `json:"group,omitempty"`
	// LogX forces a log (true) or linear (false) x axis; nil chooses (log
	// for positive values spanning a factor of 20 or more).
	LogX *bool `json:"log_x,omitempty"`
	// LogY draws the metric on a log axis.
	LogY bool `json:"log_y,omitempty"`
	// Title replaces the plot's title ("Y against X").
	Title string `json:"title,omitempty"`
	// Line is the sweep file's line of the plot's y (else of its [[plot]]
	// header), for the report's messages.
	Line int `json:"line,omitempty"`
}

// Unit is the unit a sweep file gives a parameter or a metric ([units]).
type Unit struct {
	// Name is the parameter or metric.
	Name string `json:"name"`
	// Unit is shown after the name on the axes ("interval (100 ns)").
	Unit string `json:"unit"`
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

// unitOf is name's unit: the sweep file's, or the one its suffix says,
// or "".
func (d *data) unitOf(name string) string {
	if u, ok := d.units[name]; ok {
		return u
	}
	for _, k := range knownUnits {
		if strings.HasSuffix(strings.ToLower(name), k.suffix) && len(name) > len(k.suffix) {
			return k.unit
		}
	}
	return ""
}

// axisLabel is "name (unit)", or the name when it has no unit.
func (d *data) axisLabel(name string) string {
	if u := d.unitOf(name); u != "" {
		return name + " (" + u + ")"
	}
	return name
}

// checkSpecs holds the sweep file's [units] and [[plot]] to what the
// runs recorded: a name that is neither a parameter nor a metric is an
// error at the sweep file's line (a misspelt metric would otherwise
// silently draw nothing), and is dropped so that the other reports can
// still be written. Without any metric (every run failed) the metric
// names cannot be told apart from typos, and are not checked.
func (d *data) checkSpecs() error {
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
		}
	}
	d.specs = slices.DeleteFunc(d.specs, func(s PlotSpec) bool {
		switch {
		case slices.Contains(d.metric, s.Y):
			return false
		case slices.Contains(d.columns, s.Y):
			errs = append(errs, fmt.Sprintf("%s: [[plot]] y = %q: the runs recorded it, but not as a number; a plot needs a numeric metric", where(s.Line), s.Y))
		default:
			errs = append(errs, fmt.Sprintf("%s: [[plot]] y = %q is not a metric the runs recorded (%s)", where(s.Line), s.Y, d.namesHint(s.Y)))
		}
		return true
	})
	if len(errs) > 0 {
		return fmt.Errorf("%s", strings.Join(errs, "\n"))
	}
	return nil
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

// plotSpecs are the plots to draw: the sweep file's, or else every
// numeric metric against every varying parameter.
func (d *data) plotSpecs() []PlotSpec {
	if len(d.specs) > 0 {
		return d.specs
	}
	var out []PlotSpec
	for _, m := range d.metric {
		for _, x := range d.varying() {
			out = append(out, PlotSpec{X: x.name, Y: m})
		}
	}
	return out
}
