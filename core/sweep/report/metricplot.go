package report

import (
	"fmt"
	"image/color"
	"math"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"
)

// The size of a metric plot's drawing, without its legend, and what of
// its width the data area lacks (the y axis, its labels and margins):
// the length the x axis's labels have to share.
const (
	plotW         = 16 * vg.Centimeter
	plotH         = 11 * vg.Centimeter
	axisAllowance = 3 * vg.Centimeter
)

// logSpan is the factor over which positive values get a log axis when
// neither log_x nor log_y says.
const logSpan = 20

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

// layout is what a metric plot draws, before it is drawn.
type layout struct {
	spec     PlotSpec
	x        *param // nil: x is a metric
	groups   []param
	pooled   []param
	series   []*series
	joined   bool // a line joins each series' means (a numeric parameter on x)
	logX     bool
	logY     bool
	overlaps []string // "b overlaps a", for the caption
	yBars    []*plotter.YErrorBars
	xBars    []*plotter.XErrorBars
}

// metricPlot draws spec.Y against spec.X: the mean of each grid point
// (pooled over the varying parameters that are neither x nor the
// group's) with the 95% confidence interval of that mean as its bar, one
// series per value of the group parameters. A numeric parameter on x
// joins a series' means by a line; a categorical one (source, version:
// any parameter with a non-number value) draws them as points side by
// side, never joined; a metric on x draws each grid point at its mean
// of both metrics, with bars both ways, not joined (x is measured, not
// chosen). spec.Reference and spec.Slope add reference lines.
func metricPlot(d *data, spec PlotSpec) (figure, error) {
	l, err := d.lay(spec)
	if err != nil {
		return figure{}, err
	}
	p := newPlot()
	p.Title.Text = spec.Title
	if p.Title.Text == "" {
		p.Title.Text = fmt.Sprintf("%s against %s", spec.Y, spec.X)
	}
	p.Title.Text += "\n" + l.statLine()
	p.X.Label.Text = d.axisLabel(spec.X)
	p.Y.Label.Text = d.axisLabel(spec.Y)
	leg := newLegend()
	withLegend := len(l.groups) > 0 || spec.Reference != "" || spec.Slope != nil
	if len(l.groups) > 0 {
		leg.Add(names(l.groups))
	}
	for i, s := range l.series {
		thumbs, err := l.addSeries(p, s, i)
		if err != nil {
			return figure{}, err
		}
		switch {
		case len(l.groups) > 0:
			text := s.label
			if s.overlaps != "" {
				text += " (overlaps " + s.overlaps + ")"
			}
			leg.Add(text, thumbs...)
		case withLegend && i == 0:
			leg.Add(spec.Y, thumbs...)
		}
	}
	if spec.Reference != "" {
		style := dashed(color.Black)
		if len(l.series) == 1 {
			style.Color = plotutil.Color(0)
		}
		leg.Add(spec.Reference+" (dashed)", &plotter.Line{LineStyle: style})
	}
	if spec.Slope != nil {
		guide, err := l.slopeLine(*spec.Slope)
		if err != nil {
			return figure{}, err
		}
		p.Add(guide)
		leg.Add(slopeText(*spec.Slope, spec.X), guide)
	}
	l.axes(p)
	p.Add(plotter.NewGrid())
	name := fmt.Sprintf("%s/%s-vs-%s.svg", PlotsDir, fileName(spec.Y), fileName(spec.X))
	if spec.Group != "" {
		name = fmt.Sprintf("%s/%s-vs-%s-by-%s.svg", PlotsDir, fileName(spec.Y), fileName(spec.X), fileName(spec.Group))
	}
	svg, err := renderBeside(p, leg, withLegend, plotW, plotH)
	title := strings.ReplaceAll(p.Title.Text, "\n", ": ")
	return figure{title: title, caption: l.caption(), file: name, svg: svg}, err
}

