package report_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/proflab/proflab/core/sweep/report"
	"github.com/proflab/proflab/core/sweep/results"
)

// run is one run of a synthetic sweep: its parameters and metrics.
type run struct {
	params, metrics map[string]any
}

// sweepOf writes a sweep output folder holding runs (ok, repeats
// counted per set of parameters) and a sweep.json with units and plots.
func sweepOf(t testing.TB, runs []run, units []report.Unit, plots []report.PlotSpec) string {
	t.Helper()
	dir := t.TempDir()
	var lines []results.Line
	repeats := map[string]int{}
	for i, r := range runs {
		key, _ := json.Marshal(r.params)
		lines = append(lines, results.Line{Index: i, ID: fmt.Sprintf("id%04d", i), Repeat: repeats[string(key)], Seed: uint64(i),
			Params: r.params, Metrics: r.metrics, Status: results.StatusOK, Checks: []results.Check{}, Interrupts: map[string]uint64{}})
		repeats[string(key)]++
	}
	if err := results.Write(filepath.Join(dir, results.FileName), lines); err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(map[string]any{"format": 1, "sweep": "dir/sweep.toml", "units": units, "plots": plots})
	if err := os.WriteFile(filepath.Join(dir, "sweep.json"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// svgText is a text of an SVG plot where gonum put it.
type svgText struct {
	x, y float64
	size string
	text string
}

var textRe = regexp.MustCompile(`(?s)<text x="([-0-9.e]+)" y="([-0-9.e]+)"[^>]*font-size:([0-9.]+px)[^"]*">([^<]*)</text>`)

// texts are the SVG file's texts.
func texts(t *testing.T, file string) []svgText {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var out []svgText
	for _, m := range textRe.FindAllStringSubmatch(string(b), -1) {
		x, _ := strconv.ParseFloat(m[1], 64)
		y, _ := strconv.ParseFloat(m[2], 64)
		out = append(out, svgText{x, y, m[3], html.UnescapeString(m[4])})
	}
	return out
}

// axisLabels splits a plot's numeric tick labels (10px texts that are
// numbers) into the x axis's (the row sharing one height) and the y
// axis's (the others).
func axisLabels(t *testing.T, file string) (x, y []float64) {
	t.Helper()
	rows := map[float64][]float64{}
	for _, tx := range texts(t, file) {
		if v, err := strconv.ParseFloat(tx.text, 64); err == nil && tx.size == "10px" {
			rows[tx.y] = append(rows[tx.y], v)
		}
	}
	var xRow float64
	for y, vs := range rows {
		if len(vs) > len(rows[xRow]) {
			xRow = y
		}
	}
	for r, vs := range rows {
		if r == xRow && len(vs) > 1 {
			x = append(x, vs...)
		} else {
			y = append(y, vs...)
		}
	}
	sort.Float64s(x)
	sort.Float64s(y)
	return x, y
}

func hasAll(got []float64, want ...float64) bool {
	for _, w := range want {
		if !slices.ContainsFunc(got, func(g float64) bool { return math.Abs(g-w) <= 1e-9*math.Abs(w) }) {
			return false
		}
	}
	return true
}

// A log axis labels enough ticks to read a value: every decade, and
// between them 2 to 5 more when its values span less than two decades.
// The y axis over 0.02–0.17 labelled only 0.1; the x axis over
// interval 1221–100000 labelled the swept values but no decade.
func TestLogAxesLabelled(t *testing.T) {
	yes := true
	var runs []run
	for i, v := range []string{"a", "b", "c"} {
		for r := range 2 {
			runs = append(runs, run{map[string]any{"version": v}, map[string]any{"err": []float64{0.02, 0.05, 0.17}[i] * (1 + 0.01*float64(r))}})
		}
	}
	dir := sweepOf(t, runs, nil, []report.PlotSpec{{X: "version", Y: "err", LogY: &yes}})
	if _, err := report.Write(dir); err != nil {
		t.Fatal(err)
	}
	_, y := axisLabels(t, filepath.Join(dir, report.PlotsDir, "err-vs-version.svg"))
	if len(y) < 4 || !hasAll(y, 0.02, 0.1) {
		t.Errorf("log y axis over 0.02–0.17 labels %v: want 0.1 and 2 to 5 values between the decades, 0.02 among them", y)
	}

	runs = nil
	for _, iv := range []int64{1221, 2947, 7113, 17167, 41433, 100000} {
		for r := range 2 {
			runs = append(runs, run{map[string]any{"interval": iv}, map[string]any{"err": 0.1 * math.Sqrt(float64(iv)/1000) * (1 + 0.01*float64(r))}})
		}
	}
	dir = sweepOf(t, runs, nil, nil)
	if _, err := report.Write(dir); err != nil {
		t.Fatal(err)
	}
	x, _ := axisLabels(t, filepath.Join(dir, report.PlotsDir, "err-vs-interval.svg"))
	if !hasAll(x, 1000, 10000, 100000) || len(x) < 5 {
		t.Errorf("log x axis over 1221–100000 labels %v: want its decades 1000, 10000, 100000 and values between them", x)
	}
}

var capRe = regexp.MustCompile(`<path d="M([-0-9.e]+),([-0-9.e]+)L([-0-9.e]+),([-0-9.e]+)" style="[^"]*stroke:#([0-9A-F]{6})`)

// caps are the error bars' caps of an SVG plot: short horizontal
// strokes in colour, as (x of the cap's middle, y); turned, the x error
// bars' caps (short vertical strokes) as (x, y of the middle).
func caps(t *testing.T, file string, turned bool) [][2]float64 {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var out [][2]float64
	for _, m := range capRe.FindAllStringSubmatch(string(b), -1) {
		var v [4]float64
		for i := range v {
			v[i], _ = strconv.ParseFloat(m[i+1], 64)
		}
		switch {
		case m[5] == "000000":
		case !turned && v[1] == v[3] && math.Abs(math.Abs(v[2]-v[0])-5) < 0.01:
			out = append(out, [2]float64{(v[0] + v[2]) / 2, v[1]})
		case turned && v[0] == v[2] && math.Abs(math.Abs(v[3]-v[1])-5) < 0.01:
			out = append(out, [2]float64{v[0], (v[1] + v[3]) / 2})
		}
	}
	return out
}

// Error bars are the 95% confidence interval of the mean (Student's t,
// as summary.md gives it), and the page's caption says so (the title
// only with subtitle = true: figures_labels_test.go);
// they were ±1 stddev. Three points with n = 2 and stddev √2 each: a
// bar spans 2·t(0.975, 1)·√2/√2 = 25.41, read on the (linear) plot
// against the distance between two means 10 apart.
func TestErrorBarsAre95CI(t *testing.T) {
	var runs []run
	for i, vs := range [][]float64{{9, 11}, {19, 21}, {29, 31}} {
		for _, v := range vs {
			runs = append(runs, run{map[string]any{"x": int64(i + 1)}, map[string]any{"v": v}})
		}
	}
	dir := sweepOf(t, runs, nil, nil)
	if _, err := report.Write(dir); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, report.PlotsDir, "v-vs-x.svg")
	cs := caps(t, file, false)
	if len(cs) != 6 {
		t.Fatalf("%d caps, want 2 per point: %v", len(cs), cs)
	}
	sort.Slice(cs, func(i, j int) bool {
		if cs[i][0] != cs[j][0] {
			return cs[i][0] < cs[j][0]
		}
		return cs[i][1] < cs[j][1]
	})
	scale := (cs[5][1] - cs[3][1]) / 10 // the tops of the bars at means 10 and 20
	bar := (cs[1][1] - cs[0][1]) / scale
	if want := 2 * 12.7062; math.Abs(bar-want) > 0.05 {
		t.Errorf("the bar of the first point spans %.3f, want the 95%% CI's %.3f (±1 stddev spans 2.83)", bar, want)
	}
	var title string
	for _, tx := range texts(t, file) {
		title += tx.text + "\n"
	}
	if strings.Contains(title, "95% CI") || strings.Contains(title, "stddev") {
		t.Errorf("the statistics line is in the plot's texts, where the caption should say it:\n%s", title)
	}
	page, _ := os.ReadFile(filepath.Join(dir, report.HTMLName))
	if !strings.Contains(string(page), "95% confidence interval of the mean (Student&#39;s t") {
		t.Error("report.html's caption does not say what the bars are")
	}
}

// Without [[plot]] a sweep gets the plots a person would draw: each
// metric that varies against the swept parameter best put on x (here
// the numeric interval), one series per hal; not a metric that never
// changes, and no metric against hal, whose values are the series
// already. A metric spanning 256× gets a log y axis; two series drawn
// one over the other say so in the legend; the page says how the plots
// were chosen and how to choose them. Before: every metric against every
// parameter (7 plots), linear, identical series hiding each other.
func TestDefaultPlots(t *testing.T) {
	var runs []run
	for _, hal := range []string{"pmu", "pebs"} {
		for k, iv := range []int64{1, 2, 4, 8, 16} {
			for r := range 2 {
				samples := 100 * math.Pow(4, float64(k)) * (1 + 0.001*float64(r))
				share := map[string]float64{"pmu": 0.1, "pebs": 0.3}[hal] + 0.01*float64(r)
				runs = append(runs, run{map[string]any{"hal": hal, "interval": iv}, map[string]any{"samples": samples, "share": share, "constant": 7.0}})
			}
		}
	}
	dir := sweepOf(t, runs, nil, nil)
	if _, err := report.Write(dir); err != nil {
		t.Fatal(err)
	}
	svgs, _ := filepath.Glob(filepath.Join(dir, report.PlotsDir, "*.svg"))
	for i := range svgs {
		svgs[i] = filepath.Base(svgs[i])
	}
	if got := strings.Join(svgs, " "); got != "samples-vs-interval.svg share-vs-interval.svg status-by-hal.svg" {
		t.Errorf("plots %s, want samples and share against interval, and the matrix", got)
	}
	file := filepath.Join(dir, report.PlotsDir, "samples-vs-interval.svg")
	if _, y := axisLabels(t, file); !hasAll(y, 100, 1000, 10000) {
		t.Errorf("samples over 100–25600: y labels %v, want a log axis's decades", y)
	}
	var legend []string
	for _, tx := range texts(t, file) {
		legend = append(legend, tx.text)
	}
	if !slices.Contains(legend, "pebs (overlaps pmu)") {
		t.Errorf("the legend does not say pebs is drawn over pmu: %q", legend)
	}
	page, _ := os.ReadFile(filepath.Join(dir, report.HTMLName))
	for _, want := range []string{"has no [[plot]]", "against interval", "To choose the plots, add <code>[[plot]]</code>", "proflab report OUT --sweep sweep.toml",
		"one value over the whole sweep: constant", "pebs overlaps pmu"} {
		if !strings.Contains(html.UnescapeString(string(page)), want) {
			t.Errorf("report.html lacks %q", want)
		}
	}
}

// A metric against another (x = "samples"): each grid point at its
// means of both, bars both ways; reference = "bound" draws that metric
// dashed, slope = -0.5 a dotted 1/√samples guide, both in the legend;
// a name on x that is neither a parameter nor a metric is an error at
// its line, with the closest name.
func TestMetricAgainstMetric(t *testing.T) {
	var runs []run
	for _, iv := range []int64{1221, 2441, 4882, 9765, 19531} {
		for r := range 3 {
			n := 1e7/float64(iv) + float64(r)
			runs = append(runs, run{map[string]any{"interval": iv}, map[string]any{"samples": n, "tv": (1 + 0.05*float64(r)) / math.Sqrt(n), "bound": 3 / math.Sqrt(n)}})
		}
	}
	k, yes := -0.5, true
	dir := sweepOf(t, runs, nil, []report.PlotSpec{{X: "samples", Y: "tv", Reference: "bound", Slope: &k, LogX: &yes, LogY: &yes, Line: 4}})
	if _, err := report.Write(dir); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, report.PlotsDir, "tv-vs-samples.svg")
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var all []string
	for _, tx := range texts(t, file) {
		all = append(all, tx.text)
	}
	for _, want := range []string{"samples", "c/√samples", "bound (dashed)", "tv"} {
		if !slices.Contains(all, want) {
			t.Errorf("the plot lacks the text %q: %q", want, all)
		}
	}
	if !strings.Contains(string(b), "stroke-dasharray") {
		t.Error("no dashed or dotted line in the plot")
	}
	if x, _ := axisLabels(t, file); !hasAll(x, 1000) || len(x) < 4 {
		t.Errorf("x labels %v: want the decade of samples 512–8190 on a log axis, and values around it", x)
	}
	if y, x := len(caps(t, file, false)), len(caps(t, file, true)); y != 10 || x != 10 {
		t.Errorf("%d caps of y bars, %d of x bars: want bars both ways at 5 points", y, x)
	}

	dir = sweepOf(t, runs, nil, []report.PlotSpec{{X: "sampels", Y: "tv", Line: 4}, {X: "samples", Y: "tv", Reference: "bund", Line: 8}})
	_, err = report.Write(dir)
	for _, want := range []string{`dir/sweep.toml:4: [[plot]] x = "sampels" is neither a swept parameter nor a metric`, "did you mean samples?",
		`dir/sweep.toml:8: [[plot]] reference = "bund" is not a metric`, "did you mean bound?"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error %v lacks %q", err, want)
		}
	}
}

