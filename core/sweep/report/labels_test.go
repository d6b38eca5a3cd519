package report_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/proflab/proflab/core/sweep/report"
)

// intervalRuns are three repeats of tv at four intervals for each of two
// sources, as sampling_error.toml sweeps them.
func intervalRuns() []run {
	var runs []run
	for _, src := range []string{"ProfileTime", "ProfileTotalIssues"} {
		for i, iv := range []int64{2000, 5429, 14736, 40000} {
			for r := range 3 {
				runs = append(runs, run{map[string]any{"interval": iv, "source": src},
					map[string]any{"tv": 0.01 * float64(i+1) * (1 + 0.1*float64(r)), "samples": float64(1000 / (i + 1))}})
			}
		}
	}
	return runs
}

// setManifest adds fields to dir's sweep.json.
func setManifest(t *testing.T, dir string, fields map[string]any) {
	t.Helper()
	path := filepath.Join(dir, "sweep.json")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]any{}
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	for k, v := range fields {
		m[k] = v
	}
	b, _ = json.Marshal(m)
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// textsOf are the texts of a plot, one string.
func textsOf(t *testing.T, file string) string {
	var all []string
	for _, tx := range texts(t, file) {
		all = append(all, tx.text)
	}
	return strings.Join(all, "\n")
}

// [labels] names parameters and metrics on the axes, the legend and the
// default title; x_label and y_label replace an axis title as written;
// the statistics line is in the caption and, with subtitle = true, under
// the title, never in it. Before: "tv against interval\nmean ± 95% CI
// (Student's t) over the repeats" as the title of every plot, the raw
// metric name "tv" as the y axis's title.
func TestLabelsAndSubtitle(t *testing.T) {
	for _, tt := range []struct {
		name     string
		spec     report.PlotSpec
		want     []string
		unwanted []string
	}{
		{"labels", report.PlotSpec{X: "interval", Y: "tv", Group: "source"},
			[]string{"total variation distance against sampling interval", "sampling interval (100 ns)", "total variation distance", "profile source"},
			[]string{"tv", "interval (100 ns)", "95% CI"}},
		{"stats subtitle", report.PlotSpec{X: "interval", Y: "tv", Group: "source", StatsSubtitle: true},
			[]string{"mean ± 95% CI (Student's t) over the repeats"}, nil},
		{"own subtitle and axis titles", report.PlotSpec{X: "interval", Y: "tv", Group: "source", Subtitle: "three seeds", XLabel: "interval [100 ns]", YLabel: "TV"},
			[]string{"three seeds", "interval [100 ns]", "TV"}, []string{"sampling interval (100 ns)", "95% CI"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := sweepOf(t, intervalRuns(), []report.Unit{{Name: "interval", Unit: "100 ns"}}, []report.PlotSpec{tt.spec})
			setManifest(t, dir, map[string]any{"labels": []report.Label{{Name: "tv", Label: "total variation distance"},
				{Name: "interval", Label: "sampling interval"}, {Name: "source", Label: "profile source"}}})
			if _, err := report.Write(dir); err != nil {
				t.Fatal(err)
			}
			got := textsOf(t, filepath.Join(dir, report.PlotsDir, "tv-vs-interval-by-source.svg"))
			lines := "\n" + got + "\n"
			for _, w := range tt.want {
				if !strings.Contains(lines, "\n"+w+"\n") {
					t.Errorf("no text %q in the plot:\n%s", w, got)
				}
			}
			for _, u := range tt.unwanted {
				if strings.Contains(lines, "\n"+u+"\n") || (strings.Contains(u, "CI") && strings.Contains(got, u)) {
					t.Errorf("the plot says %q:\n%s", u, got)
				}
			}
			page, _ := os.ReadFile(filepath.Join(dir, report.HTMLName))
			if !strings.Contains(string(page), "95% confidence interval of the mean") {
				t.Error("the caption does not say what the bars are")
			}
		})
	}
}

