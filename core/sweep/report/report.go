package report

// Write reads dir's results.jsonl and writes results.csv, summary.md, the
// plots and report.html beside it.
func Write(dir string) error {
	d, err := load(dir)
	if err != nil {
		return err
	}
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
	return writeHTML(d, figs)
}
