package report

import (
	"math"
	"slices"
	"strconv"
	"strings"

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
	// optional: a label wanted where it fits, never counted as one that
	// must (a swept axis's ends placed before a log axis's multiples)
	optional bool
}

// span is an axis as the tick placement sees it: its range, its scale
// and its drawn length in points.
type span struct {
	lo, hi float64
	log    bool
	length float64
}

// pos is v's distance in points from the axis's start.
func (s span) pos(v float64) float64 {
	if s.log {
		return s.length * (math.Log10(v) - math.Log10(s.lo)) / (math.Log10(s.hi) - math.Log10(s.lo))
	}
	if s.hi == s.lo {
		return s.length / 2
	}
	return s.length * (v - s.lo) / (s.hi - s.lo)
}

// extent is how much of an axis's length a label takes: its width along
// a horizontal axis, its height along a vertical one or when turned.
type extent func(label string) float64

// flatWidth is a horizontal label's width, with room for a wider font.
func flatWidth(sty gtext.Style) extent {
	return func(s string) float64 { return fontSlack * float64(sty.Width(s)) }
}

// lineHeight is the room a label takes along a vertical axis.
func lineHeight(sty gtext.Style) extent {
	return func(string) float64 { return fontSlack * float64(sty.Height("0")) }
}

// turnedWidth is the room a label turned by 45° takes along the axis.
func turnedWidth(sty gtext.Style) extent {
	return func(string) float64 { return fontSlack * float64(sty.Height("0")) * math.Sqrt2 }
}

// place chooses which candidates get their label, in order, so that no
// two labels overlap; a candidate that does not fit stays an unlabelled
// tick. It reports whether each of the first must candidates got its
// label.
func place(cands []candidate, must int, s span, ext extent) ([]plot.Tick, bool) {
	type interval struct{ a, b float64 }
	var taken []interval
	var ticks []plot.Tick
	all := true
	for i, c := range cands {
		if c.value < s.lo || c.value > s.hi {
			continue
		}
		p, half := s.pos(c.value), ext(c.label)/2+labelGap/2
		free := true
		for _, t := range taken {
			if p+half > t.a && p-half < t.b {
				free = false
				break
			}
		}
		if free {
			taken = append(taken, interval{p - half, p + half})
			ticks = append(ticks, plot.Tick{Value: c.value, Label: c.label})
		} else {
			ticks = append(ticks, plot.Tick{Value: c.value})
			all = all && (i >= must || c.optional)
		}
	}
	return tidy(ticks), all
}

