package sweep

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/BurntSushi/toml"

	"github.com/proflab/proflab/core/input"
	"github.com/proflab/proflab/core/sweep/report"
	"github.com/proflab/proflab/core/tomlstrict"
)

// File is a sweep file as written: a scenario, a master seed, repeats, and
// the parameters of its runs.
//
//	scenario = "sampling_error.lua"   # relative to this file
//	seed = 1                          # master seed (default 1)
//	repeats = 3                       # runs per grid point (default 1)
//	config_file = "lab.toml"          # optional lab configuration, relative to this file
//	timeout = "1m"                    # optional wall-clock budget of one run
//	[grid]                            # cartesian product
//	interval = [1221, 10000, 39063]
//	hal = ["apic", "pmu"]
//	duration_us = { from = 1000, to = 40000, steps = 8, scale = "log" }
//	[zip]                             # lists walked in lockstep, crossed with the grid
//	source = ["ProfileTime", "ProfileTotalIssues"]
//	[set]                             # fixed parameters of every run
//	cpus = 4
//	[config]                          # parameter = the configuration key it sets
//	version = "machine.version"
//	[units]                           # units on the plots' axes
//	duration_us = "µs"
//	[units.interval]                  # a unit per value of a swept parameter: panels per unit
//	by = "source"
//	ProfileTime = "100 ns"
//	ProfileTotalIssues = "events"
//	[labels]                          # what the plots call a parameter or metric
//	tv_distance = "total variation distance"
//	[report]
//	formats = ["svg", "pdf", "png"]   # the figures' formats (default ["svg"])
//	[[plot]]                          # optional: the plots to draw
//	x = "interval"                    # a swept parameter, or a metric
//	y = "tv_distance"
//	group = "source"
//	log_x = true
//	reference = "expected_tv"         # a metric drawn dashed
//	slope = -0.5                      # a guide line ∝ x^slope
//	x_label = "interval (100 ns)"     # an axis title as written
//	subtitle = true                   # the statistics line under the title (or a text)
type File struct {
	// Path is where the file was read from.
	Path string
	// Scenario is the scenario's path, resolved against the file's folder.
	Scenario string
	// ScenarioName is the scenario as the file names it: results show
	// checks and errors at this name, so that they do not depend on the
	// folder the sweep was started from.
	ScenarioName string
	// ConfigFile is the lab configuration's path, resolved, or "".
	ConfigFile string
	// Seed is the master seed.
	Seed uint64
	// Repeats is the number of runs per grid point.
	Repeats int
	// Timeout is a run's wall-clock budget (0: the configuration's).
	Timeout time.Duration
	// Grid are the axes of the cartesian product, in name order.
	Grid []Axis
	// Zip are the lists walked in lockstep, in name order (all of one
	// length), crossed with the grid as one more axis.
	Zip []Axis
	// Set are the fixed parameters.
	Set map[string]any
	// Config maps a parameter to the configuration key ("machine.version",
	// "hal.pmu.settings.skid") its value sets for the run.
	Config map[string]string
	// Units are the units of parameters and metrics, for the plots' axes
	// ([units] interval = "100 ns").
	Units []report.Unit
	// Plots are the plots the reports draw ([[plot]] x = "interval"
	// y = "error"); none: every metric against every swept parameter.
	Plots []report.PlotSpec
	// Labels are the texts the plots say for parameters and metrics
	// ([labels] tv_distance = "total variation distance").
	Labels []report.Label
	// Formats are the figure formats the reports write ([report]
	// formats = ["svg", "pdf", "png"]; none: report.DefaultFormats).
	Formats []string

	data []byte // the file's text, for hashing and line numbers
}

// Axis is one swept parameter and its values.
type Axis struct {
	Name   string `json:"name"`
	Values []any  `json:"values"`
}

// rawFile is the TOML shape of a sweep file.
type rawFile struct {
	Scenario   string            `toml:"scenario"`
	Seed       *int64            `toml:"seed"`
	Repeats    *int64            `toml:"repeats"`
	ConfigFile string            `toml:"config_file"`
	Timeout    string            `toml:"timeout"`
	Grid       map[string]any    `toml:"grid"`
	Zip        map[string]any    `toml:"zip"`
	Set        map[string]any    `toml:"set"`
	Config     map[string]string `toml:"config"`
	Units      map[string]any    `toml:"units"`
	Labels     map[string]any    `toml:"labels"`
	Report     *rawReport        `toml:"report"`
	Plot       any               `toml:"plot"`
}

