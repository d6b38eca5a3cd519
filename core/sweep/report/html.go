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
<title>proflab sweep: {{.Name}}</title>
<style>
body { font-family: sans-serif; margin: 2em auto; max-width: 72em; color: #222; }
table { border-collapse: collapse; margin: 1em 0; }
th, td { border: 1px solid #bbb; padding: 0.2em 0.6em; text-align: right; }
th { background: #eee; }
td:first-child, th:first-child { text-align: left; }
figure { display: inline-block; margin: 1em; }
figure img { max-width: 100%; border: 1px solid #ddd; }
</style>
</head>
<body>
<h1>Sweep {{.Name}}</h1>
<p>{{.Runs}} runs: {{.OK}} ok, {{.Failed}} failed, {{.Errors}} error.{{if .Fixed}} Fixed parameters: {{.Fixed}}.{{end}}</p>{{if .Unread}}
<p><strong>Warning:</strong> {{.Unread}}</p>{{end}}
<p>Files: {{range .Files}}<a href="{{.}}">{{.}}</a> {{end}}</p>
{{range .Tables}}
<h2>{{.Title}}</h2>
<table>
<tr>{{range .Header}}<th>{{.}}</th>{{end}}</tr>
{{range .Rows}}<tr>{{range .}}<td>{{.}}</td>{{end}}</tr>
{{end}}</table>
{{end}}
{{if .Figures}}<h2>Plots</h2>{{end}}
{{range .Figures}}<figure><img alt="{{.Title}}" src="{{.Data}}"><figcaption><a href="{{.File}}">{{.File}}</a></figcaption></figure>
{{end}}
</body>
</html>
`))

// writeHTML writes report.html: the summary tables and the plots, the
// plots inlined as data: URLs so the page stands alone (it also links
// the files beside it).
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
		Tables                   []tab
		Figures                  []fig
	}{Name: d.sweep, Runs: d.runs, OK: ok, Failed: failed, Errors: errs, Fixed: strings.Join(fixed(d), ", "),
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
