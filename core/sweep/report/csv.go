package report

import (
	"bufio"
	"encoding/csv"
	"strconv"

	"github.com/proflab/proflab/core/sweep/results"
)

// CSVName is the flattened results table.
const CSVName = "results.csv"

// writeCSV writes one row per run: index, id, repeat, seed, status, every
// parameter, every metric (nested tables flattened as a.b, a metric named
// like a parameter prefixed "metric."), and the error message.
func writeCSV(d *data) error {
	pnames := map[string]bool{}
	header := []string{"index", "id", "repeat", "seed", "status"}
	for _, p := range d.params {
		header = append(header, p.name)
		pnames[p.name] = true
	}
	for _, m := range d.columns {
		if pnames[m] {
			m = "metric." + m
		}
		header = append(header, m)
	}
	header = append(header, "error")
	return writeFile(d.dir, CSVName, func(b *bufio.Writer) error { return writeRows(d, csv.NewWriter(b), header) })
}

// writeRows writes results.csv's header and a row per run.
func writeRows(d *data, w *csv.Writer, header []string) error {
	if err := w.Write(header); err != nil {
		return err
	}
	var werr error
	if _, err := eachRun(d.dir, d.expect, func(l results.Line, texts map[string]string, _ map[string]float64) {
		row := []string{strconv.Itoa(l.Index), l.ID, strconv.Itoa(l.Repeat), strconv.FormatUint(l.Seed, 10), string(l.Status)}
		for _, p := range d.params {
			row = append(row, text(l.Params[p.name]))
		}
		for _, m := range d.columns {
			row = append(row, texts[m])
		}
		row = append(row, errorText(l))
		if werr == nil {
			werr = w.Write(row)
		}
	}); err != nil {
		return err
	}
	if werr != nil {
		return werr
	}
	w.Flush()
	return w.Error()
}

// errorText is a run's error, or its first failed check.
func errorText(l results.Line) string {
	if l.Error != nil {
		return l.Error.Kind + ": " + l.Error.Message
	}
	for _, c := range l.Checks {
		if !c.Passed {
			return "check failed: " + c.Where + ": " + c.Message
		}
	}
	return ""
}
