package compare

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/proflab/proflab/core/input"
	"github.com/proflab/proflab/core/output"
	"github.com/proflab/proflab/core/workload/importer"
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

// Replays are the sources of the profiles a run imported as its workload
// (a scenario.Result's Imports), each Replayed (the lab's samples are
// drawn from its shares), and why each one that cannot be compared
// cannot (Source.Check), in the imports' order.
func Replays(ims []*importer.Imported) ([]Source, []error) {
	var srcs []Source
	var why []error
	for _, im := range ims {
		src := SourceOf(im)
		src.Replayed = true // the run imported it as its workload
		if err := src.Check(); err != nil {
			why = append(why, err)
			continue
		}
		srcs = append(srcs, src)
	}
	return srcs, why
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

// The bounds of a run folder's files as compare reads them: regular
// files (a FIFO or a device is refused, not waited on or read forever),
// accuracy.csv up to 256 MiB with lines of at most 1 MiB (a profile of a
// million functions has a few hundred MiB; a line is a function's), and
// result.json up to 64 MiB.
var (
	accuracyKind = input.Kind{Name: "accuracy file", Limit: 256 << 20}
	resultKind   = input.Kind{Name: "run result", Limit: 64 << 20}
)

// MaxAccuracyLine is the longest accuracy.csv line ReadRun reads.
const MaxAccuracyLine = 1 << 20

// ReadRun reads a run folder's profiles as accuracy.csv has them (dir
// may also name the accuracy.csv itself), read as proflab reads its
// inputs (a regular file, bounded in size and line length). It is an
// error for the file to be missing, or to list no profile.
func ReadRun(dir string) ([]output.ProfileAccuracy, error) {
	path := accuracyPath(dir)
	f, err := input.Open(accuracyKind, path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%s has no %s: give the folder of a run made with --out (proflab run SCENARIO --out DIR) whose scenario profiled the workload", dir, output.AccuracyFile)
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	profs, err := output.ReadAccuracy(path, input.BoundLines(f, MaxAccuracyLine))
	if err != nil {
		return nil, err
	}
	if len(profs) == 0 {
		return nil, fmt.Errorf("%s has no profile (a header alone): the run's scenario sampled nothing with --out, so there is nothing to compare; profile the workload's images in the scenario (profile.create_and_start) and run it again with --out", path)
	}
	return profs, nil
}

// accuracyPath is the accuracy.csv of dir, a run folder or the file.
func accuracyPath(dir string) string {
	if fi, err := os.Stat(dir); err == nil && fi.IsDir() {
		return filepath.Join(dir, output.AccuracyFile)
	}
	return dir
}

// ResultFile is the run's result, beside accuracy.csv.
const ResultFile = "result.json"

// ReadInputs reads the sha256 of every input the run of dir (a run folder
// or its accuracy.csv) read, from the "inputs" of its result.json: the
// values, however many a path has. A folder without result.json (a copy
// of accuracy.csv alone) has none; an unreadable one is an error.
func ReadInputs(dir string) (map[string]bool, error) {
	path := filepath.Join(filepath.Dir(accuracyPath(dir)), ResultFile)
	b, err := input.ReadFile(resultKind, path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var r struct {
		Inputs any `json:"inputs"`
	}
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("%s: not a run's result (%v): give the folder of a run made with --out", path, err)
	}
	sums := map[string]bool{}
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case string:
			sums[strings.ToLower(v)] = true
		case []any:
			for _, x := range v {
				walk(x)
			}
		case map[string]any:
			for _, x := range v {
				walk(x)
			}
		}
	}
	walk(r.Inputs)
	return sums, nil
}
