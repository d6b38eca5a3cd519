package report

import (
	"testing"
)

// What drawing one figure costs in each format: the page's SVG is drawn
// anyway; PDF and PNG are drawn once more each, when [report] formats
// asks for them.
func BenchmarkFigureFormats(b *testing.B) {
	d := &data{units: map[string]Unit{}, labels: map[string]string{}}
	pt := func(iv string, v float64) *point {
		m := &moments{}
		for r := range 3 {
			m.add(v * (1 + 0.1*float64(r)))
		}
		return &point{params: map[string]string{"interval": iv}, n: 3, ok: 3, metrics: map[string]*moments{"tv": m}}
	}
	d.points = []*point{pt("2000", 0.05), pt("5429", 0.1), pt("14736", 0.2), pt("40000", 0.3)}
	d.params = []param{{name: "interval", values: []string{"2000", "5429", "14736", "40000"}, numbers: []float64{2000, 5429, 14736, 40000}, numeric: true}}
	d.metric = []string{"tv"}
	fig, err := metricPlot(d, PlotSpec{X: "interval", Y: "tv"})
	if err != nil {
		b.Fatal(err)
	}
	for _, format := range Formats {
		b.Run(format, func(b *testing.B) {
			for b.Loop() {
				if _, err := fig.encode(format); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