// lay computes what a plot draws: its series and their marks, and its
// axes' scales.
func (d *data) lay(spec PlotSpec) (*layout, error) {
	l := &layout{spec: spec, x: d.param(spec.X)}
	if l.x != nil {
		l.groups, l.pooled = d.roles(spec)
		l.series = paramSeries(d, spec, *l.x, l.groups)
		l.joined = l.x.numeric
	} else {
		l.groups = d.metricGroups(spec)
		l.series = metricSeries(d, spec, l.groups)
	}
	var xs, ys []float64
	for _, s := range l.series {
		for _, m := range s.marks {
			xs, ys = append(xs, m.x), append(ys, m.y)
		}
		for _, r := range s.ref {
			ys = append(ys, r.Y)
		}
	}
	if l.x != nil {
		xs = l.x.numbers
	}
	numericX := l.x == nil || l.x.numeric
	var err error
	xWhat := "a mean"
	if l.x != nil {
		xWhat = "the value"
	}
	if l.logX, err = chooseLog(spec.LogX, xs, numericX, "log_x", spec.X, xWhat); err != nil {
		return nil, err
	}
	if l.logY, err = chooseLog(spec.LogY, ys, true, "log_y", spec.Y, "a mean"); err != nil {
		return nil, err
	}
	l.markOverlaps()
	return l, nil
}

// chooseLog is whether an axis over values is log: as forced, which
// needs numbers above 0, or else when they are all above 0 and span a
// factor of logSpan or more. what names a value in a message.
func chooseLog(force *bool, values []float64, numeric bool, key, name, what string) (bool, error) {
	if force == nil {
		return numeric && logSpread(values), nil
	}
	if !*force {
		return false, nil
	}
	if !numeric {
		return false, fmt.Errorf("%s: %s has values that are not numbers", key, name)
	}
	for _, v := range values {
		if !(v > 0) {
			return false, fmt.Errorf("%s: %s has %s of %s, and a log axis holds only values above 0", key, name, what, num(v))
		}
	}
	return true, nil
}

