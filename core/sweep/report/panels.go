package report

import (
	"fmt"
	"math"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
)

// panelW is the width of each panel of a figure with more than one.
const panelW = 11 * vg.Centimeter

// panel is one plot of a figure: the points in one unit on each axis.
type panel struct {
	layout         *layout
	title          string // "" for a figure of one panel
	xLabel, yLabel string
	plot           *plot.Plot
}

// panelData is a panel's part of the sweep's data, and its titles.
type panelData struct {
	data                  *data
	title, xLabel, yLabel string
}

// panels splits d's points by the units they have on spec's axes
// ([units] NAME by = "parameter"): one panel per pair of units, in run
// order, so that no axis holds two units. A plot whose axes have one
// unit each is one panel of all points.
func (d *data) panels(spec PlotSpec) []panelData {
	type part struct {
		ux, uy string
		pts    []*point
		by     []string // the values of the by parameters its points have
	}
	var parts []*part
	index := map[string]*part{}
	for _, pt := range d.points {
		ux, uy := d.unitAt(spec.X, pt), d.unitAt(spec.Y, pt)
		key := ux + "\x00" + uy
		p := index[key]
		if p == nil {
			p = &part{ux: ux, uy: uy}
			index[key] = p
			parts = append(parts, p)
		}
		p.pts = append(p.pts, pt)
		for _, name := range []string{spec.X, spec.Y} {
			if u, ok := d.units[name]; ok && u.By != "" {
				if v := d.nameLabel(u.By) + " = " + pt.params[u.By]; !contains(p.by, v) {
					p.by = append(p.by, v)
				}
			}
		}
	}
	axis := func(label, name, unit string) string {
		switch {
		case label != "":
			return label
		case unit != "":
			return d.nameLabel(name) + " (" + unit + ")"
		}
		return d.nameLabel(name)
	}
	if len(parts) <= 1 {
		return []panelData{{data: d, xLabel: axis(spec.XLabel, spec.X, d.unitOf(spec.X)), yLabel: axis(spec.YLabel, spec.Y, d.unitOf(spec.Y))}}
	}
	var out []panelData
	for _, p := range parts {
		out = append(out, panelData{data: d.subset(p.pts), title: strings.Join(p.by, ", "),
			xLabel: axis(spec.XLabel, spec.X, p.ux), yLabel: axis(spec.YLabel, spec.Y, p.uy)})
	}
	return out
}

// subset is d with only the points pts, its parameters' values those
// the points have (in their first-seen order).
func (d *data) subset(pts []*point) *data {
	sub := *d
	sub.points = pts
	sub.params = nil
	for _, p := range d.params {
		q := param{name: p.name, numeric: p.numeric}
		for i, v := range p.values {
			for _, pt := range pts {
				if pt.params[p.name] == v {
					q.values = append(q.values, v)
					q.numbers = append(q.numbers, p.numbers[i])
					break
				}
			}
		}
		sub.params = append(sub.params, q)
	}
	return &sub
}

// sharedY gives panels whose y axes are in one unit one y range, the
// union of theirs, so that their heights compare.
func sharedY(ps []*panel) {
	if len(ps) < 2 {
		return
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, pn := range ps {
		if pn.yLabel != ps[0].yLabel || pn.layout.logY != ps[0].layout.logY {
			return
		}
		lo, hi = math.Min(lo, pn.plot.Y.Min), math.Max(hi, pn.plot.Y.Max)
	}
	for _, pn := range ps {
		pn.plot.Y.Min, pn.plot.Y.Max = lo, hi
		numericAxis(&pn.plot.Y, pn.layout.logY, nil, plotH-axisAllowance, false)
		pn.layout.clampBars(pn.plot)
	}
}

// panelsCaption says why the figure has panels.
func panelsCaption(d *data, spec PlotSpec, ps []*panel) string {
	var titles []string
	for _, pn := range ps {
		titles = append(titles, pn.title)
	}
	return fmt.Sprintf("One panel per unit (%s): the sweep file's [units] gives %s a unit per value of a parameter, and two units never share an axis.",
		strings.Join(titles, "; "), d.nameLabel(unitName(d, spec)))
}

// unitName is the axis's name whose unit is given per value.
func unitName(d *data, spec PlotSpec) string {
	if u, ok := d.units[spec.X]; ok && u.By != "" {
		return spec.X
	}
	return spec.Y
}

// labelsOf are the parameters' labels, joined: the legend's header.
func (d *data) labelsOf(ps []param) string {
	var out []string
	for _, p := range ps {
		out = append(out, d.nameLabel(p.name))
	}
	return strings.Join(out, ", ")
}
