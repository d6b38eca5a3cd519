package report_test

import (
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/proflab/proflab/core/sweep/report"
)

// withSpecs writes the fixture's sweep.json with units and plots.
func withSpecs(t *testing.T, units []report.Unit, plots []report.PlotSpec) string {
	t.Helper()
	dir := fixture(t)
	b, _ := json.Marshal(map[string]any{"format": 1, "sweep": "dir/sweep.toml", "units": units, "plots": plots})
	if err := os.WriteFile(filepath.Join(dir, "sweep.json"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// [[plot]] chooses the plots (with the pass/fail matrix kept), and
// [units] puts units on their axes; a name's suffix gives the lab's own.
func TestPlotSpecs(t *testing.T) {
	dir := withSpecs(t, []report.Unit{{Name: "interval", Unit: "100 ns", Line: 3}, {Name: "err", Unit: "%", Line: 4}},
		[]report.PlotSpec{{X: "interval", Y: "err", Group: "version", Line: 6}})
	if _, err := report.Write(dir); err != nil {
		t.Fatal(err)
	}
	svgs, _ := filepath.Glob(filepath.Join(dir, report.PlotsDir, "*.svg"))
	for i := range svgs {
		svgs[i] = filepath.Base(svgs[i])
	}
	if strings.Join(svgs, " ") != "err-vs-interval-by-version.svg status-by-version.svg" {
		t.Errorf("plots %v, want the one [[plot]] and the matrix", svgs)
	}
	svg, _ := os.ReadFile(filepath.Join(dir, report.PlotsDir, "err-vs-interval-by-version.svg"))
	for _, want := range []string{">interval (100 ns)<", ">err (%)<", ">version<", ">6.1<", ">6.2<"} {
		if !strings.Contains(string(svg), want) {
			t.Errorf("the plot lacks %s (axis label with its unit, the legend)", want)
		}
	}
}

// A [units] or [[plot]] name the runs never recorded is an error at the
// sweep file's line, with the closest name; the rest is still written.
func TestPlotSpecErrors(t *testing.T) {
	dir := withSpecs(t, []report.Unit{{Name: "intervall", Unit: "100 ns", Line: 3}},
		[]report.PlotSpec{{X: "interval", Y: "eror", Line: 7}, {X: "interval", Y: "name", Line: 10}, {X: "interval", Y: "err", Line: 13}})
	_, err := report.Write(dir)
	if err == nil || !errors.Is(err, report.ErrSpecs) {
		t.Fatalf("err %v, want ErrSpecs", err)
	}
	for _, want := range []string{`dir/sweep.toml:3: [units] "intervall" is neither a parameter nor a metric`, "did you mean interval?",
		`dir/sweep.toml:7: [[plot]] y = "eror" is not a metric`, "did you mean err?", `dir/sweep.toml:10: [[plot]] y = "name"`, "not as a number"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, report.PlotsDir, "err-vs-interval.svg")); err != nil {
		t.Errorf("the good [[plot]] was not drawn: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, report.HTMLName)); err != nil {
		t.Errorf("no page: %v", err)
	}
}

var pathRe = regexp.MustCompile(`<path d="([^"]*)" style="[^"]*stroke:#([0-9A-F]{6})`)

// joinedSegments counts the segments of coloured (not black, not grid
// grey) strokes that go sideways further than an error bar's cap: the
// lines joining means.
func joinedSegments(t *testing.T, file string) int {
	t.Helper()
	svg, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, m := range pathRe.FindAllStringSubmatch(string(svg), -1) {
		if m[2] == "000000" || m[2] == "808080" || m[2] == "FFFFFF" {
			continue
		}
		var xs []float64
		for _, pt := range regexp.MustCompile(`[ML]([-0-9.]+),`).FindAllStringSubmatch(m[1], -1) {
			x, _ := strconv.ParseFloat(pt[1], 64)
			xs = append(xs, x)
		}
		for i := 1; i < len(xs); i++ {
			if math.Abs(xs[i]-xs[i-1]) > 10 {
				n++
			}
		}
	}
	return n
}

// A categorical parameter (version) is drawn as points, never joined by
// lines; a numeric one (interval) joins its means.
func TestCategoricalNotJoined(t *testing.T) {
	dir := withSpecs(t, nil, []report.PlotSpec{{X: "version", Y: "err"}, {X: "interval", Y: "err"}})
	if _, err := report.Write(dir); err != nil {
		t.Fatal(err)
	}
	if n := joinedSegments(t, filepath.Join(dir, report.PlotsDir, "err-vs-version.svg")); n != 0 {
		t.Errorf("err against version: %d segments join categories", n)
	}
	if n := joinedSegments(t, filepath.Join(dir, report.PlotsDir, "err-vs-interval.svg")); n == 0 {
		t.Error("err against interval: no line joins the means (the check cannot see lines)")
	}
}

// The page puts the summary and the plots before the tables, which are
// folded.
func TestPageOrder(t *testing.T) {
	dir := fixture(t)
	if _, err := report.Write(dir); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(filepath.Join(dir, report.HTMLName))
	page := string(b)
	glance, img, table := strings.Index(page, `id="glance"`), strings.Index(page, "<img"), strings.Index(page, "<details>")
	if glance < 0 || img < 0 || table < 0 || !(glance < img && img < table) {
		t.Errorf("summary at %d, first plot at %d, first folded table at %d: want them in that order", glance, img, table)
	}
	if n, m := strings.Count(page, "<details>"), strings.Count(page, "<table>"); n != m {
		t.Errorf("%d folded of %d tables", n, m)
	}
}