// The interval is in 100 ns for ProfileTime and in events for
// ProfileTotalIssues: with [units.interval] by = "source", the plot is
// two panels, each its own x axis titled with its unit, never one axis
// "interval (100 ns or events)"; the caption says why. A by value
// without a unit is an error naming [units] (the plot is drawn without
// units, never with the points of two units on one axis).
func TestPanelsPerUnit(t *testing.T) {
	byUnit := report.Unit{Name: "interval", By: "source", Values: map[string]string{"ProfileTime": "100 ns", "ProfileTotalIssues": "events"}, Line: 7}
	spec := report.PlotSpec{X: "interval", Y: "tv", Group: "source"}
	dir := sweepOf(t, intervalRuns(), []report.Unit{byUnit}, []report.PlotSpec{spec, {X: "samples", Y: "tv"}})
	if _, err := report.Write(dir); err != nil {
		t.Fatal(err)
	}
	got := textsOf(t, filepath.Join(dir, report.PlotsDir, "tv-vs-interval-by-source.svg"))
	for _, w := range []string{"interval (100 ns)", "interval (events)", "source = ProfileTime", "source = ProfileTotalIssues"} {
		if !strings.Contains(got, w) {
			t.Errorf("no %q in the panels:\n%s", w, got)
		}
	}
	if strings.Count(got, "\ntv\n") != 2 {
		t.Errorf("want a y axis title per panel:\n%s", got)
	}
	// x = samples is one unit for both sources: one axis
	if one := textsOf(t, filepath.Join(dir, report.PlotsDir, "tv-vs-samples.svg")); strings.Contains(one, "source =") {
		t.Errorf("a plot of one unit was split:\n%s", one)
	}
	page, _ := os.ReadFile(filepath.Join(dir, report.HTMLName))
	if !strings.Contains(string(page), "One panel per unit") {
		t.Error("the caption does not say why there are panels")
	}

	delete(byUnit.Values, "ProfileTotalIssues")
	dir = sweepOf(t, intervalRuns(), []report.Unit{byUnit}, []report.PlotSpec{spec})
	_, err := report.Write(dir)
	if !errors.Is(err, report.ErrSpecs) || !strings.Contains(err.Error(), `dir/sweep.toml:7: [units] interval: no unit for source = "ProfileTotalIssues"`) {
		t.Errorf("err %v, want the missing unit named at its line", err)
	}
	if got := textsOf(t, filepath.Join(dir, report.PlotsDir, "tv-vs-interval-by-source.svg")); strings.Contains(got, "100 ns") {
		t.Errorf("a plot with a unit for some of its points only:\n%s", got)
	}
}

// [report] formats writes each figure in each format: a PDF, a PNG that
// decodes, the same bytes when written again (a PDF's date is fixed);
// a report in other formats removes the files of the old ones, and the
// page links the figure's files.
func TestFormats(t *testing.T) {
	dir := sweepOf(t, intervalRuns(), nil, []report.PlotSpec{{X: "interval", Y: "tv", Group: "source", Slope: ptr(-0.5)}})
	setManifest(t, dir, map[string]any{"formats": []string{"svg", "pdf", "png"}})
	if _, err := report.Write(dir); err != nil {
		t.Fatal(err)
	}
	base := filepath.Join(dir, report.PlotsDir, "tv-vs-interval-by-source")
	pdf, _ := os.ReadFile(base + ".pdf")
	if !bytes.HasPrefix(pdf, []byte("%PDF-")) || !bytes.Contains(pdf, []byte("/FontFile2")) {
		t.Errorf("not a PDF with its font embedded: %.40q", pdf)
	}
	f, err := os.Open(base + ".png")
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(f)
	f.Close()
	if err != nil || img.Bounds().Dx() < 1500 {
		t.Fatalf("PNG %v, %v: want a 300 dpi image", err, img)
	}
	if _, err := report.Write(dir); err != nil {
		t.Fatal(err)
	}
	again, _ := os.ReadFile(base + ".pdf")
	if !bytes.Equal(pdf, again) {
		t.Error("the PDF differs when written again")
	}
	page, _ := os.ReadFile(filepath.Join(dir, report.HTMLName))
	if !strings.Contains(string(page), `href="plots/tv-vs-interval-by-source.pdf"`) {
		t.Error("report.html does not link the PDF")
	}

	setManifest(t, dir, map[string]any{"formats": []string{"pdf"}})
	if _, err := report.Write(dir); err != nil {
		t.Fatal(err)
	}
	for ext, want := range map[string]bool{".svg": false, ".png": false, ".pdf": true} {
		if _, err := os.Stat(base + ext); (err == nil) != want {
			t.Errorf("%s there: %v, want %v", ext, err == nil, want)
		}
	}
}

func ptr[T any](v T) *T { return &v }
