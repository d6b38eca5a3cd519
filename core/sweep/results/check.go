package results

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// Expected is what a sweep's plan computes for the run of one index: the
// id, parameters and seed its line must have.
type Expected struct {
	ID     string
	Params map[string]any
	Seed   uint64
}

// Runs are the runs a results file may hold: Len of them, with indexes
// 0…Len−1, each computed from its index by the sweep's plan.
type Runs interface {
	// Len is the number of runs of the sweep.
	Len() int
	// Expect is the run of index (0 ≤ index < Len); false when what it
	// is cannot be known (a folder written before sweep.json recorded its
	// plan): then only the index is checked.
	Expect(index int) (Expected, bool)
}

// RunCount is Runs known only by their number: lines are held to their
// index alone.
type RunCount int

// Len implements Runs.
func (n RunCount) Len() int { return int(n) }

// Expect implements Runs: nothing is known but the number.
func (RunCount) Expect(int) (Expected, bool) { return Expected{}, false }

// Validate is the one test every reader of a results file (report, sweep
// --resume and --retry-failed, sweep merge) puts a line to: its index is
// one of runs', and its id, params and seed are those the plan computes
// for that index. A line that fails it is not a run of this sweep (an
// edit, another sweep's line pasted in), and publishing it, resuming
// past it or merging it would put a result where the sweep has none.
// The error says what differs; the reader adds the file and line.
func Validate(runs Runs, l Line) error {
	if runs == nil {
		if l.Index < 0 {
			return fmt.Errorf("run %s has the index %d, below 0", l.ID, l.Index)
		}
		return nil
	}
	if l.Index < 0 || l.Index >= runs.Len() {
		return fmt.Errorf("run %s has the index %d, and this sweep's %d runs are 0…%d", l.ID, l.Index, runs.Len(), runs.Len()-1)
	}
	want, known := runs.Expect(l.Index)
	if !known {
		return nil
	}
	switch {
	case l.ID != want.ID:
		return fmt.Errorf("run %d has the id %s, but this sweep's run %d is %s (params %s)", l.Index, l.ID, l.Index, want.ID, canonical(want.Params))
	case !bytes.Equal(canonical(l.Params), canonical(want.Params)):
		return fmt.Errorf("run %d (%s) has the params %s, but this sweep's run %d has %s", l.Index, l.ID, canonical(l.Params), l.Index, canonical(want.Params))
	case l.Seed != want.Seed:
		return fmt.Errorf("run %d (%s) has the seed %d, but this sweep's run %d has %d", l.Index, l.ID, l.Seed, l.Index, want.Seed)
	}
	return nil
}

// canonical is params as JSON with sorted keys: a line's numbers (read
// as json.Number) and the plan's (int64, float64) compare by their text,
// which is how the run's id hashes them.
func canonical(params map[string]any) []byte {
	if params == nil {
		params = map[string]any{}
	}
	b, err := json.Marshal(sanitize(params))
	if err != nil {
		return []byte(fmt.Sprint(params))
	}
	return b
}

// notARun is a line Validate refused, at its file and line.
func notARun(path string, n int, err error) error {
	return fmt.Errorf("%s:%d: %w: the line is not a run of this sweep (an edit, or another sweep's line?); "+
		"delete it (sed -i '%dd' %s) and run the sweep again with --resume (with its --shard, if a shard's), which runs the run of that index from its seed",
		path, n, err, n, path)
}

// EachRun is Each that holds every line to runs with Validate before fn
// sees it: a line that is not a run of the sweep is an error naming the
// file and line.
func EachRun(path string, runs Runs, fn func(l Line, raw []byte, offset int64) error) (torn bool, err error) {
	return each(path, Parse, func(l Line, raw []byte, at int64, n int) error {
		if err := Validate(runs, l); err != nil {
			return notARun(path, n, err)
		}
		return fn(l, raw, at)
	})
}

// checkRun holds the line raw, line n of the results file at path, to
// runs as EachRun does, with its errors, and returns it without its
// params and metrics (parseHead): a line that is the plan's run as the
// sweep wrote it is checked without decoding either (validateHead).
func checkRun(path string, runs Runs, raw []byte, n int) (Line, error) {
	l, params, err := parseHead(raw)
	if err != nil {
		return Line{}, notAResult(path, n, err)
	}
	if err := validateHead(runs, l, params, raw); err != nil {
		return Line{}, notARun(path, n, err)
	}
	return l, nil
}

// validateHead is Validate for the line raw, of which parseHead gave l
// and params. A line whose id and seed are the plan's, and whose params
// are the very text canonical writes for the plan's (as Line.Marshal
// wrote them), passes without its params being decoded: canonical text
// decodes and renders again to itself, so Validate would pass it too.
// Any other line is decoded whole and put to Validate, which says what
// differs.
func validateHead(runs Runs, l Line, params, raw []byte) error {
	if runs != nil && l.Index >= 0 && l.Index < runs.Len() {
		want, known := runs.Expect(l.Index)
		if !known || l.ID == want.ID && l.Seed == want.Seed && bytes.Equal(params, canonical(want.Params)) {
			return nil
		}
	}
	full, err := Parse(raw)
	if err != nil {
		return err // parseHead accepted it, and so does Parse
	}
	return Validate(runs, full)
}