// logSpread: values all above 0, the largest logSpan times the smallest
// or more.
func logSpread(values []float64) bool {
	if len(values) == 0 || !positive(values) {
		return false
	}
	lo, hi := minMax(values)
	return hi/lo >= logSpan
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

// roles splits the varying parameters other than spec.X into those whose
// values are the series (spec.Group, or all of them) and those pooled.
func (d *data) roles(spec PlotSpec) (groups, pooled []param) {
	for _, p := range d.varying() {
		switch {
		case p.name == spec.X:
		case spec.Group == "" || p.name == spec.Group:
			groups = append(groups, p)
		default:
			pooled = append(pooled, p)
		}
	}
	if g := d.param(spec.Group); g != nil && !g.varies() {
		groups = append(groups, *g) // named, though one value: still its legend
	}
	return groups, pooled
}

func names(ps []param) string {
	var out []string
	for _, p := range ps {
		out = append(out, p.name)
	}
	return strings.Join(out, ", ")
}

// statLine is the title's second line: what a point and its bar are.
func (l *layout) statLine() string {
	if l.x == nil {
		return "each grid point: means ± 95% CI (Student's t) over its repeats"
	}
	s := "mean ± 95% CI (Student's t) over the repeats"
	if len(l.pooled) > 0 {
		s += " and " + names(l.pooled)
	}
	return s
}

// caption says in words what the plot draws, for report.html.
func (l *layout) caption() string {
	var b strings.Builder
	if l.x == nil {
		fmt.Fprintf(&b, "Each point is a grid point at its mean %s and mean %s over its repeats", l.spec.X, l.spec.Y)
	} else {
		b.WriteString("Each point is the mean over the repeats")
		if len(l.pooled) > 0 {
			b.WriteString(" and " + names(l.pooled))
		}
	}
	b.WriteString("; its bars are the 95% confidence interval of the mean (Student's t with n−1 degrees of freedom), as in summary.md; a mean of one run has no bar.")
	if l.spec.Reference != "" {
		fmt.Fprintf(&b, " Dashed: the mean %s.", l.spec.Reference)
	}
	if l.spec.Slope != nil {
		fmt.Fprintf(&b, " Dotted: %s, through the geometric mean of the points.", slopeText(*l.spec.Slope, l.spec.X))
	}
	if len(l.overlaps) > 0 {
		fmt.Fprintf(&b, " Series drawn over another: %s.", strings.Join(l.overlaps, "; "))
	}
	if l.logX || l.logY {
		axes := map[[2]bool]string{{true, false}: "x axis is", {false, true}: "y axis is", {true, true}: "x and y axes are"}[[2]bool{l.logX, l.logY}]
		fmt.Fprintf(&b, " The %s logarithmic.", axes)
	}
	return b.String()
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

// dashed is the line style of a reference metric.
func dashed(c color.Color) draw.LineStyle {
	return draw.LineStyle{Color: c, Width: vg.Points(1), Dashes: []vg.Length{vg.Points(5), vg.Points(3)}}
}

// addSeries adds a series: its points, their error bars (a metric on x:
// both ways), the line joining them on a numeric parameter, and its
// reference metric dashed; it returns the legend's thumbnails.
func (l *layout) addSeries(p *plot.Plot, s *series, i int) ([]plot.Thumbnailer, error) {
	if len(s.marks) == 0 {
		return nil, nil
	}
	var xys plotter.XYs
	var ybars, xbars errPoints
	for _, m := range s.marks {
		xys = append(xys, plotter.XY{X: m.x, Y: m.y})
		if m.dy > 0 {
			ybars.XYs = append(ybars.XYs, plotter.XY{X: m.x, Y: m.y})
			ybars.YErrors = append(ybars.YErrors, struct{ Low, High float64 }{m.dy, m.dy})
		}
		if m.dx > 0 {
			xbars.XYs = append(xbars.XYs, plotter.XY{X: m.x, Y: m.y})
			xbars.XErrors = append(xbars.XErrors, struct{ Low, High float64 }{m.dx, m.dx})
		}
	}
	clr := plotutil.Color(i)
	var thumbs []plot.Thumbnailer
	if l.joined {
		line, err := plotter.NewLine(xys)
		if err != nil {
			return nil, err
		}
		line.Color = clr
		p.Add(line)
		thumbs = append(thumbs, line)
	}
	if len(ybars.XYs) > 0 {
		bars, err := plotter.NewYErrorBars(ybars)
		if err != nil {
			return nil, err
		}
		bars.Color = clr
		p.Add(bars)
		l.yBars = append(l.yBars, bars)
	}
	if len(xbars.XYs) > 0 {
		bars, err := plotter.NewXErrorBars(xbars)
		if err != nil {
			return nil, err
		}
		bars.Color = clr
		p.Add(bars)
		l.xBars = append(l.xBars, bars)
	}
	points, err := plotter.NewScatter(xys)
	if err != nil {
		return nil, err
	}
	points.Color, points.Shape = clr, plotutil.Shape(i)
	points.Radius = vg.Points(3)
	p.Add(points)
	thumbs = append(thumbs, points)
	if len(s.ref) > 0 {
		if err := l.addReference(p, s.ref, clr); err != nil {
			return nil, err
		}
	}
	return thumbs, nil
}

// addReference draws a series' reference metric dashed: one line over a
// numeric x, a short dash at each category's point otherwise.
func (l *layout) addReference(p *plot.Plot, ref plotter.XYs, clr color.Color) error {
	segments := []plotter.XYs{ref}
	if !l.joined && l.x != nil {
		segments = nil
		for _, r := range ref {
			segments = append(segments, plotter.XYs{{X: r.X - 0.12, Y: r.Y}, {X: r.X + 0.12, Y: r.Y}})
		}
	}
	for _, seg := range segments {
		line, err := plotter.NewLine(seg)
		if err != nil {
			return err
		}
		line.LineStyle = dashed(clr)
		p.Add(line)
	}
	return nil
}

// slopeLine is the guide y = c·x^k over the points' x range, c putting
// it through their geometric mean (the least-squares fit of c on log–log
// axes), dotted in grey.
func (l *layout) slopeLine(k float64) (*plotter.Line, error) {
	if l.x != nil && !l.x.numeric {
		return nil, fmt.Errorf("slope: %s is not numeric, and a power law needs a numeric x", l.spec.X)
	}
	var sum float64
	var n int
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, s := range l.series {
		for _, m := range s.marks {
			if !(m.x > 0 && m.y > 0) {
				return nil, fmt.Errorf("slope: a power law needs x and y above 0, and %s = %s has a mean %s of %s", l.spec.X, num(m.x), l.spec.Y, num(m.y))
			}
			sum += math.Log(m.y) - k*math.Log(m.x)
			n++
			lo, hi = math.Min(lo, m.x), math.Max(hi, m.x)
		}
	}
	if n == 0 {
		return nil, fmt.Errorf("slope: no means to draw it through")
	}
	c := math.Exp(sum / float64(n))
	const steps = 64
	var xys plotter.XYs
	for i := range steps + 1 {
		x := lo * math.Pow(hi/lo, float64(i)/steps)
		xys = append(xys, plotter.XY{X: x, Y: c * math.Pow(x, k)})
	}
	line, err := plotter.NewLine(xys)
	if err != nil {
		return nil, err
	}
	line.LineStyle = draw.LineStyle{Color: color.Gray{Y: 90}, Width: vg.Points(1.2), Dashes: []vg.Length{vg.Points(1.5), vg.Points(2.5)}}
	return line, nil
}

// slopeText names a power law of x: "∝ 1/√samples", "∝ samples^-0.7".
func slopeText(k float64, x string) string {
	switch k {
	case -1:
		return "∝ 1/" + x
	case -0.5:
		return "∝ 1/√" + x
	case 0.5:
		return "∝ √" + x
	case 1:
		return "∝ " + x
	}
	return "∝ " + x + "^" + strconv.FormatFloat(k, 'g', 4, 64)
}

// axes sets both axes' ranges, scales and ticks from the marks (their
// bars, the reference means), keeping a log axis's bars above its
// minimum.
func (l *layout) axes(p *plot.Plot) {
	xlo, xhi := math.Inf(1), math.Inf(-1)
	ylo, yhi := math.Inf(1), math.Inf(-1)
	for _, s := range l.series {
		for _, m := range s.marks {
			xlo, xhi = math.Min(xlo, lower(m.x, m.dx, l.logX)), math.Max(xhi, m.x+m.dx)
			ylo, yhi = math.Min(ylo, lower(m.y, m.dy, l.logY)), math.Max(yhi, m.y+m.dy)
		}
		for _, r := range s.ref {
			ylo, yhi = math.Min(ylo, r.Y), math.Max(yhi, r.Y)
		}
	}
	if math.IsInf(ylo, 0) { // nothing to draw
		ylo, yhi, xlo, xhi = 0, 1, 0, 1
		l.logX, l.logY = false, false
	}
	xLength := plotW - axisAllowance
	switch {
	case l.x != nil && !l.x.numeric:
		nominalTicks(&p.X, l.x.values, xLength)
	default:
		if l.x != nil {
			xlo, xhi = minMax(l.x.numbers)
		}
		if l.logX {
			p.X.Scale = plot.LogScale{}
		}
		p.X.Min, p.X.Max = padded(xlo, xhi, l.logX)
		var swept *param
		if l.x != nil {
			swept = l.x
		}
		numericAxis(&p.X, l.logX, swept, xLength, true)
	}
	if l.logY {
		p.Y.Scale = plot.LogScale{}
	}
	p.Y.Min, p.Y.Max = padded(ylo, yhi, l.logY)
	numericAxis(&p.Y, l.logY, nil, plotH-axisAllowance, false)
	l.clampBars(p)
}

// lower is a mark's lowest point: its bar's end, or on a log axis the
// mark itself when the bar reaches 0 or below.
func lower(v, half float64, log bool) float64 {
	if log && v-half <= 0 {
		return v
	}
	return v - half
}

// clampBars keeps a log axis's error bars above its minimum (a bar
// reaching 0 or below would have no place on it).
func (l *layout) clampBars(p *plot.Plot) {
	for _, b := range l.yBars {
		for i := range b.YErrors {
			if l.logY && b.XYs[i].Y-b.YErrors[i].Low < p.Y.Min {
				b.YErrors[i].Low = b.XYs[i].Y - p.Y.Min
			}
		}
	}
	for _, b := range l.xBars {
		for i := range b.XErrors {
			if l.logX && b.XYs[i].X-b.XErrors[i].Low < p.X.Min {
				b.XErrors[i].Low = b.XYs[i].X - p.X.Min
			}
		}
	}
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

// renderBeside draws p at w × h and, when withLegend, its legend in a
// column to the right of it, outside the data.
func renderBeside(p *plot.Plot, leg plot.Legend, withLegend bool, w, h vg.Length) ([]byte, error) {
	var lw vg.Length
	pad, top := 0.4*vg.Centimeter, 1.6*vg.Centimeter
	full := h // a long legend makes the drawing taller, the plot staying on top
	if withLegend {
		r := leg.Rectangle(draw.Canvas{})
		lw = vg.Length(fontSlack)*(r.Max.X-r.Min.X) + 2*pad
		full = max(h, r.Max.Y-r.Min.Y+top+pad)
	}
	c := vgsvg.New(w+lw, full)
	dc := draw.New(c)
	p.Draw(draw.Crop(dc, 0, -lw, full-h, 0))
	if withLegend {
		leg.Top, leg.Left = true, true
		leg.Draw(draw.Crop(dc, w+pad, 0, 0, -top))
	}
	return svgBytes(c)
}
