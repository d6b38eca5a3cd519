package sweep

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/proflab/proflab/core/sweep/report"
)

// plotKeys are the keys of a [[plot]] table.
var plotKeys = []string{"x", "y", "group", "log_x", "log_y", "reference", "slope", "title"}

// parseUnits reads [units]: a parameter or metric = its unit, a string.
// Whether a name that is not a parameter is a metric is known only once
// the runs recorded theirs; the report checks it then.
func (f *File) parseUnits(p *problems, units map[string]any) {
	for _, name := range sortedKeys(units) {
		key := toml.Key{"units", name}
		u, ok := units[name].(string)
		if !ok || strings.TrimSpace(u) == "" {
			p.add(key, "%s; a unit is a non-empty string (interval = \"100 ns\")", describe(units[name]))
			continue
		}
		f.Units = append(f.Units, report.Unit{Name: name, Unit: u, Line: f.Line("units", name)})
	}
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
