package report

import (
	"errors"
	"fmt"
	"image/color"
	"math"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/proflab/proflab/core/input"
)

// PlotsDir is the folder of the plots.
const PlotsDir = "plots"

// writePlots draws the plots the sweep file's [[plot]] tables ask for,
// or else the defaults (plotSpecs), and for each varying non-numeric
// parameter a pass/fail matrix of the runs' outcomes. It returns the
// figures, the choice they were drawn from, and why each plot that
// could not be drawn (a log axis or a slope over a mean of 0) was not,
// at its sweep file line; the others are drawn all the same.
func writePlots(d *data) ([]figure, choice, []string, error) {
	var figs []figure
	var bad []string
	c := d.plotSpecs()
	for _, spec := range c.specs {
		fig, err := metricPlot(d, spec)
		if err != nil {
			where := ""
			if spec.Line > 0 {
				where = fmt.Sprintf("%s:%d: ", d.sweepPath, spec.Line)
			}
			bad = append(bad, fmt.Sprintf("%s[[plot]] %s against %s: %v", where, spec.Y, spec.X, err))
			continue
		}
		figs = append(figs, fig)
	}
	vary := d.varying()
	for _, x := range vary {
		if x.numeric {
			continue
		}
		fig, err := statusMatrix(d, x, others(vary, x))
		if err != nil {
			return nil, c, nil, fmt.Errorf("pass/fail matrix of %s: %w", x.name, err)
		}
		figs = append(figs, fig)
	}
	if err := replacePlots(d.dir, figs, d.formats); err != nil {
		return nil, c, nil, err
	}
	return figs, c, bad, nil
}

// plotList is the file in the plots folder that lists the plots the
// report wrote, so that the next report removes exactly those it no
// longer draws and nothing else of the folder.
const plotList = ".proflab-plots"

// plotListKind bounds the read of plots/.list, the report's own list of
// the plots it wrote: a regular file of at most 1 MiB (a FIFO or a link to
// a device put there is not read, so the report cannot hang on it).
var plotListKind = input.Kind{Name: "plot list", Limit: 1 << 20}