// tidy sorts ticks by value and keeps one per value, a labelled one
// where there is one.
func tidy(ticks []plot.Tick) []plot.Tick {
	slices.SortFunc(ticks, func(a, b plot.Tick) int {
		if a.Value != b.Value {
			return cmpFloat(a.Value, b.Value)
		}
		return len(b.Label) - len(a.Label)
	})
	return slices.CompactFunc(ticks, func(a, b plot.Tick) bool { return a.Value == b.Value })
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

// intermediates are the multiples of a decade a log axis spanning less
// than two decades also labels, richest first: the richest set that
// puts at most five labels between the decades and fits is used.
var intermediates = [][]float64{{2, 3, 4, 5, 6, 8}, {1.5, 2, 3, 5, 7}, {2, 3, 5}, {2, 5}, {3}}

// logTicks are a log axis's ticks: every decade labelled; then, where
// they fit, the extra candidates (a swept axis's smallest and largest
// values: before the multiples, so that 40000 is labelled rather than
// 30000 beside it); on an axis spanning less than two decades also 2 to
// 5 multiples between them (intermediates); the multiples 2…9 of each decade
// as unlabelled minor ticks where the axis spans at most six decades.
// Decades that would overlap are labelled every k-th. It reports
// whether every decade (or every k-th) fits.
func logTicks(s span, ext extent, extra ...candidate) ([]plot.Tick, bool) {
	first, last := math.Floor(math.Log10(s.lo)), math.Ceil(math.Log10(s.hi))
	var decades []candidate
	for e := first; e <= last; e++ {
		if v := math.Pow(10, e); v >= s.lo && v <= s.hi {
			decades = append(decades, candidate{value: v, label: tickLabel(v)})
		}
	}
	var minor []plot.Tick
	decadesSpanned := math.Log10(s.hi / s.lo)
	// the data's decades: the axis is padded by a twentieth of them on
	// each side (padded)
	dataDecades := decadesSpanned * 20 / 22
	if decadesSpanned <= 6 {
		for e := first; e <= last; e++ {
			for k := 2.0; k <= 9; k++ {
				if v := k * math.Pow(10, e); v >= s.lo && v <= s.hi {
					minor = append(minor, plot.Tick{Value: v})
				}
			}
		}
	}
	if dataDecades < 2 {
		for _, set := range intermediates {
			var between []candidate
			for e := first; e <= last; e++ {
				for _, k := range set {
					if v := roundSig(k * math.Pow(10, e)); v >= s.lo && v <= s.hi {
						between = append(between, candidate{value: v, label: tickLabel(v)})
					}
				}
			}
			if len(between) > 5 || len(between) < 2 {
				continue
			}
			cands := append(append(slices.Clone(decades), optional(extra)...), between...)
			if ticks, ok := place(cands, len(cands), s, ext); ok {
				return tidy(append(ticks, minor...)), true
			}
		}
		if len(decades) < 2 {
			// too narrow for 2 multiples of a decade: the round values
			// of a linear axis, placed on the log one
			ticks, ok := place(append(optional(extra), linearCandidates(s.lo, s.hi)...), 0, s, ext)
			return tidy(append(ticks, minor...)), ok
		}
	}
	for every := 1; ; every++ {
		var cands []candidate
		for i, c := range decades {
			if i%every == 0 {
				cands = append(cands, c)
			}
		}
		ticks, ok := place(append(cands, extra...), len(cands), s, ext)
		if ok || len(cands) <= 1 {
			for _, c := range decades {
				ticks = append(ticks, plot.Tick{Value: c.value})
			}
			return tidy(append(ticks, minor...)), ok
		}
	}
}

// optional marks candidates as wanted where they fit.
func optional(cands []candidate) []candidate {
	out := slices.Clone(cands)
	for i := range out {
		out[i].optional = true
	}
	return out
}

// linearSteps are the steps between a linear axis's labelled values,
// per power of ten, with the minor ticks each divides into.
var linearSteps = []struct{ step, minor float64 }{{1, 5}, {2, 4}, {2.5, 5}, {5, 5}}

// linearStep is the step of a linear axis over [lo, hi]: the smallest
// round step (1, 2, 2.5 or 5 times a power of ten) that gives at most
// six labels, and the number of minor intervals between two of them.
func linearStep(lo, hi float64) (step, minor float64) {
	if !(hi > lo) || math.IsInf(hi-lo, 0) {
		return math.Inf(1), 5 // no step: a label at most at 0
	}
	for e := math.Floor(math.Log10((hi-lo)/6)) - 1; ; e++ {
		for _, s := range linearSteps {
			step := s.step * math.Pow(10, e)
			if math.Floor(hi/step)-math.Ceil(lo/step)+1 <= 6 {
				return step, s.minor
			}
		}
	}
}

// linearCandidates are a linear axis's round values, labelled alike: all
// with the decimals the finest needs ("0.5", "1.0", "1.5"; "22500").
func linearCandidates(lo, hi float64) []candidate {
	if !(hi > lo) {
		return []candidate{{value: lo, label: tickLabel(lo)}}
	}
	step, _ := linearStep(lo, hi)
	var out []candidate
	decimals := 0
	first, n := math.Ceil(lo/step), math.Floor(hi/step)-math.Ceil(lo/step)+1
	for i := 0.0; i < n && i < 6; i++ { // counted: k++ is lost on k above 2⁵³
		k := first + i
		v := roundSig(k * step)
		if k == 0 {
			v = 0 // not -0
		}
		out = append(out, candidate{value: v})
		if l := tickLabel(v); strings.Contains(l, ".") && !strings.Contains(l, "e") {
			decimals = max(decimals, len(l)-strings.Index(l, ".")-1)
		}
	}
	for i := range out {
		out[i].label = tickLabel(out[i].value)
		if decimals > 0 && !strings.Contains(out[i].label, "e") {
			out[i].label = strconv.FormatFloat(out[i].value, 'f', decimals, 64)
		}
	}
	return out
}

// linearMinor are the unlabelled ticks between a linear axis's round
// values.
func linearMinor(lo, hi float64) []plot.Tick {
	if !(hi > lo) {
		return nil
	}
	step, parts := linearStep(lo, hi)
	minor := step / parts
	var out []plot.Tick
	first, n := math.Ceil(lo/minor), math.Floor(hi/minor)-math.Ceil(lo/minor)+1
	for i := 0.0; i < n && i < 7*parts; i++ {
		if k := first + i; math.Mod(k, parts) != 0 {
			out = append(out, plot.Tick{Value: roundSig(k * minor)})
		}
	}
	return out
}

// roundSig rounds v to 6 significant digits: k × 10^e computed in
// floating point (0.07000000000000001) becomes the number it names.
func roundSig(v float64) float64 {
	f, _ := strconv.ParseFloat(strconv.FormatFloat(v, 'g', 6, 64), 64)
	return f
}

// tickLabel writes a tick's value: plainly from 0.001 to below 10⁷
// ("0.02", "100000"), else as "1e-5", "2.5e7".
func tickLabel(v float64) string {
	v = roundSig(v)
	if a := math.Abs(v); a == 0 || (a >= 1e-3 && a < 1e7) {
		return strconv.FormatFloat(v, 'f', -1, 64)
	}
	mant, exp, _ := strings.Cut(strconv.FormatFloat(v, 'e', -1, 64), "e")
	e, _ := strconv.Atoi(exp)
	return mant + "e" + strconv.Itoa(e)
}

// sweptTicks are a linear numeric x axis's ticks: each swept value
// labelled (the smallest and the largest first, so that a thinned axis
// still shows where the sweep starts and stops), then the round values
// where they fit, and the minor ticks. It reports whether every swept
// value got its label.
func sweptTicks(x param, s span, ext extent) ([]plot.Tick, bool) {
	var cands []candidate
	for i, v := range x.numbers {
		cands = append(cands, candidate{value: v, label: x.values[i]})
	}
	slices.SortStableFunc(cands, func(a, b candidate) int { return cmpFloat(a.value, b.value) })
	if n := len(cands); n > 2 {
		cands = append([]candidate{cands[0], cands[n-1]}, cands[1:n-1]...)
	}
	n := len(cands)
	cands = append(cands, linearCandidates(s.lo, s.hi)...)
	ticks, ok := place(cands, n, s, ext)
	return tidy(append(ticks, linearMinor(s.lo, s.hi)...)), ok
}

// numericAxis sets a numeric axis's ticks over its [Min, Max]: a log
// axis's decades and intermediates (logTicks; a swept axis's ends too,
// where they fit), or a linear one's swept values and round values; on a
// horizontal axis whose labels would overlap, the labels turn by 45°.
func numericAxis(a *plot.Axis, log bool, swept *param, length vg.Length, horizontal bool) {
	s := span{lo: a.Min, hi: a.Max, log: log, length: float64(length)}
	ticksFor := func(ext extent) ([]plot.Tick, bool) {
		switch {
		case log && swept != nil:
			lo, hi := minMax(swept.numbers)
			ends := []candidate{{value: lo, label: tickLabel(lo)}, {value: hi, label: tickLabel(hi)}}
			return logTicks(s, ext, ends...)
		case log:
			return logTicks(s, ext)
		case swept != nil:
			return sweptTicks(*swept, s, ext)
		}
		ticks, ok := place(linearCandidates(s.lo, s.hi), 0, s, ext)
		return tidy(append(ticks, linearMinor(s.lo, s.hi)...)), ok
	}
	if !horizontal {
		ticks, _ := ticksFor(lineHeight(a.Tick.Label))
		a.Tick.Marker = plot.ConstantTicks(ticks)
		return
	}
	ticks, ok := ticksFor(flatWidth(a.Tick.Label))
	if !ok {
		ticks, _ = ticksFor(turnedWidth(a.Tick.Label))
	}
	setTicks(a, ticks, !ok)
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
		if hi <= lo {
			return lo / 2, hi * 2
		}
		d := (math.Log10(hi) - math.Log10(lo)) / 20
		return lo / math.Pow(10, d), hi * math.Pow(10, d)
	}
	if d := (hi - lo) / 20; d > 0 {
		return lo - d, hi + d
	}
	return lo - 0.5*math.Max(1, math.Abs(lo)), hi + 0.5*math.Max(1, math.Abs(hi))
}
