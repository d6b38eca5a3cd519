package report

import (
	"encoding/base64"
	"html/template"
	"os"
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
figure { margin: 0; max-width: 100%; }
figure img { max-width: 100%; height: auto; border: 1px solid #ddd; background: #fff; }
figcaption { font-size: 0.9em; }
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
{{end}}</table>{{end}}
<p>Files: {{range .Files}}<a href="{{.}}">{{.}}</a> {{end}}</p>
</section>
{{if .Figures}}<h2>Plots</h2>
<div class="plots">
{{range .Figures}}<figure><img alt="{{.Title}}" src="{{.Data}}"><figcaption><a href="{{.File}}">{{.File}}</a></figcaption></figure>
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

// writeHTML writes report.html: a summary (the outcomes, each metric's
// lowest and highest mean), the plots, then the tables folded
// (<details>); the plots are inlined as data: URLs so the page stands
// alone (it also links the files beside it).
func writeHTML(d *data, figs []figure) error {
	type fig struct {
		Title, File string
		Data        template.URL
	}
	type tab struct {
		Title  string
		Header []string
		Rows   [][]string
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
	}{Glance: atAGlance(d), Name: d.sweep, Runs: d.runs, OK: ok, Failed: failed, Errors: errs, Fixed: strings.Join(fixed(d), ", "),
		Files: []string{results.FileName, CSVName, SummaryName}}
	if v.Name == "" {
		v.Name = filepath.Base(d.dir)
	}
	if len(d.unread) > 0 {
		v.Unread = unreadWarning(d.unread)
	}
	for _, t := range tables(d) {
		v.Tables = append(v.Tables, tab{t.title, t.header, t.rows})
	}
	for _, f := range figs {
		v.Figures = append(v.Figures, fig{Title: f.title, File: f.file,
			Data: template.URL("data:image/svg+xml;base64," + base64.StdEncoding.EncodeToString(f.svg))})
	}
	var b strings.Builder
	if err := page.Execute(&b, v); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(d.dir, HTMLName), []byte(b.String()), 0o644)
}

// glance is a metric's range over the grid points.
type glance struct{ Metric, Low, LowAt, High, HighAt string }

// atAGlance gives each numeric metric's lowest and highest mean over the
// grid points, and where they are.
func atAGlance(d *data) []glance {
	var out []glance
	vary := d.varying()
	for _, m := range d.metric {
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
