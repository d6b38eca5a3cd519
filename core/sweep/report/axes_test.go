package report

import (
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/plot"
)

// labelled are the ticks that carry a label.
func labelled(ts []plot.Tick) []plot.Tick {
	var out []plot.Tick
	for _, t := range ts {
		if t.Label != "" {
			out = append(out, t)
		}
	}
	return out
}

// A log axis labels every decade, and 2 to 5 multiples between them
// when its data span less than two decades; the other multiples 2…9
// are unlabelled minor ticks; no two labels overlap, along a horizontal
// axis (widths) or a vertical one (heights). The y axis over 0.02–0.17
// labelled only "0.1", the x axis over 1221–100000 no decade.
func TestLogTicks(t *testing.T) {
	sty := plot.New().X.Tick.Label
	for _, tt := range []struct {
		name       string
		lo, hi     float64
		horizontal bool
		want       []string // labels that must be there
		between    bool     // 2 to 5 labels that are not decades
	}{
		{"y 0.02-0.17", 0.02, 0.17, false, []string{"0.1"}, true},
		{"x interval 1221-100000", 1221, 100000, true, []string{"1000", "10000", "100000"}, true},
		{"x 2000-40000", 2000, 40000, true, []string{"10000"}, true},
		{"decades only", 1, 1000000, true, []string{"1", "10", "100", "1000", "10000", "100000", "1000000"}, false},
		{"y many decades", 1e-4, 1e9, false, []string{"1e-4", "1", "10000", "1e8"}, false},
		{"narrow", 0.051, 0.059, false, nil, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			lo, hi := padded(tt.lo, tt.hi, true)
			length, ext := plotH-axisAllowance, lineHeight(sty)
			if tt.horizontal {
				length, ext = plotW-axisAllowance, flatWidth(sty)
			}
			s := span{lo: lo, hi: hi, log: true, length: float64(length)}
			ticks, ok := logTicks(s, ext)
			if !ok {
				t.Errorf("the decades do not fit")
			}
			lab := labelled(ticks)
			t.Logf("labels %v", lab)
			got := map[string]bool{}
			nonDecades := 0
			for _, tk := range lab {
				got[tk.Label] = true
				if e := math.Log10(tk.Value); math.Abs(e-math.Round(e)) > 1e-9 {
					nonDecades++
				}
			}
			for _, w := range tt.want {
				if !got[w] {
					t.Errorf("no label %s in %v", w, lab)
				}
			}
			if tt.between && (nonDecades < 2 || nonDecades > 5) {
				t.Errorf("%d labels between the decades, want 2 to 5: %v", nonDecades, lab)
			}
			if !tt.between && nonDecades > 0 {
				t.Errorf("labels between the decades of an axis spanning %g of them: %v", math.Log10(tt.hi/tt.lo), lab)
			}
			if len(lab) < 2 {
				t.Errorf("%d labels: not enough to read a value", len(lab))
			}
			if len(ticks) <= len(lab) && hi/lo > 2 && math.Log10(hi/lo) <= 6 {
				t.Errorf("no minor ticks: %v", ticks)
			}
			for i := 1; i < len(lab); i++ {
				need := (ext(lab[i].Label)+ext(lab[i-1].Label))/2 + labelGap
				if gap := s.pos(lab[i].Value) - s.pos(lab[i-1].Value); gap < need {
					t.Errorf("labels %s and %s overlap: %.1f points apart, need %.1f", lab[i-1].Label, lab[i].Label, gap, need)
				}
			}
		})
	}
}

// A dense linear sweep keeps its smallest and largest values' labels,
// turning the labels when they would overlap.
func TestSweptTicks(t *testing.T) {
	a := plot.New().X
	x := param{name: "x", numeric: true}
	for _, v := range logSpaced(100, 1e6, 24) {
		x.numbers = append(x.numbers, v)
		x.values = append(x.values, strconv.FormatFloat(v, 'f', -1, 64))
	}
	a.Min, a.Max = padded(100, 1e6, false)
	numericAxis(&a, false, &x, plotW-axisAllowance, true)
	got := map[string]bool{}
	for _, tk := range labelled(a.Tick.Marker.Ticks(a.Min, a.Max)) {
		got[tk.Label] = true
	}
	if a.Tick.Label.Rotation == 0 || !got["100"] || !got["1000000"] {
		t.Errorf("turned %v, labels %v: want turned labels with the ends", a.Tick.Label.Rotation != 0, got)
	}
}

// A linear axis's round values are written alike and without needless
// decimals: "22500", never gonum's "22500.00"; all with as many decimals
// as the finest needs.
func TestLinearLabels(t *testing.T) {
	for _, tt := range []struct {
		lo, hi   float64
		want     []string
		decimals int
	}{
		{1500, 23500, []string{"5000", "10000", "15000", "20000"}, 0},
		{0.2, 2.1, []string{"0.5", "1.0", "1.5", "2.0"}, 1},
		{-1, 1, []string{"-1.0", "0.0", "1.0"}, 1},
	} {
		var got []string
		for _, c := range linearCandidates(tt.lo, tt.hi) {
			got = append(got, c.label)
			if _, frac, _ := strings.Cut(c.label, "."); len(frac) != tt.decimals {
				t.Errorf("[%g, %g]: label %s, want %d decimals", tt.lo, tt.hi, c.label, tt.decimals)
			}
		}
		for _, w := range tt.want {
			if !slices.Contains(got, w) {
				t.Errorf("[%g, %g]: labels %v lack %s", tt.lo, tt.hi, got, w)
			}
		}
	}
}

func logSpaced(lo, hi float64, n int) []float64 {
	var out []float64
	for i := range n {
		out = append(out, math.Round(lo*math.Pow(hi/lo, float64(i)/float64(n-1))))
	}
	return out
}

// A swept axis's ends are labelled before the multiples of a decade:
// 40000 rather than 30000 beside it (sampling_error's x axis labelled
// 2000, 3000, 5000, 10000, 20000, 30000 and not its last value), 1500
// beside 1000 where there is room.
func TestSweptEndsLabelled(t *testing.T) {
	for _, tt := range []struct{ lo, hi float64 }{{2000, 40000}, {1500, 100000}, {1221, 39063}, {1221, 100000 / 2}} {
		lo, hi := padded(tt.lo, tt.hi, true)
		s := span{lo: lo, hi: hi, log: true, length: float64(plotW - axisAllowance)}
		sty := newPlot().X.Tick.Label
		ticks, _ := logTicks(s, flatWidth(sty), candidate{value: tt.lo, label: tickLabel(tt.lo)}, candidate{value: tt.hi, label: tickLabel(tt.hi)})
		got := map[float64]bool{}
		for _, tk := range ticks {
			if tk.Label != "" {
				got[tk.Value] = true
			}
		}
		if !got[tt.lo] || !got[tt.hi] {
			t.Errorf("%v–%v: labels %v lack an end", tt.lo, tt.hi, labelled(ticks))
		}
	}
}
