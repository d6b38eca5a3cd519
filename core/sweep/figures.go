package sweep

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/proflab/proflab/core/suggest"
	"github.com/proflab/proflab/core/sweep/report"
)

// plotKeys are the keys of a [[plot]] table.
var plotKeys = []string{"x", "y", "group", "log_x", "log_y", "reference", "slope", "title", "subtitle", "x_label", "y_label"}

// parseUnits reads [units]: a parameter or metric = its unit, a string,
// or a table of its unit per value of a swept parameter
// ([units.interval] by = "source", ProfileTime = "100 ns",
// ProfileTotalIssues = "events"). Whether a name that is not a
// parameter is a metric, and whether every value of by has a unit, is
// known only once the runs recorded theirs; the report checks it then.
func (f *File) parseUnits(p *problems, units map[string]any, seen map[string]string) {
	for _, name := range sortedKeys(units) {
		key := toml.Key{"units", name}
		if t, ok := units[name].(map[string]any); ok {
			if u, ok := f.unitTable(p, name, t, seen); ok {
				f.Units = append(f.Units, u)
			}
			continue
		}
		u, ok := units[name].(string)
		if !ok || strings.TrimSpace(u) == "" {
			p.add(key, "%s; a unit is a non-empty string (interval = \"100 ns\"), or a table of units by a parameter's value ([units.interval] by = \"source\", ProfileTime = \"100 ns\")", describe(units[name]))
			continue
		}
		f.Units = append(f.Units, report.Unit{Name: name, Unit: u, Line: f.Line("units", name)})
	}
}

// unitTable reads [units.NAME]: by, a swept parameter, and a unit for
// each of its values.
func (f *File) unitTable(p *problems, name string, t map[string]any, seen map[string]string) (report.Unit, bool) {
	u := report.Unit{Name: name, Values: map[string]string{}, Line: f.Line("units", name)}
	if u.Line == 0 {
		u.Line = tableLine(f.data, "units."+name)
	}
	by, ok := t["by"].(string)
	switch {
	case !ok:
		p.add(toml.Key{"units", name, "by"}, "%s; by names the swept parameter whose value says the unit (by = \"source\")", describe(t["by"]))
		return u, false
	case seen[by] != "grid" && seen[by] != "zip":
		p.add(toml.Key{"units", name, "by"}, "%q is not a parameter of [grid] or [zip]%s", by, closest(by, seen))
		return u, false
	}
	u.By = by
	values := axisTexts(append(slices.Clone(f.Grid), f.Zip...), by)
	good := true
	for _, v := range sortedKeys(t) {
		if v == "by" {
			continue
		}
		if !slices.Contains(values, v) {
			hint := ""
			if near := suggest.Closest(v, values); near != "" {
				hint = "did you mean " + near + "? "
			}
			p.add(toml.Key{"units", name, v}, "%q is not a value of %s (%sits values: %s)", v, by, hint, strings.Join(values, ", "))
			good = false
			continue
		}
		s, ok := t[v].(string)
		if !ok || strings.TrimSpace(s) == "" {
			p.add(toml.Key{"units", name, v}, "%s; the unit of %s = %q is a non-empty string", describe(t[v]), by, v)
			good = false
			continue
		}
		u.Values[v] = s
	}
	var missing []string
	for _, v := range values {
		if _, ok := t[v]; !ok {
			missing = append(missing, v)
		}
	}
	if len(missing) > 0 {
		p.add(toml.Key{"units", name}, "no unit for %s = %s; give each value of %s its unit (%s = \"100 ns\"), so that no point is left without one", by, strings.Join(missing, ", "), by, missing[0])
		good = false
	}
	return u, good
}

// axisTexts are the values of the axis called name as a [units.NAME]
// table names them: a string as it is, anything else as written.
func axisTexts(axes []Axis, name string) []string {
	var out []string
	for _, ax := range axes {
		if ax.Name != name {
			continue
		}
		for _, v := range ax.Values {
			if s, ok := v.(string); ok {
				out = append(out, s)
			} else {
				out = append(out, literal(v))
			}
		}
	}
	return out
}

