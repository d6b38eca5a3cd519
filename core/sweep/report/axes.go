package report

import (
	"math"
	"slices"
	"strconv"

	"gonum.org/v1/plot"
	gtext "gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// labelGap is the least space between two tick labels.
const labelGap = 4 // points

// candidate is a tick that would like a label; earlier candidates win a
// place over later ones.
type candidate struct {
	value float64
	label string
}

// placeTicks chooses which candidates get their label on an axis of the
// given length spanning [lo, hi] (log: a log scale), so that no two
// labels overlap: first horizontal labels; when that would drop a
// swept value's label (the first nSwept candidates), labels turned by
// 45°, which need only their height along the axis. Candidates that do
// not fit stay as unlabelled ticks. It reports whether to turn them.
func placeTicks(cands []candidate, nSwept int, lo, hi float64, log bool, length vg.Length, sty gtext.Style) ([]plot.Tick, bool) {
	pos := func(v float64) float64 {
		if log {
			return float64(length) * (math.Log10(v) - math.Log10(lo)) / (math.Log10(hi) - math.Log10(lo))
		}
		if hi == lo {
			return float64(length) / 2
		}
		return float64(length) * (v - lo) / (hi - lo)
	}
	try := func(extent func(string) float64) ([]plot.Tick, bool) {
		type span struct{ a, b float64 }
		var taken []span
		var ticks []plot.Tick
		all := true
		for i, c := range cands {
			if c.value < lo || c.value > hi {
				continue
			}
			p, half := pos(c.value), extent(c.label)/2+labelGap/2
			free := true
			for _, s := range taken {
				if p+half > s.a && p-half < s.b {
					free = false
					break
				}
			}
			if free {
				taken = append(taken, span{p - half, p + half})
				ticks = append(ticks, plot.Tick{Value: c.value, Label: c.label})
			} else {
				ticks = append(ticks, plot.Tick{Value: c.value})
				all = all && i >= nSwept
			}
		}
		slices.SortFunc(ticks, func(a, b plot.Tick) int {
			if a.Value != b.Value {
				return cmpFloat(a.Value, b.Value)
			}
			return len(b.Label) - len(a.Label)
		})
		return slices.CompactFunc(ticks, func(a, b plot.Tick) bool { return a.Value == b.Value }), all
	}
	flat, ok := try(func(s string) float64 { return fontSlack * float64(sty.Width(s)) })
	if ok {
		return flat, false
	}
	turned, _ := try(func(string) float64 { return fontSlack * float64(sty.Height("0")) * math.Sqrt2 })
	return turned, true
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// numberTicks are a numeric axis's candidates: the swept values first
// (by their text in the results; the smallest and the largest first), then the decades of a log axis or the
// round values of a linear one, and for a log axis the unlabelled minor
// ticks 2…9 of each decade.
func numberTicks(x param, lo, hi float64, log bool) ([]candidate, []plot.Tick) {
	var cands []candidate
	for i, v := range x.numbers {
		cands = append(cands, candidate{v, x.values[i]})
	}
	// the ends first: a thinned axis still shows where the sweep starts
	// and stops
	slices.SortStableFunc(cands, func(a, b candidate) int {
		return cmpFloat(a.value, b.value)
	})
	if n := len(cands); n > 2 {
		cands = append([]candidate{cands[0], cands[n-1]}, cands[1:n-1]...)
	}
	var minor []plot.Tick
	if log {
		for e := math.Floor(math.Log10(lo)); e <= math.Ceil(math.Log10(hi)); e++ {
			dec := math.Pow(10, e)
			cands = append(cands, candidate{dec, decade(e)})
			for k := 2.0; k <= 9; k++ {
				if v := k * dec; v >= lo && v <= hi {
					minor = append(minor, plot.Tick{Value: v})
				}
			}
		}
		return cands, minor
	}
	for _, t := range (plot.DefaultTicks{}).Ticks(lo, hi) {
		if t.Label != "" {
			cands = append(cands, candidate{t.Value, t.Label})
		} else {
			minor = append(minor, t)
		}
	}
	return cands, minor
}

// decade labels 10^e: plainly from 0.001 to 1000000, else "1e7".
func decade(e float64) string {
	if e >= -3 && e <= 6 {
		return strconv.FormatFloat(math.Pow(10, e), 'f', -1, 64)
	}
	return "1e" + strconv.Itoa(int(e))
}

// setTicks gives axis ticks that do not overlap and turns the labels by
// 45° when the horizontal ones would (an x axis).
func setTicks(a *plot.Axis, ticks []plot.Tick, turn bool) {
	a.Tick.Marker = plot.ConstantTicks(ticks)
	if turn {
		a.Tick.Label.Rotation = math.Pi / 4
		a.Tick.Label.XAlign = draw.XRight
		a.Tick.Label.YAlign = draw.YCenter
	}
}

// nominalTicks labels positions 0…n−1 with names so that none overlap:
// horizontal when each fits its slot, else turned by 45°, and when even
// turned labels are too close, every k-th one.
func nominalTicks(a *plot.Axis, names []string, length vg.Length) {
	slot := float64(length) / float64(max(1, len(names)))
	widest := 0.0
	for _, n := range names {
		widest = math.Max(widest, fontSlack*float64(a.Tick.Label.Width(n)))
	}
	turn := widest+labelGap > slot
	every := 1
	if h := fontSlack * float64(a.Tick.Label.Height("0")) * math.Sqrt2; turn && h+labelGap > slot {
		every = int(math.Ceil((h + labelGap) / slot))
	}
	a.Min, a.Max = -0.5, float64(len(names))-0.5
	setTicks(a, everyKth(names, every), turn)
}

// everyKth is a tick at each position 0…n−1, labelled with its name at
// every k-th one.
func everyKth(names []string, every int) []plot.Tick {
	ticks := make([]plot.Tick, len(names))
	for i, n := range names {
		ticks[i].Value = float64(i)
		if i%every == 0 {
			ticks[i].Label = n
		}
	}
	return ticks
}

// padded widens [lo, hi] by a twentieth of its decades on each side
// (log) or of its length (linear), so that no point sits on the frame.
func padded(lo, hi float64, log bool) (float64, float64) {
	if log {
		d := (math.Log10(hi) - math.Log10(lo)) / 20
		return lo / math.Pow(10, d), hi * math.Pow(10, d)
	}
	if d := (hi - lo) / 20; d > 0 {
		return lo - d, hi + d
	}
	return lo - 0.5*math.Max(1, math.Abs(lo)), hi + 0.5*math.Max(1, math.Abs(hi))
}
