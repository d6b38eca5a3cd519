package sweep_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/proflab/proflab/core/sweep"
	"github.com/proflab/proflab/core/sweep/report"
)

const figuresHead = "scenario = \"s.lua\"\n[grid]\ninterval = [1000, 4000]\nsource = [\"a\", \"b\"]\n[set]\ncpus = 2\n"

// [units] and [[plot]] are read strictly: every mistake is an error at
// its own line, in the right [[plot]] table.
func TestFiguresErrors(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "s.lua"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name, body string
		want       []string
	}{
		{"unit not a string", "[units]\ninterval = 100\n", []string{"s.toml:8", `"units.interval"`, "non-empty string"}},
		{"unknown plot key", "[[plot]]\nx = \"interval\"\ny = \"err\"\n[[plot]]\nx = \"source\"\ny = \"err\"\ncolour = \"red\"\n", []string{"s.toml:13", "colour", "unknown key", "known: x, y"}},
		{"misspelt plot key", "[[plot]]\nx = \"interval\"\ny = \"err\"\nlogx = true\n", []string{"s.toml:10", `logx: unknown key (did you mean "log_x"?)`}},
		{"x missing", "[[plot]]\ny = \"err\"\n", []string{"s.toml:7", "x: missing"}},
		{"group not a parameter", "[[plot]]\nx = \"interval\"\ny = \"err\"\ngroup = \"sourc\"\n", []string{"s.toml:10", `"sourc" is not a parameter`, "did you mean source?"}},
		{"reference a parameter", "[[plot]]\nx = \"interval\"\ny = \"err\"\nreference = \"cpus\"\n", []string{"s.toml:10", "reference", `"cpus" is a parameter`}},
		{"slope not a number", "[[plot]]\nx = \"interval\"\ny = \"err\"\nslope = \"-1/2\"\n", []string{"s.toml:10", "slope", "want a number"}},
		{"slope over names", "[[plot]]\nx = \"source\"\ny = \"err\"\nslope = -0.5\n", []string{"s.toml:10", "slope", "power law"}},
		{"x fixed", "[[plot]]\nx = \"cpus\"\ny = \"err\"\n", []string{"s.toml:8", `"cpus" is fixed`}},
		{"group is x", "[[plot]]\nx = \"interval\"\ny = \"err\"\ngroup = \"interval\"\n", []string{"s.toml:10", "also x"}},
		{"y a parameter", "[[plot]]\nx = \"interval\"\ny = \"source\"\n", []string{"s.toml:9", "is a parameter"}},
		{"log of strings", "[[plot]]\nx = \"source\"\ny = \"err\"\nlog_x = true\n", []string{"s.toml:10", "log_x", "\"a\""}},
		{"log not a bool", "[[plot]]\nx = \"interval\"\ny = \"err\"\nlog_y = \"yes\"\n", []string{"s.toml:10", "log_y", "true or false"}},
		{"plot not a table", "plot = 3\n", []string{"[[plot]]"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(dir, "s.toml")
			doc := figuresHead + tt.body
			if tt.name == "plot not a table" {
				doc = "scenario = \"s.lua\"\n" + tt.body
			}
			if err := os.WriteFile(path, []byte(doc), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := sweep.ReadFile(path)
			if err == nil {
				t.Fatalf("no error for\n%s", doc)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
		})
	}
}

// A good [units] and [[plot]] are read with their lines, for the
// report's messages; x may name a metric (samples), which only the runs
// can tell, with a reference metric and a slope.
func TestFiguresRead(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "s.lua"), nil, 0o644)
	path := filepath.Join(dir, "s.toml")
	doc := figuresHead + "[units]\ninterval = \"100 ns\"\nerr = \"%\"\n[[plot]]\nx = \"interval\"\ny = \"err\"\ngroup = \"source\"\nlog_x = true\ntitle = \"Error\"\n" +
		"[[plot]]\nx = \"samples\"\ny = \"err\"\nreference = \"bound\"\nslope = -0.5\nlog_y = false\n"
	if err := os.WriteFile(path, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := sweep.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	yes, no, half := true, false, -0.5
	wantUnits := []report.Unit{{Name: "err", Unit: "%", Line: 9}, {Name: "interval", Unit: "100 ns", Line: 8}}
	wantPlots := []report.PlotSpec{{X: "interval", Y: "err", Group: "source", LogX: &yes, Title: "Error", Line: 12},
		{X: "samples", Y: "err", Reference: "bound", Slope: &half, LogY: &no, Line: 18}}
	if !reflect.DeepEqual(f.Units, wantUnits) || !reflect.DeepEqual(f.Plots, wantPlots) {
		t.Errorf("units %+v plots %+v", f.Units, f.Plots)
	}
}

// A [[plot]] naming a metric the runs never recorded fails the sweep
// after its runs, at the sweep file's line, with the reports written;
// proflab report --sweep (ReportFigures) takes the corrected file's
// plots without running again.
func TestFiguresAfterRuns(t *testing.T) {
	dir := t.TempDir()
	path := writeSweep(t, dir, "[grid]\ninterval = [2000, 40000]\n[units]\ninterval = \"100 ns\"\n[[plot]]\nx = \"interval\"\ny = \"sample\"\n")
	out := filepath.Join(dir, "out")
	_, err := sweep.Execute(context.Background(), plan(t, path), sweep.Options{Out: out, Jobs: 1})
	if err == nil || !errors.Is(err, report.ErrSpecs) || !strings.Contains(err.Error(), "sweep.toml:9: [[plot]] y = \"sample\"") || !strings.Contains(err.Error(), "did you mean samples?") {
		t.Fatalf("err %v, want the [[plot]] line and the closest metric", err)
	}
	if _, err := os.Stat(filepath.Join(out, report.HTMLName)); err != nil {
		t.Fatalf("no report.html: %v", err)
	}
	doc, _ := os.ReadFile(path)
	if err := os.WriteFile(path, []byte(strings.Replace(string(doc), `"sample"`, `"samples"`, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := sweep.ReportFigures(out, path, nil); err != nil {
		t.Fatal(err)
	}
	svg, err := os.ReadFile(filepath.Join(out, report.PlotsDir, "samples-vs-interval.svg"))
	if err != nil || !strings.Contains(string(svg), "interval (100 ns)") {
		t.Fatalf("the corrected plot: %v", err)
	}
	if plots, _ := filepath.Glob(filepath.Join(out, report.PlotsDir, "*.svg")); len(plots) != 1 {
		t.Errorf("plots %v, want the one [[plot]]", plots)
	}
}
