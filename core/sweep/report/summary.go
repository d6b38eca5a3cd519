package report

import (
	"bufio"
	"fmt"
	"strconv"
	"strings"
)

// SummaryName is the Markdown summary.
const SummaryName = "summary.md"

// table is a table for summary.md and report.html.
type table struct {
	title  string
	header []string
	rows   [][]string
}

// eachTable calls fn with the summary's tables one at a time, so that
// no more than one is in memory: the outcomes per grid point, then one
// per metric of metrics with its statistics over the repeats.
func eachTable(d *data, metrics []string, fn func(table) error) error {
	vary := d.varying()
	head := func(extra ...string) []string {
		var h []string
		for _, p := range vary {
			h = append(h, p.name)
		}
		if len(vary) == 0 {
			h = append(h, "point")
		}
		return append(h, extra...)
	}
	keys := func(pt *point) []string {
		var r []string
		for _, p := range vary {
			r = append(r, pt.params[p.name])
		}
		if len(vary) == 0 {
			r = append(r, "all runs")
		}
		return r
	}
	runs := table{title: "Runs per grid point", header: head("n", "ok", "failed", "error")}
	for _, pt := range d.points {
		runs.rows = append(runs.rows, append(keys(pt), strconv.Itoa(pt.n), strconv.Itoa(pt.ok), strconv.Itoa(pt.failed), strconv.Itoa(pt.errors)))
	}
	if err := fn(runs); err != nil {
		return err
	}
	for _, m := range metrics {
		t := table{title: "Metric " + m, header: head("n", "mean", "95% CI", "stddev", "min", "max", "failures")}
		for _, pt := range d.points {
			s := pt.stats(m)
			row := keys(pt)
			if s.n == 0 {
				row = append(row, "0", "", "", "", "", "")
			} else {
				row = append(row, strconv.Itoa(s.n), num(s.mean), s.ci(), num(s.stddev), num(s.minV), num(s.maxV))
			}
			t.rows = append(t.rows, append(row, strconv.Itoa(pt.failed+pt.errors)))
		}
		if err := fn(t); err != nil {
			return err
		}
	}
	return nil
}

// fixed lists the parameters every run shares, "name = value".
func fixed(d *data) []string {
	var out []string
	for _, p := range d.params {
		if !p.varies() {
			out = append(out, p.name+" = "+p.values[0])
		}
	}
	return out
}

// totals counts the outcomes of every run.
func totals(d *data) (ok, failed, errs int) {
	for _, pt := range d.points {
		ok, failed, errs = ok+pt.ok, failed+pt.failed, errs+pt.errors
	}
	return
}

// writeSummary writes summary.md as a stream: a table at a time, every
// metric's.
func writeSummary(d *data) error {
	return writeFile(d.dir, SummaryName, func(b *bufio.Writer) error { return summaryText(d, b) })
}

// summaryText writes summary.md's text.
func summaryText(d *data, b *bufio.Writer) error {
	name := d.sweep
	if name == "" {
		name = "sweep"
	}
	ok, failed, errs := totals(d)
	fmt.Fprintf(b, "# Summary of %s\n\n%d runs: %d ok, %d failed, %d error.\n", name, d.runs, ok, failed, errs)
	if f := fixed(d); len(f) > 0 {
		fmt.Fprintf(b, "Fixed parameters: %s.\n", strings.Join(f, ", "))
	}
	if len(d.unread) > 0 {
		fmt.Fprintf(b, "\n**Warning:** %s\n", unreadWarning(d.unread))
	}
	return eachTable(d, d.metric, func(t table) error {
		fmt.Fprintf(b, "\n## %s\n\n", t.title)
		b.WriteString(mdRow(t.header))
		seps := make([]string, len(t.header))
		for i := range seps {
			seps[i] = "---"
		}
		b.WriteString(mdRow(seps))
		for _, r := range t.rows {
			if _, err := b.WriteString(mdRow(r)); err != nil {
				return err
			}
		}
		return nil
	})
}

// mdCell escapes what would break a Markdown table's row.
var mdCell = strings.NewReplacer("|", `\|`, "\r\n", " ", "\n", " ", "\r", " ")

func mdRow(cells []string) string {
	esc := make([]string, len(cells))
	for i, c := range cells {
		esc[i] = mdCell.Replace(c)
	}
	return "| " + strings.Join(esc, " | ") + " |\n"
}

// unreadWarning says that no run read the parameters names.
func unreadWarning(names []string) string {
	return fmt.Sprintf("no run read the parameter%s %s from lab.params, so %s changed nothing: a misspelt name, or a parameter the scenario does not use?",
		map[bool]string{true: "s", false: ""}[len(names) > 1], strings.Join(names, ", "), map[bool]string{true: "they", false: "it"}[len(names) > 1])
}
