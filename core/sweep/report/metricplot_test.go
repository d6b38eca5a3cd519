package report

import (
	"math"
	"path/filepath"
	"testing"

	"github.com/proflab/proflab/core/sweep/results"
)

// The slope guide is y = c·x^k with the asked k, through the geometric
// mean of the points (c = exp(mean(ln y − k·ln x))), over their x range.
func TestSlopeLine(t *testing.T) {
	dir := t.TempDir()
	var lines []results.Line
	xs, ys := []float64{100, 400, 1600}, []float64{0.1, 0.06, 0.02}
	for i := range xs {
		lines = append(lines, results.Line{Index: i, ID: string(rune('a' + i)), Params: map[string]any{"interval": int64(i)},
			Metrics: map[string]any{"samples": xs[i], "tv": ys[i]}, Status: results.StatusOK, Checks: []results.Check{}, Interrupts: map[string]uint64{}})
	}
	if err := results.Write(filepath.Join(dir, results.FileName), lines); err != nil {
		t.Fatal(err)
	}
	d, err := load(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	l, err := d.lay(d, PlotSpec{X: "samples", Y: "tv"})
	if err != nil {
		t.Fatal(err)
	}
	guide, err := l.slopeLine(-0.5)
	if err != nil {
		t.Fatal(err)
	}
	var sum float64
	for i := range xs {
		sum += math.Log(ys[i]) + 0.5*math.Log(xs[i])
	}
	c := math.Exp(sum / 3)
	first, last := guide.XYs[0], guide.XYs[len(guide.XYs)-1]
	if first.X != 100 || math.Abs(last.X-1600) > 1e-9 {
		t.Errorf("the guide spans x %g…%g, want the points' 100…1600", first.X, last.X)
	}
	for _, p := range guide.XYs {
		if want := c / math.Sqrt(p.X); math.Abs(p.Y-want) > 1e-12 {
			t.Fatalf("guide at x = %g: y = %g, want c/√x = %g", p.X, p.Y, want)
		}
	}
	// a power law has no place where a mean is 0 or below
	l.series[0].marks[0].y = 0
	if _, err := l.slopeLine(-0.5); err == nil {
		t.Error("a slope through a mean of 0")
	}
}