// replacePlots writes figs into the plots folder in each of formats and
// removes the plots an earlier report wrote that it no longer writes
// (another plot, or another format); it touches no other file.
func replacePlots(dir string, figs []figure, formats []string) error {
	plots := filepath.Join(dir, PlotsDir)
	list := filepath.Join(plots, plotList)
	var names []string
	for _, f := range figs {
		for _, format := range formats {
			names = append(names, path.Base(f.file(format)))
		}
	}
	if old, err := input.ReadFile(plotListKind, list); err == nil {
		for _, name := range strings.Split(string(old), "\n") {
			if name != "" && !strings.ContainsAny(name, `/\`) && !slices.Contains(names, name) {
				if err := os.Remove(filepath.Join(plots, name)); err != nil && !errors.Is(err, os.ErrNotExist) {
					return err
				}
			}
		}
	}
	if len(figs) == 0 {
		if err := os.Remove(list); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
		_ = os.Remove(plots) // only if the report's plots were all it held
		return nil
	}
	if err := os.MkdirAll(plots, 0o755); err != nil {
		return err
	}
	for _, f := range figs {
		for _, format := range formats {
			b := f.svg
			if format != FormatSVG {
				var err error
				if b, err = f.encode(format); err != nil {
					return fmt.Errorf("%s: %w", f.file(format), err)
				}
			}
			if err := os.WriteFile(filepath.Join(dir, filepath.FromSlash(f.file(format))), b, 0o644); err != nil {
				return err
			}
		}
	}
	return os.WriteFile(list, []byte(strings.Join(names, "\n")+"\n"), 0o644)
}

func others(ps []param, x param) []param {
	var out []param
	for _, p := range ps {
		if p.name != x.name {
			out = append(out, p)
		}
	}
	return out
}

// xOf places a parameter value on the x axis: its number, or its position
// among the values for a nominal axis.
func xOf(x param, v string) float64 {
	for i, t := range x.values {
		if t == v {
			if x.numeric {
				return x.numbers[i]
			}
			return float64(i)
		}
	}
	return math.NaN()
}

// columns groups points by their values of the other parameters, in
// run order: the status matrix's columns.
func columns(d *data, rest []param) (labels []string, groups [][]*point) {
	index := map[string]int{}
	for _, pt := range d.points {
		l := label(pt, rest)
		i, ok := index[l]
		if !ok {
			i = len(labels)
			index[l] = i
			labels = append(labels, l)
			groups = append(groups, nil)
		}
		groups[i] = append(groups[i], pt)
	}
	return labels, groups
}

// errPoints are means with their error bars, for gonum's error bar
// plotters.
type errPoints struct {
	plotter.XYs
	plotter.YErrors
	plotter.XErrors
}

// matrix is a plotter drawing one coloured cell per (column, row): the
// share of ok runs, green for all, red for none, with "ok/n" written in.
type matrix struct {
	cells [][]struct{ ok, n int } // [row][col]
}

var _ plot.Plotter = (*matrix)(nil)

// Plot implements plot.Plotter.
func (m *matrix) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	sty := draw.TextStyle{Color: color.Black, Font: p.X.Tick.Label.Font, Handler: p.TextHandler, XAlign: draw.XCenter, YAlign: draw.YCenter}
	for r, row := range m.cells {
		for col, cell := range row {
			if cell.n == 0 {
				continue
			}
			x0, x1 := trX(float64(col)-0.45), trX(float64(col)+0.45)
			y0, y1 := trY(float64(r)-0.45), trY(float64(r)+0.45)
			share := float64(cell.ok) / float64(cell.n)
			clr := color.RGBA{R: uint8(220 * (1 - share)), G: uint8(60 + 140*share), B: 70, A: 255}
			c.FillPolygon(clr, []vg.Point{{X: x0, Y: y0}, {X: x1, Y: y0}, {X: x1, Y: y1}, {X: x0, Y: y1}})
			text := fmt.Sprintf("%d/%d", cell.ok, cell.n)
			if vg.Length(fontSlack)*sty.Width(text) < x1-x0 && sty.Height(text) < y1-y0 {
				c.FillText(sty, vg.Point{X: (x0 + x1) / 2, Y: (y0 + y1) / 2}, text) // only where it fits
			}
		}
	}
}

// statusMatrix draws the pass/fail matrix of x: a row per value of x, a
// column per combination of the other varying parameters.
func statusMatrix(d *data, x param, rest []param) (figure, error) {
	labels, groups := columns(d, rest)
	m := &matrix{cells: make([][]struct{ ok, n int }, len(x.values))}
	for r := range m.cells {
		m.cells[r] = make([]struct{ ok, n int }, len(labels))
	}
	for col, g := range groups {
		for _, pt := range g {
			r := int(xOf(x, pt.params[x.name]))
			m.cells[r][col].ok += pt.ok
			m.cells[r][col].n += pt.n
		}
	}
	p := newPlot()
	title := fmt.Sprintf("Runs ok per %s", d.nameLabel(x.name))
	p.Y.Label.Text = d.axisLabel(x.name)
	var colNames []string
	for _, r := range rest {
		colNames = append(colNames, d.axisLabel(r.name))
	}
	p.X.Label.Text = strings.Join(colNames, ", ")
	p.NominalY(x.values...)
	p.Y.Min, p.Y.Max = -0.5, float64(len(x.values))-0.5
	p.Add(m)
	// a column per combination, 2.5 cm each up to 40 cm: past it the
	// columns narrow, their labels thin out and the counts give way to
	// the colours
	w := vg.Length(math.Min(40, math.Max(12, 3+2.5*float64(len(labels))))) * vg.Centimeter
	h := vg.Length(math.Min(40, math.Max(6, 3+1.0*float64(len(x.values))))) * vg.Centimeter
	short := make([]string, len(groups)) // the axis label names the parameters
	for i, g := range groups {
		short[i] = valuesLabel(g[0], rest)
	}
	if len(rest) == 0 {
		short = labels
	}
	nominalTicks(&p.X, short, w-axisAllowance)
	thinRows(&p.Y, x.values, h-axisAllowance)
	caption := fmt.Sprintf("Each cell: of the runs of one %s (row) and one combination of %s (column), those that ended ok; green all, red none.", x.name, names(rest))
	if len(rest) == 0 {
		caption = fmt.Sprintf("Each cell: of the runs of one %s, those that ended ok; green all, red none.", x.name)
	}
	return newFigure(title, caption, fmt.Sprintf("%s/status-by-%s", PlotsDir, fileName(x.name)), w, h, func(c draw.Canvas) {
		drawPlot(heading(c, title, ""), p)
	})
}

// thinRows labels the rows 0…n−1 of a nominal y axis, every k-th one
// when they would overlap.
func thinRows(a *plot.Axis, names []string, length vg.Length) {
	slot := float64(length) / float64(max(1, len(names)))
	every := max(1, int(math.Ceil((fontSlack*float64(a.Tick.Label.Height("0"))+labelGap)/slot)))
	a.Tick.Marker = plot.ConstantTicks(everyKth(names, every))
}

var unsafeName = regexp.MustCompile(`[^A-Za-z0-9_.-]+`)

// fileName makes a metric or parameter name safe in a file name.
func fileName(s string) string {
	s = unsafeName.ReplaceAllString(s, "_")
	if s == "" || s == "." || s == ".." {
		return "_" + strconv.Itoa(len(s))
	}
	return strings.Trim(s, ".")
}