// rawReport is the TOML shape of [report].
type rawReport struct {
	Formats []string `toml:"formats"`
}

// maxRuns bounds a sweep's expansion, so that a typo (steps = 1e9) is an
// error rather than an exhausted memory.
const maxRuns = 10_000_000

// ReadFile reads and checks the sweep file at path. Errors name the file,
// the line and the key, and say what was expected.
func ReadFile(path string) (*File, error) {
	data, err := input.ReadFile(input.Sweep, path)
	if input.Refused(err) {
		return nil, err
	}
	if err != nil {
		return nil, fmt.Errorf("sweep file: %w", err)
	}
	return Parse(path, data)
}

// Parse reads a sweep file's text; name is its path (for messages and for
// resolving the scenario).
func Parse(name string, data []byte) (*File, error) {
	var raw rawFile
	if _, err := tomlstrict.Decode(name, data, &raw, tomlstrict.Options{
		Hint: hint,
		// tables inside [grid], [zip] and [set] (ranges, mistakes): checked
		// by Parse with their own messages
		// [[plot]] tables: checked by parsePlots, which knows which one;
		// [units.NAME] tables: checked by parseUnits
		Ignore: func(k toml.Key) bool {
			return (len(k) > 2 && (k[0] == "grid" || k[0] == "zip" || k[0] == "set" || k[0] == "units")) || (len(k) > 1 && k[0] == "plot")
		},
	}); err != nil {
		return nil, err
	}
	f := &File{Path: name, Set: map[string]any{}, Config: map[string]string{}, Seed: 1, Repeats: 1, data: data}
	p := &problems{name: name, data: data}
	f.parseTop(p, raw)
	seen := f.parseParameters(p, raw)
	f.parseConfig(p, raw, seen)
	f.parseUnits(p, raw.Units, seen)
	f.parseLabels(p, raw.Labels)
	f.parseReport(p, raw.Report)
	f.parsePlots(p, raw.Plot, seen)
	if n := f.points(); n*f.Repeats > maxRuns {
		p.add(nil, "the sweep expands to %d runs, more than %d", n*f.Repeats, maxRuns)
	}
	return f, p.err()
}

// parseTop reads the top-level keys: the scenario, the configuration
// file, the seed, the repeats and the time budget.
func (f *File) parseTop(p *problems, raw rawFile) {
	dir := filepath.Dir(f.Path)
	if raw.Scenario == "" {
		p.add(nil, "missing key \"scenario\": name the Lua scenario each run executes (a path relative to this file)")
	} else {
		f.Scenario = resolve(dir, raw.Scenario)
		f.ScenarioName = filepath.ToSlash(filepath.Clean(raw.Scenario))
		if _, err := os.Stat(f.Scenario); err != nil {
			p.add(toml.Key{"scenario"}, "%s: no such scenario (paths are relative to the sweep file's folder)", f.Scenario)
		}
	}
	if raw.ConfigFile != "" {
		f.ConfigFile = resolve(dir, raw.ConfigFile)
	}
	if raw.Seed != nil {
		if *raw.Seed < 0 {
			p.add(toml.Key{"seed"}, "%d: the master seed is a non-negative integer", *raw.Seed)
		}
		f.Seed = uint64(*raw.Seed)
	}
	if raw.Repeats != nil {
		if *raw.Repeats < 1 || *raw.Repeats > 1_000_000 {
			p.add(toml.Key{"repeats"}, "%d: want 1…1000000 runs per grid point", *raw.Repeats)
		}
		f.Repeats = int(*raw.Repeats)
	}
	if raw.Timeout != "" {
		d, err := time.ParseDuration(raw.Timeout)
		if err != nil || d <= 0 {
			p.add(toml.Key{"timeout"}, "%q is not a positive duration like \"30s\" or \"2m\"", raw.Timeout)
		}
		f.Timeout = d
	}
}

