package report

import (
	"testing"

	"gonum.org/v1/plot/vg"
)

// The PDF's fonts encode Windows-1252: what they have passes as it is
// (µ, ±, ·, –), what they lack is spelt in ASCII or "?".
func TestPDFSafe(t *testing.T) {
	for in, want := range map[string]string{
		"c/√samples":   "c/sqrt samples",
		"−1 ≤ x":       "-1 <= x",
		"µs ± 2 · 3 –": "µs ± 2 · 3 –",
		"λ ✓":          "lambda ?",
		"plain":        "plain",
	} {
		if got := pdfSafe(in); got != want {
			t.Errorf("pdfSafe(%q) = %q, want %q", in, got, want)
		}
	}
}

// A swept axis's ends are labelled before the multiples of a decade:
// 40000 rather than 30000 beside it (sampling_error's x axis labelled
// 2000, 3000, 5000, 10000, 20000, 30000 and not its last value), 1500
// beside 1000 where there is room.
func TestSweptEndsLabelled(t *testing.T) {
	for _, tt := range []struct{ lo, hi float64 }{{2000, 40000}, {1500, 100000}} {
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
	_ = vg.Length(0)
}
