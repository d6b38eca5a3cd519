package report

import (
	"fmt"
	"math"
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

// curve is one series of a metric plot: its legend label and its
// statistics per x value (pooled over the parameters the plot neither
// draws nor groups by).
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

// metricPlot draws spec.Y against spec.X: the mean over the runs of
// each point with a ±1 stddev bar, one series per value of the group
// parameters. A numeric x joins a series' means by a line; a categorical
// one (source, version: any parameter with a non-number value) draws
// them as points side by side, never joined.
func metricPlot(d *data, spec PlotSpec) (figure, error) {
	x := d.param(spec.X)
	if x == nil {
		return figure{}, fmt.Errorf("no parameter %q in the results", spec.X)
	}
	groups, pooled := d.roles(spec)
	cs := curves(d, spec.Y, *x, groups)
	p := newPlot()
	p.Title.Text = spec.Title
	if p.Title.Text == "" {
		p.Title.Text = fmt.Sprintf("%s against %s", spec.Y, spec.X)
	}
	stat := "mean ± 1 stddev over the repeats"
	if len(pooled) > 0 {
		stat += " and " + names(pooled)
	}
	p.Title.Text += "\n" + stat
	p.X.Label.Text = d.axisLabel(spec.X)
	p.Y.Label.Text = d.axisLabel(spec.Y)
	logX := x.numeric && logAxis(x.numbers)
	if spec.LogX != nil {
		logX = *spec.LogX
	}
	if logX && (!x.numeric || !positive(x.numbers)) {
		return figure{}, fmt.Errorf("log_x: %s has values that are not numbers above 0", x.name)
	}
	leg := newLegend()
	if len(groups) > 0 {
		leg.Add(names(groups))
	}
	var bars []*plotter.YErrorBars
	for i, c := range cs {
		ep := errPoints{}
		for j, v := range x.values {
			m := c.cells[v]
			if m == nil {
				continue
			}
			s := m.stats()
			pos := xOf(*x, v)
			if !x.numeric {
				pos = float64(j) + dodge(i, len(cs))
			}
			ep.XYs = append(ep.XYs, plotter.XY{X: pos, Y: s.mean})
			ep.YErrors = append(ep.YErrors, struct{ Low, High float64 }{s.stddev, s.stddev})
		}
		sortByX(&ep)
		thumbs, b, err := addSeries(p, ep, i, x.numeric)
		if err != nil {
			return figure{}, err
		}
		bars = append(bars, b)
		if len(groups) > 0 {
			leg.Add(c.label, thumbs...)
		}
	}
	if err := d.layoutAxes(p, *x, logX, spec.LogY, cs, spec.Y, bars); err != nil {
		return figure{}, err
	}
	p.Add(plotter.NewGrid())
	name := fmt.Sprintf("%s/%s-vs-%s.svg", PlotsDir, fileName(spec.Y), fileName(spec.X))
	if spec.Group != "" {
		name = fmt.Sprintf("%s/%s-vs-%s-by-%s.svg", PlotsDir, fileName(spec.Y), fileName(spec.X), fileName(spec.Group))
	}
	svg, err := renderBeside(p, leg, len(groups) > 0, plotW, plotH)
	return figure{title: strings.ReplaceAll(p.Title.Text, "\n", ": "), file: name, svg: svg}, err
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

// dodge spreads k series around a category's position so that their
// points and bars stand side by side.
func dodge(i, k int) float64 {
	if k < 2 {
		return 0
	}
	w := math.Min(0.6, 0.15*float64(k))
	return -w/2 + w*float64(i)/float64(k-1)
}

// addSeries adds a series' points with their error bars, joined by a
// line on a numeric axis, and returns its legend thumbnails.
func addSeries(p *plot.Plot, ep errPoints, i int, joined bool) ([]plot.Thumbnailer, *plotter.YErrorBars, error) {
	if len(ep.XYs) == 0 {
		return nil, nil, nil
	}
	points, err := plotter.NewScatter(ep.XYs)
	if err != nil {
		return nil, nil, err
	}
	points.Color, points.Shape = plotutil.Color(i), plotutil.Shape(i)
	points.Radius = vg.Points(3)
	bars, err := plotter.NewYErrorBars(ep)
	if err != nil {
		return nil, nil, err
	}
	bars.Color = plotutil.Color(i)
	if !joined {
		p.Add(bars, points)
		return []plot.Thumbnailer{points}, bars, nil
	}
	line, err := plotter.NewLine(ep.XYs)
	if err != nil {
		return nil, nil, err
	}
	line.Color = plotutil.Color(i)
	p.Add(line, bars, points)
	return []plot.Thumbnailer{line, points}, bars, nil
}

// layoutAxes sets the x axis (log or linear, labels at the swept values
// and the decades, never overlapping; or the categories) and the y axis.
func (d *data) layoutAxes(p *plot.Plot, x param, logX, logY bool, cs []*curve, metric string, bars []*plotter.YErrorBars) error {
	length := plotW - axisAllowance
	if !x.numeric {
		nominalTicks(&p.X, x.values, length)
	} else {
		lo, hi := minMax(x.numbers)
		if logX {
			p.X.Scale = plot.LogScale{}
		}
		p.X.Min, p.X.Max = padded(lo, hi, logX)
		cands, minor := numberTicks(x, p.X.Min, p.X.Max, logX)
		ticks, turn := placeTicks(cands, len(x.numbers), p.X.Min, p.X.Max, logX, length, p.X.Tick.Label)
		setTicks(&p.X, append(ticks, minor...), turn)
	}
	if !logY {
		if p.Y.Min <= p.Y.Max { // some data: keep the bars' caps off the frame
			p.Y.Min, p.Y.Max = padded(p.Y.Min, p.Y.Max, false)
		}
		return nil
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, c := range cs {
		for _, m := range c.cells {
			s := m.stats()
			if s.mean <= 0 {
				return fmt.Errorf("log_y: %s has a mean of %s, and a log axis holds only values above 0", metric, num(s.mean))
			}
			lo, hi = math.Min(lo, s.mean), math.Max(hi, s.mean+s.stddev)
			if s.mean-s.stddev > 0 {
				lo = math.Min(lo, s.mean-s.stddev)
			}
		}
	}
	if math.IsInf(lo, 0) {
		return nil
	}
	p.Y.Scale = plot.LogScale{}
	p.Y.Min, p.Y.Max = padded(lo, hi, true)
	y := param{name: metric, numeric: true}
	cands, minor := numberTicks(y, p.Y.Min, p.Y.Max, true)
	ticks, _ := placeTicks(cands, 0, p.Y.Min, p.Y.Max, true, plotH-axisAllowance, p.Y.Tick.Label)
	p.Y.Tick.Marker = plot.ConstantTicks(append(ticks, minor...))
	for _, b := range bars {
		if b != nil {
			clampBars(b, p.Y.Min)
		}
	}
	return nil
}

// clampBars keeps a log axis's error bars above its minimum.
func clampBars(b *plotter.YErrorBars, floor float64) {
	for i := range b.YErrors {
		if b.XYs[i].Y-b.YErrors[i].Low < floor {
			b.YErrors[i].Low = b.XYs[i].Y - floor
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
