package report

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"gonum.org/v1/plot/plotter"
)

// curve is one series of a metric plot against a parameter: its legend
// label and its statistics per x value (pooled over the parameters the
// plot neither draws nor groups by).
type curve struct {
	label string
	cells map[string]*moments // by the x parameter's value
}

// curves groups the grid points by the group parameters' values, in
// run order, pooling each (group, x value) cell's repeats.
func curves(d *data, metric string, x param, groups []param) []*curve {
	var out []*curve
	index := map[string]*curve{}
	for _, pt := range d.points {
		m := pt.metrics[metric]
		if m == nil || m.n == 0 {
			continue
		}
		l := valuesLabel(pt, groups)
		c := index[l]
		if c == nil {
			c = &curve{label: l, cells: map[string]*moments{}}
			index[l] = c
			out = append(out, c)
		}
		v := pt.params[x.name]
		if c.cells[v] == nil {
			c.cells[v] = &moments{}
		}
		c.cells[v].merge(m)
	}
	return out
}

// merge adds o's values to m (Chan et al.'s pairwise update).
func (m *moments) merge(o *moments) {
	if o.n == 0 {
		return
	}
	if m.n == 0 {
		*m = *o
		return
	}
	n := float64(m.n + o.n)
	delta := o.mean - m.mean
	m.m2 += o.m2 + delta*delta*float64(m.n)*float64(o.n)/n
	m.mean += delta * float64(o.n) / n
	m.n += o.n
	m.sum += o.sum
	m.minV, m.maxV = math.Min(m.minV, o.minV), math.Max(m.maxV, o.maxV)
}

// valuesLabel names a point by the values of ps: "ProfileTime, 4".
func valuesLabel(pt *point, ps []param) string {
	var parts []string
	for _, p := range ps {
		parts = append(parts, pt.params[p.name])
	}
	return strings.Join(parts, ", ")
}

// mark is one plotted mean: where it is, and the half-widths of its
// bars (the 95% confidence interval of each mean; 0: no bar).
type mark struct{ x, y, dx, dy float64 }

// series is one series of a metric plot.
type series struct {
	label string
	marks []mark      // by x
	ref   plotter.XYs // the reference metric's means, by x
	// overlaps is the label of an earlier series this one covers: the
	// legend says so, since the one under it cannot be seen
	overlaps string
}

// paramSeries are the series of a plot against the parameter x: each
// group's means per value of x, and the reference metric's.
func paramSeries(d *data, spec PlotSpec, x param, groups []param) []*series {
	cs := curves(d, spec.Y, x, groups)
	refs := map[string]*curve{}
	if spec.Reference != "" {
		for _, c := range curves(d, spec.Reference, x, groups) {
			refs[c.label] = c
		}
	}
	var out []*series
	for i, c := range cs {
		s := &series{label: c.label}
		for j, v := range x.values {
			pos := xOf(x, v)
			if !x.numeric {
				pos = float64(j) + dodge(i, len(cs))
			}
			if m := c.cells[v]; m != nil {
				st := m.stats()
				s.marks = append(s.marks, mark{x: pos, y: st.mean, dy: st.halfCI()})
			}
			if r := refs[c.label]; r != nil && r.cells[v] != nil {
				s.ref = append(s.ref, plotter.XY{X: pos, Y: r.cells[v].stats().mean})
			}
		}
		s.sort()
		out = append(out, s)
	}
	return out
}

// metricGroups are the series of a plot with a metric on x: the group
// parameter, or else the varying parameters that are not numbers (a
// numeric one is likely what moves x).
func (d *data) metricGroups(spec PlotSpec) []param {
	if g := d.param(spec.Group); g != nil {
		return []param{*g}
	}
	var out []param
	for _, p := range d.varying() {
		if !p.numeric {
			out = append(out, p)
		}
	}
	return out
}

// metricSeries are the series of a plot with the metric spec.X on x:
// each grid point at its means of both metrics.
func metricSeries(d *data, spec PlotSpec, groups []param) []*series {
	var out []*series
	index := map[string]*series{}
	for _, pt := range d.points {
		sx, sy := pt.stats(spec.X), pt.stats(spec.Y)
		if sx.n == 0 || sy.n == 0 {
			continue
		}
		l := valuesLabel(pt, groups)
		s := index[l]
		if s == nil {
			s = &series{label: l}
			index[l] = s
			out = append(out, s)
		}
		s.marks = append(s.marks, mark{x: sx.mean, y: sy.mean, dx: sx.halfCI(), dy: sy.halfCI()})
		if spec.Reference != "" {
			if sr := pt.stats(spec.Reference); sr.n > 0 {
				s.ref = append(s.ref, plotter.XY{X: sx.mean, Y: sr.mean})
			}
		}
	}
	for _, s := range out {
		s.sort()
	}
	return out
}

func (s *series) sort() {
	slices.SortStableFunc(s.marks, func(a, b mark) int { return cmpFloat(a.x, b.x) })
	slices.SortStableFunc(s.ref, func(a, b plotter.XY) int { return cmpFloat(a.X, b.X) })
}

// markOverlaps finds each series drawn over an earlier one: the same x
// values, and means within a hundredth of the y axis's span of each
// other (in decades on a log axis), so that the earlier cannot be seen.
func (l *layout) markOverlaps() {
	at := func(v float64) float64 {
		if l.logY {
			return math.Log10(v)
		}
		return v
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, s := range l.series {
		for _, m := range s.marks {
			lo, hi = math.Min(lo, at(m.y)), math.Max(hi, at(m.y))
		}
	}
	tol := (hi - lo) / 100
	for i, s := range l.series {
		for _, earlier := range l.series[:i] {
			if l.x != nil && !l.x.numeric {
				continue // categories stand side by side: nothing hides
			}
			if covers(s.marks, earlier.marks, at, tol) {
				s.overlaps = earlier.label
				l.overlaps = append(l.overlaps, fmt.Sprintf("%s overlaps %s", s.label, earlier.label))
				break
			}
		}
	}
}

// covers: a and b have marks at the same x values with y values within
// tol of each other (after at).
func covers(a, b []mark, at func(float64) float64, tol float64) bool {
	if len(a) != len(b) || len(a) == 0 {
		return false
	}
	for i := range a {
		if math.Abs(a[i].x-b[i].x) > 1e-9*math.Max(1, math.Abs(a[i].x)) || math.Abs(at(a[i].y)-at(b[i].y)) > tol {
			return false
		}
	}
	return true
}

// dodge spreads k series around a category's position so that their
// points and bars stand side by side.
func dodge(i, k int) float64 {
	if k < 2 {
		return 0
	}
	w := math.Min(0.6, 0.15*float64(k))
	return -w/2 + w*float64(i)/float64(k-1)
}

// stats are the moments' statistics.
func (m *moments) stats() stats {
	pt := point{metrics: map[string]*moments{"": m}}
	return pt.stats("")
}

func positive(xs []float64) bool {
	for _, x := range xs {
		if !(x > 0) {
			return false
		}
	}
	return true
}

func minMax(xs []float64) (float64, float64) {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, x := range xs {
		lo, hi = math.Min(lo, x), math.Max(hi, x)
	}
	return lo, hi
}
