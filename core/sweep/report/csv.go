package report

import (
	"bufio"
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
func writeCSV(d *data) (err error) {
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
	f, err := os.Create(filepath.Join(d.dir, CSVName))
	if err != nil {
		return err
	}
	defer func() {
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}()
	b := bufio.NewWriterSize(f, 64<<10)
	w := csv.NewWriter(b)
	if err := w.Write(header); err != nil {
		return err
	}
	var werr error
	if _, err := eachRun(d.dir, func(l results.Line, texts map[string]string, _ map[string]float64) {
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
	if err := w.Error(); err != nil {
		return err
	}
	return b.Flush()
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