// The status matrix's axes carry the units of [units], as the metric
// plots' do.
func TestStatusMatrixUnits(t *testing.T) {
	dir := withSpecs(t, []report.Unit{{Name: "interval", Unit: "100 ns", Line: 3}}, nil)
	if _, err := report.Write(dir); err != nil {
		t.Fatal(err)
	}
	svg, _ := os.ReadFile(filepath.Join(dir, report.PlotsDir, "status-by-version.svg"))
	if !strings.Contains(string(svg), ">interval (100 ns)<") {
		t.Error("the status matrix's columns are not labelled with interval's unit")
	}
}

// A report's cost does not grow with the metrics it cannot show (issue
// 29 case 14: 3 runs of 20,000 metrics each took 1.15 GB, 20,000 SVGs
// and a 185 MB report.html): without [[plot]] at most 12 metric plots,
// report.html the tables of 50 metrics, and both it and the notes for
// the terminal say what was left out; summary.md streams every table.
func TestManyMetricsBounded(t *testing.T) {
	const metrics = 2000
	var runs []run
	for _, iv := range []int64{1, 2, 3} {
		m := map[string]any{}
		for i := range metrics {
			m[fmt.Sprintf("share.f%04d", i)] = float64(iv * int64(i+1))
		}
		m["samples"] = float64(100 * iv)
		runs = append(runs, run{map[string]any{"interval": iv}, m})
	}
	dir := sweepOf(t, runs, nil, nil)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	notes, err := report.Write(dir)
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	alloc := after.TotalAlloc - before.TotalAlloc
	t.Logf("%d metrics: %.1f MB allocated", metrics+1, float64(alloc)/1e6)
	if alloc > 100<<20 {
		t.Errorf("the report allocated %.0f MB for 3 runs", float64(alloc)/1e6)
	}
	svgs, _ := filepath.Glob(filepath.Join(dir, report.PlotsDir, "*.svg"))
	if len(svgs) != 12 {
		t.Errorf("%d plots, want 12", len(svgs))
	}
	if _, err := os.Stat(filepath.Join(dir, report.PlotsDir, "samples-vs-interval.svg")); err != nil {
		t.Error("the top-level metric samples is not among the plots")
	}
	page, _ := os.ReadFile(filepath.Join(dir, report.HTMLName))
	if len(page) > 1<<20 {
		t.Errorf("report.html is %d bytes", len(page))
	}
	if n := strings.Count(string(page), "<tr><td>"); n != 12+51*3 || !strings.Contains(string(page), "The first 12 of 2001 metrics") {
		t.Errorf("report.html has %d table rows, want 12 at a glance (and says so), and the runs' and 50 metrics' tables of 3 rows", n)
	}
	if n := strings.Count(string(page), "<details>"); n != 51 {
		t.Errorf("report.html has %d tables, want the runs' and 50 metrics'", n)
	}
	joined := strings.Join(notes, "\n")
	for _, want := range []string{"1989 metrics are not plotted", "share.f0011", "report.html shows the tables of 50 of the 2001 metrics"} {
		if !strings.Contains(joined, want) || !strings.Contains(html.UnescapeString(string(page)), want) {
			t.Errorf("the notes and the page should say %q:\n%s", want, joined)
		}
	}
	sum, _ := os.ReadFile(filepath.Join(dir, report.SummaryName))
	if n := strings.Count(string(sum), "\n## Metric "); n != metrics+1 {
		t.Errorf("summary.md has %d metric tables, want all %d", n, metrics+1)
	}
}

// A [[plot]] the values cannot have (a log y axis over a mean of 0) is
// an error at its line, like a misspelt name, and the other plots and
// reports are written all the same; it stopped every report.
func TestUndrawablePlotSkipped(t *testing.T) {
	var runs []run
	for _, iv := range []int64{1, 2} {
		runs = append(runs, run{map[string]any{"interval": iv}, map[string]any{"zero": 0.0, "err": float64(iv)}})
	}
	yes := true
	dir := sweepOf(t, runs, nil, []report.PlotSpec{{X: "interval", Y: "zero", LogY: &yes, Line: 5}, {X: "interval", Y: "err", Line: 9}})
	_, err := report.Write(dir)
	if !errors.Is(err, report.ErrSpecs) || !strings.Contains(err.Error(), "dir/sweep.toml:5: [[plot]] zero against interval: log_y: zero has a mean of 0") {
		t.Errorf("err %v, want the log_y plot's line and ErrSpecs", err)
	}
	for _, f := range []string{filepath.Join(report.PlotsDir, "err-vs-interval.svg"), report.HTMLName} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("%s not written: %v", f, err)
		}
	}
}
