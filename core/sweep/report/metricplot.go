package report

import (
	"fmt"
	"image/color"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
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
	width    vg.Length // the drawing's width, without the legend
}

// metricPlot draws spec.Y against spec.X: the mean of each grid point
// (pooled over the varying parameters that are neither x nor the
// group's) with the 95% confidence interval of that mean as its bar, one
// series per value of the group parameters. A numeric parameter on x
// joins a series' means by a line; a categorical one (source, version:
// any parameter with a non-number value) draws them as points side by
// side, never joined; a metric on x draws each grid point at its mean
// of both metrics, with bars both ways, not joined (x is measured, not
// chosen). spec.Reference and spec.Slope add reference lines. Points in
// more than one unit on an axis ([units] by) are drawn as panels side
// by side, one per unit (panels), with one legend.
func metricPlot(d *data, spec PlotSpec) (figure, error) {
	var ps []*panel
	colour := map[string]int{}
	for _, sub := range d.panels(spec) {
		l, err := sub.data.lay(d, spec)
		if err != nil {
			return figure{}, err
		}
		for _, s := range l.series {
			if _, ok := colour[s.label]; !ok {
				colour[s.label] = len(colour)
			}
		}
		ps = append(ps, &panel{layout: l, title: sub.title, xLabel: sub.xLabel, yLabel: sub.yLabel})
	}
	title := spec.Title
	if title == "" {
		title = fmt.Sprintf("%s against %s", d.nameLabel(spec.Y), d.nameLabel(spec.X))
	}
	subtitle := spec.Subtitle
	if spec.StatsSubtitle {
		subtitle = ps[0].layout.statLine()
	}
	leg := newLegend()
	l0 := ps[0].layout
	withLegend := len(l0.groups) > 0 || spec.Reference != "" || spec.Slope != nil
	if len(l0.groups) > 0 {
		leg.Add(d.labelsOf(l0.groups))
	}
	listed := map[string]bool{}
	w := plotW
	if len(ps) > 1 {
		w = panelW
	}
	for _, pn := range ps {
		l := pn.layout
		l.width = w
		p := newPlot()
		p.Title.Text = pn.title
		p.Title.TextStyle.Font.Size = subtitleSize
		p.X.Label.Text, p.Y.Label.Text = pn.xLabel, pn.yLabel
		for _, s := range l.series {
			thumbs, err := l.addSeries(p, s, colour[s.label])
			if err != nil {
				return figure{}, err
			}
			if listed[s.label] {
				continue
			}
			listed[s.label] = true
			switch {
			case len(l.groups) > 0:
				text := s.label
				if s.overlaps != "" {
					text += " (overlaps " + s.overlaps + ")"
				}
				leg.Add(text, thumbs...)
			case withLegend:
				leg.Add(d.nameLabel(spec.Y), thumbs...)
			}
		}
		if spec.Slope != nil {
			guide, err := l.slopeLine(*spec.Slope)
			if err != nil {
				return figure{}, err
			}
			p.Add(guide)
			if !listed["\x00slope"] {
				listed["\x00slope"] = true
				leg.Add(slopeText(*spec.Slope, d.nameLabel(spec.X)), guide)
			}
		}
		l.axes(p)
		p.Add(plotter.NewGrid())
		pn.plot = p
	}
	if spec.Reference != "" {
		style := dashed(color.Black)
		if len(colour) == 1 {
			style.Color = plotutil.Color(0)
		}
		leg.Add(d.nameLabel(spec.Reference)+" (dashed)", &plotter.Line{LineStyle: style})
	}
	sharedY(ps)
	name := fmt.Sprintf("%s/%s-vs-%s", PlotsDir, fileName(spec.Y), fileName(spec.X))
	if spec.Group != "" {
		name = fmt.Sprintf("%s/%s-vs-%s-by-%s", PlotsDir, fileName(spec.Y), fileName(spec.X), fileName(spec.Group))
	}
	caption := l0.caption(d)
	if len(ps) > 1 {
		caption += " " + panelsCaption(d, spec, ps)
	}
	return besideLegend(title, subtitle, caption, name, ps, leg, withLegend, w*vg.Length(len(ps)), plotH)
}

// lay computes what a plot draws: its series and their marks, and its
// axes' scales.
// The series are those of whole, the sweep's data, of which d may be a
// panel's part.
func (d *data) lay(whole *data, spec PlotSpec) (*layout, error) {
	l := &layout{spec: spec, x: d.param(spec.X), width: plotW}
	if l.x != nil {
		l.groups, l.pooled = whole.roles(spec)
		l.series = paramSeries(d, spec, *l.x, l.groups)
		l.joined = l.x.numeric
	} else {
		l.groups = whole.metricGroups(spec)
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

// caption says in words what the plot draws, for report.html: the
// statistics line in full, so that the figure's title need not say it.
func (l *layout) caption(d *data) string {
	var b strings.Builder
	if l.x == nil {
		fmt.Fprintf(&b, "Each point is a grid point at its mean %s and mean %s over its repeats", d.nameLabel(l.spec.X), d.nameLabel(l.spec.Y))
	} else {
		b.WriteString("Each point is the mean over the repeats")
		if len(l.pooled) > 0 {
			b.WriteString(" and " + d.labelsOf(l.pooled))
		}
	}
	b.WriteString("; its bars are the 95% confidence interval of the mean (Student's t with n−1 degrees of freedom), as in summary.md; a mean of one run has no bar.")
	if l.spec.Reference != "" {
		fmt.Fprintf(&b, " Dashed: the mean %s.", d.nameLabel(l.spec.Reference))
	}
	if l.spec.Slope != nil {
		fmt.Fprintf(&b, " Dotted: %s, through the geometric mean of the points.", slopeText(*l.spec.Slope, d.nameLabel(l.spec.X)))
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

// besideLegend is the figure of the panels side by side, each w/len
// wide and h high under the heading, with the legend, when withLegend,
// in a column to the right of them, outside the data.
func besideLegend(title, subtitle, caption, base string, ps []*panel, leg plot.Legend, withLegend bool, w, h vg.Length) (figure, error) {
	var lw vg.Length
	pad, top := 0.4*vg.Centimeter, 1.6*vg.Centimeter
	full := h // a long legend makes the drawing taller, the plot staying on top
	if withLegend {
		r := leg.Rectangle(draw.Canvas{})
		lw = vg.Length(fontSlack)*(r.Max.X-r.Min.X) + 2*pad
		full = max(h, r.Max.Y-r.Min.Y+top+pad)
	}
	return newFigure(title, caption, base, w+lw, full, func(dc draw.Canvas) {
		area := heading(draw.Crop(dc, 0, -lw, full-h, 0), title, subtitle)
		tiles := draw.Tiles{Cols: len(ps), Rows: 1, PadX: 0.3 * vg.Centimeter}
		for i, pn := range ps {
			drawPlot(tiles.At(area, i, 0), pn.plot)
		}
		if withLegend {
			leg.Top, leg.Left = true, true
			leg.Draw(draw.Crop(dc, w+pad, 0, 0, -top))
		}
	})
}
