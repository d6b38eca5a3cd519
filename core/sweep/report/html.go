package report

import (
	"bufio"
	"encoding/base64"
	"fmt"
	"html/template"
	"path/filepath"
	"strings"

	"github.com/proflab/proflab/core/sweep/results"
)

// HTMLName is the report page.
const HTMLName = "report.html"

var page = template.Must(template.New("report").Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>proflab sweep: {{.Name}}</title>
<style>
body { font-family: sans-serif; margin: 2em auto; max-width: 84em; padding: 0 1em; color: #222; }
table { border-collapse: collapse; margin: 0.6em 0 1em; }
th, td { border: 1px solid #bbb; padding: 0.2em 0.6em; text-align: right; }
th { background: #eee; }
td:first-child, th:first-child { text-align: left; }
.plots { display: flex; flex-wrap: wrap; gap: 1em; }
figure { margin: 0; display: table; max-width: 100%; }
figure img { max-width: 100%; height: auto; border: 1px solid #ddd; background: #fff; }
figcaption { display: table-caption; caption-side: bottom; font-size: 0.9em; padding-top: 0.2em; }
details { margin: 0.4em 0; }
summary { cursor: pointer; font-weight: bold; }
#glance td:nth-child(3), #glance td:nth-child(5), #glance th:nth-child(3), #glance th:nth-child(5) { text-align: left; }
.warn { background: #fff3cd; border: 1px solid #e0c060; padding: 0.4em 0.8em; }
</style>
</head>
<body>
<h1>Sweep {{.Name}}</h1>
<section id="summary">
<p>{{.Runs}} runs: {{.OK}} ok, {{.Failed}} failed, {{.Errors}} error.{{if .Fixed}} Fixed parameters: {{.Fixed}}.{{end}}</p>{{if .Unread}}
<p class="warn"><strong>Warning:</strong> {{.Unread}}</p>{{end}}{{if .Glance}}
<table id="glance">
<tr><th>metric</th><th>lowest mean</th><th>at</th><th>highest mean</th><th>at</th></tr>
{{range .Glance}}<tr><td>{{.Metric}}</td><td>{{.Low}}</td><td>{{.LowAt}}</td><td>{{.High}}</td><td>{{.HighAt}}</td></tr>
{{end}}</table>{{if .GlanceMore}}
<p>{{.GlanceMore}}</p>{{end}}{{end}}
<p>Files: {{range .Files}}<a href="{{.}}">{{.}}</a> {{end}}</p>
</section>
<h2>Plots</h2>
<p id="choosing">{{.Chosen}} To choose the plots, add <code>[[plot]]</code> tables to the sweep file (keys <code>x</code>, <code>y</code>, <code>group</code>, <code>log_x</code>, <code>log_y</code>, <code>reference</code>, <code>slope</code>, <code>title</code>, <code>subtitle</code>, <code>x_label</code>, <code>y_label</code>; names' labels in <code>[labels]</code>, units in <code>[units]</code>, formats in <code>[report]</code>: the README's Plots) and redraw them without running again: <code>proflab report OUT --sweep {{.SweepFile}}</code>, OUT being this folder.</p>{{range .Left}}
<p class="warn">{{.}}</p>{{end}}{{if .Figures}}
<div class="plots">
{{range .Figures}}<figure>{{if .Data}}<img alt="{{.Title}}" src="{{.Data}}">{{end}}<figcaption>{{range $i, $f := .Files}}{{if $i}} · {{end}}<a href="{{$f}}">{{$f}}</a>{{end}}{{if .Data}} {{.Caption}}{{else}}: {{.Title}} (not embedded){{end}}</figcaption></figure>
{{end}}</div>
{{end}}<h2>Tables</h2>
{{range .Tables}}<details>
<summary>{{.Title}} ({{len .Rows}} rows)</summary>
<table>
<tr>{{range .Header}}<th>{{.}}</th>{{end}}</tr>
{{range .Rows}}<tr>{{range .}}<td>{{.}}</td>{{end}}</tr>
{{end}}</table>
</details>
{{end}}</body>
</html>
`))

// The page's bounds: a sweep recording thousands of metrics still gets a
// page a browser opens; what is left out is said on it (and on the
// terminal), and summary.md and results.csv hold everything.
const (
	maxHTMLMetrics = 50 // metrics with a table
	maxGlance      = 12 // metrics with an "at a glance" row, above the plots
	maxEmbedded    = 40 // plots inlined; the others are linked
)

// writeHTML writes report.html: a summary (the outcomes, the lowest and
// highest mean of the first metrics), how the plots were chosen and what was left
// out, the plots with their captions, then the tables folded
// (<details>); the plots are inlined as data: URLs so the page stands
// alone (it also links the files beside it).
func writeHTML(d *data, figs []figure, c choice, left []string) error {
	type fig struct {
		Title, Caption string
		Files          []string // the figure's files, one per format
		Data           template.URL
	}
	type tab struct {
		Title  string
		Header []string
		Rows   [][]string
	}
	shown := d.metricsByRank()
	if len(shown) > maxHTMLMetrics {
		shown = shown[:maxHTMLMetrics]
	}
	ok, failed, errs := totals(d)
	v := struct {
		Name                     string
		Runs, OK, Failed, Errors int
		Fixed                    string
		Unread                   string
		Files                    []string
		Glance                   []glance
		Tables                   []tab
		Figures                  []fig
		GlanceMore               string
		Chosen, SweepFile        string
		Left                     []string
	}{Glance: atAGlance(d, shown[:min(len(shown), maxGlance)]), Name: d.sweep, Runs: d.runs, OK: ok, Failed: failed, Errors: errs, Fixed: strings.Join(fixed(d), ", "),
		Files: []string{results.FileName, CSVName, SummaryName}, Chosen: chosenText(d, c), SweepFile: d.sweep, Left: left}
	if v.Name == "" {
		v.Name = filepath.Base(d.dir)
	}
	if n := len(d.metric); n > maxGlance {
		v.GlanceMore = fmt.Sprintf("The first %d of %d metrics; the tables below have %d, %s has every one.", maxGlance, n, len(shown), SummaryName)
	}
	if v.SweepFile == "" {
		v.SweepFile = "FILE"
	}
	if len(d.unread) > 0 {
		v.Unread = unreadWarning(d.unread)
	}
	if err := eachTable(d, shown, func(t table) error {
		v.Tables = append(v.Tables, tab{t.title, t.header, t.rows})
		return nil
	}); err != nil {
		return err
	}
	for i, f := range figs {
		g := fig{Title: f.title, Caption: f.caption}
		for _, format := range d.formats {
			g.Files = append(g.Files, f.file(format))
		}
		if i < maxEmbedded {
			g.Data = template.URL("data:image/svg+xml;base64," + base64.StdEncoding.EncodeToString(f.svg))
		}
		v.Figures = append(v.Figures, g)
	}
	return writeFile(d.dir, HTMLName, func(b *bufio.Writer) error { return page.Execute(b, v) })
}

// chosenText says how the plots were chosen: by the sweep file, or as
// the report's defaults, with the metrics those left out as constant.
func chosenText(d *data, c choice) string {
	switch {
	case !c.defaults:
		return "The plots are those the sweep file's [[plot]] tables ask for, in their order, with a pass/fail matrix per varying non-numeric parameter."
	case c.x == "":
		return "No parameter varies, so there is nothing to plot a metric against."
	}
	s := fmt.Sprintf("The sweep file has no [[plot]], so these are the report's choice: each metric that varies over the sweep (at most %d: top-level names first, then by name) against %s, the swept parameter with the most values (a numeric one first), one series per combination of the other varying parameters; an axis is logarithmic when its values are above 0 and span a factor of %d or more.", maxDefaultPlots, c.x, logSpan)
	if len(c.constant) > 0 {
		s += " Not plotted, as they have one value over the whole sweep: " + listSome(c.constant, 10) + "."
	}
	return s
}

// listSome lists names, the first n of them and how many more.
func listSome(names []string, n int) string {
	if len(names) <= n {
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(names[:n], ", "), len(names)-n)
}

// leftOut says what the reports left out to stay bounded, a sentence
// each, for report.html and the terminal.
func leftOut(d *data, figs []figure, c choice) []string {
	var out []string
	if len(c.omitted) > 0 {
		out = append(out, fmt.Sprintf("%d metrics are not plotted (without [[plot]] a sweep gets at most %d plots): %s; choose plots with [[plot]].",
			len(c.omitted), maxDefaultPlots, listSome(c.omitted, 5)))
	}
	if n := len(d.metric); n > maxHTMLMetrics {
		out = append(out, fmt.Sprintf("report.html shows the tables of %d of the %d metrics (top-level names first, then by name); %s and %s hold every one.",
			maxHTMLMetrics, n, SummaryName, CSVName))
	}
	if len(figs) > maxEmbedded {
		out = append(out, fmt.Sprintf("report.html embeds %d of the %d plots; the others are linked, in %s/.", maxEmbedded, len(figs), PlotsDir))
	}
	return out
}

// glance is a metric's range over the grid points.
type glance struct{ Metric, Low, LowAt, High, HighAt string }

// atAGlance gives each of metrics' lowest and highest mean over the
// grid points, and where they are.
func atAGlance(d *data, metrics []string) []glance {
	var out []glance
	vary := d.varying()
	for _, m := range metrics {
		var lo, hi *point
		var loV, hiV float64
		for _, pt := range d.points {
			s := pt.stats(m)
			if s.n == 0 {
				continue
			}
			if lo == nil || s.mean < loV {
				lo, loV = pt, s.mean
			}
			if hi == nil || s.mean > hiV {
				hi, hiV = pt, s.mean
			}
		}
		if lo != nil {
			out = append(out, glance{m, num(loV), label(lo, vary), num(hiV), label(hi, vary)})
		}
	}
	return out
}
