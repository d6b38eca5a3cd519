package report

import (
	"errors"
	"fmt"
)

// ErrSpecs marks a report written without some of the sweep file's
// [units] or [[plot]] entries, which name nothing the runs recorded.
var ErrSpecs = errors.New("the reports were written without them")

// Write reads dir's results.jsonl and writes results.csv, summary.md, the
// plots and report.html beside it. A [units] or [[plot]] entry of the
// sweep file that names no parameter or metric of the runs is left out,
// and Write then returns an error (wrapping ErrSpecs) naming each at its
// line, after writing the rest.
func Write(dir string) error {
	d, err := load(dir)
	if err != nil {
		return err
	}
	specErr := d.checkSpecs()
	if err := writeCSV(d); err != nil {
		return err
	}
	if err := writeSummary(d); err != nil {
		return err
	}
	figs, err := writePlots(d)
	if err != nil {
		return err
	}
	if err := writeHTML(d, figs); err != nil {
		return err
	}
	if specErr != nil {
		file := d.sweepPath
		if file == "" {
			file = "FILE"
		}
		return fmt.Errorf("%w\n%w; correct the sweep file, then: proflab report %s --sweep %s", specErr, ErrSpecs, dir, file)
	}
	return nil
}