// tableLine is the line of the header [name], or 0.
func tableLine(data []byte, name string) int {
	for l, raw := range strings.Split(string(data), "\n") {
		h := strings.ReplaceAll(strings.TrimSpace(strings.SplitN(raw, "#", 2)[0]), " ", "")
		if h == "["+name+"]" {
			return l + 1
		}
	}
	return 0
}

// parseLabels reads [labels]: a parameter or metric = the text the plots
// say instead of its name, a non-empty string.
func (f *File) parseLabels(p *problems, labels map[string]any) {
	for _, name := range sortedKeys(labels) {
		s, ok := labels[name].(string)
		if !ok || strings.TrimSpace(s) == "" {
			p.add(toml.Key{"labels", name}, "%s; a label is a non-empty string (tv_distance = \"total variation distance\")", describe(labels[name]))
			continue
		}
		f.Labels = append(f.Labels, report.Label{Name: name, Label: s, Line: f.Line("labels", name)})
	}
}

// parseReport reads [report]: formats, the figure formats to write.
func (f *File) parseReport(p *problems, r *rawReport) {
	if r == nil || r.Formats == nil {
		return
	}
	if err := report.CheckFormats(r.Formats); err != nil {
		p.add(toml.Key{"report", "formats"}, "%v", err)
		return
	}
	f.Formats = r.Formats
}

// parsePlots reads the [[plot]] tables (or one [plot] table): what metric
// to draw against what parameter or metric, and its reference lines.
// seen are the parameters and their tables.
func (f *File) parsePlots(p *problems, raw any, seen map[string]string) {
	var tables []map[string]any
	switch x := raw.(type) {
	case nil:
		return
	case map[string]any:
		tables = []map[string]any{x}
	case []map[string]any:
		tables = x
	default:
		p.add(toml.Key{"plot"}, "%s; write one [[plot]] table per plot (x = \"interval\", y = \"error\")", describe(raw))
		return
	}
	for i, t := range tables {
		header := plotHeaderLine(f.data, i)
		at := func(k string) string {
			if l := keyLineAfter(f.data, header, k); l > 0 {
				return fmt.Sprintf("%s:%d", f.Path, l)
			}
			return fmt.Sprintf("%s:%d", f.Path, header)
		}
		bad := func(k, format string, args ...any) {
			p.errs = append(p.errs, fmt.Sprintf("%s: [[plot]] %s: %s", at(k), k, fmt.Sprintf(format, args...)))
		}
		spec := report.PlotSpec{Line: header}
		if l := keyLineAfter(f.data, header, "y"); l > 0 {
			spec.Line = l // what the report may find wrong: the metric
		}
		for _, k := range sortedKeys(t) {
			if !slices.Contains(plotKeys, k) {
				bad(k, "%s", unknownKey("", k, plotKeys))
			}
		}
		str := func(k string, required bool) string {
			v, present := t[k]
			s, ok := v.(string)
			switch {
			case !present && required:
				bad(k, "missing; a plot needs x (a swept parameter or a metric) and y (a metric)")
			case present && !ok:
				bad(k, "%s, want a string", describe(v))
			}
			return s
		}
		spec.X, spec.Y, spec.Group, spec.Title = str("x", true), str("y", true), str("group", false), str("title", false)
		spec.XLabel, spec.YLabel = str("x_label", false), str("y_label", false)
		switch v := t["subtitle"].(type) {
		case nil:
		case bool:
			spec.StatsSubtitle = v
		case string:
			spec.Subtitle = v
		default:
			bad("subtitle", "%s, want true (the statistics line) or a string", describe(v))
		}
		spec.Reference = str("reference", false)
		for _, k := range []string{"log_x", "log_y"} {
			if v, present := t[k]; present {
				b, ok := v.(bool)
				if !ok {
					bad(k, "%s, want true or false", describe(v))
				}
				if k == "log_x" {
					spec.LogX = &b
				} else {
					spec.LogY = &b
				}
			}
		}
		if v, present := t["slope"]; present {
			k, ok := asNumber(v)
			if !ok || math.IsNaN(k) || math.IsInf(k, 0) {
				bad("slope", "%s, want a number (the power of x: -0.5 draws a line ∝ 1/√x)", describe(v))
			}
			spec.Slope = &k
		}
		f.checkPlot(spec, seen, bad)
		f.Plots = append(f.Plots, spec)
	}
}

