package results

import (
	"errors"
	"fmt"
)

// DuplicateError is a results file holding two lines of one run. A sweep
// appends one line per run, so two lines mean two writers on one folder
// or an edit, and which line is right cannot be told: every reader
// (--resume, merge, report, the final sort) refuses the file with this
// error instead of choosing one, and it says how to repair the file.
type DuplicateError struct {
	Path  string // the results file
	Index int    // the run's index in the sweep
	ID    string // the run's id
	Lines [2]int // the numbers (from 1) of its first two lines
}

func (e *DuplicateError) Error() string {
	return fmt.Sprintf("%s: run %s (index %d) is there twice, on lines %d and %d (two writers on one folder, or an edit?), and proflab does not choose between them: "+
		"delete both lines (sed -i '%dd;%dd' %s) and run the sweep again with --resume (with its --shard, if a shard's), which runs that run again from its seed",
		e.Path, e.ID, e.Index, e.Lines[0], e.Lines[1], e.Lines[0], e.Lines[1], e.Path)
}

// errFound stops a walk that found what it looked for.
var errFound = errors.New("found")

// duplicate is the DuplicateError of the run of index in the results
// file at path, which a reader found there twice: a second walk finds
// the run's first two lines (only when the file is refused, so a valid
// file costs no more than one walk).
func duplicate(path string, index int) error {
	e := &DuplicateError{Path: path, Index: index}
	seen := 0
	_, err := each(path, parseLineHead, func(l Line, _ []byte, _ int64, n int) error {
		if l.Index != index {
			return nil
		}
		e.ID, e.Lines[seen] = l.ID, n
		if seen++; seen == 2 {
			return errFound
		}
		return nil
	})
	if err != nil && !errors.Is(err, errFound) {
		return err
	}
	return e
}

// Duplicate is the DuplicateError of the run of index that a reader of
// the results file at path (merge) found there twice.
func Duplicate(path string, index int) error { return duplicate(path, index) }

// runSet is a set of run indexes below a bound, a bit each.
type runSet []uint64

func newRunSet(n int) runSet { return make(runSet, (n+63)/64) }

// add adds i and reports whether it was there already.
func (s runSet) add(i int) bool {
	w, b := i/64, uint64(1)<<(i%64)
	had := s[w]&b != 0
	s[w] |= b
	return had
}
