package report

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/proflab/proflab/core/sweep/results"
)

// ErrSpecs marks a report written without some of the sweep file's
// [units] or [[plot]] entries: they name nothing the runs recorded, or
// ask for a plot the values cannot have (a log axis over a mean of 0).
var ErrSpecs = errors.New("the reports were written without them")

// Write reads dir's results.jsonl and writes results.csv, summary.md, the
// plots and report.html beside it. It returns what the reports left out
// to stay bounded (plots past the defaults' limit, tables the page does
// not show), a sentence each, which report.html says too: for the
// terminal. A [units] or [[plot]] entry of the sweep file that names no
// parameter or metric of the runs, or a plot that cannot be drawn, is
// left out, and Write then returns an error (wrapping ErrSpecs) naming
// each at its line, after writing the rest.
func Write(dir string) ([]string, error) { return WriteWith(dir, Options{}) }

// Options tune WriteWith.
type Options struct {
	// Runs are the sweep's runs, which every line of results.jsonl must
	// be one of (results.Validate: its index in range, its id, params and
	// seed those of that index); nil: any index of 0 or more.
	Runs results.Runs
}

// WriteWith is Write, holding results.jsonl's lines to opt.Runs: a line
// that is not a run of the sweep is an error naming its line, and no
// report is written.
func WriteWith(dir string, opt Options) ([]string, error) {
	d, err := load(dir, opt.Runs)
	if err != nil {
		return nil, err
	}
	specErrs := d.checkSpecs()
	if err := writeCSV(d); err != nil {
		return nil, err
	}
	if err := writeSummary(d); err != nil {
		return nil, err
	}
	figs, c, undrawn, err := writePlots(d)
	if err != nil {
		return nil, err
	}
	specErrs = append(specErrs, undrawn...)
	left := leftOut(d, figs, c)
	if err := writeHTML(d, figs, c, left); err != nil {
		return nil, err
	}
	if len(specErrs) > 0 {
		file := d.sweepPath
		if file == "" {
			file = "FILE"
		}
		return left, fmt.Errorf("%s\n%w; correct the sweep file, then: proflab report %s --sweep %s", strings.Join(specErrs, "\n"), ErrSpecs, dir, file)
	}
	return left, nil
}

// writeFile creates the report's file name in dir and writes it through
// a buffer with write; it is flushed and closed, and the first error of
// the three is returned.
func writeFile(dir, name string, write func(b *bufio.Writer) error) (err error) {
	f, err := os.Create(filepath.Join(dir, name))
	if err != nil {
		return err
	}
	defer func() {
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}()
	b := bufio.NewWriterSize(f, 64<<10)
	if err := write(b); err != nil {
		return err
	}
	return b.Flush()
}