// parseParameters reads [grid], [zip] and [set], and returns the table
// each parameter is in.
func (f *File) parseParameters(p *problems, raw rawFile) map[string]string {
	seen := map[string]string{}
	for _, table := range []string{"grid", "zip", "set"} {
		src := map[string]map[string]any{"grid": raw.Grid, "zip": raw.Zip, "set": raw.Set}[table]
		for _, name := range sortedKeys(src) {
			key := toml.Key{table, name}
			if other, dup := seen[name]; dup {
				p.add(key, "parameter %q is also in [%s]; a parameter is swept, zipped or set in one table only", name, other)
				continue
			}
			seen[name] = table
			if table == "set" {
				v, ok := value(src[name])
				if !ok {
					p.add(key, "a fixed parameter is a string, number, boolean or a list of them, not %s", describe(src[name]))
				}
				f.Set[name] = v
				continue
			}
			vals, ok := p.values(key, src[name])
			if !ok {
				continue
			}
			ax := Axis{Name: name, Values: vals}
			if table == "grid" {
				f.Grid = append(f.Grid, ax)
			} else {
				f.Zip = append(f.Zip, ax)
			}
		}
	}
	for _, ax := range f.Zip[min(1, len(f.Zip)):] {
		if len(ax.Values) != len(f.Zip[0].Values) {
			p.add(toml.Key{"zip", ax.Name}, "%d values, but zip.%s has %d: zipped lists are walked in lockstep and need one length", len(ax.Values), f.Zip[0].Name, len(f.Zip[0].Values))
		}
	}
	return seen
}

// parseConfig reads [config]: each line maps a parameter of seen to the
// configuration key it sets.
func (f *File) parseConfig(p *problems, raw rawFile, seen map[string]string) {
	for _, name := range sortedKeys(raw.Config) {
		key := toml.Key{"config", name}
		target := raw.Config[name]
		if _, ok := seen[name]; !ok {
			p.add(key, "%q is not a parameter of [grid], [zip] or [set]: [config] maps a parameter to the configuration key it sets (version = \"machine.version\")", name)
			continue
		}
		if !validConfigKey(target) {
			p.add(key, "%q is not a configuration key like \"machine.version\" or \"hal.pmu.settings.skid\"", target)
			continue
		}
		f.Config[name] = target
	}
}

// resolve makes a path of the file relative to its folder.
func resolve(dir, p string) string {
	p = filepath.FromSlash(p)
	if filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(dir, p)
}

// hint explains the top-level keys when one is unknown.
func hint(k toml.Key) string {
	if len(k) == 1 {
		return "; the known keys are scenario, seed, repeats, config_file, timeout, and the tables [grid], [zip], [set], [config], [units], [labels], [report], [[plot]]"
	}
	return ""
}

// Line returns the line of the sweep file where key is defined, or 0.
func (f *File) Line(key ...string) int { return tomlstrict.KeyLine(f.data, toml.Key(key)) }

// Override pins a parameter to one value, as --set name=value does: it
// replaces the parameter's axis in [grid] or [zip], or its [set] value.
func (f *File) Override(name string, v any) error {
	v, ok := value(v)
	if !ok {
		return fmt.Errorf("--set %s: a parameter is a string, number, boolean or a list of them", name)
	}
	drop := func(axes []Axis) []Axis {
		return slices.DeleteFunc(axes, func(a Axis) bool { return a.Name == name })
	}
	f.Grid, f.Zip = drop(f.Grid), drop(f.Zip)
	f.Set[name] = v
	return nil
}

// points is the number of grid points (runs without repeats).
func (f *File) points() int {
	n := 1
	for _, ax := range f.Grid {
		n *= len(ax.Values)
		if n > maxRuns {
			return maxRuns + 1
		}
	}
	if len(f.Zip) > 0 {
		n *= len(f.Zip[0].Values)
	}
	return n
}

func validConfigKey(k string) bool {
	parts := strings.Split(k, ".")
	if len(parts) < 2 {
		return false
	}
	for _, p := range parts {
		if p == "" || strings.ContainsAny(p, " =\"'[]") {
			return false
		}
	}
	return parts[0] == "machine" || parts[0] == "hal" || parts[0] == "run"
}

