package report

import (
	"encoding/csv"
	"os"
	"path/filepath"
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
	metricSet := map[string]bool{}
	for _, r := range d.runs {
		for k := range r.metrics {
			metricSet[k] = true
		}
	}
	metrics := sortedKeys(metricSet)
	for _, m := range metrics {
		if pnames[m] {
			m = "metric." + m
		}
		header = append(header, m)
	}
	header = append(header, "error")
	rows := [][]string{header}
	for _, r := range d.runs {
		l := r.line
		row := []string{strconv.Itoa(l.Index), l.ID, strconv.Itoa(l.Repeat), strconv.FormatUint(l.Seed, 10), string(l.Status)}
		for _, p := range d.params {
			row = append(row, text(l.Params[p.name]))
		}
		for _, m := range metrics {
			row = append(row, r.metrics[m])
		}
		row = append(row, errorText(l))
		rows = append(rows, row)
	}
	f, err := os.Create(filepath.Join(d.dir, CSVName))
	if err != nil {
		return err
	}
	w := csv.NewWriter(f)
	if err := w.WriteAll(rows); err != nil {
		f.Close()
		return err
	}
	return f.Close()
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