// checkPlot holds a plot's parameters to the sweep's: x is swept ([grid]
// or [zip]) or not a parameter (then a metric, which only the runs can
// tell), group is swept, y and reference are not parameters, and a log x
// axis or a slope over a parameter has numbers above 0.
func (f *File) checkPlot(spec report.PlotSpec, seen map[string]string, bad func(k, format string, args ...any)) {
	swept := func(k, name string) {
		switch seen[name] {
		case "grid", "zip":
		case "set":
			bad(k, "%q is fixed ([set]); plot against a parameter of [grid] or [zip]", name)
		default:
			bad(k, "%q is not a parameter of [grid] or [zip]%s", name, closest(name, seen))
		}
	}
	if seen[spec.X] == "set" {
		swept("x", spec.X)
	}
	if spec.Group != "" {
		swept("group", spec.Group)
		if spec.Group == spec.X {
			bad("group", "%q is also x; group by another parameter", spec.Group)
		}
	}
	for _, k := range []string{"y", "reference"} {
		name := map[string]string{"y": spec.Y, "reference": spec.Reference}[k]
		if _, isParam := seen[name]; isParam && name != "" {
			bad(k, "%q is a parameter; %s is a metric the scenario records (lab.record{...})", name, k)
		}
	}
	positiveX := func(key, why string) {
		for _, ax := range append(slices.Clone(f.Grid), f.Zip...) {
			if ax.Name != spec.X {
				continue
			}
			for _, v := range ax.Values {
				if n, ok := asNumber(v); !ok || n <= 0 {
					bad(key, "x = %q has the value %s, and %s", spec.X, literal(v), why)
					return
				}
			}
		}
	}
	if spec.LogX != nil && *spec.LogX {
		positiveX("log_x", "a log axis holds only numbers above 0")
	}
	if spec.Slope != nil {
		positiveX("slope", "a power law needs numbers above 0")
	}
}

func asNumber(v any) (float64, bool) {
	switch x := v.(type) {
	case int64:
		return float64(x), true
	case float64:
		return x, true
	}
	return 0, false
}

// closest suggests the parameter nearest to name, or lists them.
func closest(name string, seen map[string]string) string {
	names := sortedKeys(seen)
	for _, n := range names {
		if strings.EqualFold(n, name) || strings.HasPrefix(n, name) || strings.HasPrefix(name, n) {
			return "; did you mean " + n + "?"
		}
	}
	return " (parameters: " + strings.Join(names, ", ") + ")"
}

// plotHeaderLine is the line of the i-th (0-based) [[plot]] or [plot]
// header, or 0.
func plotHeaderLine(data []byte, i int) int {
	n := 0
	for l, raw := range strings.Split(string(data), "\n") {
		h := strings.ReplaceAll(strings.TrimSpace(strings.SplitN(raw, "#", 2)[0]), " ", "")
		if h == "[[plot]]" || h == "[plot]" {
			if n == i {
				return l + 1
			}
			n++
		}
	}
	return 0
}

// keyLineAfter is the line of key in the table whose header is at line
// header, or 0.
func keyLineAfter(data []byte, header int, key string) int {
	lines := strings.Split(string(data), "\n")
	for l := header; l > 0 && l < len(lines); l++ {
		line := strings.TrimSpace(lines[l])
		if strings.HasPrefix(line, "[") {
			return 0
		}
		if k, _, ok := strings.Cut(line, "="); ok && strings.Trim(strings.TrimSpace(k), `"'`) == key {
			return l + 1
		}
	}
	return 0
}