// problems gathers a file's errors, each "file:line: key "k": what".
type problems struct {
	name string
	data []byte
	errs []string
}

func (p *problems) add(key toml.Key, format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	if key == nil {
		p.errs = append(p.errs, fmt.Sprintf("%s: %s", p.name, msg))
		return
	}
	where := tomlstrict.Where(p.name, tomlstrict.KeyLine(p.data, key))
	p.errs = append(p.errs, fmt.Sprintf("%s: key %q: %s", where, key.String(), msg))
}

func (p *problems) err() error {
	if len(p.errs) == 0 {
		return nil
	}
	return fmt.Errorf("%s", strings.Join(p.errs, "\n"))
}

// values reads a [grid] or [zip] entry: a non-empty list of scalars of one
// kind, or a range table.
func (p *problems) values(key toml.Key, v any) ([]any, bool) {
	switch x := v.(type) {
	case []any:
		if len(x) == 0 {
			p.add(key, "an empty list: give at least one value")
			return nil, false
		}
		out := make([]any, len(x))
		seen := map[string]bool{}
		for i, e := range x {
			s, ok := value(e)
			if !ok {
				p.add(key, "value %d is %s; list strings, numbers, booleans or lists of them (a HAL order: [[\"apic\", \"pmu\"], [\"apic\", \"pebs\"]])", i+1, describe(e))
				return nil, false
			}
			if i > 0 && kind(s) != kind(out[0]) {
				p.add(key, "value %d is a %s but value 1 a %s; a parameter's values are of one kind", i+1, kind(s), kind(out[0]))
				return nil, false
			}
			text := literal(s)
			if seen[text] {
				p.add(key, "value %s is listed twice", text)
				return nil, false
			}
			seen[text] = true
			out[i] = s
		}
		return out, true
	case map[string]any:
		return p.rangeValues(key, x)
	}
	p.add(key, "%s; want a list ([1, 2, 3]) or a range ({ from = 1000, to = 40000, steps = 8, scale = \"log\" })", describe(v))
	return nil, false
}

// value accepts the parameter values a run can have: a scalar, or a list
// of scalars (a HAL order).
func value(v any) (any, bool) {
	if l, ok := v.([]any); ok {
		out := make([]any, len(l))
		for i, e := range l {
			s, ok := scalar(e)
			if !ok {
				return nil, false
			}
			out[i] = s
		}
		return out, true
	}
	return scalar(v)
}

// scalar accepts a string, number or boolean.
func scalar(v any) (any, bool) {
	switch x := v.(type) {
	case float64:
		if !finite(x) {
			return nil, false // TOML's nan and inf: JSON, the results and the id hash cannot hold them
		}
		return x, true
	case string, int64, bool:
		return x, true
	case int:
		return int64(x), true
	}
	return nil, false
}

func kind(v any) string {
	switch v.(type) {
	case string:
		return "string"
	case int64, float64:
		return "number"
	case bool:
		return "boolean"
	case []any:
		return "list"
	}
	return "value"
}

// literal renders a parameter value as a TOML literal: how [config]
// hands it to the configuration, and how messages show it.
func literal(v any) string {
	switch x := v.(type) {
	case string:
		return strconv.Quote(x)
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64)
	case []any:
		parts := make([]string, len(x))
		for i, e := range x {
			parts[i] = literal(e)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	}
	return fmt.Sprint(v)
}

func describe(v any) string {
	switch x := v.(type) {
	case []any:
		for _, e := range x {
			if f, ok := e.(float64); ok && !finite(f) {
				return "a list holding " + describe(f)
			}
		}
		return "a list"
	case map[string]any:
		return "a table"
	case string:
		return "a string"
	case float64:
		if !finite(x) {
			return nonFinite(x) + ", which is not a finite number (a run's parameters are finite: results and run ids cannot hold nan or inf)"
		}
		return "a number"
	case int64:
		return "a number"
	case bool:
		return "a boolean"
	case nil:
		return "nothing"
	}
	return fmt.Sprintf("a %T", v)
}

func sortedKeys[V any](m map[string]V) []string { return slices.Sorted(maps.Keys(m)) }
