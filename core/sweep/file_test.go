package sweep_test

import (
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/proflab/proflab/core/sweep"
)

// probe is the test scenario's absolute path.
func probe(t testing.TB) string {
	p, err := filepath.Abs(filepath.Join("testdata", "probe.lua"))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// writeSweep writes a sweep file into dir whose scenario is the probe
// and whose configuration is the in-process one, followed by body.
func writeSweep(t testing.TB, dir, body string) string {
	t.Helper()
	cfg, _ := filepath.Abs(filepath.Join("testdata", "inproc.toml"))
	doc := "scenario = " + quote(probe(t)) + "\nconfig_file = " + quote(cfg) + "\n" + body
	path := filepath.Join(dir, "sweep.toml")
	if err := os.WriteFile(path, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func quote(s string) string { return `"` + strings.ReplaceAll(s, `\`, `\\`) + `"` }

// Bad sweep files are errors naming the file, the line and the key.
func TestParseErrors(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "s.lua"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name, doc string
		want      []string // fragments of the error
	}{
		{"unknown top key", "scenario = \"s.lua\"\nrepeat = 3\n", []string{"s.toml:2", `"repeat" (did you mean "repeats"?)`, "known keys"}},
		{"misspelt table", "scenario = \"s.lua\"\n[gird]\nx = [1, 2]\n", []string{`s.toml:2: unknown key "gird" (did you mean "grid"?)`}},
		{"wrong type", "scenario = \"s.lua\"\nrepeats = \"3\"\n", []string{"s.toml:2", `"repeats"`}},
		{"repeats zero", "scenario = \"s.lua\"\n\nrepeats = 0\n", []string{"s.toml:3", `"repeats"`, "1…1000000"}},
		{"missing scenario", "seed = 1\n", []string{"s.toml", `"scenario"`}},
		{"scenario not found", "scenario = \"nope.lua\"\n", []string{"s.toml:1", `"scenario"`, "nope.lua"}},
		{"empty list", "scenario = \"s.lua\"\n[grid]\ninterval = []\n", []string{"s.toml:3", `"grid.interval"`, "empty"}},
		{"mixed kinds", "scenario = \"s.lua\"\n[grid]\nx = [1, \"a\"]\n", []string{"s.toml:3", `"grid.x"`, "one kind"}},
		{"duplicate value", "scenario = \"s.lua\"\n[grid]\nx = [1, 1]\n", []string{"s.toml:3", `"grid.x"`, "twice"}},
		{"range unknown key", "scenario = \"s.lua\"\n[grid]\nx = { from = 1, to = 9, steps = 3, step = 2 }\n", []string{"s.toml:3", `"grid.x.step"`, `unknown key in a range (did you mean "steps"?)`}},
		{"range missing steps", "scenario = \"s.lua\"\n[grid]\nx = { from = 1, to = 9 }\n", []string{"s.toml:3", `"grid.x"`, "steps"}},
		{"range bad scale", "scenario = \"s.lua\"\n[grid]\nx = { from = 1, to = 9, steps = 3, scale = \"ln\" }\n", []string{"s.toml:3", `"grid.x.scale"`, "log"}},
		{"log range from 0", "scenario = \"s.lua\"\n[grid]\nx = { from = 0, to = 9, steps = 3, scale = \"log\" }\n", []string{"s.toml:3", `"grid.x"`, "above 0"}},
		{"zip lengths", "scenario = \"s.lua\"\n[zip]\na = [1, 2]\nb = [1, 2, 3]\n", []string{"s.toml:4", `"zip.b"`, "lockstep"}},
		{"in two tables", "scenario = \"s.lua\"\n[grid]\na = [1, 2]\n[set]\na = 3\n", []string{"s.toml:5", `"set.a"`, "[grid]"}},
		{"set a table", "scenario = \"s.lua\"\n[set]\na = { x = 1 }\n", []string{"s.toml:3", `"set.a"`, "fixed parameter"}},
		{"nested list", "scenario = \"s.lua\"\n[grid]\nhal = [[\"apic\", [\"pmu\"]]]\n", []string{"s.toml:3", `"grid.hal"`, "HAL order"}},
		{"list twice", "scenario = \"s.lua\"\n[grid]\nhal = [[\"apic\"], [\"apic\"]]\n", []string{"s.toml:3", `"grid.hal"`, `["apic"] is listed twice`}},
		{"config of nothing", "scenario = \"s.lua\"\n[config]\nversion = \"machine.version\"\n", []string{"s.toml:3", `"config.version"`, "not a parameter"}},
		{"config bad key", "scenario = \"s.lua\"\n[grid]\nv = [\"6.1\"]\n[config]\nv = \"version\"\n", []string{"s.toml:5", `"config.v"`, "configuration key"}},
		{"syntax", "scenario = \"s.lua\"\n[grid\n", []string{"s.toml:", "table name"}},
		{"timeout", "scenario = \"s.lua\"\ntimeout = \"soon\"\n", []string{"s.toml:2", `"timeout"`, "duration"}},
		{"report format", "scenario = \"s.lua\"\n[report]\nformats = [\"svg\", \"eps\"]\n", []string{"s.toml:3", `"report.formats"`, `"eps" is not a figure format`, "svg, pdf, png"}},
		{"report format twice", "scenario = \"s.lua\"\n[report]\nformats = [\"pdf\", \"pdf\"]\n", []string{"s.toml:3", `"pdf" is listed twice`}},
		{"report unknown key", "scenario = \"s.lua\"\n[report]\nformat = [\"pdf\"]\n", []string{"s.toml:3", `"report.format"`, `did you mean "report.formats"?`}},
		{"label not a string", "scenario = \"s.lua\"\n[labels]\ntv = 3\n", []string{"s.toml:3", `"labels.tv"`, "non-empty string"}},
		{"unit by nothing", "scenario = \"s.lua\"\n[grid]\ninterval = [1, 2]\n[units.interval]\nby = \"sorce\"\nTime = \"100 ns\"\n", []string{"s.toml:5", `"units.interval.by"`, `"sorce" is not a parameter`}},
		{"unit by without units", "scenario = \"s.lua\"\n[grid]\nsource = [\"a\"]\n[units.interval]\nby = \"source\"\n", []string{"s.toml:4", `"units.interval"`, "no unit for source = a"}},
		{"unit of no value", "scenario = \"s.lua\"\n[grid]\nsource = [\"ProfileTime\", \"ProfileTotalIssues\"]\n[units.interval]\nby = \"source\"\nProfileTime = \"100 ns\"\nProfileTotalIsues = \"events\"\n", []string{"s.toml:7", `"units.interval.ProfileTotalIsues"`, "did you mean ProfileTotalIssues?", "s.toml:4", "no unit for source = ProfileTotalIssues"}},
		{"plot subtitle", "scenario = \"s.lua\"\n[grid]\nx = [1, 2]\n[[plot]]\nx = \"x\"\ny = \"m\"\nsubtitle = 3\n", []string{"s.toml:7", "[[plot]] subtitle", "true"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(dir, "s.toml")
			if err := os.WriteFile(path, []byte(tt.doc), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := sweep.ReadFile(path)
			if err == nil {
				t.Fatalf("no error for\n%s", tt.doc)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
		})
	}
}

// [units] per value of a parameter, [labels], [report] formats and a
// plot's axis titles and subtitle reach the File as written.
func TestParseFigures(t *testing.T) {
	dir := t.TempDir()
	path := writeSweep(t, dir, `[grid]
interval = [1, 2]
[zip]
source = ["ProfileTime", "ProfileTotalIssues"]
[units.interval]
by = "source"
ProfileTime = "100 ns"
ProfileTotalIssues = "events"
[labels]
tv = "total variation distance"
[report]
formats = ["pdf", "png"]
[[plot]]
x = "interval"
y = "tv"
x_label = "interval (native units)"
y_label = "TV"
subtitle = true
`)
	f, err := sweep.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Units) != 1 || f.Units[0].By != "source" || f.Units[0].Values["ProfileTotalIssues"] != "events" || f.Units[0].Line != 7 {
		t.Errorf("units %+v", f.Units)
	}
	if len(f.Labels) != 1 || f.Labels[0].Label != "total variation distance" || f.Labels[0].Line != 12 {
		t.Errorf("labels %+v", f.Labels)
	}
	if strings.Join(f.Formats, ",") != "pdf,png" {
		t.Errorf("formats %v", f.Formats)
	}
	if p := f.Plots[0]; p.XLabel != "interval (native units)" || p.YLabel != "TV" || !p.StatsSubtitle {
		t.Errorf("plot %+v", p)
	}
}

// A [config] override that the configuration refuses is reported with
// the sweep file's line before anything runs.
func TestConfigOverrideError(t *testing.T) {
	dir := t.TempDir()
	path := writeSweep(t, dir, "[grid]\nversion = [\"6.1\", \"7.7\"]\n[config]\nversion = \"machine.cpus\"\n")
	f, err := sweep.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	_, err = sweep.Expand(f, nil)
	if err == nil || !strings.Contains(err.Error(), "sweep.toml:6") || !strings.Contains(err.Error(), "[config] line version = \"machine.cpus\"") {
		t.Fatalf("error %v, want sweep.toml:6 and the [config] line", err)
	}
}

// The expansion: grid axes in name order (first outermost), the zip
// crossed with them, repeats innermost; ranges; --set pins an axis; ids
// depend on the parameters and repeat only; seeds on the master seed and
// id.
func TestExpand(t *testing.T) {
	dir := t.TempDir()
	path := writeSweep(t, dir, `seed = 5
repeats = 2
[grid]
b = ["x", "y"]
a = { from = 10, to = 1000, steps = 3, scale = "log" }
[zip]
z1 = [1, 2]
z2 = ["p", "q"]
[set]
fixed = true
`)
	f, err := sweep.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	plan, err := sweep.Expand(f, nil)
	if err != nil {
		t.Fatal(err)
	}
	if plan.Len() != 3*2*2*2 {
		t.Fatalf("%d runs, want 24", plan.Len())
	}
	want := []map[string]any{
		{"a": int64(10), "b": "x", "z1": int64(1), "z2": "p", "fixed": true},
		{"a": int64(10), "b": "x", "z1": int64(1), "z2": "p", "fixed": true},
		{"a": int64(10), "b": "x", "z1": int64(2), "z2": "q", "fixed": true},
	}
	for i, w := range want {
		if !reflect.DeepEqual(plan.Run(i).Params, w) || plan.Run(i).Index != i {
			t.Errorf("run %d: %v, want %v", i, plan.Run(i).Params, w)
		}
	}
	if plan.Run(0).Repeat != 0 || plan.Run(1).Repeat != 1 {
		t.Errorf("repeats %d %d", plan.Run(0).Repeat, plan.Run(1).Repeat)
	}
	if got := plan.Run(8).Params["a"]; got != int64(100) {
		t.Errorf("log range middle = %v, want 100", got)
	}
	ids := map[string]bool{}
	for r := range plan.ShardRuns(sweep.Whole) {
		if ids[r.ID] {
			t.Errorf("id %s twice", r.ID)
		}
		ids[r.ID] = true
		if r.ID != sweep.RunID(r.Params, r.Repeat) || r.Seed != sweep.SeedFor(5, r.ID) {
			t.Errorf("run %d: id or seed not derived from params, repeat and master seed", r.Index)
		}
	}
	if sweep.SeedFor(5, "x") == sweep.SeedFor(6, "x") || sweep.SeedFor(5, "x") >= 1<<53 {
		t.Error("seeds must depend on the master seed and stay below 2^53")
	}

	// --set pins an axis and changes the hash
	f2, _ := sweep.ReadFile(path)
	pinned, err := sweep.Expand(f2, map[string]any{"b": "x"})
	if err != nil {
		t.Fatal(err)
	}
	if pinned.Len() != 12 || pinned.Hash == plan.Hash {
		t.Errorf("--set b=x: %d runs (want 12), hash changed %v", pinned.Len(), pinned.Hash != plan.Hash)
	}
	if pinned.Run(0).ID != plan.Run(0).ID {
		t.Error("the same parameters and repeat must keep their id")
	}
}

// --shard K/N and auto/N.
func TestParseShard(t *testing.T) {
	env := map[string]string{}
	getenv := func(k string) string { return env[k] }
	if s, from, err := sweep.ParseShard("1/3", getenv); err != nil || s != (sweep.Shard{Index: 1, Count: 3}) || from != "" {
		t.Errorf("1/3: %v %q %v", s, from, err)
	}
	for _, bad := range []string{"3/3", "-1/3", "a/3", "1/0", "1", "auto/3"} {
		if _, _, err := sweep.ParseShard(bad, getenv); err == nil {
			t.Errorf("%s accepted", bad)
		}
	}
	env["JOB_COMPLETION_INDEX"] = "2"
	if s, from, err := sweep.ParseShard("auto/3", getenv); err != nil || s.Index != 2 || from != "JOB_COMPLETION_INDEX" {
		t.Errorf("auto/3 with JOB_COMPLETION_INDEX=2: %v %q %v", s, from, err)
	}
	env["SLURM_ARRAY_TASK_ID"] = "0"
	if s, from, err := sweep.ParseShard("auto/3", getenv); err != nil || s.Index != 0 || from != "SLURM_ARRAY_TASK_ID" {
		t.Errorf("auto/3 with SLURM_ARRAY_TASK_ID=0: %v %q %v", s, from, err)
	}
	env["SLURM_ARRAY_TASK_ID"] = "5"
	if _, _, err := sweep.ParseShard("auto/3", getenv); err == nil || !strings.Contains(err.Error(), "SLURM_ARRAY_TASK_ID") {
		t.Errorf("index 5 of 3: %v", err)
	}
}

// Integer ranges are computed as integers: the endpoints are the values
// written, however large (a float64 holds integers exactly only below
// 2^53, and 2^63-1 rounded to one overflows into -2^63), and the values
// between are the exact evenly spaced ones, rounded half away from zero
// (issue 29.4).
func TestIntegerRangesAreExact(t *testing.T) {
	for _, tt := range []struct {
		rng  string
		want []int64
	}{
		{"{ from = 0, to = 9223372036854775807, steps = 2 }", []int64{0, math.MaxInt64}},
		{"{ from = -9223372036854775808, to = 9223372036854775807, steps = 3 }", []int64{math.MinInt64, -1, math.MaxInt64}}, // -0.5 rounds to -1
		{"{ from = 9007199254740993, to = 9007199254740997, steps = 3 }", []int64{9007199254740993, 9007199254740995, 9007199254740997}},
		{"{ from = 9223372036854775807, to = 9223372036854775805, steps = 3 }", []int64{math.MaxInt64, math.MaxInt64 - 1, math.MaxInt64 - 2}},
		{"{ from = 1, to = 9223372036854775807, steps = 3, scale = \"log\" }", []int64{1, 3037000500, math.MaxInt64}},
		{"{ from = 9007199254740993, to = 9223372036854775807, steps = 2, scale = \"log\" }", []int64{9007199254740993, math.MaxInt64}},
		// halves round away from zero, as math.Round does: -28.5 is -29
		// (float64 arithmetic made it -28.499999999999996, so -28): -60 + 3.5·i
		{"{ from = -60, to = -11, steps = 15 }", []int64{-60, -57, -53, -50, -46, -43, -39, -36, -32, -29, -25, -22, -18, -15, -11}},
		{"{ from = 0, to = 5, steps = 3 }", []int64{0, 3, 5}},
	} {
		t.Run(tt.rng, func(t *testing.T) {
			p := plan(t, writeSweep(t, t.TempDir(), "[grid]\na = "+tt.rng+"\n"))
			var got []int64
			for r := range p.ShardRuns(sweep.Whole) {
				v, ok := r.Params["a"].(int64)
				if !ok {
					t.Fatalf("run %d: a = %#v, want an int64", r.Index, r.Params["a"])
				}
				got = append(got, v)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("values %v, want %v", got, tt.want)
			}
		})
	}
}
