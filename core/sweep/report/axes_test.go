package report

import (
	"math"
	"strconv"
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

// A log axis labels each swept value and the decades that do not crowd
// them; a dense sweep turns its labels, and no two labels ever overlap.
func TestPlaceTicks(t *testing.T) {
	sty := plot.New().X.Tick.Label
	length := plotW - axisAllowance
	for _, tt := range []struct {
		name   string
		values []float64
		turn   bool
		want   []string // labels that must be there
	}{
		{"sampling_error", []float64{2000, 5429, 14736, 40000}, false, []string{"2000", "5429", "10000", "14736", "40000"}},
		{"decades only", []float64{1, 1000000}, false, []string{"1", "10", "100", "1000", "10000", "100000", "1000000"}},
		{"dense", logSpaced(100, 1e6, 24), true, []string{"100", "1000000"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			x := param{name: "x", numeric: true}
			for _, v := range tt.values {
				x.numbers = append(x.numbers, v)
				x.values = append(x.values, strconv.FormatFloat(v, 'f', -1, 64))
			}
			lo, hi := padded(tt.values[0], tt.values[len(tt.values)-1], true)
			cands, _ := numberTicks(x, lo, hi, true)
			ticks, turn := placeTicks(cands, len(x.numbers), lo, hi, true, length, sty)
			if turn != tt.turn {
				t.Errorf("turned %v, want %v", turn, tt.turn)
			}
			got := map[string]bool{}
			lab := labelled(ticks)
			for _, tk := range lab {
				got[tk.Label] = true
			}
			for _, w := range tt.want {
				if !got[w] {
					t.Errorf("no label %s in %v", w, lab)
				}
			}
			pos := func(v float64) float64 {
				return float64(length) * (math.Log10(v) - math.Log10(lo)) / (math.Log10(hi) - math.Log10(lo))
			}
			for i := 1; i < len(lab); i++ {
				need := fontSlack * float64(sty.Width(lab[i].Label)+sty.Width(lab[i-1].Label)) / 2
				if turn {
					need = fontSlack * float64(sty.Height("0")) * math.Sqrt2
				}
				if gap := pos(lab[i].Value) - pos(lab[i-1].Value); gap < need {
					t.Errorf("labels %s and %s overlap: %.1f points apart, need %.1f", lab[i-1].Label, lab[i].Label, gap, need)
				}
			}
		})
	}
}

func logSpaced(lo, hi float64, n int) []float64 {
	var out []float64
	for i := range n {
		out = append(out, math.Round(lo*math.Pow(hi/lo, float64(i)/float64(n-1))))
	}
	return out
}

// Categories turn their labels when they would not fit, and thin them
// when even turned ones would touch.
func TestNominalTicks(t *testing.T) {
	for _, tt := range []struct {
		n, width   int
		turn       bool
		everyOther bool
	}{{3, 4, false, false}, {7, 10, true, false}, {80, 4, true, true}} {
		p := plot.New()
		var names []string
		for i := range tt.n {
			names = append(names, strconv.Itoa(i)+string(make([]byte, 0))+repeat("x", tt.width))
		}
		nominalTicks(&p.X, names, plotW-axisAllowance)
		turned := p.X.Tick.Label.Rotation != 0
		ticks := p.X.Tick.Marker.Ticks(p.X.Min, p.X.Max)
		thinned := len(labelled(ticks)) < tt.n
		if turned != tt.turn || thinned != tt.everyOther {
			t.Errorf("%d labels of %d characters: turned %v thinned %v, want %v %v", tt.n, tt.width, turned, thinned, tt.turn, tt.everyOther)
		}
	}
}

func repeat(s string, n int) string {
	out := ""
	for range n {
		out += s
	}
	return out
}
