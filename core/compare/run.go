package compare

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/proflab/proflab/core/output"
)

// All compares each source with each lab profile it shares functions
// with (the pairs with none in common are left out: a profile of another
// range, or of another workload), sources first.
func All(srcs []Source, labs []output.ProfileAccuracy) []Comparison {
	var out []Comparison
	for _, s := range srcs {
		for _, l := range labs {
			c, err := Compare(s, l)
			if err != nil {
				continue
			}
			out = append(out, c)
		}
	}
	return out
}

// TextRows is how many functions comparison.txt lists before the ones
// that differ.
const TextRows = 20

// WriteFiles writes comparison.txt and comparison.csv into dir and
// returns their names; nothing when there is no comparison.
func WriteFiles(dir string, cs []Comparison) ([]string, error) {
	if len(cs) == 0 {
		return nil, nil
	}
	var text, table bytes.Buffer
	err := errors.Join(WriteText(&text, cs, TextRows), WriteCSV(&table, cs))
	if err == nil {
		err = os.WriteFile(filepath.Join(dir, TextFile), text.Bytes(), 0o644)
	}
	if err == nil {
		err = os.WriteFile(filepath.Join(dir, CSVFile), table.Bytes(), 0o644)
	}
	if err != nil {
		return nil, fmt.Errorf("cannot write the comparison with the source: %w", err)
	}
	return []string{TextFile, CSVFile}, nil
}

// ReadRun reads a run folder's profiles as accuracy.csv has them (dir
// may also name the accuracy.csv itself).
func ReadRun(dir string) ([]output.ProfileAccuracy, error) {
	path := dir
	if fi, err := os.Stat(dir); err == nil && fi.IsDir() {
		path = filepath.Join(dir, output.AccuracyFile)
	}
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("%s has no %s: give the folder of a run made with --out (proflab run SCENARIO --out DIR) whose scenario profiled the workload", dir, output.AccuracyFile)
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return output.ReadAccuracy(path, f)
}
