package report

import (
	"fmt"
	"image/color"
	"math"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

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
	clr := plotutil.Color(i) // i: the series' colour, one per label across a figure's panels
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

// slopeText names a power law of x through a constant c:
// "c/√samples", "c·samples^-0.7". (Not "∝": Liberation Sans, which the
// PNG and PDF figures are set in, has no such glyph.)
func slopeText(k float64, x string) string {
	switch k {
	case -1:
		return "c/" + x
	case -0.5:
		return "c/√" + x
	case 0.5:
		return "c·√" + x
	case 1:
		return "c·" + x
	}
	return "c·" + x + "^" + strconv.FormatFloat(k, 'g', 4, 64)
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
	xLength := l.width - axisAllowance
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
